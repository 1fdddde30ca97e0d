# One embedded terminal in the dashboard, on a real local sandbox: t opens it and the tab bar
# names it; a typed command shows its output; colours reach the outer terminal as SGR and wide
# (CJK) characters take two columns; a full-screen program (less) takes the screen and quitting
# it restores the shell's screen; a resize reaches the program (stty size); when the shell
# exits the pane says so with the exit code and stays readable; Ctrl-b x closes it.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
PROMPT=$(prompt_re "$ID")

dash_start -x 120 -y 30
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal with the sandbox's shell prompt" wait_prompt "$ID"
expect_match "the tab bar shows the terminal as tab 3" " 3 ${ID:0:8} " "$(line 2)"
expect_no_match "the list is gone (the terminal has the whole body)" "^  $ID |PROVIDER" "$SCREEN"
check "the footer shows the terminal keys" wait_until 10 line_matches 30 "Ctrl-b 1 list +Ctrl-b \[ scroll"

type_line 'echo typed-$((6*7))'
check "a typed command shows its output" wait_for "^typed-42$"
expect_match "below the command line as typed" '# echo typed-\$\(\(6\*7\)\)$' "$SCREEN"
type_line 'stty size'
check "the program sees the body's size (27 rows of 30, 120 columns)" wait_for "^27 120$"

type_line "printf '\\033[31mred-text\\033[0m plain\\n'"
check "coloured output shows" wait_for "^red-text plain$"
expect_match "in red on the outer terminal (SGR 31), reset before 'plain'" \
    $'\e\\[(31|38;5;(1|9|160|196))mred-text\e\\[(39|0)m plain' "$(screen_sgr)"
type_line "printf '\\344\\270\\255\\346\\226\\207\\345\\255\\227|\\n\\344\\270\\255\\033[7G|\\nabcdef|\\n'"
check "CJK characters show" wait_for "^中文字\|$"
expect_match "a cursor move to column 7 after one of them leaves 4 blanks (it took two columns)" \
    "^中    \|$" "$SCREEN"
check "and the lines stay aligned" has_lines "^中文字\|$" "^中    \|$" "^abcdef\|$"

# A full-screen program: less on the alternate screen, q gives the shell's screen back.
type_line 'echo before-less-$((1+1))'
check "output before less" wait_for "^before-less-2$"
type_line "seq -f 'less-line-%g' 1 200 | less"
check "less shows the first page" wait_for "^less-line-1$"
check "as many lines as fit (26 of the 27 rows, the last is its prompt)" wait_until 10 \
    has_lines "^less-line-25$" "^less-line-26$" "^:"
expect_no_match "the shell's screen is hidden" "before-less-2|seq -f" "$SCREEN"
keys Space
check "space pages down" wait_for "^less-line-52$"
keys q
check "q quits less and the shell's screen comes back" wait_for "^before-less-2$"
check "nothing of less is left (the whole frame is redrawn)" wait_gone "^less-line-|^:"
check "the prompt follows the command line" wait_until 5 has_lines "# seq -f 'less-line-%g' 1 200 \| less$" "$PROMPT"

# Resize: the program sees the new size.
resize 100 25
check "the terminal is 100x25" test "$(pane '#{pane_width}x#{pane_height}')" = 100x25
# tmux has resized; the dashboard passes it on when it handles the SIGWINCH: ask the program
# until it sees the new size (on a slow build it may first answer with the old one)
sees_new_size() {
    type_line 'clear; stty size'
    wait_for "^22 100$" 2 >/dev/null
}
check "after a resize to 100x25 the program sees 22 rows and 100 columns" wait_until 15 sees_new_size
check "no line is wider than 100 columns" wait_until 5 lines_fit 100
check "the footer is on the last line" wait_until 10 line_matches 25 "Ctrl-b 1 list"

# The shell exits: the pane shows the exit code and keeps the output.
type_line 'echo last-words-$((2+3)); exit 3'
check "when the shell exits the pane says so with its exit code" \
    wait_for "process exited with code 3 +\(Ctrl-b x closes\)"
expect_match "on the pane's last line" "process exited with code 3" "$(line 24)"
expect_match "the output stays readable" "^last-words-5$" "$SCREEN"
expect_match "the tab says exited" " 3 ${ID:0:8}.* \(exited\) " "$(line 2)"
text 'echo ignored'
sleep 0.5
SCREEN=$(screen)
expect_match "keys typed into the exited pane change nothing (e does not open the events view)" \
    "process exited with code 3" "$SCREEN"
expect_no_match "nothing typed shows" "echo ignored|^TIME +SANDBOX" "$SCREEN"
keys C-b x
check "Ctrl-b x closes it and the list comes back" wait_for "^  $ID "
expect_no_match "the tab is gone" " 3 ${ID:0:8}" "$(line 2)"
run "$SANDMAN" shell "$ID" --list
expect_eq "the session list is read" 0 "$RC"
expect_no_match "no session is left running in the sandbox" "running" "$OUT"

keys q
check "q quits the dashboard" wait_for "^EXIT=0$"
finish
