#!/bin/bash
# Live events for scripts (events --follow: every sandbox of the context as it happens, -l
# filters, -o json lines) and a re-runnable trace of a session (events ID --replay-script).
. "$(dirname "$0")/../lib.sh"

wait_for() {
    local until=$((SECONDS + $1))
    shift
    while ! "$@"; do
        [ $SECONDS -ge $until ] && return 1
        sleep 0.1
    done
}

OLD=$("$SANDMAN" create -l team=evals)
"$SANDMAN" exec "$OLD" -- 'echo before the stream' >/dev/null
"$SANDMAN" events --follow -o json -l team=evals >"$SANDMAN_STATE_DIR/all.jsonl" 2>"$SANDMAN_STATE_DIR/all.err" &
F1=$!
"$SANDMAN" events --follow >"$SANDMAN_STATE_DIR/text.out" 2>&1 &
F2=$!
# The followers stream from when they start: wait until both are streaming (a command in the
# old sandbox shows up in each), not for a fixed time.
streaming() {
    "$SANDMAN" exec "$OLD" -- true >/dev/null
    grep -q "\"sandbox_id\":\"$OLD\"" "$SANDMAN_STATE_DIR/all.jsonl" &&
        grep -q "${OLD:0:12}" "$SANDMAN_STATE_DIR/text.out"
}
check "both followers are streaming" wait_for 20 streaming
A=$("$SANDMAN" create -l team=evals --memory-mib 64)
B=$("$SANDMAN" create -l team=other)
"$SANDMAN" exec "$A" -- 'exit 3' >/dev/null
"$SANDMAN" exec "$B" -- 'true' >/dev/null
"$SANDMAN" exec --timeout 1 "$A" -- 'sleep 20' >/dev/null 2>&1
has() { grep -q "$1" "$SANDMAN_STATE_DIR/all.jsonl"; }
check "a new sandbox is streamed as it is created" wait_for 20 has "\"sandbox_id\":\"$A\",\"provider\":\"local\",\"context\""
check "its exec results" wait_for 20 has '"return_code":3'
check "its failures" wait_for 20 has '"kind":"exec_timeout"'
check "every line is one JSON event" python3 -c "
import json,sys
for l in open('$SANDMAN_STATE_DIR/all.jsonl'): json.loads(l)"
expect_no_match "-l keeps other sandboxes out" "$B" "$(cat "$SANDMAN_STATE_DIR/all.jsonl")"
expect_no_match "the stream starts now: nothing from before" "before the stream" "$(cat "$SANDMAN_STATE_DIR/all.jsonl")"
check "the text stream names every sandbox" wait_for 20 grep -q "^.*${B:0:12} .*exec .*exit 0" "$SANDMAN_STATE_DIR/text.out"
kill "$F1" "$F2"
wait "$F1" "$F2" 2>/dev/null

run "$SANDMAN" events
expect_eq "events without an id needs --follow" 2 "$RC"
run "$SANDMAN" events -l team=x "$A"
expect_match "-l without --follow is a usage error naming why" "--label filters --follow" "$ERR"

# --replay-script: a session, then its script run to recreate it
export REPLAY_SECRET=abc-123-xyz
S=$("$SANDMAN" create --memory-mib 96 --ttl 600 -w /workspace -l team=evals -e REPLAY_SECRET)
Q="echo \"it's here\" > /workspace/a.txt"
"$SANDMAN" exec "$S" -- "$Q" >/dev/null
"$SANDMAN" exec -w /tmp -e REPLAY_SECRET "$S" -- 'echo "$REPLAY_SECRET" > /tmp/s.txt' >/dev/null
echo "copied in" >"$SANDMAN_STATE_DIR/in.txt"
"$SANDMAN" cp "$SANDMAN_STATE_DIR/in.txt" "$S:/workspace/in.txt" >/dev/null
"$SANDMAN" exec "$S" -- 'cat /workspace/a.txt /workspace/in.txt; exit 5' >/dev/null
run "$SANDMAN" events --replay-script "$S"
SCRIPT=$OUT
expect_match "the script recreates the spec" "create --memory-mib 96 --ttl 600 -w '/workspace' -e 'REPLAY_SECRET' -l 'team=evals'" "$SCRIPT"
expect_no_match "never a secret's value" "abc-123-xyz" "$SCRIPT"
expect_match "the commands in order, exit codes noted" "exit 5'  # was: exit 5" "$SCRIPT"
printf '%s\n' "$SCRIPT" >"$SANDMAN_STATE_DIR/replay.sh"
run env SANDMAN="$SANDMAN" sh "$SANDMAN_STATE_DIR/replay.sh"
R=$(printf '%s\n' "$OUT" | tail -1)
expect_match "running it makes a new sandbox" "^[0-9a-f]{12}" "$R"
run "$SANDMAN" exec "$R" -- 'cat /workspace/a.txt /workspace/in.txt /tmp/s.txt'
expect_eq "where the commands ran again, quotes, copies and env included" "it's here
copied in
abc-123-xyz" "$OUT"
run "$SANDMAN" status -o json "$R"
expect_eq "with the same limits" "100663296" "$(echo "$OUT" | json 'd["resources"]["memory_mib"]*1048576')"
finish
