# Several embedded terminals and what surrounds them, on real local sandboxes: the split view
# (Ctrl-b %) with the list beside a focused terminal and still updating; two terminals into two
# sandboxes as tabs with their own output, switched with Ctrl-b 3 / 4, the hidden one still
# taking output; scrollback search (Ctrl-b /) finding a line printed 5,000 lines earlier; and
# Ctrl-b R recording a pane to a .cast that replays to the screen the pane showed.
. "$(dirname "$0")/lib_tmux.sh"

A=$("$SANDMAN" create)
B=$("$SANDMAN" create)
RECDIR=$SANDMAN_STATE_DIR/rec
mkdir -p "$RECDIR"

# tab_sgr N: the SGR escapes right before tab N's label on the tab line (its colours).
tab_sgr() { screen_sgr | sed -n 2p | sed -E "s/^.*((\x1b\[[0-9;]*m)+) $1 .*$/\1/"; }

dash_start -x 120 -y 30 -e "SANDMAN_RECORD_DIR=$RECDIR"
check "the dashboard lists both sandboxes" wait_for "^  $B "
keys g t
check "t opens a terminal into the first sandbox" wait_prompt "$A"

# The split: the list on the left 2/5 (48 columns), a separator, the terminal on the right, the
# keyboard in the terminal. (tmux 3.3 captures the separator, a curses ACS line, as its ACS
# letter x under TERM=xterm-256color; a terminal shows │.)
SEP='^.{48}[│x]'
keys C-b %
# The prompt sits on the pane's first or second row, depending on whether the shell had drawn
# it before the resize redrew it: either is the split working.
check "Ctrl-b % shows the list beside the terminal" wait_for "^  $A .{33}[│x]"
check "with the shell's prompt in the right half" wait_for "$SEP""root@sbx-${A:0:8}"
check "the list half has both rows" wait_for "^  $B .{33}[│x]"
type_line 'stty size'
check "the terminal gets the right side: 71 of 120 columns (and the separator)" \
    wait_for "$SEP""27 71 *$"
C=$("$SANDMAN" create --label made=outside)
check "a sandbox created meanwhile appears in the list half" wait_for "^  $C .{33}[│x]"
expect_match "and the header counts it" "3 running" "$(line 1)"
type_line 'echo still-here-$((4+4))'
check "while the keyboard stays in the terminal" wait_for "$SEP""still-here-8 *$"
keys C-b %
check "Ctrl-b % again gives the terminal the whole width" wait_gone "$SEP"
type_line 'stty size'
check "and the program sees all 120 columns" wait_for "^27 120$"

# Two terminals, two sandboxes: tabs 3 and 4 with their own output.
type_line 'echo first-$((1+1))'
check "output in the first terminal" wait_for "^first-2$"
keys C-b 1
check "Ctrl-b 1 goes back to the list" wait_for "^  $C "
keys g j t
check "t on the second row opens a terminal into the second sandbox" wait_prompt "$B"
type_line 'echo second-$((2+2))'
check "output in the second terminal" wait_for "^second-4$"
expect_no_match "without the first terminal's output" "first-2|$(prompt_re "$A")" "$SCREEN"
expect_match "the tab bar shows both terminals" " 3 ${A:0:8} +4 ${B:0:8} " "$(line 2)"
ACTIVE=$(tab_sgr 4) OTHER=$(tab_sgr 3)
echo "# tab colours: active $(printf %q "$ACTIVE"), other $(printf %q "$OTHER")"
check "the active tab (4) is drawn differently from the other" test "$ACTIVE" != "$OTHER"
keys C-b 3
check "Ctrl-b 3 shows the first terminal again" wait_for "^first-2$"
expect_eq "and tab 3 becomes the highlighted one" "$ACTIVE $OTHER" "$(tab_sgr 3) $(tab_sgr 4)"
expect_no_match "with only its own output" "second-4" "$SCREEN"
type_line 'sleep 1; echo later-$((3+3))'
keys C-b 4
check "Ctrl-b 4 switches back while the first one is busy" wait_for "^second-4$"
sleep 2
keys C-b 3
check "output made while its tab was hidden is there" wait_for "^later-6$"

