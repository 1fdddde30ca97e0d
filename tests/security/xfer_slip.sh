# Tar-slip: a tar stream given to `sandman cp - ID:DIR` (or a tree a sandbox offers for download
# or copy) whose entries leave the target (absolute names, '..', links pointing out, a file
# written through a link of the stream, hard links to what is not in it) or hold device nodes
# is refused with one line naming the entry, and nothing of it is written anywhere: not in the
# target, not beside it, and no temp directory is left.
. "$(dirname "$0")/lib_security.sh"

# make_tar FILE KIND: a tar whose last entry is the attack (python's tarfile writes them as asked)
make_tar() {
    python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
path, kind = sys.argv[1], sys.argv[2]
t = tarfile.open(path, "w", format=tarfile.PAX_FORMAT)
def add(name, data=b"ok\n", **kw):
    i = tarfile.TarInfo(name); i.size = len(data); i.mode = 0o644
    for k, v in kw.items(): setattr(i, k, v)
    t.addfile(i, io.BytesIO(data) if i.type == tarfile.REGTYPE else None)
add("good.txt")
if kind == "abs": add("/tmp/slip-abs.txt")
if kind == "dotdot": add("sub/../../slip-dotdot.txt")
if kind == "dev": add("null", b"", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
if kind == "linkout": add("out", b"", type=tarfile.SYMTYPE, linkname="../../../etc")
if kind == "linkabs": add("abs", b"", type=tarfile.SYMTYPE, linkname="/etc/passwd")
if kind == "through":
    add("d", b"", type=tarfile.SYMTYPE, linkname=".")
    add("d/through.txt")
if kind == "hard": add("h", b"", type=tarfile.LNKTYPE, linkname="/etc/passwd")
t.close()
PY
}

attacks() {
    local id d kind
    id=$(sm create) || { not_ok "$(say create)"; return; }
    d=$(mktemp -d /tmp/sandman-slip-XXXXXX)
    chmod 777 "$d"
    for kind in abs dotdot dev linkout linkabs hard; do
        make_tar "$d/$kind.tar" $kind
        chmod 644 "$d/$kind.tar"
        run timeout 60 "${SM_ARGV[@]}" cp - "$id:/tmp/t-$kind" <"$d/$kind.tar"
        check "$(say "a stream with a $kind entry is refused")" test "$RC" -ne 0 -a "$RC" -ne 124
        expect_match "$(say "the refusal names the entry and the rule ($kind)")" \
            "refused entry '[^']+'" "$ERR"
        inside "$id" "ls -A /tmp/t-$kind 2>/dev/null; ls -A /tmp | grep -c sandman-; ls /tmp/slip-* /slip-* 2>/dev/null"
        expect_eq "$(say "nothing of the $kind stream was written, no temp dir left")" "0" "$OUT"
    done
    check "$(say "no file escaped onto the host")" test ! -e /tmp/slip-abs.txt -a ! -e /slip-dotdot.txt
    # A link of the stream leading the next entry elsewhere: refused before any write.
    make_tar "$d/through.tar" through
    run timeout 60 "${SM_ARGV[@]}" cp - "$id:/tmp/t-through" <"$d/through.tar"
    check "$(say "an entry through a link of the stream is refused")" test "$RC" -ne 0
    inside "$id" "ls -A /tmp/t-through 2>/dev/null | wc -l"
    expect_eq "$(say "and nothing of it was written")" "0" "$OUT"

    # A tree in the sandbox with a link out of it: downloads and copies refuse it whole.
    inside "$id" "mkdir -p /tmp/tree && echo x >/tmp/tree/a && ln -s /etc/shadow /tmp/tree/evil"
    rm -rf "$d/got"
    run timeout 60 "${SM_ARGV[@]}" cp -r "$id:/tmp/tree" "$d/got"
    check "$(say "download of a tree with a link out of it is refused")" test "$RC" -ne 0
    expect_match "$(say "naming the link")" "evil" "$ERR"
    check "$(say "and nothing reached the host")" test ! -e "$d/got"
    expect_eq "$(say "no temp dir left on the host")" "" "$(ls -A "$d" | grep sandman- || true)"
    id2=$(sm create) || { not_ok "$(say create 2)"; return; }
    run timeout 60 "${SM_ARGV[@]}" cp -r "$id:/tmp/tree" "$id2:/tmp/tree"
    check "$(say "a copy of it to another sandbox is refused")" test "$RC" -ne 0
    inside "$id2" "ls -A /tmp | wc -l"
    expect_eq "$(say "and the other sandbox got nothing")" "0" "$OUT"

    # A directory of the target replaced by a link: the upload is not written through it.
    mkdir -p "$d/src/sub" && echo payload >"$d/src/sub/p" && chmod -R a+rX "$d/src"
    inside "$id" "mkdir -p /tmp/up /tmp/elsewhere && ln -s /tmp/elsewhere /tmp/up/sub"
    run timeout 60 "${SM_ARGV[@]}" cp -r "$d/src/sub" "$id:/tmp/up/sub"
    inside "$id" "ls -A /tmp/elsewhere | wc -l"
    expect_eq "$(say "an upload onto a planted link writes nothing where it points")" "0" "$OUT"
    sm rm "$id" "$id2" >/dev/null 2>&1
    rm -rf "$d"
}

run_modes
