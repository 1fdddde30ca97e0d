# The docker provider through the CLI against a real engine (a private podman service, or
# SANDMAN_DOCKER_HOST): create with labels/resources/env/workdir and readiness, exec
# (exit codes, stream separation, env/cwd/user, timeouts that really kill), cp with parent
# directories, status, ls by label and --all with a container made without sandman, stats,
# OOM attribution, every create/exec/probe config key reaching the engine, a missing image, an
# exited entrypoint, bad input refused at create, unknown config keys, rm.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/docker_engine.bash"

ENGINE=$(mktemp -d /tmp/sandman-dk-XXXXXX)
trap 'docker_engine_stop "$ENGINE"; cleanup' EXIT
docker_engine_start "$ENGINE" $$
IMG=$DOCKER_TEST_IMAGE
echo "# engine: $DOCKER_TEST_HOST ($DOCKER_TEST_KIND), image $IMG"

export SANDMAN_CONFIG=$SANDMAN_STATE_DIR/config.yaml
cat >"$SANDMAN_CONFIG" <<EOF
dk:
  docker:
    host: $DOCKER_TEST_HOST
    create:
      network: none
      pids_limit: 100
  default_metadata:
    sandman-test-run: "$DOCKER_TEST_RUN"
badkey:
  docker:
    host: $DOCKER_TEST_HOST
    create:
      netwrok: none
nowhere:
  docker:
    host: unix://$ENGINE/no-such.sock
EOF
S() { "$SANDMAN" -p dk "$@"; }
api() { docker_engine_api "$@"; }
gone() { ! api GET "/containers/$1/json" 2>/dev/null | grep -q '"Id"'; }

# ---- create
run S create -i "$IMG" -e GREETING=hello -w /workspace -l team=evals --cpu 0.5 -m 64
expect_eq "create exits 0" 0 "$RC"
ID=$OUT
expect_match "create prints the full container id" '^[0-9a-f]{64}$' "$ID"

INSPECT=$(api GET "/containers/$ID/json")
expect_eq "the container carries the spec's labels" "evals" \
    "$(echo "$INSPECT" | json 'd["Config"]["Labels"]["team"]')"
expect_eq "the container carries sandman's marker label" "docker" \
    "$(echo "$INSPECT" | json 'd["Config"]["Labels"]["sandman.provider"]')"
expect_match "and a create-attempt label" '^[0-9a-f]{32}$' \
    "$(echo "$INSPECT" | json 'd["Config"]["Labels"]["sandman.attempt"]')"
expect_eq "and default_metadata from the context" "$DOCKER_TEST_RUN" \
    "$(echo "$INSPECT" | json 'd["Config"]["Labels"]["sandman-test-run"]')"
expect_match "attribution labels are there too" 'nemo-gym.nvidia.com/run' \
    "$(echo "$INSPECT" | json 'list(d["Config"]["Labels"])')"
expect_eq "cpu becomes NanoCpus" "500000000" "$(echo "$INSPECT" | json 'd["HostConfig"]["NanoCpus"]')"
expect_eq "memory becomes Memory" "67108864" "$(echo "$INSPECT" | json 'd["HostConfig"]["Memory"]')"
expect_eq "pids_limit becomes PidsLimit" "100" "$(echo "$INSPECT" | json 'd["HostConfig"]["PidsLimit"]')"
expect_eq "the keep-alive runs under an init" "True" "$(echo "$INSPECT" | json 'd["HostConfig"]["Init"]')"
expect_eq "network from the config" "none" "$(echo "$INSPECT" | json 'd["HostConfig"]["NetworkMode"]')"
expect_eq "the container is running once create returns" "running" \
    "$(echo "$INSPECT" | json 'd["State"]["Status"]')"
expect_eq "readiness came from the keep-alive's output, without an exec" "0" \
    "$(echo "$INSPECT" | json 'len(d.get("ExecIDs") or [])')"

# ---- exec
run S exec "$ID" -- 'echo out; echo err >&2; exit 7'
expect_eq "exec returns the command's exit code" 7 "$RC"
expect_eq "stdout is demultiplexed" "out" "$OUT"
expect_eq "stderr is demultiplexed" "err" "$ERR"

