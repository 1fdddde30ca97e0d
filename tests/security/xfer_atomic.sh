# A transfer replaces its destination only when complete: a killed upload or download leaves
# the old file intact and no temp file, and the download's temp file cannot be predicted, so
# another local user cannot plant a link there to redirect root's download into a root file.
. "$(dirname "$0")/lib_security.sh"

BIG_MIB=512

# kill_midway CP-ARGS...: starts sandman cp, lets it run in short slices until it has written
# something, then kills it with SIGKILL while it is stopped, before it could finish. Sets
# KILLED=1 when it was killed mid-way (and not after it had finished).
kill_midway() {
    KILLED=0
    "${SM_ARGV[@]}" cp "$@" &
    local pid=$! written=0 i
    kill -STOP $pid 2>/dev/null
    for i in $(seq 3000); do
        written=$(awk '/^wchar/ {print $2}' /proc/$pid/io 2>/dev/null)
        [ -n "$written" ] || break
        if [ "$written" -gt $((4 << 20)) ]; then
            break
        fi
        kill -CONT $pid
        sleep 0.005
        kill -STOP $pid 2>/dev/null
    done
    if [ -n "$written" ] && [ "$written" -lt $((BIG_MIB << 20)) ] && kill -0 $pid 2>/dev/null; then
        KILLED=1
    fi
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
}

attacks() {
    local id d
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    d=$(mktemp -d /tmp/sandman-xfer-XXXXXX)
    chmod 777 "$d"
    head -c $((BIG_MIB << 20)) /dev/zero >"$d/big"
    chmod 644 "$d/big"

    inside "$id" "echo complete >/tmp/target"
    kill_midway "$d/big" "$id:/tmp/target"
    expect_eq "$(say "an upload was killed mid-way")" 1 "$KILLED"
    inside "$id" "tr -d '\\000' </tmp/target"
    expect_eq "$(say "the file it was replacing is intact")" "complete" "$OUT"
    inside "$id" "ls -A /tmp | grep -c sandman"
    expect_eq "$(say "and no temp file is left in the sandbox")" 0 "$OUT"

    inside "$id" "head -c $((BIG_MIB << 20)) /dev/zero >/tmp/big"
    echo complete >"$d/got"
    kill_midway "$id:/tmp/big" "$d/got"
    expect_eq "$(say "a download was killed mid-way")" 1 "$KILLED"
    expect_eq "$(say "the host file it was replacing is intact")" "complete" "$(cat "$d/got")"
    expect_eq "$(say "and no temp file is left beside it")" "got" "$(ls -A "$d" | grep -v '^big$' | tr '\n' ' ' | sed 's/ $//')"

    # Another user plants a link where the old build put its temp file, aiming at a file of
    # the downloading user's; and the destination itself is a link to another of its files.
    inside "$id" "echo payload >/tmp/small"
    echo precious >"$d/victim"
    echo precious >"$d/victim2"
    chmod 644 "$d/victim" "$d/victim2"
    [ "$MODE" = user ] && chown nobody "$d/victim" "$d/victim2"
    setpriv --reuid=1 --regid=1 --clear-groups ln -s "$d/victim" "$d/out.sandman-part"
    setpriv --reuid=1 --regid=1 --clear-groups ln -s "$d/victim2" "$d/out"
    run sm cp "$id:/tmp/small" "$d/out"
    expect_eq "$(say "a download next to a planted link succeeds")" 0 "$RC"
    expect_eq "$(say "the file the planted temp link points at is untouched")" precious "$(cat "$d/victim")"
    expect_eq "$(say "a link at the destination is replaced, not written through")" precious "$(cat "$d/victim2")"
    check "$(say "the destination is now a regular file")" test -f "$d/out" -a ! -L "$d/out"
    expect_eq "$(say "holding the downloaded bytes")" payload "$(cat "$d/out")"
    run sm cp "$id:/tmp/small" "$d/mode-check"
    expect_eq "$(say "a download keeps the file's permission bits")" "644" "$(stat -c %a "$d/mode-check")"
    sm rm "$id" >/dev/null
    rm -rf "$d"
}

run_modes
