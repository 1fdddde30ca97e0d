# The dashboard against providers that fail: a Docker context whose socket accepts connections
# and never answers (a hung engine), and one whose socket does not exist. Quitting is
# immediate whatever a provider does; switching away from a hung context shows the new one at
# once; the journal (events, failures) survives switching away and back, and the events view
# shows only the current provider's sandboxes; an unreachable provider is named as such.
. "$(dirname "$0")/lib_tmux.sh"

# A unix socket that accepts every connection and never writes a byte; it ends with the test
# (it checks its parent each second: an EXIT trap alone left one behind per run).
HUNG_SOCK=$SANDMAN_STATE_DIR/hung.sock
python3 -c '
import os, socket, sys
parent = os.getppid()
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(64)
s.settimeout(1)
held = []
while os.getppid() == parent and os.path.exists(sys.argv[1]):
    try:
        held.append(s.accept()[0])
    except socket.timeout:
        pass
' "$HUNG_SOCK" </dev/null >/dev/null 2>&1 &
LISTENER=$!
trap 'kill $LISTENER 2>/dev/null; tmux_cleanup' EXIT
for _ in $(seq 50); do [ -S "$HUNG_SOCK" ] && break; sleep 0.1; done
cat >"$SANDMAN_STATE_DIR/ctx.yaml" <<YAML
sandbox_provider: work
work:
  local: {}
hung:
  docker:
    host: unix://$HUNG_SOCK
missing:
  docker:
    host: unix://$SANDMAN_STATE_DIR/no-such.sock
YAML
CFG=$SANDMAN_STATE_DIR/ctx.yaml
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ---- quitting while a provider call hangs ----
dash_start -x 120 -y 30 -c "$CFG" -p hung
check "a hung provider shows the spinner" wait_for "waiting for docker"
T0=$(now_ms)
keys q
check "q quits while the provider call still hangs" wait_for "^EXIT=0$" 10
ELAPSED=$(($(now_ms) - T0))
echo "# quit took ${ELAPSED} ms"
check "within 2 s" test "$ELAPSED" -lt 2000
expect_eq "the alternate screen is left" 0 "$(pane '#{alternate_on}')"
expect_eq "the cursor is visible again" 1 "$(pane '#{cursor_flag}')"

# ---- :ctx away from a hung provider, and back from another one ----
S=$("$SANDMAN" create)
"$SANDMAN" exec "$S" -- 'exit 3' >/dev/null
dash_start -x 120 -y 30 -c "$CFG" -p hung
check "the hung context waits" wait_for "waiting for docker"
keys :
text 'ctx work'
keys Enter
check "switching to a working context shows its sandboxes at once, not after the hung call" \
    wait_for "^  $S " 4
check "with the failure of its last command" wait_for "^  $S .*exit 3" 3
keys e
check "and its events, while the old call still hangs" wait_for "$S  exec +exit 3 in" 3

keys :
text 'ctx missing'
keys Enter
check "the events view of a docker context" wait_for "ctx missing \(docker\)"
check "shows no events of local sandboxes" wait_for "no events yet"
expect_no_match "none of the local sandbox" "$S" "$SCREEN"
"$SANDMAN" exec "$S" -- true >/dev/null
sleep 1.5 # three refresh intervals
SCREEN=$(screen)
expect_no_match "not even one that happens meanwhile" "$S" "$SCREEN"
keys :
text 'ctx work'
keys Enter
check "back on the local context the events are there again" wait_for "$S  exec +exit 3 in"
check "with the create" wait_for "$S  lifecycle +created"
keys 1
check "and the sandbox's failure column still says why its command failed" \
    wait_for "^  $S .*exit 3"
keys Enter
check "its detail lists the failed command among the recent events" \
    wait_for "exit 3 in [0-9.]+m?s: exit 3"

# ---- a provider that cannot be reached: say so instead of "loading ..." ----
keys :
text 'ctx missing'
keys Enter 1
check "the list body says why nothing is listed" \
    wait_for "^  provider unreachable: cannot reach the Docker engine at unix://.*no-such.sock"
expect_no_match "instead of loading forever" "loading \.\.\." "$SCREEN"
expect_match "the header line says so too" "provider unreachable: cannot reach" "$(line 2)"
T0=$(now_ms)
keys q
check "q quits at once, the hung call still in flight" wait_for "^EXIT=0$" 10
check "within 2 s" test $(($(now_ms) - T0)) -lt 2000

finish