run S exec "$ID" -- echo '$GREETING' from '$(pwd)'
expect_eq "the spec's env and workdir apply" "hello from /workspace" "$OUT"
run S exec -e GREETING=bye -w /tmp "$ID" -- 'echo $GREETING $(pwd)'
expect_eq "exec -e and -w override them" "bye /tmp" "$OUT"
run S exec -u nobody "$ID" -- id -u
expect_eq "exec -u runs as that user" "65534" "$OUT"
run S exec -u root "$ID" -- id -u
expect_eq "exec -u root runs as root" "0" "$OUT"
run S exec -u no-such-user "$ID" -- id -u
expect_eq "an unknown user is a runtime failure (125)" 125 "$RC"
expect_match "and the message names the user" "no-such-user" "$ERR"

start=$(date +%s.%N)
run timeout 10 "$SANDMAN" -p dk exec -n "$ID" -- cat
end=$(date +%s.%N)
expect_eq "with -n a command reading stdin sees EOF at once (whatever stdin the test has)" 0 "$RC"
check "stdin-free command returns quickly" python3 -c "import sys; sys.exit(0 if $end - $start < 3 else 1)"

run S exec -o json "$ID" -- 'printf abc; printf def >&2; exit 3'
expect_eq "JSON exec: stdout" "abc" "$(echo "$OUT" | json 'd["stdout"]')"
expect_eq "JSON exec: stderr" "def" "$(echo "$OUT" | json 'd["stderr"]')"
expect_eq "JSON exec: return_code" "3" "$(echo "$OUT" | json 'd["return_code"]')"
expect_eq "JSON exec: non-zero exit is data" "exit_nonzero" "$(echo "$OUT" | json 'd["failure"]["kind"]')"

run S exec "$ID" -- 'head -c 300000 /dev/zero | tr "\0" x; head -c 200000 /dev/zero | tr "\0" y >&2'
expect_eq "large outputs arrive whole on stdout" 300000 "${#OUT}"
expect_eq "and on stderr" 200000 "${#ERR}"

# ---- pause / resume: the engine freezes the container and thaws it
state() { api GET "/containers/$ID/json" | json 'd["State"]["Status"]'; }
run S pause "$ID"
expect_eq "pause exits 0" 0 "$RC"
expect_eq "and prints the id" "$ID" "$OUT"
expect_eq "the engine has the container paused" "paused" "$(state)"
run S resume "${ID:0:12}"
expect_eq "resume (by id prefix) exits 0" 0 "$RC"
expect_eq "the engine runs it again" "running" "$(state)"
run S exec "$ID" -- echo thawed
expect_eq "and commands run in it again" "thawed" "$OUT"
run S events "$ID"
expect_match "the journal has the pause" "lifecycle +paused" "$OUT"
expect_match "and the resume" "lifecycle +resumed" "$OUT"

# ---- options after the id: --timeout is an option, not the command
run S exec "$ID" --timeout 1 -- 'sleep 5'
expect_eq "exec ID --timeout 1 -- CMD times out (125)" 125 "$RC"
run S exec "$ID" -u nobody -- id -u
expect_eq "exec ID -u nobody -- CMD runs as nobody" "65534" "$OUT"

# ---- timeout: 125 + timeout, near the limit, and the processes are gone
# (the command's own duration is judged: the CLI's start-up is not part of the timeout; the
# kill is one more exec, ~0.2 s here, more on a loaded machine: hence 2.5 s)
run S exec --timeout 1 "$ID" -- 'echo started; sleep 30 & sleep 31'
expect_eq "a timed-out command exits 125" 125 "$RC"
expect_eq "output before the timeout is kept" "started" "$OUT"
expect_match "the timeout is named on stderr" "timeout" "$ERR"
start=$(date +%s.%N)
run S exec -o json --timeout 1 "$ID" -- 'sleep 30 & sleep 31'
end=$(date +%s.%N)
check "the timeout fires within 1 s of the limit" python3 -c "
import json, sys; d = json.loads(sys.argv[1])['duration_s']; sys.exit(0 if 1 <= d < 2.5 else 1)" "$OUT"
check "and the whole CLI call returns soon after" python3 -c "import sys; d=$end-$start; sys.exit(0 if d < 4 else 1)"
run S exec "$ID" -- 'ps -o args | grep -c "^sleep 3[01]$"'
expect_eq "the timed-out command and its children were killed in the container" "0" "$OUT"

