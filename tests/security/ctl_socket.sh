# Control sockets (issue 8, items 5 and 8): a sandbox's ctl.sock serves sandman on the host and
# refuses any process inside a sandbox, even one that reaches the socket (here through a hard
# link on a path the sandboxes can see); and no request, however malformed or oversized, makes
# the init crash, spin or grow.
. "$(dirname "$0")/lib_security.sh"

CLIENT=$(dirname "$0")/lp_client.py

init_rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

attacks() {
    local a b sock linkdir out init
    a=$(sm create) || { not_ok "[$MODE] create"; return; }
    b=$(sm create) || { not_ok "[$MODE] create"; return; }
    sock=$(mode_state)/local/$b/ctl.sock

    run as_mode python3 "$CLIENT" "$sock" exec 'echo served'
    expect_match "[$MODE] sandman on the host is served" "^served" "$OUT"

    # Another sandbox, and the sandbox itself, reach the socket through a hard link.
    linkdir=$(mktemp -d /var/tmp/sandman-ctlsock-XXXXXX)
    chmod 755 "$linkdir"
    ln "$sock" "$linkdir/b.sock"
    ln "$(mode_state)/local/$a/ctl.sock" "$linkdir/a.sock"
    run sm cp "$CLIENT" "$a:/tmp/lp_client.py"
    run sm cp "$CLIENT" "$b:/tmp/lp_client.py"
    inside "$a" "python3 /tmp/lp_client.py $linkdir/b.sock exec 'touch /tmp/pwned; echo ran'"
    expect_match "[$MODE] a process in another sandbox is refused" "refused" "$OUT"
    expect_no_match "[$MODE] and its command does not run" "^ran" "$OUT"
    inside "$b" 'test -e /tmp/pwned && echo PWNED || echo clean'
    expect_eq "[$MODE] the victim sandbox is untouched" "clean" "$OUT"
    inside "$b" "python3 /tmp/lp_client.py $linkdir/b.sock exec 'echo ran'"
    expect_match "[$MODE] a process in the sandbox itself is refused" "refused" "$OUT"
    expect_no_match "[$MODE] and its command does not run" "^ran" "$OUT"
    inside "$a" "python3 /tmp/lp_client.py $linkdir/a.sock ping"
    expect_match "[$MODE] even for a ping" "refused" "$OUT"
    rm -rf "$linkdir"
    inside "$a" 'tr "\0" " " < /proc/1/cmdline'
    expect_eq "[$MODE] the init's command line names no host path (state directory, binary)" "sandman-init" "$(echo $OUT)"

    # A replay offset far past the session's output (once made the init spin and grow).
    init=$(sed -n 's/^pid=//p' "$(mode_state)/local/$b/ready")
    run as_mode python3 "$CLIENT" "$sock" keep-session
    local sid=$OUT
    expect_match "[$MODE] a kept session opens" "^[0-9a-f]{12}$" "$sid"
    run as_mode timeout 20 python3 "$CLIENT" "$sock" attach "$sid" 1000000000000
    expect_eq "[$MODE] attaching past the end replays nothing" "replayed 0" "$OUT"
    run as_mode timeout 20 python3 "$CLIENT" "$sock" attach "$sid" 0
    expect_match "[$MODE] attaching from 0 replays the session's output" "^replayed [1-9]" "$OUT"

    # Malformed and oversized requests, replies never read, then the init must still answer.
    run as_mode timeout 60 python3 "$CLIENT" "$sock" abuse
    expect_eq "[$MODE] after every abuse the init still answers" "pong" "$OUT"
    check "[$MODE] the init is alive" kill -0 "$init"
    local rss
    rss=$(init_rss_kib "$init")
    check "[$MODE] and small (${rss} KiB resident, limit 32 MiB)" test "$rss" -lt 32768
    inside "$b" 'echo still-works'
    expect_eq "[$MODE] commands still run" "still-works" "$OUT"
    sm rm "$a" "$b" >/dev/null
}

run_modes
