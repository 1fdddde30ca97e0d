# The CLI behaves as ssh and docker users expect: options where docker takes them, stdin passed
# through, idempotent rm, exit codes by DESIGN.md §6, errors as JSON with -o json, failures
# that age, stats in words, provider options that stay with the sandbox.
. "$(dirname "$0")/../lib.sh"

ID=$("$SANDMAN" create)

# ---- options as docker takes them (item 11)
run "$SANDMAN" exec "$ID" -o=json -- echo hi
expect_eq "-o=json after the id works" "hi" "$(printf '%s' "$OUT" | json 'd["stdout"].strip()')"
run "$SANDMAN" exec "$ID" --output json -- echo hi
expect_eq "--output json works" "0" "$(printf '%s' "$OUT" | json 'd["return_code"]')"
run "$SANDMAN" -o=json ls
expect_eq "-o=json before the verb works" "$ID" "$(printf '%s' "$OUT" | json 'd[0]["id"]')"
run "$SANDMAN" exec "$ID" -e SECRET=hunter2-cli-habits -- 'printf %s "$SECRET"'
expect_eq "-e after the id reaches the command" "hunter2-cli-habits" "$OUT"
check "and its value never lands in the journal or the state" \
    sh -c "! grep -rq hunter2-cli-habits '$SANDMAN_STATE_DIR'"
run "$SANDMAN" exec "$ID" -o=yaml -- true
expect_eq "-o=yaml is a usage error" 2 "$RC"
expect_match "naming the format and the allowed ones" "unknown output format 'yaml' \(allowed: json, text\)" "$ERR"

# ---- rm is idempotent, exit codes are consistent (item 13)
GONE=$("$SANDMAN" create)
"$SANDMAN" rm "$GONE" >/dev/null
run "$SANDMAN" rm "$GONE"
expect_eq "rm of an id already gone exits 0" 0 "$RC"
expect_match "with a note saying so" "no sandbox matches '$GONE'.*already gone" "$ERR"
expect_eq "and prints no id (nothing was removed)" "" "$OUT"
run "$SANDMAN" cp /nonexistent-cli-habits "$ID:/tmp/x"
expect_eq "cp of a missing local file exits 2" 2 "$RC"
expect_match "naming the file" "cannot read /nonexistent-cli-habits" "$ERR"
run "$SANDMAN" create --file /tmp/x=/nonexistent-cli-habits
expect_eq "as create --file of a missing local file does" 2 "$RC"
run "$SANDMAN" cp "$ID:" /tmp/x
expect_eq "cp with an empty sandbox path exits 2" 2 "$RC"
expect_match "naming the id exactly (no freed memory)" "^sandman cp: the sandbox path after '$ID:' is empty" "$ERR"
run "$SANDMAN" cp /etc/hostname "$ID:"
expect_match "either way round" "^sandman cp: the sandbox path after '$ID:' is empty" "$ERR"
run "$SANDMAN" exec nosuchid -- true
expect_eq "an id that matches nothing exits 1" 1 "$RC"
run "$SANDMAN" tui --theme nosuch-cli-habits </dev/null
expect_eq "--theme nosuch is bad input: 2" 2 "$RC"
expect_match "naming it" "unknown theme 'nosuch-cli-habits'" "$ERR"