run S exec --timeout 1 "$ID" -- 'env -i sleep 35 & env -i sleep 36'
expect_eq "a command that dropped the exec's marker (env -i) times out too" 125 "$RC"
run S exec "$ID" -- 'ps -o args | grep -c "^sleep 3[56]$"'
expect_eq "and its session is killed all the same" "0" "$OUT"

run S exec "$ID" -- 'echo before; exec >/dev/null 2>&1; sleep 2; exit 4'
expect_eq "a command that closes its output still reports its own exit code" 4 "$RC"
expect_eq "and what it printed before" "before" "$OUT"
run S exec -o json --timeout 1 "$ID" -- 'exec >/dev/null 2>&1; sleep 32'
expect_eq "it still times out" "125 timeout" "$(echo "$OUT" | json '"%d %s" % (d["return_code"], d["error_type"])')"
check "at the limit" python3 -c "
import json, sys; d = json.loads(sys.argv[1])['duration_s']; sys.exit(0 if 1 <= d < 2.5 else 1)" "$OUT"
run S exec "$ID" -- 'ps -o args | grep -c "^sleep 32$"'
expect_eq "and is killed" "0" "$OUT"

run S exec -o json --timeout 1 "$ID" -- 'sleep 5'
expect_eq "JSON timeout: return_code 125" "125" "$(echo "$OUT" | json 'd["return_code"]')"
expect_eq "JSON timeout: error_type timeout" "timeout" "$(echo "$OUT" | json 'd["error_type"]')"
expect_eq "JSON timeout: failure kind" "exec_timeout" "$(echo "$OUT" | json 'd["failure"]["kind"]')"

# ---- files
LOCAL=$SANDMAN_STATE_DIR/in.txt
printf 'line one\nline two\n' >"$LOCAL"
chmod 0640 "$LOCAL"
run S cp "$LOCAL" "$ID:/tmp/deep/er/notes.txt"
expect_eq "upload creates the parent directories" 0 "$RC"
run S exec "$ID" -- 'cat /tmp/deep/er/notes.txt; stat -c %a /tmp/deep/er/notes.txt; stat -c %a /tmp/deep/er'
expect_eq "the uploaded file has its content and mode; parents are 755" \
    "$(printf 'line one\nline two\n640\n755')" "$OUT"
run S exec "$ID" -- 'stat -c %a /tmp'
expect_eq "existing directories keep their mode" "1777" "$OUT"
run S cp "$LOCAL" "$ID:relative.txt"
run S exec "$ID" -- cat /workspace/relative.txt
expect_eq "a relative remote path is under the workdir" "$(cat "$LOCAL")" "$OUT"
run S cp "$ID:/tmp/deep/er/notes.txt" "$SANDMAN_STATE_DIR/out/sub/notes.txt"
expect_eq "download exits 0" 0 "$RC"
expect_eq "download creates local parents and keeps the content" "$(cat "$LOCAL")" \
    "$(cat "$SANDMAN_STATE_DIR/out/sub/notes.txt" 2>/dev/null)"
head -c 3000000 /dev/urandom >"$SANDMAN_STATE_DIR/big.bin"
S cp "$SANDMAN_STATE_DIR/big.bin" "$ID:/tmp/big.bin" >/dev/null 2>&1
S cp "$ID:/tmp/big.bin" "$SANDMAN_STATE_DIR/big.back" >/dev/null 2>&1
check "a 3 MB binary file survives the round trip" cmp -s "$SANDMAN_STATE_DIR/big.bin" "$SANDMAN_STATE_DIR/big.back"
run S cp "$ID:/etc/no-such-file" "$SANDMAN_STATE_DIR/x"
expect_eq "downloading a missing file fails" 1 "$RC"
expect_match "and names it" "/etc/no-such-file" "$ERR"
run S cp "$ID:/tmp/deep" "$SANDMAN_STATE_DIR/x"
expect_eq "downloading a directory without -r is refused as bad input" 2 "$RC"
expect_match "and says to use -r" "is a directory \(use -r to copy directories\)" "$ERR"
run S cp "$LOCAL" "$ID:/tmp/deep/er/notes.txt/inside"
expect_eq "uploading below a file fails" 1 "$RC"
expect_match "and says which part is not a directory" "not a directory" "$ERR"

