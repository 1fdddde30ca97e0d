#!/bin/bash
# Kept output: the entrypoint's stdout/stderr and each exec's last part are kept with the sandbox,
# redacted, bounded, shown by `sandman logs` (-f, --since, --exec N, --list) and removed with it;
# a failed command's reason names its last stderr line.
. "$(dirname "$0")/../lib.sh"

wait_for() {
    local until=$((SECONDS + $1))
    shift
    while ! "$@"; do
        [ $SECONDS -ge $until ] && return 1
        sleep 0.1
    done
}

export API_TOKEN=tok-9f8e7d6c5b4a
# The entrypoint prints, including its secret env value and a token of a known form, then waits
# for a file to go on, so -f can be seen following.
S=$("$SANDMAN" create -e API_TOKEN -w /workspace --entrypoint sh --entrypoint -c --entrypoint \
    'echo "entry started"; echo "key=$API_TOKEN ghp_abcdefghijklmnopqrstuvwxyz0123456789"; echo "entry warns" >&2
     while [ ! -e /workspace/go ]; do sleep 0.1; done; echo "entry after go"; echo "ValueError: bad input" >&2; exit 3')
run "$SANDMAN" exec -e API_TOKEN "$S" -- 'echo "exec out $API_TOKEN"; echo "Traceback (most recent call last):" >&2; echo "ModuleNotFoundError: No module named '"'numpy'"'" >&2; echo >&2; exit 1'
expect_eq "the command's exit is its own" 1 "$RC"
run "$SANDMAN" exec -o json "$S" -- 'echo ok; echo "ImportError: no" >&2; exit 2'
expect_eq "a failure's reason names the last meaningful stderr line" "exit 2: ImportError: no" "$(echo "$OUT" | json 'd["failure"]["reason"]')"

run "$SANDMAN" logs "$S"
expect_match "logs shows the entrypoint's output" "entry started" "$OUT"
expect_match "and its stderr" "entry warns" "$OUT"
expect_match "and the last exec's" "==> exec 2: .*\(exit 2\) <==" "$OUT"
expect_no_match "a secret given with -e never shows" "tok-9f8e7d6c5b4a" "$OUT$ERR"
expect_match "a token of a known form shows as ***" "ghp_\*\*\*" "$OUT"
run "$SANDMAN" logs --exec 1 "$S"
expect_eq "--exec N: that command's stdout" "exec out ***" "$OUT"
expect_match "and its stderr" "ModuleNotFoundError: No module named 'numpy'" "$ERR"
run "$SANDMAN" events "$S"
expect_match "events says why the command failed, in one line" "exit 1 in .* - ModuleNotFoundError: No module named 'numpy'" "$OUT"
run "$SANDMAN" logs --list "$S"
expect_match "--list names every kept output" "^1 .* 1 +echo" "$(echo "$OUT" | sed -n 3p)"
run "$SANDMAN" logs --since 1h "$S"
expect_match "--since 1h keeps what was just kept" "entry started" "$OUT"
run "$SANDMAN" logs --exec 9 "$S"
expect_match "--exec of nothing kept says so" "no kept output of exec 9" "$ERR"
run "$SANDMAN" logs --since soon "$S"
expect_eq "a bad --since is a usage error" 2 "$RC"
expect_match "naming what is allowed" "--since wants a duration such as 30s" "$ERR"

# -f follows: what the entrypoint prints later, and commands run meanwhile; it ends with the sandbox
"$SANDMAN" logs -f "$S" >"$SANDMAN_STATE_DIR/follow.out" 2>&1 &
FOLLOW=$!
check "-f prints what is kept so far" wait_for 20 grep -q "entry started" "$SANDMAN_STATE_DIR/follow.out"
"$SANDMAN" exec "$S" -- 'echo third command' >/dev/null
check "-f shows a command kept after it started" wait_for 20 grep -q "third command" "$SANDMAN_STATE_DIR/follow.out"
"$SANDMAN" exec "$S" -- 'touch /workspace/go' >/dev/null
check "-f shows what the entrypoint printed later" wait_for 20 grep -q "entry after go" "$SANDMAN_STATE_DIR/follow.out"
check "-f ends when the sandbox ends" wait_for 20 process_gone "$FOLLOW"
run "$SANDMAN" status "$S"
expect_match "the entrypoint's end names its last stderr line" "exited with code 3: ValueError: bad input" "$OUT"
run "$SANDMAN" events "$S"
expect_match "and so does its ended event" "ended: exit 3 .*: ValueError: bad input" "$OUT"

# bounded: a flood keeps only the cap (SANDMAN_OUTPUT_CAP)
B=$("$SANDMAN" create)
SANDMAN_OUTPUT_CAP=4k "$SANDMAN" exec "$B" -- 'seq 1 100000' >/dev/null
run "$SANDMAN" logs --exec 1 "$B"
expect_eq "only the last 4 KiB of a flood is kept" 4096 "$(printf '%s\n' "$OUT" | wc -c)"
expect_match "ending with the last line" "100000$" "$OUT"
expect_match "saying what was not kept" "earlier bytes not kept" "$ERR"
for i in $(seq 40); do "$SANDMAN" exec -o json "$B" -- "echo run $i" >/dev/null; done
expect_eq "a ring per sandbox: the newest 32 commands are kept" 32 "$(ls "$SANDMAN_STATE_DIR/output/local/$B" | wc -l)"
run "$SANDMAN" logs --exec 41 "$B"
expect_eq "the newest is there" "run 40" "$OUT"

"$SANDMAN" rm "$S" "$B" >/dev/null
check "rm removes the kept output" test ! -e "$SANDMAN_STATE_DIR/output/local/$S"
check "of both" test ! -e "$SANDMAN_STATE_DIR/output/local/$B"
finish
