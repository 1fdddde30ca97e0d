# Attacks on the host's devices from inside a sandbox: device nodes made with mknod (numbers of
# /dev/zero, harmless if they ever opened), host device inodes changed through the sandbox's
# /dev, setuid binaries planted in writable areas, and the capabilities that allow them.
. "$(dirname "$0")/lib_security.sh"

# opts MOUNTPOINT: the mount options of the topmost mount at MOUNTPOINT, as the sandbox sees it.
opts() { echo "awk '\$5 == \"$1\" {o = \$6} END {print o}' /proc/self/mountinfo"; }

attacks() {
    local id d rootfs
    id=$(sm create -w /workspace) || { not_ok "[$MODE] create"; return; }
    inside "$id" 'mknod /tmp/z c 1 5 2>&1; mknod /dev/z c 1 5 2>&1; ls /tmp/z /dev/z 2>&1'
    expect_no_match "[$MODE] mknod of a character device fails in /tmp and /dev" "^/(tmp|dev)/z$" "$OUT"
    inside "$id" 'ls -A /dev | sort | tr "\n" " "'
    expect_eq "[$MODE] /dev holds only the minimal set" \
        "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " "$OUT"
    # Bit 27 is CAP_MKNOD, 21 CAP_SYS_ADMIN: gone from every set, in the init and its children.
    inside "$id" 'for p in self 1; do grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb)" /proc/$p/status; done | awk "{print \$2}" | sort -u'
    local bad=0
    for mask in $OUT; do
        [ $(((0x$mask >> 27) & 1)) -eq 0 ] && [ $(((0x$mask >> 21) & 1)) -eq 0 ] || bad=1
    done
    expect_eq "[$MODE] no capability set holds CAP_MKNOD or CAP_SYS_ADMIN ($(echo $OUT))" 0 "$bad"
    inside "$id" 'cat /proc/1/environ >/dev/null 2>&1 && echo readable || echo refused; ls /proc/1/root/ >/dev/null 2>&1 && echo readable || echo refused'
    expect_eq "[$MODE] root inside cannot ptrace-read the init" "refused
refused" "$OUT"
    local before
    before=$(stat -c %a:%u /dev/null)
    inside "$id" 'chmod 666 /dev/null 2>&1; chown 0 /dev/zero 2>&1; echo done'
    expect_match "[$MODE] the host's device inodes cannot be changed through /dev" "Read-only file system" "$OUT"
    expect_eq "[$MODE] and /dev/null is untouched" "$before" "$(stat -c %a:%u /dev/null)"
    inside "$id" 'echo x > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c'
    expect_eq "[$MODE] the minimal devices work" "4
4" "$OUT"
    for d in /tmp /workspace /run /dev/shm /dev /; do
        inside "$id" "$(opts $d)"
        expect_match "[$MODE] $d is nosuid,nodev ($OUT)" "nosuid.*nodev|nodev.*nosuid" "$OUT"
    done
    inside "$id" "$(opts /dev)"
    expect_match "[$MODE] /dev is noexec" "noexec" "$OUT"
    # A setuid root binary planted in /tmp gives nobody nothing.
    inside "$id" 'cp /usr/bin/id /tmp/id && chmod 4755 /tmp/id && ls -l /tmp/id | cut -c1-10'
    expect_eq "[$MODE] root can plant a setuid file" "-rwsr-xr-x" "$OUT"
    if [ "$MODE" = root ]; then
        run sm exec -u nobody "$id" -- '/tmp/id -u'
        expect_eq "[$MODE] but it does not give nobody euid 0" "65534" "$OUT"
    fi
    sm rm "$id" >/dev/null
    # A rootfs image: its copy-on-write root is nosuid,nodev too.
    rootfs=$(make_rootfs)
    chmod -R a+rX "$SANDMAN_STATE_DIR"
    id=$(sm create --image "dir:$rootfs") || { not_ok "[$MODE] create dir image"; return; }
    inside "$id" "$(opts /)"
    expect_match "[$MODE] a dir: image's root is nosuid,nodev ($OUT)" "nosuid.*nodev|nodev.*nosuid" "$OUT"
    inside "$id" 'mknod /z c 1 5 2>&1; ls /z 2>&1'
    expect_no_match "[$MODE] mknod fails in a dir: image" "^/z$" "$OUT"
    sm rm "$id" >/dev/null
}

run_modes