# ---- status, ls, stats
run S status -o json "$ID"
expect_eq "status says running" "running" "$(echo "$OUT" | json 'd["status"]')"
expect_eq "status has the labels" "evals" "$(echo "$OUT" | json 'd["labels"]["team"]')"
expect_eq "status has the resources" "0.5 64" "$(echo "$OUT" | json '"%g %d" % (d["resources"]["cpu"], d["resources"]["memory_mib"])')"
expect_match "env names are listed" '"GREETING"' "$(echo "$OUT" | json 'd["env_names"]')"
expect_no_match "env values are not" 'hello' "$(echo "$OUT" | json 'd["env_names"]')"
expect_eq "workdir" "/workspace" "$(echo "$OUT" | json 'd["workdir"]')"

FOREIGN=$(api POST "/containers/create?name=not-sandman-$DOCKER_TEST_RUN" \
    "{\"Image\":\"$IMG\",\"Cmd\":[\"sleep\",\"600\"],\"Labels\":{\"sandman-test-run\":\"$DOCKER_TEST_RUN\"},\"HostConfig\":{\"NetworkMode\":\"none\"}}" |
    json 'd["Id"]')
api POST "/containers/$FOREIGN/start" >/dev/null
run S ls -q
expect_match "ls lists the sandbox" "^${ID:0:12}" "$OUT"
expect_no_match "ls without --all hides containers sandman did not make" "${FOREIGN:0:12}" "$OUT"
run S ls -aq
expect_match "ls --all shows every container of the engine" "${FOREIGN:0:12}" "$OUT"
run S ls -o json -l team=evals
expect_eq "ls by label finds it (full id)" "$ID" "$(echo "$OUT" | json '" ".join(x["id"] for x in d)')"
run S ls -q -l team=nobody
expect_eq "ls by another label succeeds and finds nothing" "0:" "$RC:$OUT"
run S exec "${ID:0:12}" -- echo short
expect_eq "the 12-character short id works as a prefix" "short" "$OUT"

S exec "$ID" -- 'head -c 20000000 /dev/zero > /tmp/fill; sleep 0' >/dev/null
run S stats -o json "$ID"
expect_eq "stats exits 0" 0 "$RC"
check "stats: memory working set is positive and below usage+1" python3 -c "
import json,sys; d=json.loads('''$OUT''')
sys.exit(0 if 0 < d['memory_working_set'] <= d['memory_usage'] else 1)"
expect_eq "stats: memory limit" "67108864" "$(echo "$OUT" | json 'd["memory_limit"]')"
expect_eq "stats: cpu limit" "0.5" "$(echo "$OUT" | json 'd["cpu_limit"]')"
check "stats: pids and cpu time" python3 -c "
import json,sys; d=json.loads('''$OUT'''); sys.exit(0 if d['pids'] >= 1 and d['cpu_time_s'] > 0 else 1)"

CREATED=$(api POST "/containers/create?name=created-only-$DOCKER_TEST_RUN" \
    "{\"Image\":\"$IMG\",\"Cmd\":[\"sleep\",\"600\"],\"Labels\":{\"sandman-test-run\":\"$DOCKER_TEST_RUN\"},\"HostConfig\":{\"NetworkMode\":\"none\"}}" |
    json 'd["Id"]')
run S stats "$CREATED"
expect_eq "stats of a container that was never started fails" 1 "$RC"
expect_match "saying it is not running and its state" "^sandman: container ${CREATED:0:12} is not running \(state created\)" "$ERR"
api DELETE "/containers/$CREATED?force=1" >/dev/null

