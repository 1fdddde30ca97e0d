#!/bin/bash
# Why it died, answered from the record: every failure kind the local provider can produce is
# produced for real, and ls, status and events name it the same way, with no dashboard ever
# started (the supervisor journals OOM kills, refused forks, TTL expiry and signals when they
# happen; a lost supervisor is journaled by the first who sees it).
. "$(dirname "$0")/../lib.sh"

# wait_for SECONDS COMMAND...: retries until the command succeeds.
wait_for() {
    local until=$((SECONDS + $1))
    shift
    while ! "$@"; do
        [ $SECONDS -ge $until ] && return 1
        sleep 0.1
    done
}
ls_says() { "$SANDMAN" ls -a | grep -E "^${1:0:12} " | grep -qF -- "$2"; }

# names ID LABEL: ls, status and events all say LABEL
names() {
    local id=$1 label=$2 what=$3
    run "$SANDMAN" ls -a
    expect_match "$what: ls names it" "^${id:0:12} .* ${label//(/\\(}" "$OUT"
    run "$SANDMAN" status "$id"
    expect_match "$what: status names it" "^(why|failed): +${label//(/\\(}" "$OUT"
    run "$SANDMAN" events "$id"
    expect_match "$what: events names it" "${label//(/\\(}" "$OUT"
}

# OOM kill of a background process: the command that started it exited 0
O=$("$SANDMAN" create --memory-mib 32)
"$SANDMAN" exec "$O" -- 'sh -c "head -c 200m /dev/zero | tail >/dev/null" >/dev/null 2>&1 &'
check "an OOM kill in the background is journaled while the sandbox runs" wait_for 20 ls_says "$O" "OOM killed"
names "$O" "OOM killed" "oom"
run "$SANDMAN" events -o json "$O"
expect_eq "the journaled OOM kill carries its evidence" "oom_killed 33554432" \
    "$(echo "$OUT" | json "[(e['failure']['kind'], e['failure']['memory_limit']) for e in d if e['type'] == 'failure'][0]" | tr -d "(),'")"

# pids limit hit by a background fork loop
cat >"$SANDMAN_STATE_DIR/pids.yaml" <<'YAML'
tight:
  local:
    pids_limit: 12
YAML
P=$("$SANDMAN" -c "$SANDMAN_STATE_DIR/pids.yaml" -p tight create)
"$SANDMAN" -c "$SANDMAN_STATE_DIR/pids.yaml" -p tight exec "$P" -- '(for i in $(seq 30); do sleep 5 & done) >/dev/null 2>&1 &'
check "a refused fork in the background is journaled" wait_for 20 ls_says "$P" "pids limit"
names "$P" "pids limit" "pids"

# TTL
T=$("$SANDMAN" create --ttl 1)
check "the TTL ends the sandbox" wait_for 20 ls_says "$T" "TTL expired"
names "$T" "TTL expired" "ttl"

# the entrypoint killed by a signal
G=$("$SANDMAN" create --entrypoint sh --entrypoint -c --entrypoint 'kill -KILL $$')
check "a killed entrypoint ends the sandbox" wait_for 20 ls_says "$G" "exit 137 (SIGKILL)"
names "$G" "exit 137 (SIGKILL)" "signal"

# exec timeout
X=$("$SANDMAN" create)
"$SANDMAN" exec --timeout 1 "$X" -- sleep 30 >/dev/null 2>&1
names "$X" "exec timeout 1s" "exec timeout"

# supervisor lost
L=$("$SANDMAN" create)
SUP=$(sed -n 's/^supervisor=//p' "$SANDMAN_STATE_DIR/local/$L/ready")
kill -9 "$SUP"
check "the dead supervisor is seen" wait_for 20 ls_says "$L" "supervisor lost"
names "$L" "supervisor lost" "supervisor lost"
run "$SANDMAN" events "$L"
expect_eq "the loss is journaled once, however often it is looked at" 1 "$(echo "$OUT" | grep -c 'supervisor lost')"

# not found
for verb in status events logs; do
    run "$SANDMAN" $verb 0123456789ab
    expect_match "$verb of a sandbox that does not exist says so" "not found|no (local )?sandbox" "$ERR"
done

finish
