# `sandman shell` in a real terminal (tmux) on a real local sandbox: it refuses to run without
# a terminal (exit 2, saying why); typed commands run; the outer terminal is raw while it runs
# (Ctrl-C reaches the sandbox's program, not the client) and exactly as before afterwards
# (stty -a), also when the client is killed; a resize reaches the program (stty size); a
# full-screen program (vi) uses the alternate screen and quitting it restores the screen; the
# shell's exit code is the client's; stdin ending sends Ctrl-D; --new makes a sandbox for the
# shell and removes it afterwards.
. "$(dirname "$0")/lib_tmux.sh"

ID=$("$SANDMAN" create)
PROMPT=$(prompt_re "$ID")

# Without a terminal.
run "$SANDMAN" shell "$ID" </dev/null
expect_eq "with stdin not a terminal it exits 2" 2 "$RC"
expect_match "saying it needs a terminal and what to use instead" \
    "shell needs a terminal: stdin and stdout must be TTYs \(use 'sandman exec' from scripts\)" "$ERR"
run_in_tmux -x 100 -y 30 "echo exit | \"\$SANDMAN\" shell $ID"
check "echo exit | sandman shell in a terminal exits 2" wait_for "^EXIT=2$"
expect_match "and says why on the screen" "^sandman: shell needs a terminal" "$SCREEN"
run_in_tmux -x 100 -y 30 "\"\$SANDMAN\" shell $ID >$SANDMAN_STATE_DIR/out"
check "with stdout not a terminal it exits 2 too" wait_for "^EXIT=2$"
expect_match "saying why" "^sandman: shell needs a terminal" "$SCREEN"

# The bridge. The outer shell saves stty -a before and after.
B=$SANDMAN_STATE_DIR/stty.before A=$SANDMAN_STATE_DIR/stty.after
run_in_tmux -x 100 -y 30 "stty -a >$B; \"\$SANDMAN\" shell $ID; rc=\$?; stty -a >$A; (exit \$rc)"
check "sandman shell shows the sandbox's prompt" wait_prompt "$ID"
TTY=$(pane '#{pane_tty}')
STTY_RAW=$(stty -a -F "$TTY")
expect_match "the outer terminal is raw while it runs (no echo, no line editing, no signals)" \
    "(^| )-isig .*-icanon .*-echo " "$(printf '%s' "$STTY_RAW" | tr '\n' ' ')"
type_line 'echo typed-$((6*7))'
check "a typed command shows its output" wait_for "^typed-42$"
type_line 'stty size'
check "the shell sees the terminal's size" wait_for "^30 100$"
resize 120 40
type_line 'stty size'
check "after a resize to 120x40 it sees the new size" wait_for "^40 120$"
type_line 'sleep 30; echo not-interrupted'
sleep 0.5
keys C-c
check "Ctrl-C interrupts the program in the sandbox" wait_for "^\^C"
check "and the shell's prompt comes back, the client still running" \
    wait_until 5 has_lines "# sleep 30; echo not-interrupted$" "^\^C$" "$PROMPT"
expect_no_match "not the client" "^EXIT=|^not-interrupted$" "$SCREEN"

type_line 'echo before-vi-$((1+1))'
check "output before vi" wait_for "^before-vi-2$"
expect_eq "the main screen is in use" 0 "$(pane '#{alternate_on}')"
type_line 'vi -u NONE -N /tmp/shell-e2e-vi.txt'
check "vi opens on the alternate screen" wait_for '^"/tmp/shell-e2e-vi.txt"'
expect_eq "the terminal is on the alternate screen" 1 "$(pane '#{alternate_on}')"
expect_no_match "the shell's output is hidden" "before-vi-2" "$SCREEN"
tildes() { [ "$(printf '%s\n' "$SCREEN" | grep -c '^~$')" = 38 ]; }
check "vi fills the 40 rows: the empty line, 38 ~ lines, its status line" wait_until 10 tildes
text ':q'
keys Enter
check "quitting vi gives back the shell's screen" wait_for "^before-vi-2$"
expect_eq "the alternate screen is left" 0 "$(pane '#{alternate_on}')"
check "with the prompt after the vi command" \
    wait_until 5 has_lines "# vi -u NONE -N /tmp/shell-e2e-vi.txt$" "$PROMPT"

resize 100 30
type_line 'exit 7'
check "the shell's exit code is the client's: exit 7 gives 7" wait_for "^EXIT=7$"
check "stty -a in the outer shell is as before" cmp -s "$B" "$A"
diff "$B" "$A" | sed 's/^/# /'
expect_eq "the shell's session is gone" "" \
    "$("$SANDMAN" shell "$ID" --list -o json | json 'len([s for s in d if s["running"]]) or ""')"

