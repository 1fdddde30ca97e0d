# Agent text that reaches the one-line failure reason: the last stderr line of a failed command
# is shown by ls, status and events (issue 12), so escape sequences in it must arrive escaped,
# never raw, while -o json keeps the text exact.
. "$(dirname "$0")/lib_security.sh"

attacks() {
    local id
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    inside "$id" 'printf "boom \033]0;PWNED\007\033[2J bad\n" >&2; exit 3'
    expect_eq "[$MODE] the command failed" 3 "$RC"
    local v
    for v in ls status events; do
        if [ "$v" = ls ]; then run sm ls; else run sm "$v" "$id"; fi
        check "[$MODE] $v prints no raw ESC or BEL from the command's stderr" \
            sh -c '! printf "%s" "$1" | tr -d "\n\t" | grep -q "[[:cntrl:]]"' _ "$OUT"
    done
    run sm status "$id"
    expect_match "[$MODE] status still names the failure, its control bytes shown escaped" 'boom \\x1b\]0;PWNED' "$OUT"
    run sm status -o json "$id"
    expect_match "[$MODE] -o json keeps the text exact (a JSON escape)" 'boom \\u001b\]0;PWNED' "$OUT"
    # a command whose text itself holds ESC and BEL bytes, replayed as a script
    inside "$id" $'echo \e]0;TITLE\a done'
    run sm events "$id" --replay-script
    check "[$MODE] --replay-script prints no raw control bytes" \
        sh -c '! printf "%s" "$1" | tr -d "\n\t" | grep -q "[[:cntrl:]]"' _ "$OUT"
    expect_match "[$MODE] the command's bytes are written as bash escapes" "\\\\x1b\\]0;TITLE\\\\x07" "$OUT"
    local script=$SANDMAN_STATE_DIR/replay-$MODE.sh
    printf '%s\n' "$OUT" >"$script"
    run bash -n "$script"
    expect_eq "[$MODE] and the script still parses" 0 "$RC"
    sm rm "$id" >/dev/null
}

run_modes
