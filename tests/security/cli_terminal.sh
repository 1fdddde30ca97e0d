# Item 10 of issue 8: agent-chosen text (labels, env names, exec commands, failure reasons) never
# reaches the user's terminal raw. Text output shows ESC, BEL, other C0/C1 controls and DEL
# escaped; -o json keeps them exact (JSON escapes). The command's own output under exec is the
# command's and passes through raw, as ssh and docker do.
. "$(dirname "$0")/lib_security.sh"

ESC=$'\e'
BEL=$'\a'
CSI8=$'\xc2\x9b' # U+009B, the 8-bit CSI, in UTF-8
TITLE="${ESC}]0;pwned${BEL}"
CLEAR="${ESC}[2J"

# raw_controls TEXT: true if TEXT holds an ESC, BEL, DEL or UTF-8 C1 byte pair.
raw_controls() { printf '%s' "$1" | LC_ALL=C grep -q $'[\x1b\x07\x7f]\|\xc2[\x80-\x9f]'; }
no_raw() { ! raw_controls "$1"; }

attacks() {
    run sm create -l "title=$TITLE" -l "k${CLEAR}=v${CSI8}2J" -e "E${CLEAR}X=1" -w "/tmp/w${CLEAR}"
    local id=$OUT
    expect_eq "$(say create with control characters in labels and env names succeeds)" 0 "$RC"
    check "$(say the id printed is plain)" no_raw "$OUT$ERR"
    inside "$id" "true '$TITLE' '$CLEAR'"
    check "$(say exec passes its command through)" test "$RC" = 0
    inside "$id" "printf '$CLEAR'"
    expect_eq "$(say the output of the command itself is passed through raw)" "$CLEAR" "$OUT"
    run sm cp "$id:/nonexistent${CLEAR}${TITLE}" "$SANDMAN_STATE_DIR/x"
    check "$(say an error quoting a path inside the sandbox shows it escaped)" no_raw "$OUT$ERR"
    expect_match "$(say and shows the escape visibly)" '\\x1b\[2J' "$ERR"

    run sm status "$id"
    check "$(say status prints no raw control bytes)" no_raw "$OUT$ERR"
    expect_match "$(say status shows the label escaped)" 'title=\\x1b\]0;pwned\\x07' "$OUT"
    expect_match "$(say status shows the C1 CSI escaped)" 'v\\u009b2J' "$OUT"
    expect_match "$(say status shows the env name escaped)" 'E\\x1b\[2JX' "$OUT"
    run sm events "$id"
    check "$(say events prints no raw control bytes)" no_raw "$OUT$ERR"
    expect_match "$(say events shows the exec command escaped)" "\\\\x1b\]0;pwned\\\\x07" "$OUT"
    # An image directory whose name holds a screen clear shows in the IMAGE column of ls/top.
    local img=/tmp/s${CLEAR}$$
    [ -e "$img" ] || ln -s "$ROOTFS" "$img"
    run sm create -i "dir:$img"
    local id2=$OUT
    expect_eq "$(say create from an image directory named with an escape succeeds)" 0 "$RC"
    run sm ls
    expect_match "$(say ls shows that image escaped)" 'dir:/tmp/s\\x1b\[2J' "$OUT"
    check "$(say ls prints no raw control bytes)" no_raw "$OUT$ERR"
    run sm top --count 1
    check "$(say top prints no raw control bytes)" no_raw "$OUT$ERR"
    expect_match "$(say top shows that image escaped)" 'dir:/tmp/s\\x1b' "$OUT"
    expect_eq "$(say top exits 0)" 0 "$RC"

    # A PTY session whose command holds a title escape, listed by shell --list. script gives
    # the shell its terminal; --keep leaves the session running once script has gone.
    local wrapper=$SANDMAN_STATE_DIR/sm-$MODE.sh
    {
        echo '#!/bin/bash'
        declare -p SANDMAN USER_STATE USER_SANDMAN USER_SUPERVISOR 2>/dev/null
        declare -f sm sm_user
        echo 'sm "$@"'
    } >"$wrapper"
    chmod +x "$wrapper"
    timeout 5 script -qec "$wrapper shell $id --keep --command 'sleep 30 # $TITLE'" /dev/null \
        >/dev/null 2>&1 &
    local i
    for i in $(seq 100); do
        run sm shell --list "$id"
        case "$OUT" in *"sleep 30"*) break ;; esac
        sleep 0.1
    done
    expect_match "$(say shell --list shows the session)" "sleep 30" "$OUT"
    check "$(say shell --list prints no raw control bytes)" no_raw "$OUT$ERR"
    expect_match "$(say and shows its command escaped)" 'sleep 30 # \\x1b\]0;pwned\\x07' "$OUT"
    run sm shell --list -o json "$id"
    local cmd
    cmd=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["command"], end="")')
    expect_eq "$(say shell --list -o json keeps the command exact)" "sleep 30 # $TITLE" "$cmd"

    run sm status -o json "$id"
    local title k
    title=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["labels"]["title"], end="")')
    expect_eq "$(say status -o json keeps the label exact)" "$TITLE" "$title"
    k=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["labels"]["k\x1b[2J"], end="")')
    expect_eq "$(say and the C1 one too)" "v${CSI8}2J" "$k"
    check "$(say while the JSON text itself holds no raw control bytes)" no_raw "$OUT"
    run sm events -o json "$id"
    local cmds
    cmds=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print("\n".join(e.get("cmd","") for e in json.load(sys.stdin)), end="")')
    expect_match "$(say events -o json keeps the exec command exact)" "true '${TITLE}' '${ESC}\[2J'" "$cmds"
    sm rm "$id" "$id2" >/dev/null
}

ROOTFS=$(make_rootfs)
chmod -R a+rX "$SANDMAN_STATE_DIR"
trap 'sec_cleanup; rm -f "/tmp/s${CLEAR}$$"' EXIT
run_modes
