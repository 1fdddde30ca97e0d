# The logs view (l): a sandbox's kept output, its entrypoint's and each exec's, as `sandman logs`
# keeps it. Follow mode shows output as it is kept and f pauses it; / searches, n N go to the
# next and previous match; w wraps long lines; l on an exec event opens that command's output;
# an agent's escape sequences show escaped, never reaching the terminal. The palette refuses
# :logs -f and :events -f (they would hold a worker forever) with one line.
. "$(dirname "$0")/lib_tmux.sh"

# An entrypoint that says something every 0.3 s, so there is output to follow.
A=$("$SANDMAN" create --entrypoint sh --entrypoint -c --entrypoint \
    'i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.3; done')
"$SANDMAN" exec "$A" -- 'echo first-cmd-out; echo first-cmd-err >&2' >/dev/null 2>&1
"$SANDMAN" exec "$A" -- "printf 'evil \\033]0;pwned\\007 title\\n'; seq 1 40 | sed 's/^/row /'" \
    >/dev/null
"$SANDMAN" exec "$A" -- "python3 -c 'print(\"long-\" + \"x\" * 300 + \"-end\")'; exit 3" \
    >/dev/null 2>&1

dash_start -x 120 -y 30
check "the list shows the sandbox" wait_for "^  $A "
keys l
check "l opens the logs view of the selected sandbox" wait_for "^LOGS $A"
check "following: the last exec's output is at the end" wait_for "==> exec 3: .* \(exit 3\) <=="
check "the header says it follows" wait_for "FOLLOWING"
check "the entrypoint's output goes on after it, under its header" wait_until 10 has_lines \
    "^==> entrypoint <==" "^tick [0-9]+"
N=$(printf '%s\n' "$SCREEN" | grep -Eo '^tick [0-9]+' | tail -1 | cut -d' ' -f2)
echo "# the last tick shown: ${N:-none}"
check "new output of the entrypoint appears while following" \
    wait_for "^tick $((${N:-1000000} + 3)) *$" 15
"$SANDMAN" exec "$A" -- 'echo kept-while-watching' >/dev/null
check "a new exec's output appears while following" wait_for "^kept-while-watching" 15

keys f
check "f pauses" wait_for "paused \(f follows\)"
keys g
check "g goes to the top: the entrypoint's section" wait_for "^==> entrypoint <=="
check "and the first command's stdout and stderr" wait_until 10 has_lines \
    "^==> exec 1: echo first-cmd-out; echo first-cmd-err >&2 \(exit 0\) <==" \
    "^first-cmd-out" "^first-cmd-err"
check "the agent's escape sequence is shown escaped" wait_for '^evil \\x1b\]0;pwned\\x07 title'
expect_no_match "no raw escape reached the terminal's title" "pwned" "$(pane '#{pane_title}')"

keys /
text "row 3"
keys Enter
check "/ finds the first match" wait_for "/row 3: 1 of [0-9]+ "
keys n
check "n goes to the next match" wait_for "/row 3: 2 of [0-9]+ "
keys N
check "N goes back" wait_for "/row 3: 1 of [0-9]+ "

keys /
text "long-"
keys Enter
check "the long line is found" wait_for "^long-x+$"
check "unwrapped, it is cut at the edge" wait_gone "x-end"
keys w
check "w wraps it: its end shows on a row of its own" wait_for "^x+-end *$"
check "the header says wrap on" wait_for "wrap on"
keys w G
check "G follows again" wait_for "FOLLOWING"

keys Escape
check "Esc goes back to the list" wait_for "^  $A "

# From an event to the output of that command.
keys e
check "the events view shows the first command" wait_for "exec +exit 0 in [0-9.]+m?s: echo first-cmd-out"
keys g
for _ in $(seq 1 30); do
    SCREEN=$(screen)
    screen_sgr | grep -E '46m[0-9:]{8}  .*echo first-cmd-out' >/dev/null && break
    keys j
    sleep 0.1
done
keys l
check "l on the exec event opens the logs at that command" wait_until 10 line_matches 4 \
    "^==> exec 1: echo first-cmd-out"
check "not following (the view holds that command)" wait_for "paused \(f follows\)"
keys Escape
check "Esc goes back to the events" wait_for "TIME +SANDBOX +TYPE +EVENT"

# Streaming palette commands are refused, not run on a worker forever.
keys :
text "logs -f $A"
keys Enter
check ":logs -f is refused with one line" wait_for \
    "^:logs with --follow streams until stopped, which the palette cannot: l on a sandbox"
keys :
text "events --follow"
keys Enter
check ":events --follow is refused too" wait_for "^:events with --follow streams until stopped"
keys :
text "logs --exec 1 $A"
keys Enter
check "a logs command that ends still runs" wait_for "first-cmd-out"

finish
