# Terminal sessions outlive their client, on a real local sandbox: a terminal opened in the
# dashboard keeps running after the dashboard quits; `sandman shell ID --list` shows it
# detached; `sandman shell ID --attach SESSION` replays its output and takes it over; when that
# client's terminal goes away the session is detached again; the dashboard's t re-attaches to
# it instead of starting another shell, Ctrl-b d detaches, T starts a new one, Ctrl-b x ends
# one; an attached shell's exit code is the client's; and a session of sandman shell --keep
# outlives its window; with several detached sessions t asks which. Replayed output never makes a terminal answer its queries again (the
# answers would be typed into the shell).
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)

# sessions FIELDS: one line per PTY session of the sandbox, the given JSON fields of each.
sessions() {
    "$SANDMAN" shell "$ID" --list -o json | python3 -c '
import json, sys
for s in json.load(sys.stdin):
    print(" ".join(str(s[f]).lower() for f in sys.argv[1:]))' "$@"
}
states() { sessions running attached | paste -sd ,; }
states_are() { [ "$(states)" = "$1" ]; }
# bare_prompt: the shell's last prompt on the screen has nothing typed after it.
bare_prompt() {
    printf '%s\n' "$SCREEN" | grep "@sbx-${ID:0:8}" | tail -n1 | grep -Eq "$(prompt_re "$ID")"
}

dash_start -x 120 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"
type_line 'echo before-detach-MARK-$((6*7))'
check "a command's output shows" wait_for "^before-detach-MARK-42$"
# a program asks the terminal where the cursor is and reads the answer, as editors do
type_line 'stty -echo; printf "\033[6n"; read -r -d R POS; stty echo; echo answered-$((2+2))'
check "a cursor position query is answered" wait_for "^answered-4$"
keys C-b 1
check "Ctrl-b 1 goes to the list" wait_for "^  $ID "
keys q
check "q asks first, a terminal being open" wait_for "quit\? 1 terminal is open .*\(y/n\)"
keys y
check "y quits the dashboard" wait_for "^EXIT=0$"

expect_eq "the session survives it: one session, running and detached" "true false" "$(states)"
SES=$(sessions session_id)
run "$SANDMAN" shell "$ID" --list
expect_match "sandman shell --list shows it running and detached" \
    "^$SES +[0-9]+ +running +detached +[0-9.]+[KM]?i?B +\(shell\)" "$(printf '%s\n' "$OUT" | sed -n 2p)"
expect_match "under a header" "^SESSION +PID +STATE +CLIENT +OUTPUT +COMMAND" "$OUT"

run_in_tmux -x 120 -y 30 "\"\$SANDMAN\" shell $ID --attach $SES"
check "sandman shell --attach replays the session's output" wait_for "^before-detach-MARK-42$"
sleep 0.5
SCREEN=$(screen)
check "the replayed query is not answered again: nothing typed at the prompt" bare_prompt
type_line 'echo after-attach-$((1+2))'
check "and the shell answers" wait_for "^after-attach-3$"
expect_eq "the session is attached now" "true true" "$(states)"
tm kill-session -t "$DASH"
check "when the client's terminal goes away the session is detached again, still running" \
    wait_until 5 states_are "true false"

dash_start -x 120 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t re-attaches to the detached session and says so" \
    wait_for "attached to session $SES of ${ID:0:12}"
check "showing its earlier output" wait_for "^after-attach-3$"
expect_match "from before the first detach too" "^before-detach-MARK-42$" "$SCREEN"
sleep 0.5
SCREEN=$(screen)
check "the dashboard does not answer the replayed query either" bare_prompt
expect_eq "no new shell was started: still one session, now attached" "true true" "$(states)"
type_line 'echo reattached-$((2*5))'
check "the re-attached shell answers" wait_for "^reattached-10$"
keys C-b d
check "Ctrl-b d detaches and says how to come back" \
    wait_for "detached from session $SES \(t attaches again\)"
check "the list is back" wait_for "^  $ID "
expect_no_match "the tab is gone" " 3 ${ID:0:8}" "$(line 2)"
expect_eq "the session is running, detached" "true false" "$(states)"

keys T
check "T opens a new terminal" wait_prompt "$ID"
expect_no_match "a fresh shell, without the other session's output" "reattached-10|before-detach" \
    "$SCREEN"
expect_eq "two sessions now: the detached one and the new attached one" \
    "true false,true true" "$(states)"
