# Limits and why sandboxes end: the memory limit is enforced and an OOM kill is attributed as
# such, the pids limit, the TTL, CPU quota, an entrypoint that exits, is OOM killed or killed by
# a signal, and a supervisor that dies.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" -ne 0 ]; then
    echo "# limits need writable cgroups; running as $(id -un) they are not enforced"
fi

ID=$("$SANDMAN" create --memory-mib 64)
run "$SANDMAN" exec "$ID" -- 'dd if=/dev/zero of=/dev/null bs=16M count=1 && echo small-ok'
expect_eq "an allocation under the limit runs" "small-ok" "$OUT"
run "$SANDMAN" exec "$ID" -- 'dd if=/dev/zero of=/dev/null bs=200M count=1'
expect_eq "an allocation over the limit is killed (exit 137)" 137 "$RC"
expect_match "the CLI names the OOM kill and its evidence" "OOM killed \(memory.oom_kill 1, limit 64MiB" "$ERR"
run "$SANDMAN" exec -o json "$ID" -- 'dd if=/dev/zero of=/dev/null bs=200M count=1'
expect_eq "JSON: the failure kind is oom_killed" "oom_killed" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
expect_eq "JSON: the evidence names the counter and the limit" "memory.oom_kill 1, limit 64MiB, exit code 137" "$(echo "$OUT" | json 'd["failure"]["evidence"]')"
run "$SANDMAN" events "$ID"
expect_match "the journal records the OOM kill as a failure" "failure +exec: OOM killed - memory.oom_kill 1, limit 64MiB" "$OUT"
run "$SANDMAN" stats -o json "$ID"
expect_eq "stats report the memory limit" "67108864" "$(echo "$OUT" | json 'int(d["memory_limit"])')"
expect_eq "stats count the OOM kills" "2" "$(echo "$OUT" | json 'int(d["oom_kills"])')"
run "$SANDMAN" status "$ID"
expect_eq "the sandbox itself survives its commands' OOM kills" "running" "$("$SANDMAN" status -o json "$ID" | json 'd["status"]')"
run "$SANDMAN" ls
expect_match "ls says why its last command failed, as the dashboard does" "^${ID:0:12} +local +running .* OOM killed$" "$OUT"
run "$SANDMAN" ls -o json
expect_eq "ls JSON: no failure of the sandbox itself, its last command's as last_failure" "None oom_killed" \
    "$(echo "$OUT" | json "[(x['failure'], x['last_failure']['kind']) for x in d if x['id'] == '$ID'][0]" | tr -d "(),'")"

# pids limit from the provider config
cat >"$SANDMAN_STATE_DIR/pids.yaml" <<'YAML'
tight:
  local:
    pids_limit: 12
YAML
P=$("$SANDMAN" -c "$SANDMAN_STATE_DIR/pids.yaml" -p tight create 2>&1)
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/pids.yaml" -p tight exec -o json "$P" -- 'for i in $(seq 30); do sleep 2 & done; wait'
expect_eq "forking past the pids limit is attributed to it" "pids_limit" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
expect_match "with the pids.events evidence" "pids.events max [1-9]" "$(echo "$OUT" | json 'd["failure"]["evidence"]')"

# CPU quota
C=$("$SANDMAN" create --cpu 0.2)
"$SANDMAN" exec "$C" -- 'timeout 1 sh -c "while :; do :; done"' >/dev/null 2>&1
run "$SANDMAN" stats -o json "$C"
check "a CPU-bound command is held to its 0.2 CPU quota" python3 -c "import sys; sys.exit(0 if $(echo "$OUT" | json 'd["cpu_time_s"]') < 0.5 else 1)"
check "and the throttling is counted" test "$(echo "$OUT" | json 'int(d["nr_throttled"] or 0)')" -gt 0

# A limit is never dropped: too small to mean anything is refused up front, naming the range,
# and the smallest the kernel takes is applied as asked.
run "$SANDMAN" create --cpu 1e-9
expect_eq "a CPU limit below the kernel's smallest quota is refused as invalid input" 2 "$RC"
expect_match "naming the allowed range" "resources.cpu 1e-09 is too small \(allowed: 0.01 to 1024 vCPU" "$ERR"
run "$SANDMAN" create --memory-mib 1
expect_eq "a memory limit too small to hold a shell is refused as invalid input" 2 "$RC"
expect_match "naming the allowed range" "resources.memory_mib 1 is too small \(allowed: 6\.\.16777216 MiB" "$ERR"
check "neither left a sandbox behind" test -z "$("$SANDMAN" ls -aq | grep -v -e "$ID" -e "$P" -e "$C")"
M=$("$SANDMAN" create --cpu 0.01 --memory-mib 6)
run "$SANDMAN" stats -o json "$M"
expect_eq "the smallest limits are applied as asked" "0.01 6291456" "$(echo "$OUT" | json '"%g %d" % (d["cpu_limit"], d["memory_limit"])')"
run "$SANDMAN" exec "$M" -- 'echo fits'
expect_eq "and a command runs within them" "fits" "$OUT"
cat >"$SANDMAN_STATE_DIR/bad.yaml" <<'YAML'
few:
  local:
    pids_limit: 2
