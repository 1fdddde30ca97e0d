# No descriptor of the user's enters a sandbox (issue 8, items 4 and 7): exec relays output
# through pipes of sandman's own, so a process left behind can neither write into the user's
# output file nor read or drive the user's terminal; descriptors sandman inherited never reach
# the supervisor, the init or the entrypoint.
. "$(dirname "$0")/lib_security.sh"

attacks() {
    local id out host_file
    id=$(sm create) || { not_ok "[$MODE] create"; return; }

    out=$(mktemp /tmp/sandman-ctlfds-out-XXXXXX)
    chmod 666 "$out"
    sm exec "$id" -- 'readlink /proc/self/fd/1; readlink /proc/self/fd/0' >"$out" 2>&1
    expect_match "[$MODE] the command's stdout is a pipe, not the user's file" "^pipe:" "$(sed -n 1p "$out")"
    expect_match "[$MODE] its stdin is a pipe too" "^pipe:" "$(sed -n 2p "$out")"

    # A process left behind after exec returned tries to truncate and rewrite the output file.
    sm exec "$id" -- 'echo first; setsid sh -c "trap \"\" PIPE; sleep 0.3; timeout 1 sh -c \": > /proc/self/fd/1\"; echo LATE; touch /tmp/late-done" 2>/dev/null &' >"$out" 2>&1
    for _ in $(seq 100); do
        inside "$id" 'test -e /tmp/late-done'; [ "$RC" = 0 ] && break
        sleep 0.1
    done
    inside "$id" 'test -e /tmp/late-done'
    expect_eq "[$MODE] the left-behind process ran to its end" 0 "$RC"
    expect_eq "[$MODE] the output file holds only what came while exec ran" "first" "$(cat "$out")"
    rm -f "$out"

    # From a terminal: the sandbox never gets the user's terminal.
    run script -qec "$(printf '%q ' "${SM_ARGV[@]}" exec "$id" -- 'if test -t 0 || test -t 1 || test -t 2; then echo HAS-TTY; else echo no-tty; fi')" /dev/null
    expect_match "[$MODE] run from a terminal, no descriptor inside is a terminal" "no-tty" "$OUT"
    expect_no_match "[$MODE] (none is the user's terminal)" "HAS-TTY" "$OUT"
    # stdin passed through (-i from a terminal, or a file) is relayed through a pipe of ours.
    run script -qec "$(printf '%q ' "${SM_ARGV[@]}" exec -i "$id" -- 'if test -t 0; then echo HAS-TTY; else readlink /proc/self/fd/0; fi')" /dev/null </dev/null
    expect_match "[$MODE] exec -i from a terminal: the command's stdin is a pipe" "pipe:" "$OUT"
    expect_no_match "[$MODE] (not the user's terminal)" "HAS-TTY" "$OUT"
    out=$(mktemp /tmp/sandman-ctlfds-in-XXXXXX)
    echo "typed input" >"$out"
    chmod 666 "$out"
    run sm exec "$id" -- 'readlink /proc/self/fd/0; cat' <"$out"
    expect_match "[$MODE] a file as stdin reaches the command through a pipe" "^pipe:" "$(printf '%s\n' "$OUT" | sed -n 1p)"
    expect_eq "[$MODE] with its content" "typed input" "$(printf '%s\n' "$OUT" | sed -n 2p)"
    rm -f "$out"

    # Descriptors sandman inherited (5 and 6 here: a host file to read, one to write).
    host_file=$(mktemp /tmp/sandman-ctlfds-host-XXXXXX)
    echo "host secret" >"$host_file"
    chmod 666 "$host_file"
    local e
    e=$(sh -c 'exec 5<"$0" 6>>"$0"; exec "$@"' "$host_file" "${SM_ARGV[@]}" create \
        --entrypoint sh --entrypoint -c --entrypoint \
        'ls /proc/self/fd > /tmp/entry-fds; cat <&5 > /tmp/read5 2>/dev/null; echo pwned >&6 2>/dev/null; exec sleep 600')
    for _ in $(seq 100); do
        inside "$e" 'test -e /tmp/entry-fds'; [ "$RC" = 0 ] && break
        sleep 0.1
    done
    inside "$e" 'cat /tmp/entry-fds | tr "\n" " "'
    expect_eq "[$MODE] the entrypoint has only its stdio" "0 1 2 3 " "$OUT"
    inside "$e" 'cat /tmp/read5 2>/dev/null'
    expect_eq "[$MODE] it cannot read the host file through an inherited descriptor" "" "$OUT"
    expect_eq "[$MODE] nor write it" "host secret" "$(cat "$host_file")"
    inside "$e" 'ls /proc/self/fd | tr "\n" " "'
    expect_eq "[$MODE] an exec'd command has only its stdio" "0 1 2 3 " "$OUT"
    local sup
    sup=$(sed -n 's/^supervisor=//p' "$(mode_state)/local/$e/ready")
    check "[$MODE] the supervisor holds no descriptor of the host file" \
        sh -c "! ls -l /proc/$sup/fd 2>/dev/null | grep -q '$host_file'"
    rm -f "$host_file"
    sm rm "$id" "$e" >/dev/null
}

run_modes
