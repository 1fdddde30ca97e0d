#!/usr/bin/env bash
# The slurm provider through the CLI on a private 4-node cluster (tests/slurm/cluster.bash):
# sandboxes asking for a whole node land on four different nodes and ls shows each node; a fifth
# waits in the queue ("starting: pending (Resources)") and is ready once a node frees; a job
# killed with scancel shows killed_by_user; a TTL ends the sandbox as ttl_expired; a request no
# node can hold fails with Slurm's reason and leaves nothing; rm leaves no record, job or
# supervisor behind. Without slurm-wlm it fails, unless SANDMAN_SKIP_SLURM=1 (exit 77).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/cluster.bash"

CLUSTER=$(mktemp -d /tmp/sandman-slurm-XXXXXX)
trap 'cleanup_all' EXIT
cleanup_all() {
    local ids
    ids=$("$SANDMAN" -p cluster ls -aq 2>/dev/null)
    [ -n "$ids" ] && "$SANDMAN" -p cluster rm $ids >/dev/null 2>&1
    slurm_cluster_stop "$CLUSTER"
    rm -rf "$SANDMAN_STATE_DIR"
}
slurm_cluster_start "$CLUSTER" $$ || exit 1
SHARED=$CLUSTER/shared
export SANDMAN_CONFIG=$SANDMAN_STATE_DIR/config.yaml
cat >"$SANDMAN_CONFIG" <<EOF
sandman:
  context: cluster
cluster:
  slurm:
    partition: $SLURM_TEST_PARTITION
    state_dir: $SHARED
nopart:
  slurm:
    partition: no-such-partition
    state_dir: $SHARED
EOF

# wait_for SECONDS COMMAND...: polls until the command succeeds.
wait_for() {
    local t=$1
    shift
    local end=$((SECONDS + t))
    while [ $SECONDS -lt $end ]; do
        "$@" && return 0
        sleep 0.2
    done
    "$@"
}

node_of() { "$SANDMAN" status -o json "$1" | json 'd["provider_info"].get("node","")'; }
job_of() { "$SANDMAN" status -o json "$1" | json 'd["provider_info"]["job_id"]'; }
failure_of() { "$SANDMAN" status -o json "$1" | json '(d["failure"] or {}).get("kind","")'; }

# --- placement: four whole-node sandboxes on four nodes
ids=()
for i in 1 2 3 4; do
    run "$SANDMAN" create --cpu 16 -l slot=$i
    expect_eq "create $i (a whole node) succeeds" 0 "$RC"
    ids+=("$OUT")
done
nodes=$(for id in "${ids[@]}"; do node_of "$id"; done | sort -u | tr '\n' ' ')
expect_eq "the four sandboxes run on four different nodes" "n1 n2 n3 n4 " "$nodes"
run "$SANDMAN" ls -o json
listed=$(printf '%s' "$OUT" | json '" ".join(sorted(x["provider_info"]["node"] for x in d))')
expect_eq "ls lists every sandbox with its node" "n1 n2 n3 n4" "$listed"
run "$SANDMAN" exec "${ids[2]}" -- 'hostname; exit 3'
expect_eq "exec reaches the sandbox and returns its exit code" 3 "$RC"
expect_match "exec runs inside the node's sandbox (its own hostname)" '^sbx-' "$OUT"

# --- a fifth waits for a node, showing the queue state, and is ready once one frees
first_node=$(node_of "${ids[0]}")
"$SANDMAN" create --cpu 16 >"$SANDMAN_STATE_DIR/fifth.out" 2>"$SANDMAN_STATE_DIR/fifth.err" &
fifth=$!
check "the fifth shows it is pending for resources" \
    wait_for 30 grep -q 'starting: pending (Resources)' "$SANDMAN_STATE_DIR/fifth.err"
check "the fifth is still waiting while every node is taken" kill -0 $fifth
"$SANDMAN" rm "${ids[0]}" >/dev/null
wait $fifth
expect_eq "the fifth is ready once a node is free" 0 "$?"
fifth_id=$(cat "$SANDMAN_STATE_DIR/fifth.out")
expect_eq "the fifth runs on the freed node" "$first_node" "$(node_of "$fifth_id")"

# --- scancel from outside sandman: killed_by_user, and the node's sandbox is gone
job=$(job_of "${ids[1]}")
lid=$("$SANDMAN" status -o json "${ids[1]}" | json 'd["provider_info"]["local_id"]')
scancel "$job"
killed() { [ "$(failure_of "${ids[1]}")" = killed_by_user ]; }
check "a job killed with scancel shows killed_by_user" wait_for 30 killed
run "$SANDMAN" status "${ids[1]}"
expect_match "status says it is stopped" 'status: +stopped' "$OUT"
check "the node's sandbox ended with its job" wait_for 30 test ! -e "$SHARED/local/$lid"

# --- a TTL ends it as ttl_expired
run "$SANDMAN" create --ttl 2
ttl_id=$OUT
expired() { [ "$(failure_of "$ttl_id")" = ttl_expired ]; }
check "a sandbox past its TTL shows ttl_expired" wait_for 40 expired

# --- the shared state directory (records, env files of other sandboxes) is hidden inside
run "$SANDMAN" create --ready-timeout 30 -e SLURM_CLI_SECRET=hunter2-value
secret_id=$OUT
run "$SANDMAN" exec "$fifth_id" -- "cat $SHARED/slurm/$secret_id/* $SHARED/slurm/*/env; ls $SHARED"
expect_no_match "another sandbox cannot read the shared records" 'hunter2-value' "$OUT"
expect_eq "the shared state directory shows empty inside" "" "$OUT"
run "$SANDMAN" exec "$secret_id" -- 'echo "$SLURM_CLI_SECRET"'
expect_eq "the env value reaches its own sandbox" "hunter2-value" "$OUT"
check "the env file is gone once the sandbox is ready" test ! -e "$SHARED/slurm/$secret_id/env"
"$SANDMAN" rm "$secret_id" >/dev/null

# --- a request no node can hold fails with Slurm's reason and leaves nothing
before=$(ls "$SHARED/slurm" | wc -l)
run "$SANDMAN" create --cpu 64
expect_eq "create of more CPUs than any node has fails" 1 "$RC"
expect_match "it says Slurm's reason" 'Requested node configuration is not available' "$ERR"
expect_eq "it leaves no record" "$before" "$(ls "$SHARED/slurm" | wc -l)"

run "$SANDMAN" create -p nopart
expect_eq "create in a partition that does not exist fails" 1 "$RC"
expect_match "it says Slurm's reason" 'Invalid partition name' "$ERR"
expect_eq "it leaves no record either" "$before" "$(ls "$SHARED/slurm" | wc -l)"

# --- rm leaves nothing: records, node sandboxes, jobs, supervisors
all=$("$SANDMAN" ls -aq)
"$SANDMAN" rm $all >/dev/null
expect_eq "rm removes every record" "" "$(ls "$SHARED/slurm")"
expect_eq "rm removes every node sandbox" "" "$(ls "$SHARED/local" 2>/dev/null)"
expect_eq "no sandman job is left running" "" "$(squeue -h -t running,pending -o %j)"
sups=$(for p in $(pgrep -f sandman-supervisor); do readlink "/proc/$p/cwd"; done | grep -c "$SHARED")
expect_eq "no supervisor is left" 0 "$sups"
finish
