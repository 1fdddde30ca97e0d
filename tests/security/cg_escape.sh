# Cgroup escapes from inside a sandbox: an agent that opens nested user, cgroup and mount
# namespaces and mounts the cgroup hierarchies, or writes under /sys/fs/cgroup, must not raise
# its own memory, pids or CPU limits (as read from the host, and as enforced), must not freeze
# a host cgroup, and must not leave cgroups behind after rm. As root the sandbox sits in a
# cgroup of its own on every hierarchy; unprivileged (no writable cgroups here) it has no
# limits, and the test checks that the host's cgroups stay out of its reach.
. "$(dirname "$0")/lib_security.sh"

FREEZER=$(awk '$9 == "cgroup" && $NF ~ /(^|,)freezer(,|$)/ {print $5; exit}' /proc/self/mountinfo)
VICTIM=
VICTIM_PID=
if [ -n "$FREEZER" ] && [ "$(id -u)" -eq 0 ]; then
    # A host cgroup with a host process in it, the target of the freezing attack.
    VICTIM=cgx-victim-$$
    mkdir "$FREEZER/$VICTIM"
    sleep 600 &
    VICTIM_PID=$!
    echo "$VICTIM_PID" >"$FREEZER/$VICTIM/cgroup.procs"
fi
cg_cleanup() {
    sec_cleanup
    if [ -n "$VICTIM" ]; then
        echo THAWED >"$FREEZER/$VICTIM/freezer.state" 2>/dev/null
        kill "$VICTIM_PID" 2>/dev/null
        wait "$VICTIM_PID" 2>/dev/null
        rmdir "$FREEZER/$VICTIM" 2>/dev/null
    fi
}
trap cg_cleanup EXIT

# The limit the host enforces on a process: the tightest value of FILE along its cgroup path
# in the v1 hierarchy holding CTRL (or the unified one), read from the host.
effective() { # PID CTRL FILE
    python3 - "$@" <<'PY'
import sys, os
pid, ctrl, name = sys.argv[1:]
mounts = {}
for line in open("/proc/self/mountinfo"):
    f = line.split()
    sep = f.index("-")
    fstype, opts = f[sep + 1], f[sep + 3].split(",")
    if fstype == "cgroup" and ctrl in opts:
        mounts["v1"] = f[4]
    if fstype == "cgroup2":
        mounts.setdefault("v2", f[4])
path = None
for line in open(f"/proc/{pid}/cgroup"):
    hid, ctrls, p = line.rstrip("\n").split(":", 2)
    if ctrl in ctrls.split(",") and "v1" in mounts:
        path = mounts["v1"] + p
    elif hid == "0" and "v1" not in mounts and "v2" in mounts:
        path = mounts["v2"] + p
if path and "v1" not in mounts:  # a pure v2 host: the same limits under their v2 names
    name = {"memory.limit_in_bytes": "memory.max", "cpu.cfs_quota_us": "cpu.max"}.get(name, name)
best = None
while path:
    try:
        v = open(os.path.join(path, name)).read().split()[0]
        if v not in ("max", "-1"):
            best = int(v) if best is None else min(best, int(v))
    except OSError:
        pass
    if os.path.ismount(path):
        break
    path = os.path.dirname(path)
print("none" if best is None or best >= 1 << 60 else best)
PY
}

# The nested-namespace attack: mount each hierarchy inside, raise every limit in sight, make a
# child cgroup, and freeze the host's victim cgroup if it can be reached.
NESTED='mkdir -p /tmp/cg; for c in memory pids cpu freezer; do mkdir -p /tmp/cg/$c; mount -t cgroup -o $c none /tmp/cg/$c 2>/dev/null && echo mounted-$c; done
echo 4294967296 >/tmp/cg/memory/memory.limit_in_bytes 2>/dev/null && echo raised-memory
echo max >/tmp/cg/pids/pids.max 2>/dev/null && echo raised-pids
echo -1 >/tmp/cg/cpu/cpu.cfs_quota_us 2>/dev/null && echo raised-cpu
mkdir /tmp/cg/memory/child 2>/dev/null && echo made-child
for c in memory pids cpu freezer; do [ -e /tmp/cg/$c/release_agent ] && echo sees-root-of-$c; done
[ -n "$VICTIM" ] && echo FROZEN >/tmp/cg/freezer/$VICTIM/freezer.state 2>/dev/null && echo froze-victim
mkdir -p /tmp/cg/u && mount -t cgroup2 none /tmp/cg/u 2>/dev/null && echo max >/tmp/cg/u/memory.max 2>/dev/null && echo raised-v2
true'

