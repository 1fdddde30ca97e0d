# COLORTERM=truecolor (or 24bit) is honoured as other programs honour it: a program's 24-bit
# colour reaches the outer terminal as that colour (the dashboard draws through the terminal's
# direct-colour terminfo entry, xterm-direct for TERM=xterm-256color), not cut to the nearest
# of 256; without COLORTERM the 256-colour entry stays and the colour is mapped down.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
RGB_LINE="printf 'plain \\033[38;2;10;200;30mgreenish\\033[48;2;200;20;150m on pink\\033[0m end\\n'"

dash_start -x 120 -y 30 -e COLORTERM=truecolor
check "COLORTERM=truecolor: the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"
type_line "clear; $RGB_LINE"
check "the coloured line shows" wait_for "^plain greenish on pink end$"
rgb_shown() { screen_sgr | grep -F 'greenish' | grep -Fq $'\e[38;2;10;200;30m'; }
check "the foreground is the program's 24-bit colour" wait_until 10 rgb_shown
check "and so is the background" sh -c "printf '%s' \"\$1\" | grep -Fq '48;2;200;20;150'" - \
    "$(screen_sgr | grep -F 'on pink')"
check "the dashboard's own footer is drawn" wait_for "Ctrl-b 1 list"
keys C-b x
check "closing the terminal shows the list" wait_for "^  $ID "
keys q
check "and quits with 0" wait_for "^EXIT=0$"

dash_start -x 120 -y 30 -e COLORTERM=
check "without COLORTERM: the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"
type_line "clear; $RGB_LINE"
check "the coloured line shows" wait_for "^plain greenish on pink end$"
mapped_down() { screen_sgr | grep -F 'greenish' | grep -Eq $'\e\\[38;5;[0-9]+m'; }
check "the colour is mapped to one of 256" wait_until 10 mapped_down
finish
