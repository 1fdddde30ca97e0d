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
finish
