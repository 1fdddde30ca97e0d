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
    check "a graph box titled $title" wait_for "(lq|┌─|\+-) $title "
done
check "IO read and write side by side" wait_for "block IO read.*block IO write"
check "network rx and tx side by side" wait_for "network rx.*network tx"
check "the memory graph names the limit" wait_for "/ 64MiB"
check "the image" wait_for "^image +host"
check "requests and limits side by side" wait_until 10 has_lines "^ +requested / limit" \
    "^cpu +1 / 1 cores" "^memory +64MiB / 64MiB" "^pids +- / [0-9]+"
check "the workdir" wait_for "^workdir +/workspace"
check "the env names" wait_for "^env +(MODE SECRET_TOKEN|SECRET_TOKEN MODE)"
expect_no_match "never their values" "xyz|=eval" "$SCREEN"
check "the labels" wait_for "team=detail"
check "when it was created" wait_for "^created +[0-9.]+m?s ago"
check "how long it took to be ready" wait_for "^ready in +[0-9.]+m?s"
check "its TTL and what is left of it" wait_for "^ttl +10m00s, [0-9]+m[0-9]+s left"
check "the failure of its last failing command" wait_for "^failure +exit 3"
check "recent events" wait_for "^recent events"
check "newest first: the echo, its exit code and duration" wait_until 10 has_lines \
    "^ *[0-9.]+m?s exit 0 in [0-9.]+m?s: echo detail-hello" \
    "^ *[0-9.]+m?s exit 3 in [0-9.]+m?s: exit 3"
check "then the create" wait_for "^ *[0-9.]+m?s created in [0-9.]+m?s"
keys Escape
check "Esc goes back to the list" wait_for "^  ID +PROVIDER +STATUS"
keys q
check "q quits" wait_for "^EXIT=0$"
finish
