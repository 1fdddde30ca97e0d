#!/bin/bash
# The record on the docker provider (a real engine: a private podman service, or
# SANDMAN_DOCKER_HOST): an end only the engine knows of is journaled by the first status or
# events that sees it, so events says what status says; exec output is kept and `logs` shows it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/docker_engine.bash"

docker_test_begin "network: none"
S() { "$SANDMAN" -p dk "$@"; }

ID=$(S create -i "$IMG")
run S exec "$ID" -- 'echo kept out; echo "KeyError: x" >&2; exit 4'
run S logs "$ID"
expect_match "logs shows the last exec's output" "kept out" "$OUT"
expect_match "and its stderr" "KeyError: x" "$ERR"

EP=$(S create -i "$IMG" --entrypoint /bin/sh --entrypoint -c --entrypoint 'sleep 1; exit 3')
for _ in $(seq 100); do
    [ "$(docker_engine_api GET "/containers/$EP/json" | json 'd["State"]["Status"]')" = exited ] && break
    sleep 0.2
done
run S events "$EP"
expect_match "the engine's end is journaled when first seen" "ended: exit 3" "$OUT"
run S events "$EP"
expect_eq "once" 1 "$(echo "$OUT" | grep -c 'ended')"

# The entrypoint's output is kept by the engine: logs shows it (redacted), -f follows it.
LG=$(S create -i "$IMG" --entrypoint /bin/sh --entrypoint -c --entrypoint \
    'echo entry-hello; echo "API_KEY=sk-live-0123456789abcdef"; echo entry-err >&2; sleep 3; echo entry-later; sleep 60')
shows_hello() { run S logs "$LG"; printf '%s' "$OUT" | grep -q '^entry-hello$'; }
check "logs shows the entrypoint's output" wait_until 10 shows_hello
expect_match "both streams" "entry-err" "$OUT"
expect_no_match "with the secret redacted" "sk-live-0123456789abcdef" "$OUT$ERR"
expect_match "(the line is still there)" "API_KEY=" "$OUT"
"$SANDMAN" -p dk logs -f "$LG" >"$SANDMAN_STATE_DIR/follow.out" 2>&1 &
FOLLOW=$!
followed_later() { grep -q '^entry-later$' "$SANDMAN_STATE_DIR/follow.out"; }
check "logs -f follows what it prints later" wait_until 30 followed_later
kill "$FOLLOW" 2>/dev/null
wait "$FOLLOW" 2>/dev/null
expect_eq "each line once" 1 "$(grep -c '^entry-hello$' "$SANDMAN_STATE_DIR/follow.out")"
S rm "$EP" "$LG" >/dev/null
finish
