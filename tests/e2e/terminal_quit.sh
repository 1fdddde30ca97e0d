# Quitting with terminals open asks first (as tmux's kill-server confirmation does): Ctrl-b q
# puts "quit? (y/n)" on the status line, n (or any other key) keeps everything and reaches no
# program, y quits. Recordings (Ctrl-b R) go under $XDG_DATA_HOME/sandman/recordings/, not into
# the directory sandman was started from, and the status line says where.
. "$(dirname "$0")/lib_tmux.sh"

unset SANDMAN_RECORD_DIR
ID=$("$SANDMAN" create)
XDG=$SANDMAN_STATE_DIR/xdg-data
START=$SANDMAN_STATE_DIR/started-here
mkdir -p "$START"
cd "$START" || exit 1

dash_start -x 200 -y 30 -e "XDG_DATA_HOME=$XDG" # the status line holds the whole path
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"

keys C-b R
check "Ctrl-b R records, saying where" \
    wait_for "recording to $XDG/sandman/recordings/sandman-${ID:0:12}-.*\\.cast"
type_line 'echo recorded-$((3*3))'
check "output while recording" wait_for "^recorded-9$"
keys C-b R
check "Ctrl-b R again saves it, saying where" wait_for "recording saved to $XDG/sandman/recordings/"
CASTS=$(ls "$XDG/sandman/recordings/"*.cast 2>/dev/null | wc -l)
expect_eq "one recording is in the recordings directory" 1 "$CASTS"
expect_eq "none in the directory sandman was started from" "" "$(ls "$START")"
expect_match "holding the output" "recorded-9" "$(cat "$XDG/sandman/recordings/"*.cast)"

keys C-b q
check "Ctrl-b q asks first, a terminal being open" \
    wait_for "quit\\? 1 terminal is open \\(the sessions stay: t attaches again\\) \\(y/n\\)"
keys n
check "n keeps the dashboard and removes the question" wait_gone "quit\\?"
type_line 'echo still-$((2*4))'
check "the terminal still runs" wait_for "^still-8$"
expect_no_match "and the answer did not reach it" "^nstill|^n$|# necho" "$SCREEN"
keys C-b q
check "Ctrl-b q asks again" wait_for "quit\\? 1 terminal is open"
keys y
check "y quits" wait_for "^EXIT=0$"
finish
