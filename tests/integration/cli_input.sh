# Bad input gets one clear line naming what was wrong (exit 2 for usage, 1 for other errors),
# and NeMo Gym style config files pick the provider context.
. "$(dirname "$0")/../lib.sh"

one_line() { [ "$(printf '%s\n' "$1" | wc -l)" -eq 1 ]; }

run "$SANDMAN" frobnicate
expect_eq "unknown command exits 2" 2 "$RC"
expect_match "and names it" "unknown command 'frobnicate'" "$ERR"

run "$SANDMAN" create --port 70000
expect_eq "a port out of range exits 2" 2 "$RC"
expect_match "naming the port and the allowed range" "port 70000 is out of range \(allowed: 1..65535\)" "$ERR"
check "in one line" one_line "$ERR"
run "$SANDMAN" create --port 8080 --port 8080
expect_match "a duplicate port is refused" "port 8080 is listed twice" "$ERR"
run "$SANDMAN" create --port http
expect_match "a non-numeric port is refused" "port 'http' is not a number" "$ERR"
run "$SANDMAN" create --memory-mib lots
expect_eq "a bad memory value exits 2" 2 "$RC"
expect_match "naming the flag" "--memory-mib wants a positive integer, not 'lots'" "$ERR"
run "$SANDMAN" create --memory-mib 17592186044417
expect_eq "a memory size past 16 TiB exits 2 (it would wrap to a 1 MiB limit)" 2 "$RC"
expect_match "naming the allowed range" "resources.memory_mib 17592186044417 is too large \(allowed: 6..16777216 MiB, 16 TiB\)" "$ERR"
run "$SANDMAN" create --ttl 1e300
expect_eq "a TTL past 10 years exits 2" 2 "$RC"
expect_match "naming the allowed range" "ttl_s 1e\+300 is too large \(allowed: up to 315360000 seconds, 10 years\)" "$ERR"
check "in one line" one_line "$ERR"
run "$SANDMAN" exec --timeout 1e10 nosuch -- true
expect_eq "an exec timeout past a week exits 2" 2 "$RC"
expect_match "naming the allowed range" "--timeout wants a positive number of seconds up to 604800 \(1 week\)" "$ERR"
run "$SANDMAN" create --bogus
expect_match "an unknown flag is named" "unknown option --bogus" "$ERR"
run "$SANDMAN" create --image python:3.12
expect_eq "an image the local provider cannot run exits 2" 2 "$RC"
expect_match "saying what is allowed" "runs image 'host' or 'dir:/path/to/rootfs', not 'python:3.12'" "$ERR"
run "$SANDMAN" create -w /home/nonexistent/deep
expect_eq "a workdir that cannot exist on the read-only host root fails" 1 "$RC"
expect_match "and says why" "read-only host root" "$ERR"
run "$SANDMAN" ls -aq
expect_eq "a failed create leaves nothing behind" "" "$OUT"

run "$SANDMAN" create -e =x
expect_eq "an env argument without a name exits 2" 2 "$RC"
expect_match "saying both forms" "--env wants KEY=VALUE, or KEY to pass the value of KEY" "$ERR"
printf 'A=1\nAPI KEY=s3cr3t-value\n' >"$SANDMAN_STATE_DIR/ws.env"
run "$SANDMAN" create --env-file "$SANDMAN_STATE_DIR/ws.env"
expect_eq "an env file line with a space in the name exits 2" 2 "$RC"
expect_match "naming file and line" "ws.env:2: the variable name contains whitespace" "$ERR"
expect_no_match "without quoting the value" "s3cr3t" "$ERR"
check "in one line" one_line "$ERR"
printf 'A=1\0B=2\n' >"$SANDMAN_STATE_DIR/nul.env"
run "$SANDMAN" exec --env-file "$SANDMAN_STATE_DIR/nul.env" nosuch -- true
expect_match "an env file with NUL bytes is refused" "nul.env: holds NUL bytes" "$ERR"
run "$SANDMAN" create --env-file /dev/zero
expect_match "an endless env file is cut at 1 MiB" "larger than 1 MiB" "$ERR"

run "$SANDMAN" exec
expect_eq "exec without an id exits 2" 2 "$RC"
run "$SANDMAN" exec abcdef123456 -- true
expect_eq "exec on a missing id exits 1" 1 "$RC"
expect_match "saying no sandbox matches" "no sandbox matches 'abcdef123456'" "$ERR"
run "$SANDMAN" status
expect_match "status without an id says so" "missing sandbox id" "$ERR"
run "$SANDMAN" cp a b
expect_match "cp with no sandbox side is refused" "one of SRC and DST must be ID:PATH" "$ERR"

