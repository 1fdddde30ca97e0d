# The dashboard at the edges of terminal sizes: the help overlay whole at 80x24 (its last key
# and the closing hint), and the detail graphs filling their boxes on a 700-column terminal.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)

dash_start -x 80 -y 24
check "the list shows the sandbox" wait_for "^  $ID "
keys '?'
check "? opens the help at 80x24" wait_for "any key closes this"
check "its first key" wait_until 10 screen_has "j k .* +move"
check "and its last one, quit, are shown" wait_until 10 screen_has "[x│|] +q +quit +[x│|]"
expect_no_match "nothing is left out" "more: a taller terminal" "$SCREEN"
check "the box fits the screen" lines_fit 80
keys x
check "any key closes it" wait_gone "any key closes this"
keys q
check "q quits" wait_for "^EXIT=0$"

# 700 columns: every graph fills its box up to the right border.
dash_start -x 700 -y 40
check "the list shows the sandbox at 700 columns" wait_for "^  $ID "
keys Enter
check "Enter opens the detail" wait_for "^$ID  running"
graph_filled() {
    printf '%s\n' "$SCREEN" | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
# rows of the graph boxes (the first is the CPU box title): the column just left of the right
# border holds a graph cell (braille, U+2800..U+28FF), not a blank
inside = [l for l in lines if len(l.rstrip()) >= 700]
ok = bool(inside) and all(0x2800 <= ord(l[698]) <= 0x28FF for l in inside[1:3])
print("# graph rows reaching column 700:", len(inside), "last cells:",
      [hex(ord(l[698])) for l in inside[:3]])
sys.exit(0 if ok else 1)'
}
check "the CPU graph reaches the right border" wait_until 20 graph_filled
keys q
check "q quits" wait_for "^EXIT=0$"
finish
