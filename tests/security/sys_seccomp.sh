# System-call defences of every process in a sandbox (issue 8, item 9): no_new_privs, so a
# setuid binary planted inside does not give `exec -u nobody` euid 0 back, and a default seccomp
# filter (Docker's default profile as a model) that refuses with EPERM, never kills: io_uring,
# userfaultfd, terminal injection (TIOCSTI, TIOCLINUX), unsafe personalities, mount, and the
# same calls through the 32-bit entry; x32 answers ENOSYS. `seccomp: unconfined` turns it off.
. "$(dirname "$0")/lib_sys.sh"

attacks() {
    box || return
    run sm exec "$BOX" -- 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\t " " "'
    expect_eq "$(say "a command runs with no_new_privs and a seccomp filter")" \
        "NoNewPrivs: 1
Seccomp: 2" "$OUT"
    run sm exec "$BOX" -- 'grep -E "^(NoNewPrivs|Seccomp):" /proc/1/status | tr -s "\t " " "'
    expect_eq "$(say "and the init, whose children all inherit both")" "NoNewPrivs: 1
Seccomp: 2" "$OUT"

    # The entrypoint and PTY sessions (a terminal the sandbox owns) have them too.
    BOX=$(sm create --entrypoint /bin/sh --entrypoint -c --entrypoint \
        'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status >/tmp/entry.txt; exec sleep 600')
    run sm exec "$BOX" -- 'while [ ! -s /tmp/entry.txt ]; do sleep 0.05; done; tr -s "\t " " " </tmp/entry.txt'
    expect_eq "$(say "the entrypoint runs with both")" "NoNewPrivs: 1
Seccomp: 2" "$OUT"
    # script(1) gives the client a terminal; sm (the mode's sandman) reaches it exported.
    export SANDMAN USER_STATE=${USER_STATE:-} USER_SANDMAN=${USER_SANDMAN:-} USER_SUPERVISOR=${USER_SUPERVISOR:-}
    export -f sm sm_user
    run env SHELL=/bin/bash timeout 60 script -qec \
        "sm shell $BOX --command 'grep -E ^Seccomp: /proc/self/status'" /dev/null
    expect_match "$(say "a PTY session runs under the filter")" "Seccomp:.2" "$OUT"

    # Planted setuid-root copies of id(1), in /tmp and in a workdir outside /tmp, run by another
    # user. Only root mode maps other users (an unprivileged sandbox maps uid 0 alone).
    box -w /workspace || return
    if [ "$MODE" = root ]; then
        run sm exec -u nobody "$BOX" -- 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\t " " "'
        expect_eq "$(say "so does one run as another user")" "NoNewPrivs: 1
Seccomp: 2" "$OUT"
        sm exec "$BOX" -- 'cp /usr/bin/id /tmp/suid-id && chmod 4755 /tmp/suid-id &&
            cp /usr/bin/id /workspace/suid-id && chmod 4755 /workspace/suid-id && chmod 755 /workspace'
        for where in /tmp /workspace; do
            run sm exec -u nobody "$BOX" -- "$where/suid-id -u"
            expect_eq "$(say "a setuid-root binary in $where does not give nobody euid 0")" 65534 "$OUT"
        done
        # The sibling: file capabilities instead of the setuid bit.
        sm exec "$BOX" -- 'cp "$(readlink -f /usr/bin/python3)" /workspace/cap-python &&
            setcap cap_setuid+ep /workspace/cap-python'
        run sm exec -u nobody "$BOX" -- '/workspace/cap-python -c "import os; os.setuid(0); print(os.geteuid())"'
        check "$(say "a binary with file capabilities does not let nobody setuid(0)")" test "$OUT" != 0
        expect_match "$(say "it gets a permission error")" "PermissionError" "$ERR"
    fi

    probe "$BOX" io_uring
    expect_eq "$(say "io_uring_setup is refused")" EPERM "$OUT"
    probe "$BOX" userfaultfd
    expect_eq "$(say "userfaultfd is refused")" EPERM "$OUT"
    probe "$BOX" tiocsti
    expect_eq "$(say "TIOCSTI on its own terminal is refused")" EPERM "$OUT"
    probe "$BOX" tiocsti-hi
    expect_eq "$(say "TIOCSTI with high bits set in the request is refused too")" EPERM "$OUT"
    probe "$BOX" tioclinux
    expect_eq "$(say "TIOCLINUX is refused")" EPERM "$OUT"
    probe "$BOX" personality
    expect_eq "$(say "personality(ADDR_NO_RANDOMIZE|READ_IMPLIES_EXEC) is refused")" EPERM "$OUT"
    probe "$BOX" personality-query
    expect_eq "$(say "querying the personality still works")" ok "$OUT"
    probe "$BOX" mount
    expect_eq "$(say "mount is refused by the filter")" EPERM "$OUT"
    probe "$BOX" getpid32
    expect_eq "$(say "32-bit system calls still work")" ok "$OUT"
    probe "$BOX" x32-getpid
    expect_eq "$(say "x32 system calls answer ENOSYS")" ENOSYS "$OUT"
    run sm exec "$BOX" -- 'python3 -c "import os, subprocess; print(subprocess.run([\"true\"]).returncode, os.getuid())"'
    expect_eq "$(say "ordinary programs (python, posix_spawn) are unaffected")" "0 0" "$OUT"

    local cfg
    cfg=$(sys_config unconfined 'seccomp: unconfined')
    BOX=$(sm create -c "$cfg" -p unconfined)
    if [ -n "$BOX" ]; then
        run sm exec "$BOX" -- 'grep -E "^Seccomp:" /proc/self/status | tr -s "\t " " "'
        expect_eq "$(say "seccomp: unconfined runs without a filter")" "Seccomp: 0" "$OUT"
    else
        not_ok "$(say "create with seccomp: unconfined")"
    fi
    cfg=$(sys_config nnpoff 'no_new_privs: false')
    BOX=$(sm create -c "$cfg" -p nnpoff)
    if [ -n "$BOX" ]; then
        run sm exec "$BOX" -- 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\t " " "'
        expect_eq "$(say "no_new_privs: false keeps the filter without no_new_privs")" "NoNewPrivs: 0
Seccomp: 2" "$OUT"
    else
        not_ok "$(say "create with no_new_privs: false")"
    fi
    cfg=$(sys_config badnnp 'no_new_privs: perhaps')
    run sm create -c "$cfg" -p badnnp
    expect_match "$(say "no_new_privs: perhaps is refused, naming the allowed values")" \
        "no_new_privs must be true or false" "$ERR"
    cfg=$(sys_config badsec 'seccomp: strict')
    run sm create -c "$cfg" -p badsec
    check "$(say "seccomp: strict is refused")" test "$RC" -ne 0
    expect_match "$(say "naming the allowed values")" "seccomp.*default or unconfined" "$ERR"
}
run_modes
