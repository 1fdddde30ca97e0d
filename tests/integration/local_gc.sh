# sandman gc on the local provider: a mix of fresh, labelled, run, expired, orphaned (supervisor
# killed), owner-orphaned (its claimed creator gone) and owner-alive sandboxes; each selection
# removes exactly the ones it names, --dry-run removes nothing, a bare gc refuses, and after gc
# or rm nothing of a removed sandbox is left: processes, cgroups, mounts, state or journal
# files, temporary directories.
. "$(dirname "$0")/../lib.sh"

# wait_until SECONDS COMMAND...: polls until the command succeeds.
wait_until() {
    local end=$(($(date +%s) + $1))
    shift
    while ! "$@"; do
        [ "$(date +%s)" -ge "$end" ] && return 1
        sleep 0.1
    done
}
status_is() { [ "$("$SANDMAN" status -o json "$1" 2>/dev/null | json 'd["status"]')" = "$2" ]; }
ids_left() { "$SANDMAN" ls -aq | sort | tr '\n' ' '; }
sorted() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
# An owner claim (core/gc.h): boot id, pid, start time in clock ticks.
token_of() { echo "$(cat /proc/sys/kernel/random/boot_id):$1:$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20)"; }

# What a sandbox holds on the host, recorded while it exists.
declare -A PIDS CGS
remember() {
    local dir=$SANDMAN_STATE_DIR/local/$1
    PIDS[$1]=$(sed -n 's/^\(pid\|supervisor\)=//p' "$dir/ready" | tr '\n' ' ')
    CGS[$1]=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1])).get('cgroups',{}); print(' '.join(x for k,v in c.items() if k!='version' for x in (v if isinstance(v,list) else [v])))" "$dir/spec.json")
}
# traces ID: what is left of a sandbox on the host (a zombie waiting for the host's reaper
# holds nothing and counts as gone).
traces() {
    local id=$1 p c bad=""
    for p in ${PIDS[$id]}; do process_gone "$p" || bad="$bad process $p;"; done
    [ -n "${PIDS[$id]}" ] || bad="$bad (no pids were recorded);"
    for c in ${CGS[$id]}; do [ -e "$c" ] && bad="$bad cgroup $c;"; done
    [ -n "${CGS[$id]}" ] || bad="$bad (no cgroups were recorded);"
    grep -q "$id" /proc/self/mountinfo && bad="$bad a mount;"
    [ -z "$(find "$SANDMAN_STATE_DIR" -name "*$id*" 2>/dev/null)" ] || bad="$bad state files $(find "$SANDMAN_STATE_DIR" -name "*$id*" | head -3);"
    grep -rqs "$id" "$SANDMAN_STATE_DIR" && bad="$bad a file naming it;"
    [ -z "$(find /tmp /dev/shm -maxdepth 2 -name "*$id*" 2>/dev/null)" ] || bad="$bad temp $(find /tmp /dev/shm -maxdepth 2 -name "*$id*" | head -3);"
    echo "$bad"
}
nothing_left() {
    local bad
    bad=$(traces "$1")
    if [ -z "$bad" ]; then ok "$2: nothing of $1 is left"; else not_ok "$2: $1 left:$bad"; fi
}

# mk VAR ARGS...: creates a sandbox, its id in VAR.
mk() {
    local var=$1
    shift
    run "$SANDMAN" create "$@"
    [ "$RC" = 0 ] || not_ok "create $*: $ERR"
    printf -v "$var" %s "$OUT"
    remember "$OUT"
}
mk FRESH
mk LABELLED -l team=gc-a
export NEMO_GYM_RUN_ID=rollout-7
mk RUN7
unset NEMO_GYM_RUN_ID
mk EXPIRED --ttl 1
mk ORPHAN
sleep 1000 &
DEAD_OWNER=$!
DEAD_TOKEN=$(token_of $DEAD_OWNER)
kill $DEAD_OWNER
wait $DEAD_OWNER 2>/dev/null
mk OWNED_DEAD -l "sandman.owner=$DEAD_TOKEN"
mk OWNED_ALIVE -l "sandman.owner=$(token_of $$)"
ALL=$(sorted "$FRESH" "$LABELLED" "$RUN7" "$EXPIRED" "$ORPHAN" "$OWNED_DEAD" "$OWNED_ALIVE")

