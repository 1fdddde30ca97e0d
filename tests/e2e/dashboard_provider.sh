# The dashboard against providers that fail: a Docker context whose socket accepts connections
# and never answers (a hung engine), and one whose socket does not exist. Quitting is
# immediate whatever a provider does, ...
. "$(dirname "$0")/lib_tmux.sh"

# A unix socket that accepts every connection and never writes a byte.
HUNG_SOCK=$SANDMAN_STATE_DIR/hung.sock
python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(64)
held = []
while True:
    held.append(s.accept()[0])
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

finish