# ---- OOM attribution
run S exec -o json "$ID" -- 'dd if=/dev/zero of=/dev/null bs=200M count=1'
expect_eq "a 200 MB allocation in 64 MiB is killed (137)" "137" "$(echo "$OUT" | json 'd["return_code"]')"
expect_eq "and attributed to the OOM killer" "oom_killed" "$(echo "$OUT" | json 'd["failure"]["kind"]')"
expect_eq "with the memory limit as evidence" "67108864" "$(echo "$OUT" | json 'd["failure"]["memory_limit"]')"
run S exec -o json "$ID" -- 'kill -9 $$'
expect_eq "a plain SIGKILL afterwards is not blamed on memory" "signaled SIGKILL" \
    "$(echo "$OUT" | json 'd["failure"]["kind"] + " " + d["failure"]["signal"]')"

# ---- an entrypoint that exits: create succeeds while it runs, status says why it ended
run S create -i "$IMG" --entrypoint /bin/sh --entrypoint -c --entrypoint 'sleep 2; exit 3'
expect_eq "create with an entrypoint" 0 "$RC"
EP=$OUT
for _ in $(seq 60); do
    [ "$(api GET "/containers/$EP/json" | json 'd["State"]["Status"]')" = exited ] && break
    sleep 0.2
done
run S status -o json "$EP"
expect_eq "the ended container is stopped" "stopped" "$(echo "$OUT" | json 'd["status"]')"
expect_eq "with its exit code as the reason" "exit_nonzero 3" \
    "$(echo "$OUT" | json 'd["failure"]["kind"] + " " + str(d["failure"]["exit_code"])')"
run S ls -q
expect_eq "ls without --all exits 0" 0 "$RC"
expect_no_match "and hides ended sandboxes" "${EP:0:12}" "$OUT"
run S ls -aq
expect_match "ls --all shows them" "${EP:0:12}" "$OUT"

# ---- the docker config keys reach the engine (one sandbox with every knob set)
cat >>"$SANDMAN_CONFIG" <<'EOF'
knobs:
  docker:
    host: ${oc.env:DOCKER_TEST_HOST}
    create:
      keepalive_cmd: 'while :; do sleep 1000; done # knobs'
      use_init: false
      read_only: true
      cap_drop: [CHOWN]
      security_opt: [no-new-privileges]
      apply_resource_limits: false
      publish_host: 127.0.0.2
    exec:
      default_timeout_s: 1
    probe:
      # passes on its third run: only a deadline makes create try more than once
      command: 'n=$(cat /dev/shm/probes 2>/dev/null || echo 0); n=$((n+1)); echo $n >/dev/shm/probes; [ $n -ge 3 ] && printf knobs-ready'
      expected_stdout: knobs-ready
      deadline_s: 20
  default_metadata:
    sandman-test-run: ${oc.env:DOCKER_TEST_RUN}
EOF
run "$SANDMAN" -p knobs create -i "$IMG" -m 64 --cpu 0.5 --port 8080
expect_eq "create with every docker knob set" 0 "$RC"
KN=$OUT
INSPECT=$(api GET "/containers/$KN/json")
expect_eq "keepalive_cmd is the main process (a configured probe: no ready line)" \
    "/bin/sh -c while :; do sleep 1000; done # knobs" \
    "$(echo "$INSPECT" | json '" ".join(d["Config"]["Entrypoint"] + d["Config"]["Cmd"])')"
