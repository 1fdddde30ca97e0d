# Filling the disk from inside a sandbox: with resources.disk_gib (--disk-gib) the writable
# areas are capped (ENOSPC inside, the host untouched); without it, an agent that fills the
# host filesystem must not cost the sandbox its end record or journal event. The "host disk"
# here is a small tmpfs holding the state directory, never the real one.
. "$(dirname "$0")/lib_security.sh"

SMALL=
disk_cleanup() {
    if [ -n "$SMALL" ]; then
        ids=$(SANDMAN_STATE_DIR=$SMALL "$SANDMAN" ls -aq 2>/dev/null)
        [ -n "$ids" ] && SANDMAN_STATE_DIR=$SMALL "$SANDMAN" rm $ids >/dev/null 2>&1
        umount "$SMALL" 2>/dev/null
        rmdir "$SMALL"
    fi
    sec_cleanup
}
trap disk_cleanup EXIT

# wait_ended STATE ID: until status says the sandbox ended (at most a minute).
wait_ended() {
    for _ in $(seq 600); do
        sm_in "$1" status -o json "$2" 2>/dev/null | grep -q '"status": *"\(stopped\|failed\|exited\)"' && return 0
        sm_in "$1" ls -q | grep -q "$2" || return 0
        sleep 0.1
    done
    return 1
}

attacks() {
    local id rootfs
    id=$(sm create --disk-gib 1 -w /workspace) || { not_ok "[$MODE] create --disk-gib 1"; return; }
    inside "$id" 'df -B1M --output=size /tmp /workspace | tail -n +2 | tr -d " "'
    expect_eq "[$MODE] /tmp and the workdir are capped at 1 GiB" "1024
1024" "$OUT"
    inside "$id" '(fallocate -l 2G /tmp/big; fallocate -l 2G /workspace/big) 2>&1 | grep -c "No space left on device"'
    expect_eq "[$MODE] filling past the limit fails with ENOSPC inside" 2 "$OUT"
    inside "$id" 'fallocate -l 600M /tmp/a && fallocate -l 600M /workspace/b 2>&1 | grep -c "No space left"; rm -f /tmp/a /workspace/b'
    expect_eq "[$MODE] /tmp and the workdir share the one limit" 1 "$OUT"
    echo "upload $id" >"$SANDMAN_STATE_DIR/up"
    chmod 644 "$SANDMAN_STATE_DIR/up"
    run sm cp "$SANDMAN_STATE_DIR/up" "$id:/workspace/up"
    inside "$id" 'cat /workspace/up'
    expect_eq "[$MODE] uploads still land in the capped workdir" "upload $id" "$OUT"
    sm rm "$id" >/dev/null
    rootfs=$(make_rootfs)
    chmod -R a+rX "$SANDMAN_STATE_DIR"
    id=$(sm create --disk-gib 1 --image "dir:$rootfs") || { not_ok "[$MODE] create dir image"; return; }
    inside "$id" 'df -m / | tail -n1 | awk "{print \$2}"; fallocate -l 2G /big 2>&1 | grep -c "No space left"; cat /etc/marker'
    expect_eq "[$MODE] a dir: image's copy-on-write layer is capped too" "1024
1
rootfs-marker" "$OUT"
    sm rm "$id" >/dev/null
    id=$(sm create) || return
    inside "$id" 'df -B1M --output=size /tmp | tail -n1 | tr -d " "'
    check "[$MODE] without disk_gib /tmp is not a small tmpfs" test "${OUT:-0}" -gt 2048
    sm rm "$id" >/dev/null

    # A full host disk: the state directory on a 32 MiB tmpfs, filled from inside.
    SMALL=$(mktemp -d /var/tmp/sandman-fs-disk-XXXXXX)
    mount -t tmpfs -o size=32m,mode=755 sandman-fs-disk "$SMALL"
    [ "$MODE" = user ] && chown nobody "$SMALL"
    id=$(sm_in "$SMALL" create --entrypoint sh --entrypoint -c \
        --entrypoint 'cat /dev/zero > /tmp/fill; sleep 0.5; exit 3') || { not_ok "[$MODE] create on the small disk"; return; }
    check "[$MODE] the sandbox ended" wait_ended "$SMALL" "$id"
    check "[$MODE] the disk was really full" test "$(df -B1 --output=avail "$SMALL" | tail -n1 | tr -d ' ')" -lt 65536
    run sm_in "$SMALL" status -o json "$id"
    expect_match "[$MODE] status still says why it ended (exit 3)" '"exit_nonzero"' "$OUT"
    expect_match "[$MODE] with the exit code" '"exit_code":[[:space:]]*3' "$OUT"
    expect_eq "[$MODE] and the journal holds the end event, complete" 1 \
        "$(grep '"event":"ended"' "$SMALL/journal/local/$id.jsonl" | grep '"exit_code":3[,}]' | grep -c '}}$')"
    sm_in "$SMALL" rm "$id" >/dev/null 2>&1
    umount "$SMALL" && rmdir "$SMALL"
    SMALL=
}

run_modes
