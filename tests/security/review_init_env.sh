# The environment of the sandbox's own processes on the host side (review of issue 8): the
# supervisor and the init (PID 1 inside, which lives as long as the sandbox) were started with
# the whole environment of the sandman that created the sandbox: the user's tokens, cloud keys,
# SSH agent socket and host paths, in the memory of a process inside the sandbox's namespaces,
# kept from the agent by the ptrace rules alone. They get a fixed PATH and nothing else; the
# sandbox's commands get only what the spec gives them, as before.
. "$(dirname "$0")/lib_security.sh"

attacks() {
    local id dir pid sup
    id=$(REVIEW_SECRET=ghp_review_do_not_leak sm create -e GIVEN=yes --entrypoint sh \
        --entrypoint -c --entrypoint 'echo "$GIVEN" >/tmp/entry.txt; exec sleep 600') ||
        { not_ok "[$MODE] create"; return; }
    dir=$(mode_state)/local/$id
    pid=$(sed -n 's/^pid=//p' "$dir/ready")
    sup=$(sed -n 's/^supervisor=//p' "$dir/ready")
    check "[$MODE] the init's and supervisor's pids are recorded" test -n "$pid" -a -n "$sup"
    expect_eq "[$MODE] the init does not hold the creator's environment" "" \
        "$(tr '\0' '\n' <"/proc/$pid/environ" | grep -E '^(REVIEW_SECRET|HOME|SANDMAN_STATE_DIR)=')"
    expect_eq "[$MODE] nor does the supervisor" "" \
        "$(tr '\0' '\n' <"/proc/$sup/environ" | grep -E '^(REVIEW_SECRET|HOME|SANDMAN_STATE_DIR)=')"
    # An entrypoint named without a path is still found, and gets the spec's env.
    inside "$id" 'while [ ! -s /tmp/entry.txt ]; do sleep 0.05; done; cat /tmp/entry.txt'
    expect_eq "[$MODE] a bare-name entrypoint runs with the spec's env" yes "$OUT"
    inside "$id" 'echo "${REVIEW_SECRET:-unset}"'
    expect_eq "[$MODE] and a command does not see the creator's variables" unset "$OUT"
    sm rm "$id" >/dev/null
}

run_modes