# An id prefix matching two sandboxes: 17 ids guarantee two share a first hex digit.
for i in $(seq 17); do "$SANDMAN" create >/dev/null; done
DUP=$("$SANDMAN" ls -q | cut -c1 | sort | uniq -d | head -1)
run "$SANDMAN" exec "$DUP" -- true
expect_eq "an ambiguous id prefix exits 1, as one that matches nothing" 1 "$RC"
expect_match "listing the candidates" "id prefix '$DUP' matches [0-9]+ sandboxes \($DUP" "$ERR"
"$SANDMAN" rm $("$SANDMAN" ls -q) >/dev/null

# Options go anywhere before "--" (or before the command's first word), also after the id.
ID=$("$SANDMAN" create)
run "$SANDMAN" exec "$ID" --timeout 1 -- 'sleep 5'
expect_eq "exec ID --timeout 1 -- CMD times out (125), --timeout is not the command" 125 "$RC"
expect_match "saying so" "exec timeout" "$ERR"
run "$SANDMAN" exec "$ID" -u nobody -- id -un
expect_eq "exec ID -u nobody -- id runs as nobody" "nobody" "$OUT"
run "$SANDMAN" exec "$ID" -e GREETING=hi -w /tmp -- 'echo $GREETING $(pwd)'
expect_eq "-e and -w after the id apply" "hi /tmp" "$OUT"
run "$SANDMAN" exec "$ID" printf '%s' -x
expect_eq "without --, the command's first word ends sandman's options" "-x" "$OUT"
run "$SANDMAN" exec "$ID" -- echo --timeout 2
expect_eq "words after -- are the command's, options or not" "--timeout 2" "$OUT"
run "$SANDMAN" status "$ID" -o json
expect_eq "a common option after the id" "running" "$(echo "$OUT" | json 'd["status"]')"
run "$SANDMAN" exec "$ID" --bogus -- true
expect_match "an unknown option after the id is still named" "unknown option --bogus" "$ERR"
run "$SANDMAN" exec "$ID"
expect_eq "exec without a command exits 2" 2 "$RC"
expect_match "saying what is missing" "missing command \(sandman exec ID" "$ERR"
run "$SANDMAN" status "$ID" extra
expect_match "a word too many is named" "unexpected argument 'extra'" "$ERR"

# Generated --help: the usage line, the summary, every declared option with its value's name
# and help, then the common options.
run "$SANDMAN" exec --help
expect_eq "exec --help exits 0" 0 "$RC"
expect_match "with the usage line" "^usage: sandman exec ID \[options\] -- CMD\.\.\." "$OUT"
expect_match "each option with its value's name and help" \
    "-t, --timeout S +kill the command after S seconds \(default 180\); exit 125" "$OUT"
