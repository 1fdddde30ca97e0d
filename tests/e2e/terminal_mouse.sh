# The mouse and colours in the dashboard, on a real local sandbox: a program that asks for the
# mouse gets the wheel, presses and releases of the buttons over its terminal, with coordinates
# inside the pane; without that the wheel scrolls the terminal's scrollback; on the list the
# wheel moves the selection and a double click opens the detail view. Ctrl-C goes to the
# terminal's program; only on the list does it quit. 256-colour and 24-bit
# colours reach a 256-colour outer terminal as the nearest of its 256, and an 8-colour one as
# the nearest of its 8 (bright ones bold).
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
ID2=$("$SANDMAN" create)

# mouse B X Y [m]: the outer terminal reports button code B at column X, row Y (1-based, SGR
# encoding as xterm sends it; m for a release).
mouse() { tm send-keys -t "$DASH" -l "$(printf '\033[<%s;%s;%s%s' "$1" "$2" "$3" "${4:-M}")"; }

dash_start -x 100 -y 30
check "the dashboard lists both sandboxes" wait_for "^  $ID2 "
mouse 65 10 6
keys Enter
check "the wheel over the list moves the selection down (Enter opens the second sandbox)" \
    wait_for "^$ID2  running"
keys Escape
check "Esc goes back to the list" wait_for "^  ID +STATUS"
# On a loaded machine the four send-keys may land more than the 0.4 s of a double click apart,
# and the dashboard rightly sees two clicks: a person would click twice again.
double_click_opens() {
    mouse 0 10 4
    mouse 0 10 4 m
    mouse 0 10 4
    mouse 0 10 4 m
    wait_for "^$ID  running" 3 >/dev/null
}
check "a double click on the first row opens its detail view" \
    wait_until 15 double_click_opens
keys Escape
check "the list again" wait_for "^  ID +STATUS"

keys t
check "t opens a terminal" wait_prompt "$ID"
type_line 'seq -f "scroll-line-%g" 1 100'
check "output fills the scrollback" wait_for "^scroll-line-100$"
mouse 64 20 10
check "without mouse mode the wheel scrolls back into the scrollback" wait_for "scroll: line"
keys q
check "q leaves scroll mode" wait_gone "scroll: line"

type_line "printf '\\033[?1000h\\033[?1006h'; cat -v"
sleep 0.5
mouse 64 20 10
check "with mouse mode on the program gets the wheel (pane coordinates: row 10 of the screen is row 8 of the pane)" \
    wait_for '\^\[\[<64;20;8M'
mouse 0 5 4
mouse 0 5 4 m
check "and a left press and release" wait_for '\^\[\[<0;5;2M\^\[\[<0;5;2m'
mouse 2 7 4
check "and the right button" wait_for '\^\[\[<2;7;2M'
keys C-c
check "Ctrl-C reaches the program in the terminal (cat ends), not the dashboard" wait_for "\\^C$"
sleep 0.3
type_line "printf '\\033[?1000l\\033[?1006l'; echo still-here-\$((5*5))"
check "and the dashboard goes on" wait_for "^still-here-25$"

type_line "printf '\\033[38;5;208morange\\033[0m \\033[38;2;255;0;0mtrue-red\\033[0m end\\n'"
check "256-colour and 24-bit text shows" wait_for "^orange true-red end$"
expect_match "orange as colour 208 of the 256" $'\e\\[38;5;208morange' "$(screen_sgr)"
expect_match "24-bit red as the nearest of the 256 (196)" $'\e\\[38;5;196mtrue-red' "$(screen_sgr)"

keys C-b 1
check "Ctrl-b 1 goes to the list" wait_for "^  ID +STATUS"
keys C-c
check "Ctrl-C on the list asks first, a terminal being open" wait_for "quit\? 1 terminal is open"
keys y
check "y quits, with status 0" wait_for "^EXIT=0$"

dash_start -x 100 -y 30 -e TERM=xterm
check "the dashboard under an 8-colour terminal" wait_for "^  $ID2 "
keys t
check "a terminal" wait_prompt "$ID"
type_line "printf '\\033[91mbright\\033[0m \\033[38;5;196mc256\\033[0m \\033[38;2;0;0;255mtrueblue\\033[0m \\033[44mbg\\033[0m end\\n'"
check "colours beyond 8 show" wait_for "^bright c256 trueblue bg end$"
SGR=$(screen_sgr | grep 'trueblue')
expect_match "bright red as bold red" $'\e\\[1m\e\\[31mbright' "$SGR"
expect_match "256-colour red (196) as bold red" $'\e\\[1m\e\\[31mc256' "$SGR"
expect_match "24-bit blue as blue" $'\e\\[34mtrueblue' "$SGR"
expect_match "a blue background stays" $'\e\\[44mbg' "$SGR"
keys C-b q
check "Ctrl-b q asks first" wait_for "quit\? 1 terminal is open"
keys y
check "y quits" wait_for "^EXIT=0$"
finish
