# NeMo Gym's docker sandboxes with sandman, against a real engine (the private podman service):
# a container made by the docker CLI exactly as NeMo Gym's docker provider makes it
# (`docker run -d --name nemo-gym-<32hex> --label nemo-gym.sandbox=1 ...`) is a sandbox to ls and
# top (and the dashboard) without --all, with its attribution labels, and every verb works on it (by id prefix or by
# its name): exec, cp both ways, status, stats, shell, rm. sandman's own containers carry
# nemo-gym.sandbox=1, so NeMo Gym's tooling (docker ps --filter) sees them. Runs select and
# group containers of both; rm --run removes a rollout. spec.files are 0644 and readable by an
# unprivileged exec user.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/docker_engine.bash"

command -v docker >/dev/null || {
    echo "FAIL - this test needs the docker CLI (to make containers as NeMo Gym does)"
    exit 1
}
TMUX_SOCKET=sandman-dkn-$$
tm() { tmux -L "$TMUX_SOCKET" "$@"; }
DOCKER_TEST_ON_EXIT='tm kill-server >/dev/null 2>&1'
docker_test_begin
export DOCKER_HOST=$DOCKER_TEST_HOST DOCKER_CONFIG=$ENGINE/docker-cli
S() { "$SANDMAN" -p dk "$@"; }
hex32() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# wait_until SECONDS COMMAND...: polls until the command succeeds.
wait_until() {
    local until=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -ge "$until" ] && return 1
        sleep 0.2
    done
}

# ---- a container as NeMo Gym's docker provider makes it (seed §4.1): its name, its marker
# label, --init, the workdir and env of the spec and the keep-alive entrypoint; the attribution
# labels as its metadata gives them.
GYM=nemo-gym-$(hex32)
GYM_ID=$(docker run -d --name "$GYM" --label nemo-gym.sandbox=1 \
    --label nemo-gym.nvidia.com/run=gym-rollout --label nemo-gym.nvidia.com/user=alice \
    --label sandman-test-run="$DOCKER_TEST_RUN" --init -w /workspace --env TASK=sort \
    --entrypoint /bin/sh "$IMG" -c 'while :; do sleep 2147483647; done')
expect_match "the docker CLI made NeMo Gym's container" '^[0-9a-f]{64}$' "$GYM_ID"
# a plain container of someone else: not a sandbox
OTHER=$(docker run -d --label sandman-test-run="$DOCKER_TEST_RUN" "$IMG" sleep 600)
expect_match "and an unrelated container" '^[0-9a-f]{64}$' "$OTHER"

run S ls
expect_eq "ls exits 0" 0 "$RC"
expect_match "ls without --all shows NeMo Gym's container, with its run" \
    "${GYM_ID:0:12} +docker +running +gym-rollout " "$OUT"
expect_no_match "but not a container that is no sandbox" "${OTHER:0:12}" "$OUT"
run S ls -a
expect_match "ls --all shows that one too" "${OTHER:0:12}" "$OUT"
run S -o json ls
expect_eq "ls -o json has its attribution labels" "alice gym-rollout $GYM" \
    "$(echo "$OUT" | json '" ".join([d[0]["labels"]["nemo-gym.nvidia.com/user"], d[0]["labels"]["nemo-gym.nvidia.com/run"], d[0]["provider_info"]["name"]])')"
run S top -n 1 --run gym-rollout
expect_match "top --run shows it" "${GYM_ID:0:12} +docker +running +gym-rollout" "$OUT"

# ---- every verb, by name and by id prefix
run S exec "$GYM" -- 'echo $TASK in $(pwd)'
expect_eq "exec by its name runs in its workdir with its env" "sort in /workspace" "$OUT"
run S exec "${GYM_ID:0:10}" -- 'exit 3'
expect_eq "exec by id prefix returns the exit code" 3 "$RC"
printf 'the task\n' >"$SANDMAN_STATE_DIR/up.txt"
run S cp "$SANDMAN_STATE_DIR/up.txt" "$GYM:/workspace/in/up.txt"
expect_eq "cp into it exits 0" 0 "$RC"
run S cp "$GYM:/workspace/in/up.txt" "$SANDMAN_STATE_DIR/down.txt"
expect_eq "cp out of it gives the file back" "the task" "$(cat "$SANDMAN_STATE_DIR/down.txt" 2>&1)"
run S status "$GYM"
expect_match "status shows it running" "status: +running" "$OUT"
expect_match "with its labels" "nemo-gym.nvidia.com/run=gym-rollout" "$OUT"
run S stats "${GYM_ID:0:12}"
expect_eq "stats exits 0" 0 "$RC"
expect_match "and reads its pids" "pids: +[0-9]+" "$OUT"

