# Unix sockets of the host (review of issue 8). connect() works on a read-only mount, so a
# socket under the host's read-only root is as reachable from a sandbox as from the host: /run
# and /tmp are the sandbox's own (the Docker, containerd, podman, systemd, D-Bus and X11
# sockets live there), but LXD and Incus keep their daemon socket, which gives root on the host
# to whoever may connect (root, or members of their group, which an unprivileged sandbox keeps),
# under /var/lib and /var/snap. Those directories are hidden like /var/lib/docker. Abstract
# sockets belong to the network namespace: out of reach unless `network: host`.
. "$(dirname "$0")/lib_security.sh"

# A harmless listener on the paths the daemons use, made only where nothing exists (removed
# at the end); it answers "daemon" to whoever connects.
PLANTED=() SOCKETS=()
for top_dir in /var/lib/incus:/var/lib/incus /var/lib/lxd:/var/lib/lxd /var/snap:/var/snap/lxd/common/lxd; do
    top=${top_dir%%:*} dir=${top_dir#*:}
    [ -e "$top" ] && continue
    mkdir -p "$dir" && PLANTED+=("$top") && SOCKETS+=("$dir/unix.socket")
done
LISTENERS=$(mktemp /tmp/sandman-review-sockets-XXXXXX)
listen() { # PATH-or-@ABSTRACT
    python3 - "$1" <<'EOF' &
import os, socket, sys
p = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + p[1:] if p.startswith("@") else p)
if not p.startswith("@"):
    os.chmod(p, 0o666)
s.listen(8)
while True:
    c, _ = s.accept()
    c.sendall(b"daemon\n")
    c.close()
EOF
    echo $! >>"$LISTENERS"
}
sock_cleanup() {
    for pid in $(cat "$LISTENERS"); do kill "$pid" 2>/dev/null; done
    rm -f "$LISTENERS"
    for d in "${PLANTED[@]}"; do rm -rf "$d"; done
    sec_cleanup
}
trap sock_cleanup EXIT

# connect_line PATH: a shell line printing what a connection to PATH gets, or "unreachable".
connect_line() {
    echo "python3 -c 'import socket,sys
p=sys.argv[1]
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(\"\\0\"+p[1:] if p.startswith(\"@\") else p); print(s.recv(16).decode().strip())
except OSError: print(\"unreachable\")' $1"
}

for s in "${SOCKETS[@]}"; do listen "$s"; done
ABSTRACT=@sandman-review-$$
listen "$ABSTRACT"
for s in "${SOCKETS[@]}"; do
    for i in $(seq 100); do [ -S "$s" ] && break; sleep 0.05; done
done

attacks() {
    local id
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    for s in "${SOCKETS[@]}"; do
        inside "$id" "$(connect_line "$s")"
        expect_eq "$(say "the container daemon socket $s is not reachable")" unreachable "$OUT"
    done
    inside "$id" "$(connect_line "$ABSTRACT")"
    expect_eq "$(say "nor a host abstract socket (network: none)")" unreachable "$OUT"
    sm rm "$id" >/dev/null
}

if [ ${#SOCKETS[@]} -eq 0 ]; then
    echo "ok   - skipped: LXD or Incus is installed here; not touching its directories"
    exit 0
fi
run_modes
