# The local provider through the CLI: create, exec (exit codes, streams, timeouts, stdin-free
# commands, env/cwd/user), spec files, status, events, and rm leaving no trace behind.
. "$(dirname "$0")/../lib.sh"

run "$SANDMAN" create -e GREETING=hello -w /workspace --label team=evals --file /workspace/notes.txt="$SRC/tests/integration/data/notes.txt"
expect_eq "create exits 0" 0 "$RC"
ID=$OUT
expect_match "create prints a 12-hex id" '^[0-9a-f]{12}$' "$ID"

run "$SANDMAN" exec "$ID" -- 'echo out; echo err >&2; exit 7'
expect_eq "exec returns the command's exit code" 7 "$RC"
expect_eq "stdout passes through" "out" "$OUT"
expect_eq "stderr passes through" "err" "$ERR"

run "$SANDMAN" exec "$ID" -- echo '$GREETING' from '$(pwd)'
expect_eq "words are joined into one shell command; env and workdir apply" "hello from /workspace" "$OUT"

run "$SANDMAN" exec -e GREETING=bye -w /tmp "$ID" -- 'echo $GREETING $(pwd)'
expect_eq "exec -e and -w override the sandbox's env and workdir" "bye /tmp" "$OUT"

run "$SANDMAN" exec -u nobody "$ID" -- id -u
expect_eq "exec -u runs as that user" "65534" "$OUT"
run "$SANDMAN" exec -u no-such-user "$ID" -- id -u
expect_eq "an unknown user is a runtime failure (125)" 125 "$RC"
expect_match "and the message names the user" "no-such-user" "$ERR"

run "$SANDMAN" exec "$ID" -- cat /workspace/notes.txt
expect_eq "spec files are written before create returns" "$(cat "$SRC/tests/integration/data/notes.txt")" "$OUT"

start=$(date +%s.%N)
run timeout 10 "$SANDMAN" exec -n "$ID" -- cat
end=$(date +%s.%N)
expect_eq "with -n a command reading stdin sees EOF at once (whatever stdin the test has)" 0 "$RC"
run timeout 10 "$SANDMAN" exec "$ID" -- cat </dev/null
expect_eq "as with stdin from /dev/null" 0 "$RC"
check "stdin-free command returns quickly" python3 -c "import sys; sys.exit(0 if $end - $start < 2 else 1)"

start=$(date +%s.%N)
run "$SANDMAN" exec --timeout 1 "$ID" -- 'echo started; sleep 30'
end=$(date +%s.%N)
expect_eq "a timed-out command exits 125" 125 "$RC"
expect_match "the timeout is named on stderr" "exec timeout" "$ERR"
check "timeout fires within 1 s of the limit" python3 -c "import sys; d=$end-$start; sys.exit(0 if 1 <= d < 2 else 1)"
run "$SANDMAN" exec "$ID" -- 'ps -eo comm | grep -c "^sleep$"'
expect_eq "the timed-out command was killed inside the sandbox" "0" "$OUT"
run "$SANDMAN" exec --timeout 1 "$ID" -- 'env -i sh -c "setsid sleep 71 & set -m; sleep 72 & wait"'
expect_eq "a command whose children left its session and group times out too" 125 "$RC"
run "$SANDMAN" exec "$ID" -- 'ps -eo comm | grep -c "^sleep$"'
expect_eq "those children (setsid, their own process group) were killed as well" "0" "$OUT"

run "$SANDMAN" exec -o json --timeout 1 "$ID" -- 'sleep 5'
expect_eq "JSON timeout: return_code 125" "125" "$(echo "$OUT" | json 'd["return_code"]')"
expect_eq "JSON timeout: error_type timeout" "timeout" "$(echo "$OUT" | json 'd["error_type"]')"
expect_eq "JSON timeout: failure kind" "exec_timeout" "$(echo "$OUT" | json 'd["failure"]["kind"]')"

run "$SANDMAN" exec -o json "$ID" -- 'printf abc; exit 3'
expect_eq "JSON exec: stdout" "abc" "$(echo "$OUT" | json 'd["stdout"]')"
expect_eq "JSON exec: return_code" "3" "$(echo "$OUT" | json 'd["return_code"]')"
expect_eq "JSON exec: error_type null" "None" "$(echo "$OUT" | json 'd["error_type"]')"
expect_eq "JSON exec: non-zero exit is data with kind exit_nonzero" "exit_nonzero" "$(echo "$OUT" | json 'd["failure"]["kind"]')"

run "$SANDMAN" exec -o json "$ID" -- 'printf "ok \377\376 bad \345\256\275 wide \000 nul"'
expect_eq "JSON output is valid UTF-8 even for binary output (U+FFFD for broken bytes)" \
    "'ok \ufffd\ufffd bad \u5bbd wide \ufffd nul'" "$(echo "$OUT" | json 'ascii(d["stdout"])')"

run "$SANDMAN" status -o json "$ID"
expect_eq "status JSON says running" "running" "$(echo "$OUT" | json 'd["status"]')"
expect_eq "labels carry the spec metadata" "evals" "$(echo "$OUT" | json 'd["labels"]["team"]')"
expect_match "env names are listed without values" '"GREETING"' "$(echo "$OUT" | json 'd["env_names"]')"
expect_no_match "env values never appear in status" 'hello' "$OUT"

run "$SANDMAN" ls -o json
expect_eq "ls JSON lists it with the required fields" "$ID local running host" \
    "$(echo "$OUT" | json '" ".join([d[0][k] for k in ("id","provider","status","image")])')"
check "ls JSON has created_at and labels" sh -c "echo '$OUT' | python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; assert d[\"created_at\"] and d[\"labels\"][\"team\"]==\"evals\"'"

run "$SANDMAN" events "$ID"
expect_match "events record the creation" "lifecycle +created" "$OUT"
expect_match "events record each exec with its exit code" "exit 7 in .*echo out" "$OUT"
expect_match "events record the timeout as a failure" "failure +exec: exec timeout 1s" "$OUT"

# Everything the sandbox had on this host, to check rm removes it all.
DIR=$SANDMAN_STATE_DIR/local/$ID
CGS=$(python3 -c "import json; print(' '.join(v for k,v in json.load(open('$DIR/spec.json'))['cgroups'].items() if k!='version'))")
INIT=$(sed -n 's/^pid=//p' "$DIR/ready")
SUP=$(sed -n 's/^supervisor=//p' "$DIR/ready")
check "the sandbox's processes exist before rm" kill -0 "$INIT" "$SUP"

run "$SANDMAN" rm "${ID:0:6}"
expect_eq "rm accepts a unique id prefix" "$ID" "$OUT"
check "rm removes the state directory" test ! -e "$DIR"
check "rm removes the journal" test ! -e "$SANDMAN_STATE_DIR/journal/local/$ID.jsonl"
gone=1
for cg in $CGS; do [ -e "$cg" ] && gone=0; done
expect_eq "rm removes every cgroup" 1 "$gone"
check "rm ends the init" process_gone "$INIT"
check "rm ends the supervisor" process_gone "$SUP"
run "$SANDMAN" ls -aq
expect_eq "the sandbox is gone from ls -a" "" "$OUT"
run "$SANDMAN" rm "$ID"
expect_eq "rm of a removed sandbox is done already: exit 0, as close is idempotent" 0 "$RC"
expect_match "with a note naming the id" "no sandbox matches '$ID'.*already gone" "$ERR"

finish
