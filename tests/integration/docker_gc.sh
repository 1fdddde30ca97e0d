# sandman gc and endpoint on the docker provider against a real engine (a private podman service, or
# SANDMAN_DOCKER_HOST): containers are chosen by label (a run's, an owner claim whose creator
# is gone, a NeMo Gym container made without sandman) and by their end; a container neither
# sandman nor NeMo Gym made is never removed, not even by --all; removed containers are gone
# from the engine. (An expired docker sandbox removes itself: its keep-alive sleep ends and the
# engine's AutoRemove deletes it, so there is none left for --expired to find here.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/docker_engine.bash"

docker_test_begin "network: none"
S() { "$SANDMAN" -p dk "$@"; }
api() { docker_engine_api "$@"; }
exists() { api GET "/containers/$1/json" 2>/dev/null | grep -q '"Id"'; }
token_of() { echo "$(cat /proc/sys/kernel/random/boot_id):$1:$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20)"; }
wait_until() {
    local end=$(($(date +%s) + $1))
    shift
    while ! "$@"; do
        [ "$(date +%s)" -ge "$end" ] && return 1
        sleep 0.2
    done
}
state_is() { [ "$(api GET "/containers/$1/json" | json 'd["State"]["Status"]')" = "$2" ]; }
sorted() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
first_words() { echo "$1" | cut -d' ' -f1 | sort | tr '\n' ' '; }
# A container made straight through the engine's API, with labels (JSON object members).
raw() {
    local id
    id=$(api POST "/containers/create?name=$1-$DOCKER_TEST_RUN" \
        "{\"Image\":\"$IMG\",\"Cmd\":[\"sleep\",\"600\"],\"Labels\":{\"sandman-test-run\":\"$DOCKER_TEST_RUN\"$2},\"HostConfig\":{\"NetworkMode\":\"none\"}}" |
        json 'd["Id"]')
    api POST "/containers/$id/start" >/dev/null
    echo "$id"
}

FRESH=$(S create -i "$IMG")
RUN7=$(NEMO_GYM_RUN_ID=rollout-7 S create -i "$IMG")
sleep 1000 &
DEAD=$!
DEAD_TOKEN=$(token_of $DEAD)
kill $DEAD
wait $DEAD 2>/dev/null
OWNED_DEAD=$(S create -i "$IMG" -l "sandman.owner=$DEAD_TOKEN")
OWNED_ALIVE=$(S create -i "$IMG" -l "sandman.owner=$(token_of $$)")
ENDED=$(S create -i "$IMG" --entrypoint /bin/sh --entrypoint -c --entrypoint 'sleep 1; exit 3')
GYM=$(raw gym ',"nemo-gym.sandbox":"1","nemo-gym.nvidia.com/run":"rollout-7"')
FOREIGN=$(raw other ',"nemo-gym.nvidia.com/run":"rollout-7"')
for id in "$FRESH" "$RUN7" "$OWNED_DEAD" "$OWNED_ALIVE" "$ENDED" "$GYM" "$FOREIGN"; do
    check "container ${id:0:12} exists" exists "$id"
done
check "the entrypoint sandbox ends" wait_until 60 state_is "$ENDED" exited

run S gc
expect_eq "a bare gc is a usage error" 2 "$RC"

run S gc --dry-run --orphaned --ended
expect_eq "gc --dry-run exits 0" 0 "$RC"
expect_eq "it lists the owner-orphaned and the ended container" "$(sorted "$OWNED_DEAD" "$ENDED")" "$(first_words "$OUT")"
expect_match "naming the gone creator" "orphaned \(the process $DEAD that created it is gone\)" "$OUT"
expect_match "and the end" "$ENDED  ended" "$OUT"
check "--dry-run removes nothing" exists "$OWNED_DEAD"

run S gc -o json --run rollout-7
expect_eq "gc --run exits 0" 0 "$RC"
expect_eq "it removes the run's sandman and NeMo Gym containers, not the other one" \
    "$(sorted "$RUN7" "$GYM")" "$(echo "$OUT" | json '" ".join(sorted(x["id"] for x in d["removed"]))+" "')"
run api GET "/containers/$RUN7/json"
expect_no_match "the run's sandbox is gone from the engine" '"Id"' "$OUT"
run api GET "/containers/$GYM/json"
expect_no_match "the NeMo Gym container too" '"Id"' "$OUT"
check "a container sandman did not make stays, even with the run's label" exists "$FOREIGN"

run S gc --orphaned --ended
expect_eq "gc --orphaned --ended exits 0" 0 "$RC"
expect_eq "it removes exactly those two" "$(sorted "$OWNED_DEAD" "$ENDED")" "$(first_words "$OUT")"
for id in "$OWNED_DEAD" "$ENDED"; do
    run api GET "/containers/$id/json"
    expect_no_match "${id:0:12} is gone from the engine" '"Id"' "$OUT"
done
check "the fresh one stays" exists "$FRESH"
check "the one whose owner runs stays" exists "$OWNED_ALIVE"

run S gc --all
expect_eq "gc --all exits 0" 0 "$RC"
expect_eq "it removes the rest of sandman's" "$(sorted "$FRESH" "$OWNED_ALIVE")" "$(first_words "$OUT")"
check "and never the foreign container" exists "$FOREIGN"
api DELETE "/containers/$FOREIGN?force=1" >/dev/null

# ---- endpoint: the published port, on loopback; an undeclared port refused
printf 'dknet:\n  docker:\n    host: %s\n  default_metadata:\n    sandman-test-run: "%s"\n' \
    "$DOCKER_TEST_HOST" "$DOCKER_TEST_RUN" >>"$SANDMAN_CONFIG"
run "$SANDMAN" -p dknet create -i "$IMG" --port 8080
expect_eq "create with a declared port" 0 "$RC"
WEB=$OUT
"$SANDMAN" -p dknet exec "$WEB" -- 'mkdir -p /www && echo from-docker >/www/index.html && httpd -p 8080 -h /www' >/dev/null
run "$SANDMAN" -p dknet endpoint "$WEB" 8080
expect_match "endpoint prints the published port on the host's loopback" '^http://127\.0\.0\.1:[0-9]+$' "$OUT"
URL=$OUT
serves() { [ "$(curl -s --max-time 2 "$URL/index.html")" = from-docker ]; }
check "the container's server answers through it" wait_until 30 serves
run "$SANDMAN" -p dknet endpoint "$WEB" 9999
expect_eq "an undeclared port is refused (bad input)" 2 "$RC"
expect_match "naming the declared one" "port 9999 was not declared.*declared: 8080" "$ERR"
run "$SANDMAN" -p dknet endpoint "$WEB"
expect_match "endpoint ID lists the declared port" "^8080 +$URL\$" "$OUT"
"$SANDMAN" -p dknet rm "$WEB" >/dev/null

finish
