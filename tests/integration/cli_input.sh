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
expect_match "naming the allowed range" "resources.memory_mib 17592186044417 is too large \(allowed: 1..16777216 MiB, 16 TiB\)" "$ERR"
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

run "$SANDMAN" exec
expect_eq "exec without an id exits 2" 2 "$RC"
run "$SANDMAN" exec abcdef123456 -- true
expect_eq "exec on a missing id exits 1" 1 "$RC"
expect_match "saying no sandbox matches" "no sandbox matches 'abcdef123456'" "$ERR"
run "$SANDMAN" status
expect_match "status without an id says so" "missing sandbox id" "$ERR"
run "$SANDMAN" cp a b
expect_match "cp with no sandbox side is refused" "exactly one of SRC and DST must be ID:PATH" "$ERR"

# An id prefix matching two sandboxes: 17 ids guarantee two share a first hex digit.
for i in $(seq 17); do "$SANDMAN" create >/dev/null; done
DUP=$("$SANDMAN" ls -q | cut -c1 | sort | uniq -d | head -1)
run "$SANDMAN" exec "$DUP" -- true
expect_eq "an ambiguous id prefix exits 2" 2 "$RC"
expect_match "listing the candidates" "id prefix '$DUP' matches [0-9]+ sandboxes \($DUP" "$ERR"
"$SANDMAN" rm $("$SANDMAN" ls -q) >/dev/null

# Config files
printf 'sandbox:\n  local: {network: none\n' >"$SANDMAN_STATE_DIR/broken.yaml"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/broken.yaml" ls
expect_eq "malformed YAML exits 2" 2 "$RC"
expect_match "with file, line and column" "broken.yaml:[0-9]+:[0-9]+: " "$ERR"
check "in one line" one_line "$ERR"

printf 'sandbox:\n  local:\n    netwrk: none\n' >"$SANDMAN_STATE_DIR/typo.yaml"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/typo.yaml" ls
expect_eq "an unknown provider key exits 2" 2 "$RC"
expect_match "naming the key and the allowed ones" "unknown key 'netwrk' in local config \(allowed: default_timeout_s, expose_home, hide, image, network, pids_limit, shell, workdir\)" "$ERR"

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

finish