expect_match "a long option without a short one" "      --env-file F +KEY=VALUE lines" "$OUT"
check "continued help lines line up under the help column" python3 -c "
import sys; lines = sys.argv[1].splitlines()
t = next(l for l in lines if '--timeout' in l); c = next(l for l in lines if \"sandman's environment\" in l)
sys.exit(0 if t.index('kill') == len(c) - len(c.lstrip()) > 0 else 1)" "$OUT"
expect_match "then the common options" "^common options:$" "$OUT"
expect_match "each with its help" "^  -o, --output FORMAT +text \(default\) or json$" "$OUT"
run "$SANDMAN" shell --help
expect_match "shell --help shows create's options under their own heading" "^create options \(with --new" "$OUT"
expect_match "all of them" "^  -m, --memory-mib N +memory limit in MiB" "$OUT"
expect_no_match "but not --entrypoint, which a shell refuses" "entrypoint" "$OUT"
run "$SANDMAN" shell --new --entrypoint sleep
expect_eq "shell --new --entrypoint exits 2" 2 "$RC"
expect_match "saying it is create's" "--entrypoint is for create" "$ERR"
run "$SANDMAN" demo --help
expect_no_match "internal options stay out of --help" "--driver|--ready-fd" "$OUT"
for verb in $("$SANDMAN" --help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
    run "$SANDMAN" "$verb" --help
    check "'$verb --help' exits 0 with its usage line" \
        sh -c "[ $RC -eq 0 ] && printf '%s' \"\$1\" | head -1 | grep -q '^usage: sandman $verb'" _ "$OUT"
done
run "$SANDMAN" exec "$ID" --help -- true
expect_match "--help after the id shows the help, running nothing" "^usage: sandman exec" "$OUT"

# pause/resume need the pause capability; the local provider says it has none.
run "$SANDMAN" pause "$ID"
expect_eq "pause on the local provider exits 1" 1 "$RC"
expect_match "saying the provider cannot" "provider 'local' does not support pause" "$ERR"
check "in one line" one_line "$ERR"
run "$SANDMAN" resume "$ID"
expect_match "resume too" "provider 'local' does not support resume" "$ERR"
run "$SANDMAN" exec "$ID" -- echo still
expect_eq "and the sandbox runs on" "still" "$OUT"

# A full id goes straight to the sandbox; only a prefix lists them all. Another record
# whose spec is a FIFO would block any listing (reading it waits for a writer): exec, cp and
# status of a full id never touch it.
BROKEN=$SANDMAN_STATE_DIR/local/aaaaaaaaaaaa
mkdir -p "$BROKEN" && mkfifo "$BROKEN/spec.json"
run timeout 20 "$SANDMAN" exec "$ID" -- echo direct
expect_eq "exec of a full id does not list the others" "0 direct" "$RC $OUT"
run timeout 20 "$SANDMAN" status "$ID"
expect_eq "nor does status" 0 "$RC"
echo hello >"$SANDMAN_STATE_DIR/up.txt"
run timeout 20 "$SANDMAN" cp "$SANDMAN_STATE_DIR/up.txt" "$ID:/tmp/up.txt"
expect_eq "nor cp" 0 "$RC"
rm -rf "$BROKEN"
run "$SANDMAN" exec "${ID:0:8}" -- echo prefix
expect_eq "a prefix still resolves (through the list)" "prefix" "$OUT"
"$SANDMAN" rm "$ID" >/dev/null

# Config files
printf 'sandbox:\n  local: {network: none\n' >"$SANDMAN_STATE_DIR/broken.yaml"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/broken.yaml" ls
expect_eq "malformed YAML exits 2" 2 "$RC"
expect_match "with file, line and column" "broken.yaml:[0-9]+:[0-9]+: " "$ERR"
check "in one line" one_line "$ERR"

printf 'sandbox:\n  local:\n    netwrk: none\n' >"$SANDMAN_STATE_DIR/typo.yaml"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/typo.yaml" ls
expect_eq "an unknown provider key exits 2" 2 "$RC"
expect_match "naming the key and the allowed ones" "unknown key 'netwrk' in local config \\(allowed: ([a-z_]+, )*network, ([a-z_]+, )*workdir\\)" "$ERR"

printf 'sandbox:\n  local: {}\n  docker: {}\n' >"$SANDMAN_STATE_DIR/two.yaml"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/two.yaml" ls
expect_match "a block with two provider keys is refused" "block 'sandbox' holds 2 provider keys" "$ERR"

run "$SANDMAN" -c "$SANDMAN_STATE_DIR/none.yaml" ls
expect_match "a missing config file is named" "none.yaml" "$ERR"
run "$SANDMAN" -p nowhere ls
expect_eq "an unknown context exits 2" 2 "$RC"
expect_match "listing what exists" "unknown provider context 'nowhere' \(blocks: none; providers: .*local" "$ERR"

# A NeMo Gym style file: named block, default_metadata, ${oc.env:...} interpolation.
cat >"$SANDMAN_STATE_DIR/gym.yaml" <<'YAML'
sandbox_provider: agents
agents:
  local:
    workdir: ${oc.env:AGENT_WORKDIR,/workspace}
    default_timeout_s: 60
  default_metadata:
    team: ${oc.env:TEAM_NAME}
    sandbox-api: local
YAML
run env TEAM_NAME=rl-evals "$SANDMAN" -c "$SANDMAN_STATE_DIR/gym.yaml" create
expect_eq "create in a context from a NeMo Gym style file" 0 "$RC"
G=$OUT
run "$SANDMAN" status -o json "$G"
expect_eq "default_metadata becomes labels (with env interpolation)" "rl-evals local" "$(echo "$OUT" | json 'd["labels"]["team"]+" "+d["labels"]["sandbox-api"]')"
expect_eq "provider options apply (workdir default)" "/workspace" "$(echo "$OUT" | json 'd["workdir"]')"
expect_match "attribution labels are added" "nemo-gym.nvidia.com/run" "$OUT"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/gym.yaml" create
expect_eq "an unset variable without default is an error" 2 "$RC"
expect_match "naming the variable" "TEAM_NAME is not set" "$ERR"

# spec.files carries text: a file with NUL bytes is refused, never cut short at the first NUL.
printf 'head\0tail' >"$SANDMAN_STATE_DIR/blob.bin"
BEFORE=$("$SANDMAN" ls -aq | wc -l)
run "$SANDMAN" create --file /tmp/blob.bin="$SANDMAN_STATE_DIR/blob.bin"
expect_eq "a binary --file exits 2" 2 "$RC"
expect_match "saying spec files are text and pointing at cp" "blob.bin holds NUL bytes; spec files are text \(copy binary files with 'sandman cp .*blob.bin ID:/tmp/blob.bin' after create\)" "$ERR"
check "in one line" one_line "$ERR"
expect_eq "and no sandbox is made" "$BEFORE" "$("$SANDMAN" ls -aq | wc -l)"
printf 'line one\nline two\n' >"$SANDMAN_STATE_DIR/text.txt"
run "$SANDMAN" create --file /tmp/text.txt="$SANDMAN_STATE_DIR/text.txt"
expect_eq "a text --file is accepted" 0 "$RC"
TF=$OUT
run "$SANDMAN" exec "$TF" -- cat /tmp/text.txt
expect_eq "and arrives whole" "line one
line two" "$OUT"
"$SANDMAN" rm "$TF" >/dev/null 2>&1

# Credentials in labels: default_metadata (and --label) values whose key names a credential are
# secrets, never printed, journalled or recorded.
TOK=tok-Zq81xVv93KLpSecret
LABELTOK=hunter2-label-pw
cat >"$SANDMAN_STATE_DIR/secret.yaml" <<'YAML'
keys:
  local: {}
  default_metadata:
    api_token: ${oc.env:MYTOK}
    team: evals
YAML
SEEN=""
run env MYTOK=$TOK "$SANDMAN" -c "$SANDMAN_STATE_DIR/secret.yaml" create -o json --label db_password=$LABELTOK
expect_eq "create with a secret in default_metadata" 0 "$RC"
SEEN="$SEEN$OUT$ERR"
K=$(echo "$OUT" | json 'd["id"]')
expect_eq "create -o json shows the secret labels redacted" "*** *** evals" "$(echo "$OUT" | json 'd["labels"]["api_token"]+" "+d["labels"]["db_password"]+" "+d["labels"]["team"]')"
for verb in "ls -o json" "ls -a -o json" "ls -a" "status -o json $K" "status $K" "events $K" "events -o json $K"; do
    run env MYTOK=$TOK "$SANDMAN" -c "$SANDMAN_STATE_DIR/secret.yaml" $verb
    SEEN="$SEEN$OUT$ERR"
    run "$SANDMAN" $verb
    SEEN="$SEEN$OUT$ERR"
done
expect_no_match "the token appears in no output" "$TOK" "$SEEN"
expect_no_match "nor the --label password" "$LABELTOK" "$SEEN"
check "the state directory holds neither" sh -c "! grep -r -e '$TOK' -e '$LABELTOK' '$SANDMAN_STATE_DIR' --exclude=secret.yaml"

# Columns are terminal columns: a run id in CJK (two columns a character) or with a combining
# accent keeps the next column (IMAGE) where the header has it, and a cut run id never ends in
# half a character.
run "$SANDMAN" create -l "nemo-gym.nvidia.com/run=运行-测试-漢字-長い名前"
W=$OUT
run "$SANDMAN" create -l $'nemo-gym.nvidia.com/run=cafe\u0301'
W2=$OUT
run "$SANDMAN" ls
COLS=$(printf '%s\n' "$OUT" | python3 -c '
import sys, unicodedata
def col(line, word):
    i = line.find(word)
    if i < 0: return -1
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line[:i])
lines = sys.stdin.read().splitlines()
head = lines[0]
rows = [l for l in lines[1:] if l.startswith(sys.argv[1][:12]) or l.startswith(sys.argv[2][:12])]
print(col(head, "IMAGE"), *[col(r, " host") + 1 for r in rows])
' "$W" "$W2")
expect_match "the IMAGE column lines up under its header on rows with wide and combining run ids" \
    '^([0-9]+) \1 \1$' "$COLS"
check "the cut run id is valid UTF-8" sh -c "printf '%s' \"\$1\" | iconv -f UTF-8 -t UTF-8 >/dev/null" _ "$OUT"
"$SANDMAN" rm "$W" "$W2" >/dev/null

finish