YAML
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/bad.yaml" -p few create
expect_match "a pids limit too small for a shell is a config error" "local.pids_limit must be 0 \(no limit\) or 8\.\.4194304, not 2" "$ERR"

# TTL
T=$("$SANDMAN" create --ttl 1)
sleep 1.6
run "$SANDMAN" status -o json "$T"
expect_eq "after its TTL the sandbox is stopped" "stopped" "$(echo "$OUT" | json 'd["status"]')"
expect_eq "and the reason is ttl_expired" "ttl_expired" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
run "$SANDMAN" ls
expect_eq "ls succeeds" 0 "$RC"
expect_no_match "ls (without -a) hides ended sandboxes" "$T" "$OUT"
run "$SANDMAN" ls -a
expect_match "ls -a shows it with the reason" "$T .*stopped .*TTL expired" "$OUT"
run "$SANDMAN" exec "$T" -- true
expect_eq "exec in an ended sandbox is a runtime failure" 125 "$RC"
expect_match "naming why it ended" "TTL expired" "$ERR"
run "$SANDMAN" events "$T"
expect_match "the journal records the TTL expiry" "ended: TTL expired" "$OUT"

# An entrypoint is the sandbox's main process: when it exits, the sandbox ends.
E=$("$SANDMAN" create --entrypoint sh --entrypoint -c --entrypoint 'sleep 0.3; exit 4')
sleep 1
run "$SANDMAN" status -o json "$E"
expect_eq "an exited entrypoint stops the sandbox" "stopped" "$(echo "$OUT" | json 'd["status"]')"
expect_eq "with its exit code" "4" "$(echo "$OUT" | json 'd["failure"]["exit_code"]')"

# An entrypoint the OOM killer ends: the sandbox ended by OOM, not "exit 137".
O=$("$SANDMAN" create --memory-mib 32 --entrypoint dd --entrypoint if=/dev/zero --entrypoint of=/dev/null --entrypoint bs=100M)
sleep 1.5
run "$SANDMAN" status -o json "$O"
expect_eq "an OOM-killed entrypoint stops the sandbox" "stopped" "$(echo "$OUT" | json 'd["status"]')"
expect_eq "with kind oom_killed" "oom_killed" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
expect_eq "and the evidence: the counter, the limit, the signal" "memory.oom_kill 1, limit 32MiB, signal SIGKILL" "$(echo "$OUT" | json 'd["failure"]["evidence"]')"
run "$SANDMAN" ls -a
expect_match "ls -a says OOM killed" "$O .*stopped .*OOM killed" "$OUT"
run "$SANDMAN" events "$O"
expect_match "the journal records the OOM kill" "ended: OOM killed - memory.oom_kill 1" "$OUT"

# An entrypoint killed from outside by a signal: signaled, naming the signal.
G=$("$SANDMAN" create --entrypoint sleep --entrypoint 300)
GINIT=$(sed -n 's/^pid=//p' "$SANDMAN_STATE_DIR/local/$G/ready")
sleep 0.3
GENTRY=$(cat "/proc/$GINIT/task/$GINIT/children")
check "the entrypoint is the init's one child" test -n "$GENTRY"
kill -9 $GENTRY
sleep 0.5
run "$SANDMAN" status -o json "$G"
expect_eq "a SIGKILLed entrypoint ends the sandbox as signaled" "signaled" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
expect_eq "naming SIGKILL" "SIGKILL" "$(echo "$OUT" | json 'd["failure"]["signal"]')"
run "$SANDMAN" ls -a
expect_match "ls -a shows the signal" "$G .*stopped .*exit 137 \(SIGKILL\)" "$OUT"

# An entrypoint that itself exits 137 stays an exit code.
X=$("$SANDMAN" create --entrypoint sh --entrypoint -c --entrypoint 'exit 137')
sleep 0.5
run "$SANDMAN" status -o json "$X"
expect_eq "exit 137 by choice is exit_nonzero" "exit_nonzero" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
expect_eq "with no signal" "None" "$(echo "$OUT" | json 'd["failure"].get("signal")')"

# A supervisor that dies is reported, never a crash, and rm still cleans up.
S=$("$SANDMAN" create)
SUP=$(sed -n 's/^supervisor=//p' "$SANDMAN_STATE_DIR/local/$S/ready")
kill -9 "$SUP"
sleep 0.2
run "$SANDMAN" status -o json "$S"
expect_eq "a sandbox whose supervisor died shows as error" "error" "$(echo "$OUT" | json 'd["status"]')"
expect_eq "with kind supervisor_lost" "supervisor_lost" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
INIT=$(sed -n 's/^pid=//p' "$SANDMAN_STATE_DIR/local/$S/ready")
run "$SANDMAN" rm "$S"
expect_eq "rm cleans up after a lost supervisor" 0 "$RC"
check "its processes are gone" process_gone "$INIT"
check "its state is gone" test ! -e "$SANDMAN_STATE_DIR/local/$S"

finish