# the orphan: its supervisor is killed, its sandbox processes keep running
sup=$(sed -n 's/^supervisor=//p' "$SANDMAN_STATE_DIR/local/$ORPHAN/ready")
init=$(sed -n 's/^pid=//p' "$SANDMAN_STATE_DIR/local/$ORPHAN/ready")
kill -9 "$sup"
check "the orphan's supervisor is gone" wait_until 10 process_gone "$sup"
check "the orphan is reported as such" wait_until 10 status_is "$ORPHAN" error
check "its init still runs (gc must end it)" test -d "/proc/$init"
check "the expired one ends by its TTL" wait_until 20 status_is "$EXPIRED" stopped
expect_match "the trace check sees a live sandbox's processes, cgroups and state" \
    'process.*cgroup.*state files' "$(traces "$FRESH")"

run "$SANDMAN" gc
expect_eq "a bare gc is a usage error" 2 "$RC"
expect_match "that names the selectors and --all" '--expired.*--all' "$ERR"
expect_eq "and removes nothing" "$ALL" "$(ids_left)"

run "$SANDMAN" gc --older-than soon
expect_eq "a bad duration is a usage error" 2 "$RC"
expect_match "naming the value and what is allowed" "duration such as.*10m.*'soon'" "$ERR"

run "$SANDMAN" gc --dry-run --expired --orphaned
expect_eq "gc --dry-run exits 0" 0 "$RC"
expect_eq "it lists the expired and orphaned ones" "$(sorted "$EXPIRED" "$ORPHAN" "$OWNED_DEAD")" \
    "$(echo "$OUT" | cut -d' ' -f1 | sort | tr '\n' ' ')"
expect_match "with why" "$ORPHAN  orphaned \(its supervisor died\)" "$OUT"
expect_match "the owner claim names the gone process" "$OWNED_DEAD  orphaned \(the process $DEAD_OWNER that created it is gone\)" "$OUT"
expect_match "the TTL" "$EXPIRED  expired" "$OUT"
expect_match "and says nothing was removed" "would remove 3 sandboxes \(dry run" "$ERR"
expect_eq "--dry-run removes nothing" "$ALL" "$(ids_left)"

run "$SANDMAN" gc -o json --run rollout-7
expect_eq "gc --run exits 0" 0 "$RC"
expect_eq "it removes exactly the run's sandbox" "$RUN7" "$(echo "$OUT" | json '" ".join(x["id"] for x in d["removed"])')"
expect_eq "nothing failed" "0" "$(echo "$OUT" | json 'len(d["failed"])')"
expect_eq "one sweep was enough" "1" "$(echo "$OUT" | json 'd["sweeps"]')"
nothing_left "$RUN7" "gc --run"

run "$SANDMAN" gc -l team=gc-a --expired
expect_eq "labels narrow the conditions: nothing is labelled and expired" "" "$OUT"
expect_match "and gc says so" "nothing to collect" "$ERR"

run "$SANDMAN" gc --expired --orphaned
expect_eq "gc --expired --orphaned exits 0" 0 "$RC"
expect_eq "it removes exactly the expired and orphaned ones" "$(sorted "$EXPIRED" "$ORPHAN" "$OWNED_DEAD")" \
    "$(echo "$OUT" | cut -d' ' -f1 | sort | tr '\n' ' ')"
expect_match "and counts them" "removed 3 of 3 sandboxes in 1 sweep" "$ERR"
expect_eq "the fresh, labelled and owner-alive ones are untouched" \
    "$(sorted "$FRESH" "$LABELLED" "$OWNED_ALIVE")" "$(ids_left)"
check "the orphan's init is ended" process_gone "$init"
for id in "$EXPIRED" "$ORPHAN" "$OWNED_DEAD"; do nothing_left "$id" "gc"; done
for id in "$FRESH" "$LABELLED" "$OWNED_ALIVE"; do
    run "$SANDMAN" exec "$id" -- echo alive
    expect_eq "$id still answers" alive "$OUT"
done

run "$SANDMAN" gc --older-than 1h
expect_eq "nothing is older than an hour" "$(sorted "$FRESH" "$LABELLED" "$OWNED_ALIVE")" "$(ids_left)"

run "$SANDMAN" rm "$FRESH"
expect_eq "rm exits 0" 0 "$RC"
nothing_left "$FRESH" "rm"

run "$SANDMAN" gc -o json --all -j 2
expect_eq "gc --all removes the rest" "$(sorted "$LABELLED" "$OWNED_ALIVE")" \
    "$(echo "$OUT" | json '" ".join(sorted(x["id"] for x in d["removed"]))+" "')"
expect_eq "and nothing is listed any more" "" "$(ids_left)"
for id in "$LABELLED" "$OWNED_ALIVE"; do nothing_left "$id" "gc --all"; done

finish
