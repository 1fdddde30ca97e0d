# The tmux harness itself, on the real dashboard: wait_for finds what is shown and fails,
# showing the screen, on what is not; keys, resize and the column readers work. A harness that
# cannot fail would make every end-to-end test pass.
. "$(dirname "$0")/lib_tmux.sh"

fails_quietly() { ! "$@" >/dev/null; }
dash_start -x 100 -y 30
check "wait_for sees the empty list" wait_for "no sandboxes yet: n creates one"
check "wait_for fails on text that never shows" fails_quietly wait_for "not on the screen" 1
expect_match "and prints the last screen when it does" "# \|.*no sandboxes yet" \
    "$(wait_for "not on the screen" 1)"
check "wait_gone fails on text that stays" fails_quietly wait_gone "no sandboxes yet" 1
keys '?'
check "keys reach the dashboard" wait_for "any key closes this"
keys x
check "wait_gone sees it close" wait_gone "any key closes this"
resize 90 20
check "resize changes the terminal" test "$(pane '#{pane_width}x#{pane_height}')" = 90x20
check "the dashboard follows" wait_for "q quit"
check "lines_fit passes at the width" lines_fit 90
check "and fails below it" fails_quietly lines_fit 40
SCREEN=$(printf '%s\n' \
    "  ID           STATUS   TTL      CPU% MEM/LIMIT        PIDS FAILURE" \
    "  0123456789ab running  -        64.8 252KiB/64MiB        1 OOM killed" \
    "● ba9876543210 running  -         0.0 1.2MiB/-            2")
expect_eq "list_ids reads the rows, marked or not" "0123456789ab ba9876543210" "$(shown_ids)"
expect_eq "cell reads a right-aligned column" "64.8 0.0" \
    "$(cell CPU% 0123456789ab) $(cell CPU% ba9876543210)"
expect_eq "cell reads a left-aligned column" "252KiB/64MiB" "$(cell MEM/LIMIT 0123456789ab)"
expect_eq "cell reads the last column" "OOM killed|" \
    "$(cell FAILURE 0123456789ab)|$(cell FAILURE ba9876543210)"
check "cell fails on a sandbox without a row" fails_quietly cell CPU% 000000000000
expect_match "row finds a marked row" "^● ba9876543210 " "$(row ba9876543210)"
keys q
check "the dashboard quits" wait_for "^EXIT=0$"
finish
