# `sandman shell ID --record FILE` on a real local sandbox: coloured lines, a clear screen, a
# full-screen program (vi) and some text, then exit; the asciicast file replays (its output
# events cat into a fresh tmux window of the recorded size) to the same final screen, colours
# included, as the terminal showed. tmux is the oracle for both.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
CAST=$SANDMAN_STATE_DIR/session.cast

run_in_tmux -x 80 -y 24 "\"\$SANDMAN\" shell $ID --record $CAST"
check "sandman shell --record shows the shell" wait_prompt "$ID"
type_line "printf '\\033[31mred-before-clear\\033[0m\\n'"
check "coloured output before the clear" wait_for "^red-before-clear$"
type_line clear
check "clear empties the screen" wait_gone "red-before-clear"
type_line "printf '\\033[32mgreen\\033[0m \\033[1;33mbold-yellow\\033[0m \\033[44mon-blue\\033[0m\\n'; seq -f line-%g 1 3"
check "coloured output after it" wait_for "^line-3$"
type_line 'vi -u NONE -N'
check "vi takes the screen" wait_for "^~"
text ':q'
keys Enter
check "and gives it back" wait_gone "^~"
type_line 'printf "\344\270\255\346\226\207 wide\n"; echo the-end-$((4*5))'
check "wide characters and the last line" wait_for "^the-end-20$"
type_line exit
check "exit ends the client" wait_for "^EXIT=0$"

LIVE=$(screen | grep -v '^EXIT=0$' | trim)
LIVE_SGR=$(screen_sgr | grep -v 'EXIT=0' | trim)
check "the recording is a file" test -s "$CAST"
expect_eq "its header has the terminal's size and TERM" "2 80 24 xterm-256color" \
    "$(head -1 "$CAST" | json '"%d %d %d %s" % (d["version"], d["width"], d["height"], d["env"]["TERM"])')"
expect_match "its output events hold the colour escapes" '"o", *".*\\u001b\[32mgreen' "$(cat "$CAST")"
REPLAY=$(replay_screen "$CAST")
REPLAY_SGR=$(replay_screen -e "$CAST")
expect_match "the replay ends at the same place" "^the-end-20$" "$REPLAY"
expect_no_match "after the clear" "red-before-clear" "$REPLAY"
expect_eq "the replayed screen is the screen the terminal showed" "$LIVE" "$REPLAY"
[ "$LIVE" = "$REPLAY" ] || diff <(echo "$LIVE") <(echo "$REPLAY") | sed 's/^/# /'
expect_match "with colours" $'\e\\[32mgreen' "$REPLAY_SGR"
expect_eq "and the same colours" "$LIVE_SGR" "$REPLAY_SGR"
[ "$LIVE_SGR" = "$REPLAY_SGR" ] || diff <(echo "$LIVE_SGR" | cat -v) <(echo "$REPLAY_SGR" | cat -v) | sed 's/^/# /'
finish
