# The dashboard on a real Docker engine (a private podman service, or SANDMAN_DOCKER_HOST) that
# goes away: the rows of the last good refresh stay, but their live columns are blanked, they
# are dimmed, the failure column and header say "provider unreachable" and the detail view's
# graphs say stale; when the engine is back the rows are live again.
. "$(dirname "$0")/lib_tmux.sh"
. "$(dirname "$0")/../integration/docker_engine.bash"

ENGINE=$(mktemp -d /tmp/sandman-dk-XXXXXX)
trap 'docker_engine_stop "$ENGINE"; tmux_cleanup' EXIT
docker_engine_start "$ENGINE" $$
if [ "$DOCKER_TEST_KIND" != podman ]; then
    echo "# SANDMAN_DOCKER_HOST is set: this test stops and restarts its own podman service only"
    exit 77
fi
SERVICE_PID=$(cat "$ENGINE/service.pid")
cat >"$SANDMAN_STATE_DIR/ctx.yaml" <<YAML
dk:
  docker:
    host: $DOCKER_TEST_HOST
    create:
      network: none
  default_metadata:
    sandman-test-run: "$DOCKER_TEST_RUN"
YAML
CFG=$SANDMAN_STATE_DIR/ctx.yaml
ID=$("$SANDMAN" -c "$CFG" -p dk create -i "$DOCKER_TEST_IMAGE" -m 64)
ID2=$("$SANDMAN" -c "$CFG" -p dk create -i "$DOCKER_TEST_IMAGE")
check "two sandboxes on the engine" test -n "$ID" -a -n "$ID2"
# dimmed: the theme's dim colour (bright black, SGR 90) where the unselected row starts (the
# engine dates creation to the second, so which of the two is first, and selected, varies)
dimmed() {
    local id
    for id in "${ID:0:12}" "${ID2:0:12}"; do
        screen_sgr | grep "$id" | sed "s/$id.*//" | grep -q '\[90m' && return 0
    done
    return 1
}

dash_start -x 160 -y 30 -c "$CFG" -p dk
check "the dashboard lists them" wait_for "^  ${ID2:0:12} "
mem_live() { cell MEM/LIMIT "$ID" | grep -q '/64MiB$'; }
check "with its memory against the limit" wait_until 10 mem_live
expect_eq "and no failure" "" "$(cell FAILURE "$ID")"
check "the rows are not dimmed" eval '! dimmed'

kill "$SERVICE_PID" # the engine goes away (its containers keep running under conmon)
for _ in $(seq 100); do kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 0.05; done
check "when the engine goes away the header says the provider is unreachable" \
    wait_for "provider unreachable: cannot reach the Docker engine"
stale() { [ "$(cell MEM/LIMIT "$ID")" = - ] && [ "$(cell CPU% "$ID")" = - ]; }
check "the row stays, its live columns blanked" wait_until 5 stale
expect_eq "its failure column says why" "provider unreachable" "$(cell FAILURE "$ID")"
check "the rows are dimmed" dimmed
keys Enter
check "the detail view marks its graphs stale" wait_for "CPU %.* stale"
keys Escape
check "back to the list" wait_for "^  ${ID2:0:12} "

docker_engine_service # the engine is back (docker_engine_stop stops this one)
check "when it is back the row is live again" wait_until 10 mem_live
expect_eq "without a failure" "" "$(cell FAILURE "$ID")"
check "nor dimmed" eval '! dimmed'
keys q
check "q quits" wait_for "^EXIT=0$"
finish
