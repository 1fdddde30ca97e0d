# Attacks on the host kernel through /proc and /sys from inside a sandbox: host sysctls,
# sysrq, IRQ affinity, kernel memory and keys, firmware tables. Writes only ever try to open
# for writing (nothing is written) or write back the value already there.
. "$(dirname "$0")/lib_security.sh"

# open_w PATH: a shell line that succeeds when PATH opens for writing (O_APPEND, no bytes).
open_w() { echo "( exec 3>>$1 ) 2>/dev/null && echo writable || echo refused"; }

attacks() {
    local id burst
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    for f in /proc/sys/kernel/core_pattern /proc/sys/kernel/printk_ratelimit_burst \
        /proc/sysrq-trigger /proc/irq/default_smp_affinity /proc/sys/vm/drop_caches; do
        inside "$id" "$(open_w $f)"
        expect_eq "[$MODE] $f does not open for writing" refused "$OUT"
    done
    burst=$(cat /proc/sys/kernel/printk_ratelimit_burst)
    inside "$id" "echo $burst > /proc/sys/kernel/printk_ratelimit_burst"
    check "[$MODE] writing a host sysctl fails" test "$RC" -ne 0
    expect_match "[$MODE] as a read-only file system" "Read-only file system" "$ERR"
    inside "$id" 'grep -E " /proc/(sys|sysrq-trigger|irq|bus|fs) " /proc/self/mountinfo | awk "{print \$5, substr(\$6, 1, 3)}" | sort -u'
    expect_eq "[$MODE] /proc/sys, sysrq-trigger, irq, bus and fs are read-only mounts" \
        "$(for p in /proc/bus /proc/fs /proc/irq /proc/sys /proc/sysrq-trigger; do [ -e $p ] && echo "$p ro,"; done)" "$OUT"
    for f in /proc/kcore /proc/keys /proc/timer_list /proc/sched_debug /proc/kallsyms; do
        [ -e "$f" ] || continue
        inside "$id" "head -c 64 $f 2>/dev/null | wc -c"
        expect_eq "[$MODE] $f reads nothing" 0 "$OUT"
    done
    for d in /proc/acpi /proc/scsi /sys/firmware; do
        [ -d "$d" ] || continue
        inside "$id" "ls -A $d | wc -l"
        expect_eq "[$MODE] $d is empty" 0 "$OUT"
    done
    # Root in a nested user+mount namespace cannot peel the masks off (they are locked).
    inside "$id" "unshare -Urm sh -c 'umount /proc/sys 2>/dev/null; umount /proc/timer_list 2>/dev/null; $(open_w /proc/sys/kernel/core_pattern); head -c 64 /proc/timer_list | wc -c' 2>/dev/null || echo refused"
    expect_match "[$MODE] a nested namespace cannot unmask /proc" "^refused" "$OUT"
    expect_no_match "[$MODE] nor read the masked timer_list" "^[1-9]" "$(echo "$OUT" | tail -n1)"
    # An upload onto a planted symlink into /proc/sys (the file holds the current value).
    inside "$id" 'ln -s /proc/sys/kernel/printk_ratelimit_burst /tmp/sysctl-link'
    local up=$SANDMAN_STATE_DIR/burst
    echo "$burst" >"$up"
    chmod 644 "$up"
    chmod 755 "$SANDMAN_STATE_DIR"
    run sm cp "$up" "$id:/tmp/sysctl-link"
    check "[$MODE] an upload through a symlink into /proc/sys fails" test "$RC" -ne 0
    expect_eq "[$MODE] and the host sysctl is unchanged" "$burst" "$(cat /proc/sys/kernel/printk_ratelimit_burst)"
    # /proc still works for what programs need.
    inside "$id" 'cat /proc/self/comm; test -r /proc/meminfo && echo meminfo; cat /proc/sys/kernel/ostype'
    expect_eq "[$MODE] /proc/self, meminfo and sysctl reads still work" "cat
meminfo
Linux" "$OUT"
    sm rm "$id" >/dev/null
}

run_modes
