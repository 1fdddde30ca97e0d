# The cgroup v2 path for real: in a private mount namespace where /sys/fs/cgroup is the unified
# hierarchy alone, as on a pure v2 host. Root, and an unprivileged user given a delegated cgroup
# (owned by it, as systemd's Delegate=yes does), each get a sandbox placed in <cgroup>/sandman/
# <id>/sandbox with its cgroup namespace rooted there: a cgroup2 mount from nested namespaces
# inside shows only that leaf (never the sandbox's own cgroup, which holds its limits and which
# the delegated user, root of the sandbox's namespace, owns), no host cgroup, and rm removes
# what the agent made. This hybrid host binds memory, cpu and pids to v1, so v2 cannot enforce
# them here: a create asking for them is refused, naming the controllers (their files are
# covered by tests/unit/test_cgroup.c on fixtures).
if [ -z "${CG_V2_NS:-}" ]; then
    exec unshare -m env CG_V2_NS=1 bash "$0" "$@"
fi
mount --make-rprivate /
umount -l /sys/fs/cgroup 2>/dev/null
mount -t cgroup2 none /sys/fs/cgroup || {
    echo "# cannot mount cgroup2 here"
    exit 1
}
. "$(dirname "$0")/lib_security.sh"

V2=/sys/fs/cgroup
VICTIM=$V2/cgx-v2-victim-$$
DELEG=$V2/cgx-v2-deleg-$$
mkdir "$VICTIM" "$DELEG"
# Delegation as systemd does it: the directory and its process files belong to the user.
chown 65534:65534 "$DELEG" "$DELEG/cgroup.procs" "$DELEG/cgroup.subtree_control" "$DELEG/cgroup.threads"
v2_cleanup() {
    sec_cleanup
    find "$DELEG" "$VICTIM" -depth -type d -exec rmdir {} + 2>/dev/null
}
trap v2_cleanup EXIT

# The unprivileged user runs sandman from inside its delegated cgroup.
sm_user() {
    sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$DELEG" \
        setpriv --reuid=65534 --regid=65534 --clear-groups \
        env HOME="$USER_STATE" SANDMAN_STATE_DIR="$USER_STATE/state" \
        SANDMAN_SUPERVISOR="$USER_SUPERVISOR" XDG_CONFIG_HOME="$USER_STATE/config" \
        "$USER_SANDMAN" "$@"
}

NESTED='mkdir -p /tmp/u && mount -t cgroup2 none /tmp/u || exit 0
echo "mounted"
ls /tmp/u | grep -qx sandbox && echo "sees-own-cgroup"
ls /tmp/u | grep -q cgx-v2 && echo "sees-host-cgroups"
ls /tmp/u | grep -qx -e memory.max -e memory.high -e pids.max -e cpu.max -e io.max && echo "sees-limit-files"
mkdir /tmp/u/agent-child && echo made-child'

attacks() {
    local own=$V2 state=$SANDMAN_STATE_DIR id init
    if [ "$MODE" = user ]; then
        own=$DELEG
        state=$USER_STATE/state
    fi
    run sm providers
    expect_match "$(say "providers names the v2 controllers this host cannot give")" \
        "local .*cgroup v2; limits not enforced: the cgroup v2 controllers cpu, memory, pids are not available in $own" "$OUT"
    run sm create --memory-mib 64
    expect_eq "$(say "a create asking for a memory limit v2 cannot apply here is refused")" 1 "$RC"
    expect_match "$(say "saying which controllers are missing")" "requested limits \(memory\) cannot be applied here: the cgroup v2 controllers" "$ERR"

    id=$(sm create)
    check "$(say "a create without limits works")" test -n "$id"
    [ -n "$id" ] || return
    init=$(sed -n 's/^pid=//p' "$state/local/$id/ready")
    expect_eq "$(say "the init is in the sandbox's leaf cgroup")" "0::${own#$V2}/sandman/$id/sandbox" "$(grep '^0::' "/proc/$init/cgroup")"
    expect_eq "$(say "no process sits in the sandbox's own cgroup, above the leaf")" "" "$(cat "$own/sandman/$id/cgroup.procs")"
    if [ "$MODE" = user ]; then
        expect_eq "$(say "the delegated user owns the sandbox's cgroup")" 65534 "$(stat -c %u "$own/sandman/$id")"
    fi
    inside "$id" 'grep "^0::" /proc/self/cgroup'
    expect_eq "$(say "inside, the cgroup namespace is rooted at the leaf")" "0::/" "$OUT"
    inside "$id" "cat >/tmp/nested.sh <<'EOF'
$NESTED
EOF
unshare -U -r -C -m sh /tmp/nested.sh"
    echo "# [$MODE] nested cgroup2 mount said: $(echo $OUT)"
    expect_no_match "$(say "a nested cgroup2 mount does not show the sandbox's own cgroup")" "sees-own-cgroup|sees-limit-files" "$OUT"
    expect_no_match "$(say "nor any host cgroup")" "sees-host-cgroups" "$OUT"
    # The busy loop's own CPU time, as the kernel counts it for the shell that waited for it.
    inside "$id" 'timeout 1 sh -c "while :; do :; done"; awk "{print (\$16 + \$17) / 100}" /proc/$$/stat'
    local used=$OUT
    run sm stats -o json "$id"
    local seen
    seen=$(echo "$OUT" | json 'd["cpu_time_s"]')
    echo "# [$MODE] the loop used ${used}s of CPU; stats say ${seen}s"
    check "$(say "stats read the sandbox's CPU time from the v2 cpu.stat")" \
        python3 -c "import sys; sys.exit(0 if $used > 0.05 and $seen >= 0.9 * $used else 1)"
    run sm rm "$id"
    expect_eq "$(say "rm succeeds")" 0 "$RC"
    expect_eq "$(say "and leaves no cgroup of the sandbox, nor what the agent made")" "" "$(find "$V2" -mindepth 1 -maxdepth 6 -type d -name "$id")"
}

run_modes