# shell: a real terminal (tmux); typed once the prompt is there
tm new-session -d -s shell -x 100 -y 20 "$SANDMAN -p dk shell $GYM; echo EXIT=\$?; sleep 600"
PANE=shell
shown() { tm capture-pane -p -t "$PANE" | grep -q "$1"; }
wait_until 30 shown '/workspace #'
check "shell opens a prompt in its workdir" shown '/workspace #'
tm send-keys -t shell 'echo in-shell-$TASK; exit 4' Enter
wait_until 30 shown 'EXIT='
check "the shell ran the command" shown '^in-shell-sort'
check "and exits with the remote status" shown 'EXIT=4'

# the dashboard reads the same list: NeMo Gym's container is a row, and its filter (/) selects
# the run by its label
tm new-session -d -s dash -x 160 -y 40 "$SANDMAN -p dk; sleep 600"
PANE=dash
wait_until 30 shown "${GYM_ID:0:12}"
check "the dashboard shows NeMo Gym's container" shown "${GYM_ID:0:12}"
tm send-keys -t dash /
tm send-keys -t dash -l run=gym-rollout
tm send-keys -t dash Enter
gone_from_screen() { ! tm capture-pane -p -t dash | grep -q "$1"; }
wait_until 30 gone_from_screen "${OTHER:0:12}"
check "filtering by run=gym-rollout leaves the other container out" gone_from_screen "${OTHER:0:12}"
check "and keeps the run's" shown "${GYM_ID:0:12}"
tm kill-server >/dev/null 2>&1

# ---- sandman's own containers are NeMo Gym sandboxes too
MINE=$(NEMO_GYM_RUN_ID=gym-rollout S create -i "$IMG")
expect_match "sandman creates a container" '^[0-9a-f]{64}$' "$MINE"
expect_eq "that carries nemo-gym.sandbox=1" "1" \
    "$(docker inspect -f '{{index .Config.Labels "nemo-gym.sandbox"}}' "$MINE")"
expect_match "so NeMo Gym's tooling lists it" "${MINE:0:12}" \
    "$(docker ps -q --no-trunc --filter label=nemo-gym.sandbox=1)"
run S ls --group-by run
expect_match "ls --group-by run puts both in one group" "run gym-rollout \\(2 sandboxes\\)" "$OUT"

# ---- spec.files (issue 10 item 9)
printf '# Task\nSort the list.\n' >"$SANDMAN_STATE_DIR/task.md"
run S create -i "$IMG" -w /workspace --file "/workspace/task.md=$SANDMAN_STATE_DIR/task.md"
expect_eq "create with a spec file exits 0" 0 "$RC"
FILES=$OUT
run S exec -u nobody "$FILES" -- cat /workspace/task.md
expect_eq "exec -u nobody reads task.md" "$(cat "$SANDMAN_STATE_DIR/task.md")" "$OUT"
run S exec "$FILES" -- stat -c %a /workspace/task.md
expect_eq "spec files are 0644" "644" "$OUT"
run S exec -u nobody "$FILES" -- 'echo done > /workspace/result.txt && cat /workspace/result.txt'
expect_eq "exec -u nobody can write in the workdir" "done" "$OUT"
S rm "$FILES" >/dev/null

# ---- a rollout removed as a run, whoever made its containers
run S rm --run nosuch
expect_eq "rm --run of a run without sandboxes exits 0" 0 "$RC"
expect_match "and says there was nothing" "nothing to remove" "$ERR"
run S rm --run gym-rollout
expect_eq "rm --run exits 0" 0 "$RC"
expect_match "and says how many it removed" "removed 2 of 2 sandboxes with run=gym-rollout" "$ERR"
check "NeMo Gym's container is gone" wait_until 10 eval "! docker inspect $GYM >/dev/null 2>&1"
check "and sandman's" wait_until 10 eval "! docker inspect $MINE >/dev/null 2>&1"
check "the unrelated container is still there" eval "docker inspect $OTHER >/dev/null"

finish
