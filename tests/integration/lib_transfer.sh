# Shared by transfer_local.sh and transfer_docker.sh (after lib.sh and a provider's set-up):
# round trips of a generated tree through `sandman cp -r`, compared by checksum, mode, type and
# link target; a sandbox-to-sandbox copy; tar streams on stdin/stdout; an interrupted download.

# make_tree DIR: binary, 0-byte, sparse (2 GiB, 2 bytes of data), symlinks, unicode names,
# modes, empty and nested directories.
make_tree() {
    local t=$1
    mkdir -p "$t/empty" "$t/a/b/c" "$t/ünï 日本 ☃" "$t/ro"
    head -c 300000 /dev/urandom >"$t/bin"
    : >"$t/zero"
    truncate -s 2G "$t/sparse"
    printf 'x' | dd of="$t/sparse" bs=1 seek=1048576 conv=notrunc 2>/dev/null
    printf 'y' | dd of="$t/sparse" bs=1 seek=2000000000 conv=notrunc 2>/dev/null
    echo nested >"$t/a/b/c/deep.txt"
    echo uni >"$t/ünï 日本 ☃/fïlé ✓.txt"
    ln -s bin "$t/link"
    ln -s ../../bin "$t/a/b/up"
    ln -s a/b/c "$t/dirlink"
    printf '#!/bin/sh\necho hi\n' >"$t/run.sh"
    chmod 0755 "$t/run.sh"
    chmod 0600 "$t/zero"
    chmod 0640 "$t/bin"
    chmod 0750 "$t/a/b"
    echo r >"$t/ro/file"
    chmod 0444 "$t/ro/file"
    chmod 0555 "$t/ro"
}

# tree_sig DIR: one line per entry: path, type, mode, link target, content checksum.
tree_sig() {
    (cd "$1" && find . -printf '%p %y %m %l\n' | sort &&
        find . -type f -print0 | sort -z | xargs -0 md5sum)
}

# roundtrip ID REMOTE-DIR WHAT
roundtrip() {
    local id=$1 rdir=$2 what=$3 work
    work=$(mktemp -d /tmp/sandman-xfer-rt-XXXXXX)
    make_tree "$work/src"
    run sm_cp cp -r "$work/src" "$id:$rdir"
    expect_eq "$what: upload of the tree succeeds ($ERR)" 0 "$RC"
    run sm_cp exec -n "$id" -- "cat '$rdir/ünï 日本 ☃/fïlé ✓.txt'; readlink $rdir/link; ls -A $rdir/empty | wc -l; test -x $rdir/run.sh && echo x"
    expect_eq "$what: the sandbox sees names, links, empty dirs and modes" "$(printf 'uni\nbin\n0\nx')" "$OUT"
    run sm_cp cp -r "$id:$rdir" "$work/back"
    expect_eq "$what: download of the tree succeeds ($ERR)" 0 "$RC"
    expect_eq "$what: the round trip keeps every entry, mode, link and checksum" \
        "$(tree_sig "$work/src")" "$(tree_sig "$work/back")"
    local kb
    kb=$(du -k "$work/back/sparse" | cut -f1)
    check "$what: the sparse file stays sparse on the way back (${kb} KiB on disk for 2 GiB)" test "$kb" -lt 10240
    expect_eq "$what: no temp entries are left beside it" "" "$(ls -A "$work" | grep sandman- || true)"
    # tar streams: stdout of a directory, then stdin into another
    run bash -c "$(printf '%q ' "${SM_CP[@]}") cp $id:$rdir - | tar tf - | sort | head -3"
    expect_match "$what: cp ID:DIR - writes a tar stream" "^[^/]+/" "$OUT"
    mkdir -p "$work/st"
    run bash -c "tar cf - -C '$work/src' a | $(printf '%q ' "${SM_CP[@]}") cp - $id:$rdir-stdin"
    expect_eq "$what: cp - ID:DIR reads a tar stream ($ERR)" 0 "$RC"
    run sm_cp exec -n "$id" -- "cat $rdir-stdin/a/b/c/deep.txt"
    expect_eq "$what: what came on stdin is there" nested "$OUT"
    chmod -R u+w "$work"
    rm -rf "$work"
}

# s2s ID1 ID2 WHAT: sandbox to sandbox, nothing on local disk.
s2s() {
    local a=$1 b=$2 what=$3 work
    work=$(mktemp -d /tmp/sandman-xfer-s2s-XXXXXX)
    make_tree "$work/src"
    run sm_cp cp -r "$work/src" "$a:/tmp/orig"
    run sm_cp cp -r "$a:/tmp/orig" "$b:/tmp/copy"
    expect_eq "$what: sandbox-to-sandbox copy succeeds ($ERR)" 0 "$RC"
    run sm_cp cp -r "$b:/tmp/copy" "$work/back"
    expect_eq "$what: the copy equals the source tree" "$(tree_sig "$work/src")" "$(tree_sig "$work/back")"
    chmod -R u+w "$work"
    rm -rf "$work"
}

# interrupted ID GONE-CMD WHAT: the sandbox is ended (GONE-CMD) while a download of a large file
# is held mid-way; the final name must never hold a part of the file.
interrupted() {
    local id=$1 gone=$2 what=$3 work pid
    work=$(mktemp -d /tmp/sandman-xfer-int-XXXXXX)
    run sm_cp exec -n "$id" -- "mkdir -p /tmp/big && head -c 400000000 /dev/zero | tr '\\0' a >/tmp/big/f && echo made"
    expect_eq "$what: a 400 MB file is made in the sandbox" made "$OUT"
    "${SM_CP[@]}" -o json cp -r "$id:/tmp/big" "$work/out" >"$work/log" 2>&1 &
    pid=$!
    local i=0
    until grep -q progress "$work/log" 2>/dev/null || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
    kill -STOP $pid
    check "$what: the download is under way when the sandbox ends" grep -q progress "$work/log"
    eval "$gone"
    check "$what: while it is held, the final name does not exist" test ! -e "$work/out"
    kill -CONT $pid
    wait $pid
    local rc=$?
    if [ $rc -ne 0 ]; then
        check "$what: the failed download left no final file" test ! -e "$work/out"
        # a process killed with SIGKILL cannot remove its private directory; one that failed can
        [ $rc -eq 137 ] ||
            expect_eq "$what: and no temp entries" "" "$(ls -A "$work" | grep sandman- || true)"
    else
        expect_eq "$what: a download that still completed is whole" 400000000 "$(stat -c %s "$work/out/f")"
    fi
    rm -rf "$work"
}