expect_eq "use_init false: no init" "False" "$(echo "$INSPECT" | json 'bool(d["HostConfig"].get("Init"))')"
run S exec "$KN" -- 'tr "\0" " " </proc/1/cmdline'
expect_eq "so the keep-alive is PID 1" "/bin/sh -c while :; do sleep 1000; done # knobs " "$OUT"
expect_eq "read_only" "True" "$(echo "$INSPECT" | json 'd["HostConfig"]["ReadonlyRootfs"]')"
run S exec "$KN" -- 'touch /x'
expect_eq "writing the root fails" 1 "$RC"
expect_match "the root is read-only in the container" "Read-only file system" "$ERR"
expect_match "cap_drop" "CHOWN" "$(echo "$INSPECT" | json 'd["HostConfig"]["CapDrop"]')"
run S exec "$KN" -- 'chown 65534 /dev/shm/probes'
expect_eq "chown fails" 1 "$RC"
expect_match "root in the container cannot chown" "Operation not permitted" "$ERR"
expect_match "security_opt" "no-new-privileges" "$(echo "$INSPECT" | json 'd["HostConfig"]["SecurityOpt"]')"
run S exec "$KN" -- 'grep NoNewPrivs /proc/self/status'
expect_match "no_new_privs is set in the container" "NoNewPrivs:[[:space:]]*1" "$OUT"
expect_eq "apply_resource_limits false: no memory or CPU limit" "0 0 0" \
    "$(echo "$INSPECT" | json '"%d %d %d" % (d["HostConfig"].get("Memory") or 0, d["HostConfig"].get("NanoCpus") or 0, d["HostConfig"].get("CpuQuota") or 0)')"
expect_eq "publish_host is where the port is published" "127.0.0.2" \
    "$(echo "$INSPECT" | json 'd["NetworkSettings"]["Ports"]["8080/tcp"][0]["HostIp"]')"
run S exec "$KN" -- 'cat /dev/shm/probes'
expect_eq "probe.deadline_s: the probe ran until it passed (3 runs)" "3" "$OUT"
run "$SANDMAN" -p knobs exec -o json "$KN" -- 'sleep 5'
expect_eq "exec.default_timeout_s applies without --timeout" "125 timeout" \
    "$(echo "$OUT" | json '"%d %s" % (d["return_code"], d["error_type"])')"
check "after 1 s" python3 -c "
import json, sys; d = json.loads(sys.argv[1])['duration_s']; sys.exit(0 if 1 <= d < 2.5 else 1)" "$OUT"
run S rm "$KN"

# ---- failures at create
BEFORE=$(api GET "/containers/json?all=1" | json 'len(d)')
run S create -i localhost/sandman-no-such-image:1
expect_eq "a missing image fails create" 1 "$RC"
expect_match "naming the image" "localhost/sandman-no-such-image:1" "$ERR"
expect_match "and saying it could not be pulled" "pulled" "$ERR"
run S create -i "$IMG" --entrypoint /bin/false
expect_eq "an entrypoint that dies at once fails create" 1 "$RC"
expect_match "the message says it exited" "exited with code 1" "$ERR"
run S create -i "$IMG" --ttl 2 --entrypoint /bin/sleep --entrypoint 30
expect_eq "a TTL with a custom entrypoint is refused (bad input)" 2 "$RC"
expect_match "the message says why and what to drop" \
    "cannot enforce a TTL \(2s\) on a custom entrypoint \('/bin/sleep'\); drop --ttl or the entrypoint" "$ERR"
run S create -i "$IMG" --port 8080 --port 9090
expect_eq "ports with network none are refused (bad input)" 2 "$RC"
expect_match "naming the ports and the network" "ports 8080, 9090 cannot be published: .*network is 'none'" "$ERR"
expect_eq "failed creates leave no container behind" "$BEFORE" "$(api GET "/containers/json?all=1" | json 'len(d)')"

run "$SANDMAN" -p badkey ls
expect_eq "an unknown config key is a usage error" 2 "$RC"
expect_match "naming the key and the allowed ones" "netwrok.*keepalive_shell" "$ERR"
run "$SANDMAN" -p nowhere create -i "$IMG"
expect_eq "an unreachable engine fails create" 1 "$RC"
expect_match "naming the engine" "no-such.sock" "$ERR"

# ---- rm
run S rm "$ID" "$EP"
expect_eq "rm exits 0" 0 "$RC"
check "rm removed the containers" gone "$ID"
check "both of them" gone "$EP"
run S ls -aq
expect_eq "ls --all after rm exits 0" 0 "$RC"
expect_no_match "rm'd sandboxes are gone from ls --all" "${ID:0:12}" "$OUT"
api DELETE "/containers/$FOREIGN?force=1" >/dev/null

finish
