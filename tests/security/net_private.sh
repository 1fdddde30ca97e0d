# network: private from inside: the sandbox's user-mode link and forwarded ports must not be a
# way back into the host. A service on the host's loopback (TCP, through the sandbox's own
# 127.0.0.1 and through the link's gateway 10.0.2.2) and an abstract unix socket of the host
# stay unreachable; the link's control socket (which adds forwards) is out of sight; the link's
# process is not in the sandbox's view; the forwarded port listens on the host's loopback only.
# Unprivileged, where this host does not let the user open /dev/net/tun, create refuses with a
# clear reason and leaves nothing behind.
. "$(dirname "$0")/lib_security.sh"

CFG=$(mktemp /tmp/sandman-net-private-XXXXXX.yaml)
printf 'priv:\n  local:\n    network: private\n' >"$CFG"
chmod 644 "$CFG"
# a host service on 127.0.0.1 only, and an abstract unix socket
WWW=$(mktemp -d /tmp/sandman-net-www-XXXXXX)
echo host-secret >"$WWW/index.html"
python3 -m http.server --bind 127.0.0.1 --directory "$WWW" 0 >"$WWW/log" 2>&1 &
HTTPD=$!
python3 -c '
import socket, time
s = socket.socket(socket.AF_UNIX); s.bind("\0sandman-net-private-test"); s.listen(4)
while True:
    c, _ = s.accept(); c.sendall(b"host-abstract\n"); c.close()
' &
ABSTRACT=$!
trap 'kill $HTTPD $ABSTRACT 2>/dev/null; rm -rf "$WWW" "$CFG"; sec_cleanup' EXIT
for _ in $(seq 100); do
    HPORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$WWW/log" | head -1)
    [ -n "$HPORT" ] && break
    sleep 0.1
done
connect() { # HOST PORT: prints what a TCP connection from inside gets, or the error
    echo "python3 -c 'import socket,sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
s.sendall(b\"GET /index.html HTTP/1.0\\r\\n\\r\\n\")
d = b\"\"
while True:
    b = s.recv(4096)
    if not b: break
    d += b
print(d.decode(errors=\"replace\"))' $1 $2 2>&1"
}

attacks() {
    if [ "$MODE" = user ] && ! as_mode sh -c 'test -r /dev/net/tun && test -w /dev/net/tun'; then
        run sm -c "$CFG" -p priv create --port 8080
        expect_eq "$(say "without /dev/net/tun create fails")" 1 "$RC"
        expect_match "$(say "saying why")" "network: private needs /dev/net/tun" "$ERR"
        expect_eq "$(say "and leaves no sandbox")" "" "$(sm ls -aq)"
        return
    fi
    local id state
    id=$(sm -c "$CFG" -p priv create --port 8080) || { not_ok "$(say "create")"; return; }
    state=$(mode_state)
    check "$(say "the host's loopback service answers on the host")" \
        sh -c "curl -s --max-time 3 http://127.0.0.1:$HPORT/index.html | grep -q host-secret"
    inside "$id" "$(connect 127.0.0.1 "$HPORT")"
    expect_no_match "$(say "it is not the sandbox's 127.0.0.1")" host-secret "$OUT"
    expect_match "$(say "(refused there)")" "Connection refused" "$OUT"
    inside "$id" "$(connect 10.0.2.2 "$HPORT")"
    expect_no_match "$(say "nor reached through the link's gateway")" host-secret "$OUT"
    expect_match "$(say "(refused by the link)")" "refused|unreachable|timed out" "$OUT"
    inside "$id" "python3 -c 'import socket
s = socket.socket(socket.AF_UNIX); s.settimeout(3)
s.connect(\"\\0sandman-net-private-test\"); print(s.recv(64))' 2>&1"
    expect_no_match "$(say "the host's abstract unix socket is out of reach")" host-abstract "$OUT"
    inside "$id" "ls -la $state/local/$id/ 2>&1; python3 -c 'import socket
s = socket.socket(socket.AF_UNIX); s.connect(\"$state/local/$id/net.sock\"); print(\"api-connected\")' 2>&1"
    expect_no_match "$(say "the link's control socket cannot be reached")" "api-connected|net\.sock" "$OUT"
    inside "$id" 'cat /proc/[0-9]*/comm 2>/dev/null | sort -u | tr "\n" " "'
    expect_no_match "$(say "the link's process is not in the sandbox's view")" slirp4netns "$OUT"
    local url port
    url=$(sm -c "$CFG" -p priv endpoint "$id" 8080)
    port=${url##*:}
    expect_eq "$(say "the forwarded port listens on the host's loopback only")" "127.0.0.1:$port" \
        "$(ss -Hltn "sport = :$port" | awk '{print $4}' | sort -u | tr '\n' ' ' | sed 's/ $//')"
    sm rm "$id" >/dev/null
}

run_modes