# Scrollback search: a line 5,000 lines up.
type_line 'echo needle-$((40+2)); seq -f filler-%g 1 5000'
check "5,000 lines scroll past" wait_for "^filler-5000$"
keys C-b /
check "Ctrl-b / opens the search prompt" wait_for "^/"
text needle-42
keys Enter
check "the search finds the line 5,000 lines up" wait_for "^needle-42$"
expect_match "and shows it in the scroll view with its line number" \
    "scroll: line [0-9]+ of [0-9]+" "$SCREEN"
expect_no_match "the live screen is hidden" "^filler-5000$" "$SCREEN"
pos=$(printf '%s\n' "$SCREEN" | sed -En 's/.*scroll: line ([0-9]+) of ([0-9]+).*/\1 \2/p')
set -- $pos
check "the line is more than 5,000 lines before the end ($1 of $2)" test $(($2 - $1)) -gt 5000
keys y
check "y copies the found line" wait_for "copied 1 line to $SANDMAN_STATE_DIR/clipboard.txt"
expect_eq "into the clipboard file" needle-42 "$(cat "$SANDMAN_STATE_DIR/clipboard.txt")"
keys j
check "j moves the scroll cursor down a line" wait_for "scroll: line $(($1 + 1)) of $2"
keys q
check "q leaves the scroll view at the live screen" wait_for "^filler-5000$"
expect_no_match "the needle is off screen again" "^needle-42$|scroll: line" "$SCREEN"
keys C-b [
check "Ctrl-b [ opens the scroll view at the live screen" wait_for "scroll: line $2 of $2"
keys g
check "g goes to the top of the scrollback" wait_for "scroll: line 1 of $2"
expect_match "showing the first lines, the needle among them" "^needle-42$" "$SCREEN"
expect_no_match "far from the live screen" "^filler-(4|5)[0-9]{3}$" "$SCREEN"
keys q
check "q goes back to the live screen" wait_for "^filler-5000$"

# Recording: Ctrl-b R, a clear screen, colours, text; Ctrl-b R stops. The replay matches.
keys C-b 4
check "back in the second terminal" wait_for "^second-4$"
keys C-b R
check "Ctrl-b R starts a recording and names the file" \
    wait_for "recording to $RECDIR/sandman-${B:0:12}-.*\.cast \(Ctrl-b R stops\)"
expect_match "the tab says REC" " 4 ${B:0:8}.* REC " "$(line 2)"
type_line clear
type_line "printf '\\033[32mgreen\\033[0m and \\033[1;34mbold blue\\033[0m\\n'; seq -f rec-%g 1 5"
check "the output shows" wait_for "^rec-5$"
type_line 'echo rec-done-$((5+5))'
check "more output" wait_for "^rec-done-10$"
keys C-b R
check "Ctrl-b R again saves the recording" wait_for "recording saved to $RECDIR/.*\.cast"
expect_no_match "REC leaves the tab" "REC" "$(line 2)"
CAST=$(ls "$RECDIR"/*.cast)
check "one .cast file was written" test "$(ls "$RECDIR" | wc -l)" = 1
expect_eq "its header has the pane's size" "120 27" \
    "$(head -1 "$CAST" | json '"%d %d" % (d["width"], d["height"])')"
LIVE=$(printf '%s\n' "$SCREEN" | sed -n 3,29p | trim)
REPLAY=$(replay_screen "$CAST")
expect_match "the replay has the output" "^rec-done-10$" "$REPLAY"
expect_eq "the replay's screen is the screen the pane showed" "$LIVE" "$REPLAY"
[ "$LIVE" = "$REPLAY" ] || diff <(echo "$LIVE") <(echo "$REPLAY") | sed 's/^/# /'

keys C-b q
check "Ctrl-b q asks first, terminals being open" wait_for "quit\? 2 terminals are open"
keys y
check "y quits the dashboard" wait_for "^EXIT=0$"
finish