# ---- errors as one JSON object with -o json (item 14)
run "$SANDMAN" exec -o json nosuchid -- true
expect_eq "a JSON error exits as the text one" 1 "$RC"
expect_eq "is one object on stdout with its kind" "not_found" "$(printf '%s' "$OUT" | json 'd["error"]["kind"]')"
expect_match "and its message" "no sandbox matches 'nosuchid'" "$(printf '%s' "$OUT" | json 'd["error"]["message"]')"
expect_eq "and its exit code" 1 "$(printf '%s' "$OUT" | json 'd["error"]["exit_code"]')"
expect_match "the line on stderr stays" "^sandman: no sandbox matches 'nosuchid'" "$ERR"
run "$SANDMAN" create -o json --memory-mib lots
expect_eq "a usage error is JSON too" "usage" "$(printf '%s' "$OUT" | json 'd["error"]["kind"]')"
expect_eq "exiting 2" 2 "$RC"
run "$SANDMAN" rm -o json "$GONE"
expect_eq "rm -o json of a gone id is one document, nothing removed, exit 0" "[] 0" "$(printf '%s' "$OUT" | json 'json.dumps(d["removed"])') $RC"
run "$SANDMAN" rm -o json
expect_eq "rm -o json without an id: one usage error object" "usage" "$(printf '%s' "$OUT" | json 'd["error"]["kind"]')"
run "$SANDMAN" status -o json nosuchid
expect_eq "status -o json of a missing id: the error object" "not_found 1" "$(printf '%s' "$OUT" | json 'd["error"]["kind"]') $RC"
run "$SANDMAN" exec -o json "$ID" -- 'printf "\377ok\376"'
expect_eq "invalid UTF-8 in output decodes lossily to U+FFFD" "$(printf '\357\277\275ok\357\277\275')" \
    "$(printf '%s' "$OUT" | json 'd["stdout"]')"
LBL=$("$SANDMAN" create -l "$(printf 'k=v\377')")
run "$SANDMAN" ls -o json
strict_json() { printf '%s' "$1" | python3 -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))'; }
check "a label with invalid UTF-8 still gives valid UTF-8 JSON" strict_json "$OUT"
expect_eq "with U+FFFD for the broken byte" "$(printf 'v\357\277\275')" \
    "$(printf '%s' "$OUT" | json "[s for s in d if s['id']=='$LBL'][0]['labels']['k']")"

# ---- stdin passes through as with ssh and docker exec -i (item 10)
seq 100 | "$SANDMAN" exec "$ID" -- 'cat > /tmp/lines'
run "$SANDMAN" exec "$ID" -- 'wc -l < /tmp/lines; tail -1 /tmp/lines'
expect_eq "seq 100 | exec -- 'cat > f' writes the 100 lines" "100 100" "$(printf '%s' "$OUT" | tr '\n' ' ')"
run sh -c "seq 300000 | '$SANDMAN' exec '$ID' -- 'md5sum'"
expect_eq "a large input arrives whole and in order" "$(seq 300000 | md5sum)" "$OUT"
run sh -c "seq 3 | '$SANDMAN' exec -o json '$ID' -- 'wc -l'"
expect_eq "with -o json too" "3" "$(printf '%s' "$OUT" | json 'd["stdout"].strip()')"
run sh -c "seq 3 | '$SANDMAN' exec -n '$ID' -- 'wc -l'"
expect_eq "-n/--no-stdin: the command reads end of file" "0" "$OUT"
run sh -c "seq 3 | '$SANDMAN' exec '$ID' --no-stdin -- 'wc -l'"
expect_eq "--no-stdin after the id too" "0" "$OUT"
run sh -c "'$SANDMAN' exec '$ID' -- 'wc -c' <&-"
expect_eq "a closed stdin reads as empty" "0" "$OUT"
run timeout 60 sh -c "yes | '$SANDMAN' exec '$ID' -- 'head -2'"
expect_eq "a command that stops reading ends the relay (no hang on endless input)" "y y " "$(printf '%s\n' "$OUT" | tr '\n' ' ')"
expect_eq "and exits with the command's status" 0 "$RC"
run timeout 60 bash -c "'$SANDMAN' exec '$ID' -- 'exit 4' < <(sleep 600)"
expect_eq "a command that never reads returns at once, with its status" 4 "$RC"
run timeout 60 script -qec "'$SANDMAN' exec '$ID' -- 'cat; echo read-done'" /dev/null
expect_match "from a terminal without -i, the command reads end of file (no hang)" "read-done" "$OUT"
run "$SANDMAN" exec "$ID" --interactive=yes -- true
expect_eq "--interactive takes no value" 2 "$RC"
expect_match "saying so" "option --interactive=yes takes no value" "$ERR"