# Writing the limits through whatever cgroup files the sandbox's own /sys/fs/cgroup shows.
DIRECT='for f in $(find /sys/fs/cgroup -name memory.limit_in_bytes -o -name memory.max -o -name pids.max -o -name cpu.cfs_quota_us -o -name cpu.max -o -name freezer.state 2>/dev/null); do
  (echo max >"$f" || echo 4294967296 >"$f") 2>/dev/null && echo "wrote $f"; done
mount -t cgroup -o memory none /mnt 2>/dev/null && echo mounted-directly
echo "entries: $(ls -A /sys/fs/cgroup | wc -l)"
echo "cgroup mounts: $(grep -c -e " - cgroup " -e " - cgroup2 " /proc/self/mountinfo)"'

attacks() {
    local cfg id init out
    cfg=$(mktemp -p "${USER_STATE:-$SANDMAN_STATE_DIR}" cgx-XXXXXX.yaml)
    printf 'tight:\n  local:\n    pids_limit: 64\n' >"$cfg"
    chmod 644 "$cfg"
    if [ "$MODE" = root ]; then
        id=$(sm -c "$cfg" -p tight create --memory-mib 64 --cpu 0.5)
    else
        id=$(sm -c "$cfg" -p tight create --memory-mib 64 --cpu 0.5 2>/dev/null)
        expect_eq "$(say "a create asking for limits that cannot be applied is refused")" "" "$id"
        cat >"$cfg" <<'YAML'
tight:
  local:
    pids_limit: 64
    unenforced_limits: warn
YAML
        id=$(sm -c "$cfg" -p tight create --memory-mib 64 --cpu 0.5)
    fi
    check "$(say "the sandbox starts")" test -n "$id"
    [ -n "$id" ] || return
    local state=$SANDMAN_STATE_DIR
    [ "$MODE" = user ] && state=$USER_STATE/state
    init=$(sed -n 's/^pid=//p' "$state/local/$id/ready")

    if [ "$MODE" = root ]; then
        # Placement: every hierarchy the init is in (v1 and unified) is at or below its own
        # cgroup, so a cgroup namespace opened inside is rooted there on every one of them.
        out=$(grep -v "/sandman/$id/" "/proc/$init/cgroup")
        expect_eq "$(say "the sandbox is in a cgroup of its own on every hierarchy")" "" "$out"
    fi

    inside "$id" "cat >/tmp/nested.sh <<'EOF'
$NESTED
EOF
VICTIM=$VICTIM unshare -U -r -C -m sh /tmp/nested.sh"
    echo "# [$MODE] nested attack said: $(echo $OUT)"
    expect_no_match "$(say "nested namespaces cannot freeze a host cgroup")" "froze-victim" "$OUT"
    if [ "$MODE" = root ]; then
        # Unprivileged, the sandbox shares the user's own cgroups, which it cannot write.
        expect_no_match "$(say "nor reach the root of any hierarchy")" "sees-root-of" "$OUT"
    fi
    inside "$id" "$DIRECT"
    echo "# [$MODE] direct attack said: $(echo $OUT)"
    expect_no_match "$(say "no cgroup file under /sys/fs/cgroup inside is writable")" "wrote " "$OUT"
    expect_no_match "$(say "the sandbox cannot mount a cgroup hierarchy itself")" "mounted-directly" "$OUT"
    expect_match "$(say "no cgroup filesystem is mounted anywhere in its view")" "cgroup mounts: 0" "$OUT"

    if [ -n "$VICTIM" ]; then
        expect_eq "$(say "the host's victim cgroup is not frozen")" "THAWED" "$(cat "$FREEZER/$VICTIM/freezer.state")"
    fi
    if [ "$MODE" = root ]; then
        expect_eq "$(say "the host still holds it to 64 MiB")" 67108864 "$(effective "$init" memory memory.limit_in_bytes)"
        expect_eq "$(say "and to 64 pids")" 64 "$(effective "$init" pids pids.max)"
        expect_eq "$(say "and to a 0.5 CPU quota")" 50000 "$(effective "$init" cpu cpu.cfs_quota_us)"
        run sm stats -o json "$id"
        expect_eq "$(say "stats report the limits as set")" "67108864 64 0.5" \
            "$(echo "$OUT" | json '"%d %d %g" % (d["memory_limit"], d["pids_limit"], d["cpu_limit"])')"
        inside "$id" 'dd if=/dev/zero of=/dev/null bs=200M count=1'
        expect_eq "$(say "an allocation over 64 MiB is still OOM killed")" 137 "$RC"
    else
        run sm status "$id"
        expect_match "$(say "status notes that the limits are not enforced")" "note: +limits not enforced" "$OUT"
    fi
    sm rm "$id" >/dev/null 2>&1
    out=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 8 -type d -name "$id" 2>/dev/null)
    expect_eq "$(say "rm leaves no cgroup of the sandbox on any hierarchy")" "" "$out"
}

run_modes
