# Resizing reflows a terminal as tmux does: a long line the shell printed (158 characters,
# two rows at 120 columns) is four rows when the dashboard's window is narrowed to 50, one row
# at 170, and its two rows again at 120; the same long line in scrollback and the scrollback
# around it are whole after all that. Before the reflow, narrowing cut every line at 50 columns
# for good.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
dash_start -x 120 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"

# BEGIN, fifteen times 0123456789, END
type_line "long() { printf 'BEGIN'; printf '0123456789%.0s' \$(seq 15); printf 'END\\n'; }; clear; long; seq 1 200; long"
AT_120=('^BEGIN(0123456789){11}01234$' '^56789(0123456789){3}END$')
check "at 120 columns the long line takes two rows" \
    wait_until 20 has_lines '^200$' "${AT_120[@]}" "$(prompt_re "$ID")"

resize 50 30
check "narrowed to 50 columns it is rewrapped onto four rows, the prompt below it" \
    wait_until 15 has_lines '^200$' '^BEGIN(0123456789){4}01234$' '^56789(0123456789){4}01234$' \
    '^56789(0123456789){4}01234$' '^56789END$' "$(prompt_re "$ID")"

resize 170 30
check "widened to 170 columns it is one row, whole" \
    wait_until 15 has_lines '^200$' '^BEGIN(0123456789){15}END$' "$(prompt_re "$ID")"

resize 120 30
check "back at 120 columns it takes its two rows again" \
    wait_until 15 has_lines '^200$' "${AT_120[@]}" "$(prompt_re "$ID")"

# scroll mode, top of the scrollback: the first long line and the numbers after it
keys C-b '['
keys g
check "the scrollback kept the first long line whole, and the lines after it" \
    wait_until 15 has_lines "${AT_120[@]}" '^1$' '^2$' '^3$'
keys q
check "the prompt is back after scroll mode" wait_until 10 has_lines "${AT_120[@]}" "$(prompt_re "$ID")"
finish
