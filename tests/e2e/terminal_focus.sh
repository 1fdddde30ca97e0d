# Focus, the highlighted tab and what is shown always agree: the issue's sequence (Ctrl-b c,
# Ctrl-b %, Ctrl-b o, Ctrl-b %, then typing) used to show tab 4, highlight tab 3 and run the
# typed line in the hidden tab 3. Now un-splitting shows the terminal that has the keyboard.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
# tab_sgr N: the SGR escapes right before tab N's label on the tab line (its colours).
tab_sgr() { screen_sgr | sed -n 2p | sed -E "s/^.*((\x1b\[[0-9;]*m)+) $1 .*$/\1/"; }
# highlighted N M: tab N is drawn as the active tab, M as another one
highlighted() { test "$(tab_sgr "$1") $(tab_sgr "$2")" = "$ACTIVE $OTHER"; }
SEP='^.{48}[│x]' # the split's separator (tmux captures the ACS line as x)

dash_start -x 120 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal (tab 3)" wait_prompt "$ID"
type_line 'T=three; clear; echo this-is-$T'
check "tab 3 knows its name" wait_for "^this-is-three$"

keys C-b c
check "Ctrl-b c opens a second terminal (tab 4)" wait_until 30 line_matches 2 " 4 ${ID:0:8}"
check "with its own shell" wait_gone "^this-is-three$" 30
check "its prompt" wait_prompt "$ID"
type_line 'T=four; clear; echo this-is-$T'
check "tab 4 knows its name" wait_for "^this-is-four$"
ACTIVE=$(tab_sgr 4) OTHER=$(tab_sgr 3)
check "the active tab (4) is drawn differently from the other" test "$ACTIVE" != "$OTHER"

keys C-b %
check "Ctrl-b % splits: tab 3 on the left, tab 4 on the right" \
    wait_for "^this-is-three .*[│x]this-is-four *$"
keys C-b o
check "Ctrl-b o gives the keyboard to the left side (tab 3 highlighted)" \
    wait_until 10 highlighted 3 4
keys C-b %
check "Ctrl-b % un-splits, showing the terminal with the keyboard (tab 3)" \
    wait_until 10 has_lines "^this-is-three *$"
expect_no_match "not tab 4" "this-is-four" "$SCREEN"
check "tab 3 is the highlighted one" highlighted 3 4
type_line 'echo ran-in-$T'
check "the typed line runs in the shown terminal" wait_for "^ran-in-three$"
keys C-b 4
check "Ctrl-b 4 shows tab 4" wait_for "^this-is-four$"
expect_no_match "where nothing was typed" "ran-in" "$SCREEN"
check "tab 4 is the highlighted one" highlighted 4 3

# The same from the dashboard side: un-splitting with the keyboard on the list shows the list.
keys C-b %
check "Ctrl-b % splits again" wait_for "$SEP""this-is-four *$"
keys C-b 1
check "Ctrl-b 1 gives the keyboard to the list, shown on the left" wait_for "^  $ID .{33}[│x]"
keys C-b %
check "Ctrl-b % un-splits to the whole list" wait_gone "$SEP"
expect_match "the list is shown" "^  $ID " "$SCREEN"
finish
