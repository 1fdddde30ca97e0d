# What a local sandbox must not be able to do: write the host's files, see host processes,
# reach a network, or let a planted symlink carry a download out to a host file.
. "$(dirname "$0")/../lib.sh"

ID=$("$SANDMAN" create)
run "$SANDMAN" exec "$ID" -- 'touch /etc/sandman-probe'
expect_eq "the host root is read-only: writing /etc fails" 1 "$RC"
expect_match "with a read-only file system error" "Read-only file system" "$ERR"
check "and the host's /etc is untouched" test ! -e /etc/sandman-probe
run "$SANDMAN" exec "$ID" -- 'mount -o remount,rw / 2>&1; mount -o remount,rw /etc 2>&1; touch /etc/sandman-probe'
check "even root inside cannot remount the root writable" test ! -e /etc/sandman-probe

run "$SANDMAN" exec "$ID" -- 'echo private > /tmp/inside; cat /tmp/inside'
expect_eq "/tmp is private and writable" "private" "$OUT"
check "the sandbox's /tmp is not the host's" test ! -e /tmp/inside

run "$SANDMAN" exec "$ID" -- 'ls /proc | grep -c "^[0-9]"'
check "only the sandbox's own processes are visible (init + the command's)" test "$OUT" -le 4
run "$SANDMAN" exec "$ID" -- 'cat /proc/1/comm'
expect_eq "PID 1 is the sandbox init" "sandman-init" "$OUT"
run "$SANDMAN" exec "$ID" -- "kill -0 $$ 2>&1 || echo cannot-see"
expect_match "a host pid cannot be signalled" "cannot-see" "$OUT"

run "$SANDMAN" exec "$ID" -- 'ls /sys/class/net'
expect_eq "no network interfaces but lo" "lo" "$OUT"
run "$SANDMAN" exec "$ID" -- 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "'
expect_eq "the network namespace has only lo" "lo" "$OUT"
run "$SANDMAN" exec "$ID" -- 'hostname'
expect_match "the sandbox has its own hostname" "^sbx-" "$OUT"
run "$SANDMAN" exec "$ID" -- "[ -e $SANDMAN_STATE_DIR/local ] && echo visible || echo hidden"
expect_eq "sandman's state directory (other sandboxes' sockets) is not visible" "hidden" "$OUT"
# The same when the state directory sits on the read-only host root rather than under /tmp.
VARSTATE=$(mktemp -d /var/tmp/sandman-isolation-XXXXXX)
V=$(SANDMAN_STATE_DIR=$VARSTATE "$SANDMAN" create)
run env SANDMAN_STATE_DIR=$VARSTATE "$SANDMAN" exec "$V" -- "ls -A $VARSTATE | wc -l; [ -S $VARSTATE/local/$V/ctl.sock ] && echo socket-visible"
expect_eq "a state directory on the host root is hidden (empty) inside" "0" "$(echo "$OUT" | tr -d ' ')"
SANDMAN_STATE_DIR=$VARSTATE "$SANDMAN" rm "$V" >/dev/null
rm -rf "$VARSTATE"

# A host file outside the sandbox's view; symlinks to it must not carry a download out.
SECRET=$(mktemp /tmp/sandman-secret-XXXXXX)
echo "host secret" >"$SECRET"
"$SANDMAN" exec "$ID" -- "ln -s $SECRET /tmp/abs-link; ln -s ../../../../../../..$SECRET /tmp/rel-link; ln -s /proc/1/root$SECRET /tmp/proc-link"
for link in abs-link rel-link proc-link; do
    run "$SANDMAN" cp "$ID:/tmp/$link" "$SANDMAN_STATE_DIR/out-$link"
    check "download through $link is refused" test "$RC" -ne 0
    if [ -e "$SANDMAN_STATE_DIR/out-$link" ] && grep -q "host secret" "$SANDMAN_STATE_DIR/out-$link"; then
        not_ok "download through $link leaked the host file"
    else
        ok "download through $link did not reach the host file"
    fi
done
# Uploads onto the planted symlinks carry other bytes than the host file's, so one that followed a
# link out would change it (an upload of the host file onto a link to itself changes nothing,
# escape or not).
printf 'written by an upload\n' >"$SANDMAN_STATE_DIR/payload.txt"
SECRET_INODE=$(stat -c %i "$SECRET")
for link in abs-link rel-link proc-link; do
    run "$SANDMAN" cp "$SANDMAN_STATE_DIR/payload.txt" "$ID:/tmp/$link"
    UP_RC=$RC
    expect_eq "an upload onto $link leaves the host file as it was" "host secret $SECRET_INODE" \
        "$(cat "$SECRET") $(stat -c %i "$SECRET")"
    if [ "$UP_RC" -eq 0 ]; then
        run "$SANDMAN" exec "$ID" -- "cat /tmp/$link"
        expect_eq "and its bytes land inside the sandbox" "written by an upload" "$OUT"
    else
        ok "the upload onto $link was refused"
    fi
done
rm -f "$SECRET"

# Round trip of a file, with parents created.
printf 'payload %s\n' "$ID" >"$SANDMAN_STATE_DIR/up.txt"
run "$SANDMAN" cp "$SANDMAN_STATE_DIR/up.txt" "$ID:/tmp/deep/er/up.txt"
expect_eq "upload creates parent directories" 0 "$RC"
run "$SANDMAN" cp "$ID:/tmp/deep/er/up.txt" "$SANDMAN_STATE_DIR/down.txt"
check "download returns the same bytes" cmp -s "$SANDMAN_STATE_DIR/up.txt" "$SANDMAN_STATE_DIR/down.txt"
run "$SANDMAN" cp "$ID:/tmp/missing" "$SANDMAN_STATE_DIR/x"
expect_eq "download of a missing file fails" 1 "$RC"
expect_match "naming the file" "/tmp/missing" "$ERR"

# A rootfs directory image: copy-on-write, the directory itself never changes.
ROOTFS=$(make_rootfs)
before=$(cd "$ROOTFS" && find . -printf '%p %s %T@\n' | sort | md5sum)
run "$SANDMAN" create --image "dir:$ROOTFS" -w /work
expect_eq "create with a rootfs directory" 0 "$RC"
D=$OUT
run "$SANDMAN" exec "$D" -- 'cat /etc/marker; echo changed > /etc/marker; rm /bin/ls; touch /new; cat /etc/marker; pwd'
expect_eq "the rootfs is writable copy-on-write" "rootfs-marker
changed
/work" "$OUT"
after=$(cd "$ROOTFS" && find . -printf '%p %s %T@\n' | sort | md5sum)
expect_eq "the rootfs directory is never modified" "$before" "$after"
"$SANDMAN" exec "$D" -- 'ln -s /etc/passwd /tmp/pw'
run "$SANDMAN" cp "$D:/tmp/pw" "$SANDMAN_STATE_DIR/pw"
check "a symlink to /etc/passwd resolves to the rootfs's passwd, not the host's" \
    sh -c "grep -q '^nobody:x:65534' '$SANDMAN_STATE_DIR/pw' && ! grep -q '^root:.*/bin/bash' '$SANDMAN_STATE_DIR/pw'"

finish
