# Kernel keyrings are not shared with a sandbox (issue 8, item 6): the session keyring the
# sandbox was started from and root's user keyring held keys the agent could read and add to.
# Each sandbox now joins a session keyring of its own, and keyctl, add_key and request_key are
# refused by the seccomp filter (through the 64-bit and the 32-bit entry). The test runs in a
# session keyring of its own holding a secret, as a user's login session would.
if [ -z "${SYS_KEYRING_SESSION:-}" ]; then
    command -v keyctl >/dev/null || { echo "FAIL - keyctl (keyutils) is not installed"; exit 1; }
    SYS_KEYRING_SESSION=1 exec keyctl session sandman-keyring-test bash "$0" "$@"
fi
. "$(dirname "$0")/lib_sys.sh"

keyctl purge user sandman-probe >/dev/null 2>&1 # left by a run against an unfixed build
SES_KEY=$(keyctl add user sandman-session-secret s3cret-session @s)
USER_KEY=$(keyctl add user sandman-user-secret s3cret-user @u)
keys_cleanup() {
    keyctl unlink "$USER_KEY" @u >/dev/null 2>&1
    keyctl purge user sandman-probe >/dev/null 2>&1
    sys_cleanup
}
trap keys_cleanup EXIT

attacks() {
    box || return
    probe "$BOX" keyctl-read "$SES_KEY"
    expect_eq "$(say "a key of the caller's session keyring cannot be read by id")" EPERM "$OUT"
    probe "$BOX" keyctl-read -3
    expect_eq "$(say "the session keyring cannot be described")" EPERM "$OUT"
    probe "$BOX" keyctl-read -4
    expect_eq "$(say "the user keyring cannot be described")" EPERM "$OUT"
    if [ "$MODE" = root ]; then
        probe "$BOX" keyctl-read "$USER_KEY"
        expect_eq "$(say "a key of root's user keyring cannot be read")" EPERM "$OUT"
    fi
    probe "$BOX" keyctl-add -3
    expect_eq "$(say "add_key into the session keyring is refused")" EPERM "$OUT"
    probe "$BOX" keyctl-add -4
    expect_eq "$(say "add_key into the user keyring is refused")" EPERM "$OUT"
    check "$(say "and nothing was added to the host's keyrings")" \
        test -z "$(keyctl search @s user sandman-probe 2>/dev/null; keyctl search @u user sandman-probe 2>/dev/null)"
    probe "$BOX" request-key -3
    expect_eq "$(say "request_key is refused")" EPERM "$OUT"
    probe "$BOX" keyctl-join
    expect_eq "$(say "joining a named session keyring is refused")" EPERM "$OUT"
    probe "$BOX" keyctl-read32 -3
    expect_eq "$(say "keyctl through the 32-bit entry is refused")" EPERM "$OUT"

    # With the filter off (the user's choice), the sandbox still has its own session keyring.
    local cfg
    cfg=$(sys_config unconfined 'seccomp: unconfined')
    BOX=$(sm create -c "$cfg" -p unconfined)
    if [ -z "$BOX" ]; then
        not_ok "$(say "create with seccomp: unconfined")"
        return
    fi
    sm cp "$PROBE" "$BOX:/tmp/sys_probe" >/dev/null && sm exec "$BOX" -- chmod 755 /tmp/sys_probe
    probe "$BOX" keyctl-read -3
    expect_match "$(say "unconfined: the session keyring is the sandbox's own")" "^described: keyring;.*;_ses" "$OUT"
    probe "$BOX" keyctl-add -3
    check "$(say "unconfined: a key added inside does not reach the caller's session keyring")" \
        test -z "$(keyctl search @s user sandman-probe 2>/dev/null)"
}
run_modes
