# Socket families that go around a sandbox's network namespace (review of issue 8): vsock is
# not namespaced, so even with `network: none` an AF_VSOCK socket reaches the VM's host (CID 2)
# and its services; the 32-bit socketcall(2) multiplexer hides the family from seccomp, so it
# would undo any rule on socket(2). Docker's default profile refuses both (and AF_ALG); so must
# ours. Nothing is connected anywhere: only creating the socket is tried.
. "$(dirname "$0")/lib_sys.sh"

attacks() {
    box || return
    probe "$BOX" socket-vsock
    expect_eq "$(say "an AF_VSOCK socket cannot be made (network: none)")" EAFNOSUPPORT "$OUT"
    probe "$BOX" socket-alg
    expect_eq "$(say "nor an AF_ALG one")" EAFNOSUPPORT "$OUT"
    probe "$BOX" socket-vsock32
    expect_eq "$(say "nor through the 32-bit socket call")" EAFNOSUPPORT "$OUT"
    probe "$BOX" socketcall-vsock32
    expect_eq "$(say "and the 32-bit socketcall multiplexer is refused")" ENOSYS "$OUT"
    probe "$BOX" socket-unix
    expect_eq "$(say "ordinary sockets still work")" ok "$OUT"
    run sm exec "$BOX" -- 'python3 -c "import socket; s=socket.create_server((\"127.0.0.1\", 0)); print(\"tcp ok\")"'
    expect_eq "$(say "and so does TCP on loopback")" "tcp ok" "$OUT"
    sm rm "$BOX" >/dev/null

    # seccomp: unconfined is the documented way out, for users who need vsock.
    local cfg
    cfg=$(sys_config loose 'seccomp: unconfined')
    BOX=$(sm -c "$cfg" create) && sm -c "$cfg" cp "$PROBE" "$BOX:/tmp/sys_probe" >/dev/null &&
        sm -c "$cfg" exec "$BOX" -- chmod 755 /tmp/sys_probe
    run sm -c "$cfg" exec "$BOX" -- /tmp/sys_probe socket-vsock
    expect_eq "$(say "seccomp: unconfined allows AF_VSOCK again")" ok "$OUT"
    sm -c "$cfg" rm "$BOX" >/dev/null
}

if ! python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)' 2>/dev/null; then
    echo "ok   - skipped: this kernel has no AF_VSOCK, so nothing to refuse"
    exit 0
fi
run_modes
