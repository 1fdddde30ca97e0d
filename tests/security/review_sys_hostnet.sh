# /sys of a sandbox on the host's network (review of issue 8). An unprivileged sandbox with
# `network: host` cannot mount a sysfs of its own (the network namespace is the host's), so it
# gets the host's /sys bound read-only, and with it, recursively, every cgroup hierarchy of the
# host: the cgroups of every host service and every other sandbox, their limits and member
# pids. The design says a sandbox reaches no host cgroup; /sys/fs/cgroup is masked as it is
# with a sysfs of its own (empty).
. "$(dirname "$0")/lib_security.sh"

CFG=$(mktemp /tmp/sandman-review-sys-XXXXXX.yaml)
printf 'hostnet:\n  local:\n    network: host\n' >"$CFG"
chmod 644 "$CFG"
trap 'rm -f "$CFG"; sec_cleanup' EXIT

attacks() {
    local id
    for net in none host; do
        if [ $net = host ]; then
            id=$(sm -c "$CFG" create -p hostnet)
        else
            id=$(sm create)
        fi
        [ -n "$id" ] || { not_ok "[$MODE] create (network: $net)"; continue; }
        inside "$id" 'ls -A /sys/fs/cgroup | wc -l; find /sys/fs -name cgroup.procs 2>/dev/null | wc -l'
        expect_eq "[$MODE] network: $net: /sys/fs/cgroup is empty, no cgroup hierarchy reachable" "0
0" "$OUT"
        inside "$id" 'cat /sys/kernel/mm/transparent_hugepage/enabled >/dev/null 2>&1 || test ! -e /sys/kernel/mm/transparent_hugepage; echo $?; ls /sys/class/net | grep -c .'
        expect_match "[$MODE] network: $net: the rest of /sys still reads" "^0
[1-9]" "$OUT"
        sm rm "$id" >/dev/null
    done
}

run_modes
