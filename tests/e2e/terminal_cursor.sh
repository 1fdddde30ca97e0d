# The outer terminal's cursor is the focused program's cursor, also after a full frame (the
# dashboard redraws its header, list counts and footer while the program is quiet: the cursor
# used to stay at the end of the footer then); hidden when the program hides it; and hidden
# while the dashboard, not a terminal, has the keyboard.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)

dash_start -x 100 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"

# The program puts its cursor after "here" and waits for a line.
type_line "clear; printf 'cursor-test\\033[6;20Hhere'; read a; printf '\\033[?25lhidden'; read b"
check "the program drew" wait_for "^ +here$"
# where "here" ends on the outer screen (0-based, as tmux counts)
WANT=$(printf '%s\n' "$SCREEN" | awk '/^ +here$/ {print index($0, "here") + 3 "," NR - 1; exit}')
cursor_at() { test "$(pane '#{cursor_flag} #{cursor_x},#{cursor_y}')" = "1 $1"; }
check "the cursor is after 'here' ($WANT)" wait_until 10 cursor_at "$WANT"

# A full frame while the program is quiet: a second sandbox changes the list's count in the
# tab bar, which only a full frame draws.
"$SANDMAN" create >/dev/null
check "a full frame shows the new count" wait_until 20 line_matches 2 " 1 Sandboxes \(2\) "
check "the cursor is still after 'here' ($WANT), not in the footer" cursor_at "$WANT"

# The program hides its cursor: the outer one is hidden.
keys Enter
check "the program hid its cursor" wait_for "^hidden$"
check "the outer cursor is hidden" wait_until 10 test "$(pane '#{cursor_flag}')" = 0

# The dashboard has the keyboard: no cursor.
keys C-b 1
check "Ctrl-b 1 shows the list" wait_for "^  $ID "
check "the outer cursor is hidden" wait_until 10 test "$(pane '#{cursor_flag}')" = 0

finish