# ---- failures age, status shows the last one, a TTL is a TTL, stats in words (item 15)
F=$("$SANDMAN" create)
"$SANDMAN" exec "$F" -- 'exit 3'
run "$SANDMAN" ls
expect_match "ls shows a failing command" "^${F:0:12} .* exit 3$" "$OUT"
"$SANDMAN" exec "$F" -- true
"$SANDMAN" exec "$F" -- true
run "$SANDMAN" ls
expect_match "once later commands succeed, the FAILURE column says how old it is" "^${F:0:12} .* exit 3, 2 commands ago$" "$OUT"
run "$SANDMAN" ls -o json
expect_eq "so does last_failure" "2" "$(printf '%s' "$OUT" | json "[s for s in d if s['id']=='$F'][0]['last_failure']['commands_since']")"
run "$SANDMAN" status "$F"
expect_match "status shows the last failure" "^last failure: exit 3, 2 commands ago: exit code 3$" "$OUT"
run "$SANDMAN" status -o json "$F"
expect_eq "in JSON too" "exit_nonzero 2" "$(printf '%s' "$OUT" | json 'd["last_failure"]["kind"] + " " + str(d["last_failure"]["commands_since"])')"
"$SANDMAN" exec "$F" -- 'exit 4'
run "$SANDMAN" ls
expect_match "a new failure is the current one again" "^${F:0:12} .* exit 4$" "$OUT"

T=$("$SANDMAN" create --ttl 1)
run "$SANDMAN" exec -o json "$T" -- 'sleep 30'
expect_eq "a TTL that ends a running exec is ttl_expired" "ttl_expired" "$(printf '%s' "$OUT" | json 'd["failure"]["kind"]')"
expect_eq "of the exec" "exec" "$(printf '%s' "$OUT" | json 'd["failure"]["operation"]')"
T=$("$SANDMAN" create --ttl 1)
run "$SANDMAN" exec "$T" -- 'sleep 30'
expect_eq "exiting 125" 125 "$RC"
expect_match "saying the TTL ended it, not a sandbox error" "ended while the command ran: TTL expired \(the sandbox reached its ttl_s of 1 s\)" "$ERR"

C=$("$SANDMAN" create --cpu 0.5)
run "$SANDMAN" stats "$C"
expect_match "stats says the CPU rate is of one core, and the quota in cores" "^cpu: +[0-9.]+ % of one core \(quota 0.5 cores\)" "$OUT"
expect_match "and the OOM count it knows, 0 too" "^oom kills: +0$" "$OUT"
run "$SANDMAN" stats "$ID"
expect_match "a sandbox without a quota says so" "^cpu: +[0-9.]+ % of one core \(no quota\)" "$OUT"

# ---- provider options stay with the sandbox (item 16)
cat >"$SANDMAN_STATE_DIR/short.yaml" <<EOF
short:
  local:
    default_timeout_s: 2
bad:
  local:
    default_timeout_s: -1
EOF
Q=$("$SANDMAN" -c "$SANDMAN_STATE_DIR/short.yaml" -p short create)
check "create in a context with default_timeout_s: 2" test -n "$Q"
run timeout 60 "$SANDMAN" exec "$Q" -- 'sleep 20'
expect_eq "a later exec without -c/-p times out at the sandbox's 2 s" 125 "$RC"
expect_match "saying so" "exec timeout 2s" "$ERR"
run "$SANDMAN" exec --timeout 5 "$Q" -- 'sleep 3; echo slept'
expect_eq "--timeout still overrides it" "slept" "$OUT"
run "$SANDMAN" exec "$ID" -- 'sleep 3; echo slept'
expect_eq "and a sandbox made without it keeps the default" "slept" "$OUT"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/short.yaml" -p bad create
expect_eq "a bad default_timeout_s is refused at create" 2 "$RC"
expect_match "naming it and what is allowed" "default_timeout_s must be positive, up to 604800 seconds" "$ERR"

finish
