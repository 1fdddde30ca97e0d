# The detail view (Enter on a row): CPU, memory, IO read and write, network rx and tx graphs;
# the spec (image, resources, env names without their values, labels); lifecycle timers; the
# recent events with exit codes and durations, newest first; Esc back to the list.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create -m 64 --cpu 1 --ttl 600 -e SECRET_TOKEN=xyz -e MODE=eval -w /workspace \
    --label team=detail)
"$SANDMAN" exec "$ID" -- 'exit 3' >/dev/null
"$SANDMAN" exec "$ID" -- echo detail-hello >/dev/null

dash_start -x 160 -y 40
check "the list shows the sandbox" wait_for "^  $ID "
keys Enter
check "Enter opens its detail" wait_for "^$ID  running"
for title in "CPU %" "memory \(working set\)" "block IO read" "block IO write" "network rx" \
    "network tx"; do
    expect_match "a graph box titled $title" "(lq|┌─|\+-) $title " "$SCREEN"
done
expect_match "IO read and write side by side" "block IO read.*block IO write" "$SCREEN"
expect_match "network rx and tx side by side" "network rx.*network tx" "$SCREEN"
expect_match "the memory graph names the limit" "/ 64MiB" "$SCREEN"
expect_match "the image" "^image +host" "$SCREEN"
expect_match "the resources" "^resources +cpu 1, memory 64MiB" "$SCREEN"
expect_match "the workdir" "^workdir +/workspace" "$SCREEN"
expect_match "the env names" "^env +(MODE SECRET_TOKEN|SECRET_TOKEN MODE)" "$SCREEN"
expect_no_match "never their values" "xyz|=eval" "$SCREEN"
expect_match "the labels" "team=detail" "$SCREEN"
expect_match "when it was created" "^created +[0-9.]+m?s ago" "$SCREEN"
expect_match "how long it took to be ready" "^ready in +[0-9.]+m?s" "$SCREEN"
expect_match "its TTL and what is left of it" "^ttl +10m00s, [0-9]+m[0-9]+s left" "$SCREEN"
expect_match "the failure of its last failing command" "^failure +exit 3" "$SCREEN"
expect_match "recent events" "^recent events" "$SCREEN"
check "newest first: the echo, its exit code and duration" has_lines \
    "^ *[0-9.]+m?s exit 0 in [0-9.]+m?s: echo detail-hello" \
    "^ *[0-9.]+m?s exit 3 in [0-9.]+m?s: exit 3"
expect_match "then the create" "^ *[0-9.]+m?s created in [0-9.]+m?s" "$SCREEN"
keys Escape
check "Esc goes back to the list" wait_for "^  ID +PROVIDER +STATUS"
keys q
check "q quits" wait_for "^EXIT=0$"
finish
