# `sandman demo`: the simulated rollout starts labelled sandboxes and a detached driver, shows an
# OOM kill, a CPU burner and an exec timeout within seconds, and `demo --stop` removes it all.
. "$(dirname "$0")/../lib.sh"
trap '"$SANDMAN" demo --stop >/dev/null 2>&1; cleanup' EXIT

run "$SANDMAN" demo -o json --duration 60
expect_eq "demo starts" 0 "$RC"
DEMO=$OUT
RUN=$(echo "$DEMO" | json 'd["run"]')
DRIVER=$(echo "$DEMO" | json 'd["driver_pid"]')
expect_match "the run id is 8 hex digits" '^[0-9a-f]{8}$' "$RUN"
role_id() { echo "$DEMO" | json "[s['id'] for s in d['sandboxes'] if s['role'] == '$1'][0]"; }

run "$SANDMAN" ls -o json
expect_eq "8 sandboxes carry the run's label" 8 \
    "$(echo "$OUT" | json "len([s for s in d if s['labels'].get('sandman.demo') == '$RUN'])")"
expect_eq "with the expected roles" \
    "coder cpu-burner oom-hog planner reviewer short-lived slow-tool tester" \
    "$(echo "$OUT" | json "' '.join(sorted(s['labels']['role'] for s in d))")"
check "the driver is running" test -d "/proc/$DRIVER"
check "and has recorded its pid" test "$(cat "$SANDMAN_STATE_DIR/demo/$RUN.pid")" = "$DRIVER"

OOM=$(role_id oom-hog) CPU=$(role_id cpu-burner) SLOW=$(role_id slow-tool) SHORT=$(role_id short-lived)
expect_eq "the short-lived sandbox has a 30 s TTL" 30 \
    "$("$SANDMAN" status -o json "$SHORT" | json 'int(d["ttl_s"])')"
expect_eq "the others a 900 s TTL" 900 "$("$SANDMAN" status -o json "$OOM" | json 'int(d["ttl_s"])')"
expect_eq "the oom-hog has a 64 MiB limit" 64 \
    "$("$SANDMAN" status -o json "$OOM" | json 'd["resources"]["memory_mib"]')"

# wait_for SECONDS COMMAND...: polls until the command succeeds.
wait_for() {
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -ge "$end" ] && return 1
        sleep 0.5
    done
}
oom_seen() { [ "$("$SANDMAN" stats -o json "$OOM" | json 'int(d["oom_kills"] or 0)')" -ge 1 ]; }
cpu_busy() { "$SANDMAN" stats -o json "$CPU" | json 'int(d["cpu_percent"] or 0)' | awk '{exit !($1 > 50)}'; }
timeout_seen() { "$SANDMAN" events "$SLOW" | grep -q "exec timeout"; }
check "the oom-hog's tool is OOM killed (stats oom_kills >= 1)" wait_for 15 oom_seen
check "the oom-hog itself keeps running" test \
    "$("$SANDMAN" status -o json "$OOM" | json 'd["status"]')" = running
check "the cpu-burner uses more than 50% CPU" wait_for 10 cpu_busy
check "the slow tool's events show an exec timeout" wait_for 15 timeout_seen
run "$SANDMAN" events "$SLOW"
expect_match "the driver's commands are journaled" "exec +exec timeout 3s in .*: sleep 30" "$OUT"
quick_seen() {
    local id
    for id in $(echo "$DEMO" | json "' '.join(s['id'] for s in d['sandboxes'])"); do
        "$SANDMAN" events "$id" | grep -Eq "exec +exit [0-9]+ in" && return 0
    done
    return 1
}
check "and so are its quick commands" wait_for 5 quick_seen

run "$SANDMAN" demo -o json --stop
expect_eq "demo --stop succeeds" 0 "$RC"
expect_eq "and removes all 8 sandboxes" 8 "$(echo "$OUT" | json 'len(d["removed"])')"
check "the driver is gone" process_gone "$DRIVER"
check "its pid file too" test ! -e "$SANDMAN_STATE_DIR/demo/$RUN.pid"
expect_eq "nothing is left" "" "$("$SANDMAN" ls -aq)"
run "$SANDMAN" demo --stop
expect_eq "a second --stop has nothing to remove" "removed 0 demo sandboxes" "$OUT"
run "$SANDMAN" demo --count 3
expect_eq "--count below 4 is a usage error" 2 "$RC"

finish
