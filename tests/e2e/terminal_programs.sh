# Real programs in a dashboard terminal, on a real local sandbox: vi edits and saves a file;
# top runs full screen and q gives the shell back; emoji take two columns; a paste reaches a
# program that asked for bracketed paste inside the paste markers (and one that did not,
# without them); a copied selection lands in the outer terminal's clipboard via OSC 52.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)

dash_start -x 100 -y 30
tm set -g set-clipboard on # the outer terminal takes OSC 52 into its clipboard (a buffer)
check "the dashboard lists the sandbox" wait_for "^  $ID "
keys t
check "t opens a terminal" wait_prompt "$ID"

type_line 'vi /tmp/vi-e2e.txt'
check "vi opens" wait_for '^"/tmp/vi-e2e.txt"'
text 'ihello from vi'
keys Escape
text ':wq'
keys Enter
check "vi saves and quits, the shell is back" wait_prompt "$ID"
expect_eq "the file was written in the sandbox" "hello from vi" \
    "$("$SANDMAN" exec "$ID" -- cat /tmp/vi-e2e.txt)"

type_line 'top -d 0.5'
check "top runs full screen" wait_for "^ *PID +USER .*COMMAND"
check "refreshing: its header shows the load" wait_for "load average"
expect_no_match "no prompt while it runs" "$(prompt_re "$ID")" "$SCREEN"
text q
check "q quits top and the shell's prompt is back below its last frame" wait_prompt "$ID"
type_line clear

type_line "printf '\\360\\237\\230\\200\\360\\237\\232\\200|\\nabcd|\\n'"
check "emoji take two columns each: the bars line up" wait_until 10 has_lines "^😀🚀\|$" "^abcd\|$"

type_line "printf '\\033[?2004h'; cat -v"
sleep 0.3
tm set-buffer -b e2e 'pasted-text'
tm paste-buffer -p -b e2e -t "$DASH"
check "a paste reaches a program that asked for it inside the markers" \
    wait_for '\^\[\[200~pasted-text\^\[\[201~'
keys C-c
type_line "printf '\\033[?2004l'; cat -v"
sleep 0.3
tm paste-buffer -p -b e2e -t "$DASH"
check "and one that did not, as plain text" wait_for '^pasted-text$'
keys C-c

type_line 'echo copy-me-$((40+2))'
check "a line to copy" wait_for "^copy-me-42$"
keys C-b [
check "scroll mode" wait_for "scroll: line"
text /
text copy-me-42
keys Enter
keys y
check "y copies the line search found" wait_for "copied 1 line"
clip() { tm show-buffer 2>/dev/null; }
has_clip() { clip | grep -q "^copy-me-42$"; }
check "the outer terminal's clipboard has it (OSC 52)" wait_until 5 has_clip
expect_eq "the clipboard file too" "copy-me-42" "$(cat "$SANDMAN_STATE_DIR/clipboard.txt")"
keys q
keys C-b q
check "Ctrl-b q asks first, a terminal being open" wait_for "quit\\? 1 terminal is open"
keys y
check "y quits" wait_for "^EXIT=0$"
finish
