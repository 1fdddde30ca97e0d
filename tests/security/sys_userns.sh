# Nested user namespaces are refused inside a sandbox by default (issue 8, item 3): from one, an
# agent gets every capability again over new mount and cgroup namespaces and mounted the cgroup
# v1 hierarchies to lift its own limits. Tried with unshare(1), clone, clone3, unshare with
# high bits, and the 32-bit entry; then `nested_userns: true` gives them back.
. "$(dirname "$0")/lib_sys.sh"

attacks() {
    box || return
    run sm exec "$BOX" -- 'unshare -U -r id -u'
    check "$(say "unshare -U -r fails inside")" test "$RC" -ne 0
    expect_match "$(say "with a permission error")" "Operation not permitted" "$ERR"
    run sm exec "$BOX" -- 'unshare -U -C -m true'
    check "$(say "unshare -U -C -m fails inside")" test "$RC" -ne 0
    for p in unshare-user unshare-user-hi clone-user unshare-user32; do
        probe "$BOX" "$p"
        expect_eq "$(say "$p is refused with EPERM")" EPERM "$OUT"
    done
    probe "$BOX" clone3-user
    expect_eq "$(say "clone3 answers ENOSYS, so libc falls back to clone, whose flags are checked")" ENOSYS "$OUT"
    probe "$BOX" unshare-mnt
    expect_eq "$(say "other namespaces are refused too")" EPERM "$OUT"
    probe "$BOX" setns
    expect_eq "$(say "setns is refused")" EPERM "$OUT"
    run sm exec "$BOX" -- 'sh -c "echo forked-ok" & wait'
    expect_eq "$(say "plain fork and exec still work")" forked-ok "$OUT"

    local cfg
    cfg=$(sys_config nested 'nested_userns: true')
    BOX=$(sm create -c "$cfg" -p nested)
    if [ -z "$BOX" ]; then
        not_ok "$(say "create with nested_userns: true")"
        return
    fi
    sm cp "$PROBE" "$BOX:/tmp/sys_probe" >/dev/null && sm exec "$BOX" -- chmod 755 /tmp/sys_probe
    run sm exec "$BOX" -- 'unshare -U -r id -u'
    expect_eq "$(say "with nested_userns: true, unshare -U -r works")" 0 "$OUT"
    probe "$BOX" clone-user
    expect_eq "$(say "and clone(CLONE_NEWUSER) works")" ok "$OUT"
    probe "$BOX" keyctl-read
    expect_eq "$(say "the rest of the filter still holds there (keyctl)")" EPERM "$OUT"

    cfg=$(sys_config badns 'nested_userns: maybe')
    run sm create -c "$cfg" -p badns
    check "$(say "nested_userns: maybe is refused")" test "$RC" -ne 0
    expect_match "$(say "naming the allowed values")" "nested_userns.*true or false" "$ERR"
}
run_modes
