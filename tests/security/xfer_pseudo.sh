# sandman cp must never write or read through the kernel's pseudo filesystems (/proc, /sys,
# devices) of a sandbox, whatever path or planted symlink leads there, and must never hang on a
# FIFO: the agent controls every path inside its sandbox.
. "$(dirname "$0")/lib_security.sh"

SYSCTL=/proc/sys/kernel/printk_ratelimit_burst
ORIG_SYSCTL=$(cat $SYSCTL)
restore_sysctl() { [ "$(cat $SYSCTL)" = "$ORIG_SYSCTL" ] || echo "$ORIG_SYSCTL" >$SYSCTL; }
trap 'restore_sysctl; sec_cleanup' EXIT

attacks() {
    local id d
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    d=$(mktemp -d /tmp/sandman-xfer-XXXXXX)
    chmod 777 "$d"
    # A value the sysctl never has by default, so a write through any path shows.
    echo $((ORIG_SYSCTL + 27)) >"$d/num"
    chmod 644 "$d/num"

    inside "$id" "echo old >/tmp/real; ln -s $SYSCTL /tmp/x; ln -s /tmp/x /tmp/chain; ln -s ../proc/sys/kernel /tmp/kdir"
    for target in /tmp/x /tmp/chain $SYSCTL /tmp/kdir/printk_ratelimit_burst; do
        run timeout 20 "${SM_ARGV[@]}" cp "$d/num" "$id:$target"
        check "$(say "upload onto $target is refused")" test "$RC" -ne 0 -a "$RC" -ne 124
        expect_eq "$(say "and the host sysctl is unchanged after uploading onto $target")" \
            "$ORIG_SYSCTL" "$(cat $SYSCTL)"
        restore_sysctl
    done
    expect_match "$(say "the refusal names the pseudo filesystem")" "proc|not a regular file" "$ERR"
    # A kernel file bind-mounted onto an ordinary path, where the sandbox may mount.
    inside "$id" "touch /tmp/bound && mount --bind $SYSCTL /tmp/bound && echo bound"
    if [ "$OUT" = bound ]; then
        run timeout 20 "${SM_ARGV[@]}" cp "$d/num" "$id:/tmp/bound"
        check "$(say "upload onto a bind-mounted sysctl is refused")" test "$RC" -ne 0 -a "$RC" -ne 124
        expect_eq "$(say "and the host sysctl is unchanged")" "$ORIG_SYSCTL" "$(cat $SYSCTL)"
        restore_sysctl
        rm -f "$d/out"
        run timeout 20 "${SM_ARGV[@]}" cp "$id:/tmp/bound" "$d/out"
        check "$(say "download of a bind-mounted sysctl is refused")" test "$RC" -ne 0 -a ! -s "$d/out"
    else
        ok "$(say "(the sandbox cannot bind-mount: bind-mounted kernel files not tried)")"
    fi
    inside "$id" "readlink /tmp/x"
    expect_eq "$(say "the planted link is left as it was")" "$SYSCTL" "$OUT"

    # Downloads: process memory and environment, kernel files, devices (/dev/zero never ends).
    inside "$id" "ln -s /proc/1/environ /tmp/env; ln -s /dev/zero /tmp/zero; mkdir -p /tmp/sub"
    for src in /proc/1/environ /tmp/env /proc/self/status /sys/kernel/uevent_seqnum /dev/zero \
        /tmp/zero /proc/kcore; do
        rm -f "$d/out"
        # A cap on the file size keeps an unfixed build from filling the disk with /proc/kcore.
        run timeout 20 sh -c 'ulimit -f 10240; exec "$@"' sh "${SM_ARGV[@]}" cp "$id:$src" "$d/out"
        check "$(say "download of $src is refused")" test "$RC" -ne 0 -a "$RC" -ne 124
        check "$(say "and nothing of $src reaches the host")" test ! -s "$d/out"
    done

    # FIFOs: reading one blocks forever, writing one too when nobody reads.
    inside "$id" "mkfifo /tmp/fifo"
    run timeout 20 "${SM_ARGV[@]}" cp "$id:/tmp/fifo" "$d/out"
    check "$(say "download of a FIFO fails at once instead of hanging")" test "$RC" -ne 0 -a "$RC" -ne 124
    expect_match "$(say "saying it is not a regular file")" "not a regular file" "$ERR"
    run timeout 20 "${SM_ARGV[@]}" cp "$d/num" "$id:/tmp/fifo"
    check "$(say "upload onto a FIFO fails at once instead of hanging")" test "$RC" -ne 0 -a "$RC" -ne 124
    inside "$id" "test -p /tmp/fifo && echo fifo"
    expect_eq "$(say "and the FIFO is left as it was")" "fifo" "$OUT"
    mkfifo "$d/hostfifo"
    chmod 666 "$d/hostfifo"
    run timeout 20 "${SM_ARGV[@]}" cp "$d/hostfifo" "$id:/tmp/y"
    check "$(say "uploading from a host FIFO fails at once")" test "$RC" -ne 0 -a "$RC" -ne 124
    run timeout 20 "${SM_ARGV[@]}" cp "$id:/tmp/real" "$d/hostfifo"
    check "$(say "downloading onto a host FIFO is refused")" test "$RC" -ne 0 -a "$RC" -ne 124
    check "$(say "and the host FIFO is not replaced")" test -p "$d/hostfifo"

    # Ordinary transfers still work, through links that stay inside the sandbox too.
    echo hello >"$d/plain"
    chmod 644 "$d/plain"
    inside "$id" "ln -s real /tmp/rel"
    run sm cp "$d/plain" "$id:/tmp/rel"
    inside "$id" "cat /tmp/real; readlink /tmp/rel"
    expect_eq "$(say "an upload onto a link inside the sandbox writes its target, as cp does")" \
        "hello
real" "$OUT"
    rm -f "$d/out"
    run sm cp "$id:/tmp/rel" "$d/out"
    expect_eq "$(say "and downloads through it")" "hello" "$(cat "$d/out" 2>/dev/null)"
    sm rm "$id" >/dev/null
    rm -rf "$d"
}

run_modes