NEW=$(sessions session_id | grep -v "$SES")
keys C-b x
check "Ctrl-b x closes the new terminal" wait_for "^  $ID "
new_gone() { ! sessions session_id running | grep -q "^$NEW true"; }
check "and ends its session" wait_until 5 new_gone
expect_match "the first session is untouched" "^$SES true false$" "$(sessions session_id running attached)"
keys q
check "q quits the dashboard" wait_for "^EXIT=0$"

run_in_tmux -x 100 -y 20 "\"\$SANDMAN\" shell $ID --attach $SES"
check "sandman shell --attach once more" wait_for "^reattached-10$"
type_line 'exit 5'
check "exit 5 in the attached shell ends the client with status 5" wait_for "^EXIT=5$"
ses_gone() { ! sessions session_id running | grep -q "^$SES true"; }
check "and the session has ended" wait_until 5 ses_gone

# --keep: a session started by sandman shell outlives its window too.
run_in_tmux -x 100 -y 20 "\"\$SANDMAN\" shell $ID --keep"
check "sandman shell --keep starts a shell" wait_prompt "$ID"
type_line 'echo kept-$((3*4))'
check "which answers" wait_for "^kept-12$"
tm kill-session -t "$DASH"
check "closing its window leaves the session running, detached" wait_until 5 states_are "false false,true false"
KEPT=$(sessions session_id running | sed -n 's/ true$//p')
run_in_tmux -x 100 -y 20 "\"\$SANDMAN\" shell $ID --attach $KEPT"
check "it can be attached again, its output replayed" wait_for "^kept-12$"

# --no-takeover refuses a session another client holds; --since replays only what came after.
new_session -d -s other -x 80 -y 10 \
    "\"$SANDMAN\" shell $ID --attach $KEPT --no-takeover; echo EXIT=\$?; sleep 60"
other_done() { tm capture-pane -t other -p | grep -q "^EXIT="; }
check "--no-takeover while another client holds the session fails" wait_until 10 other_done
OTHER=$(tm capture-pane -t other -p)
expect_match "saying it is held by another client" "held by another client" "$OTHER"
expect_match "with exit status 1" "^EXIT=1$" "$OTHER"
expect_eq "the holder keeps it" "true true" "$(sessions session_id running attached | sed -n "s/^$KEPT //p")"
tm kill-session -t "$DASH"
check "the holder's window closed: detached" wait_until 5 states_are "false false,true false"
BYTES=$(sessions session_id bytes | sed -n "s/^$KEPT //p")
run_in_tmux -x 100 -y 20 "\"\$SANDMAN\" shell $ID --attach $KEPT --since $BYTES"
kept_attached() { sessions session_id attached | grep -q "^$KEPT true$"; }
check "--since attaches" wait_until 10 kept_attached
type_line 'echo after-since-$((6*6))'
check "attached with --since at the session's end, the shell answers" wait_for "^after-since-36$"
expect_no_match "and nothing from before that offset was replayed" "kept-12" "$SCREEN"
run "$SANDMAN" shell "$ID" --since 5
expect_eq "--since without --attach is a usage error" 2 "$RC"
expect_match "saying it goes with --attach" "--since only goes with --attach SESSION" "$ERR"

# Several detached sessions: t asks which one.
tm kill-session -t "$DASH"
run_in_tmux -x 100 -y 20 "\"\$SANDMAN\" shell $ID --keep"
check "another kept shell" wait_prompt "$ID"
type_line 'echo second-session-$((7*7))'
check "which answers" wait_for "^second-session-49$"
tm kill-session -t "$DASH"
two_detached() { [ "$(sessions running attached | grep -c '^true false$')" = 2 ]; }
check "two sessions detached now" wait_until 5 two_detached
SECOND=$(sessions session_id | tail -n1)
dash_start -x 120 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t asks which detached session to attach to" wait_for "Several detached sessions: attach to which\\?"
check "listing the first" wait_for "$KEPT"
check "and the second" wait_for "$SECOND"
check "and a new one" wait_for "a new session"
keys j Enter
check "j Enter attaches to the second" wait_for "attached to session $SECOND of ${ID:0:12}"
check "showing its output" wait_for "^second-session-49$"
expect_match "the first stays detached" "^$KEPT true false$" "$(sessions session_id running attached)"
keys C-b d
check "detached again" wait_for "^  $ID "
keys t
check "the picker again" wait_for "attach to which"
keys Escape
check "Esc cancels it" wait_gone "attach to which"
expect_eq "and attaches nothing" 2 "$(sessions running attached | grep -c '^true false$')"
keys q
check "q quits" wait_for "^EXIT=0$"
finish