# Killed from outside: the terminal is restored all the same.
run_in_tmux -x 100 -y 30 "stty -a >$B; \"\$SANDMAN\" shell $ID; rc=\$?; stty -a >$A; (exit \$rc)"
check "another shell" wait_prompt "$ID"
CLIENT=$(pgrep -P "$(pane '#{pane_pid}')" -x sandman)
check "the client runs under the pane's shell" test -n "$CLIENT"
kill -TERM $CLIENT
check "SIGTERM ends the client with 143" wait_for "EXIT=143$"
check "and stty -a is as before" cmp -s "$B" "$A"

# Stopped and continued from outside (SIGTSTP, SIGCONT), then SIGQUIT.
run_in_tmux -x 100 -y 30 "stty -a >$B; \"\$SANDMAN\" shell $ID; rc=\$?; stty -a >$A; (exit \$rc)"
check "a shell again" wait_prompt "$ID"
CLIENT=$(pgrep -P "$(pane '#{pane_pid}')" -x sandman)
TTY=$(pane '#{pane_tty}')
kill -TSTP $CLIENT
stopped() { [ "$(ps -o stat= -p "$CLIENT" | cut -c1)" = T ]; }
check "SIGTSTP stops the client" wait_until 5 stopped
stty -F "$TTY" -a >"$A.stopped"
check "with the terminal as it was before (not raw) while it is stopped" cmp -s "$B" "$A.stopped"
kill -CONT $CLIENT
type_line 'echo continued-$((4*4))'
check "after SIGCONT the shell answers again" wait_for "^continued-16$"
kill -QUIT $CLIENT
check "SIGQUIT ends the client with 131" wait_for "EXIT=131$"
check "and stty -a is as before" cmp -s "$B" "$A"

# Ctrl-C ends a program that does not catch it: its exit code (130) is the client's.
run_in_tmux -x 100 -y 30 "\"\$SANDMAN\" shell $ID --command 'echo sleeping; exec sleep 100'"
check "sandman shell --command runs the command on a terminal" wait_for "^sleeping$"
keys C-c
check "Ctrl-C kills it by SIGINT, and the client exits 130" wait_for "EXIT=130$"

# stdin ends: the shell gets Ctrl-D. Its stdin is a pty that this python closes.
cat >"$SANDMAN_STATE_DIR/eof.py" <<'PY'
import os, subprocess, sys, termios, time
m, s = os.openpty()
p = subprocess.Popen([os.environ["SANDMAN"], "shell", sys.argv[1]], stdin=s)
while termios.tcgetattr(s)[3] & termios.ICANON:  # until the client has made it raw
    time.sleep(0.1)
os.close(s)
os.write(m, b"echo via-stdin-$((3*3))\r")
while not os.path.exists(sys.argv[2]):  # the test has seen the prompt after the output
    time.sleep(0.1)
os.close(m)
sys.exit(p.wait())
PY
run_in_tmux -x 100 -y 30 "python3 $SANDMAN_STATE_DIR/eof.py $ID $SANDMAN_STATE_DIR/close-stdin"
check "what comes on stdin reaches the shell" wait_until 30 has_lines "^via-stdin-9$" "$PROMPT"
touch "$SANDMAN_STATE_DIR/close-stdin"
check "when stdin ends the shell gets Ctrl-D and logs out, exit status 0" \
    wait_until 10 has_lines "$PROMPT" "^(logout|exit)$" "^EXIT=0$"

# --new: a sandbox for the shell, removed afterwards.
BEFORE=$("$SANDMAN" ls -aq)
run_in_tmux -x 100 -y 30 "\"\$SANDMAN\" shell --new"
new_id() { NEW=$("$SANDMAN" ls -aq | grep -vxF "$BEFORE"); [ -n "$NEW" ]; }
check "sandman shell --new creates a sandbox" wait_until 10 new_id
check "and opens its shell" wait_prompt "$NEW"
expect_eq "with the interactive shell's TTL, 30 minutes" 1800 \
    "$("$SANDMAN" status -o json "$NEW" | json 'd["ttl_s"]')"
type_line 'echo in-new-$((2+2)); exit 4'
check "its exit code is the client's" wait_for "^EXIT=4$"
expect_match "after the output" "^in-new-4$" "$SCREEN"
expect_eq "the sandbox is removed: sandman ls -aq is as before" "$BEFORE" "$("$SANDMAN" ls -aq)"
finish
