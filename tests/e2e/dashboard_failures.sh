# What the dashboard shows about real resource use and failures: a CPU-burning sandbox above
# 50 % in the CPU% column, an OOM-killed command as OOM in its sandbox's FAILURE column and as a
# failure line with the cgroup evidence in the events view; the failure filter and sort; and
# the failure column surviving the 80x24 layout.
# The burner gets two CPUs so its single busy thread never reaches its quota: a sandbox held at
# its quota is rightly shown as "CPU throttled", which would make the quiet-column checks race.
. "$(dirname "$0")/lib_tmux.sh"

IDLE=$("$SANDMAN" create)
CPU=$("$SANDMAN" create --cpu 2 --entrypoint sh --entrypoint -c --entrypoint 'while :; do :; done')
OOM=$("$SANDMAN" create --memory-mib 64)

dash_start -x 160 -y 40
check "the dashboard lists the three sandboxes" wait_for "^  $OOM "

# The burner gets a share of the cores the machine has to spare: alone, about 100 %; with the
# machine loaded (make test-stress, other tests) a quarter or less, so the bar is 15 %.
cpu_busy() { cell CPU% "$CPU" | awk '{ exit !($1 + 0 > 15) }'; }
check "the CPU burner shows more than 15 % in the CPU% column" wait_until 15 cpu_busy
echo "# CPU% of the burner: $(cell CPU% "$CPU"), of the idle one: $(cell CPU% "$IDLE")"
check "the idle sandbox shows less than 10 %" \
    awk -v v="$(cell CPU% "$IDLE")" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v + 0 < 10) }'
expect_eq "neither has a failure" "" "$(cell FAILURE "$CPU")$(cell FAILURE "$IDLE")"

run "$SANDMAN" exec "$OOM" -- dd if=/dev/zero of=/dev/null bs=200M count=1
expect_eq "a 200 MiB allocation in a 64 MiB sandbox is killed (exit 137)" 137 "$RC"
oom_shown() { cell FAILURE "$OOM" | grep -q '^OOM'; }
check "the OOM-killed sandbox shows OOM in its FAILURE column" wait_until 10 oom_shown
expect_match "the whole row" "^  $OOM +local +running .*/64MiB +[0-9]+ OOM killed" "$(row "$OOM")"
expect_match "the header still counts it running (only the command died)" "3 running" "$(line 1)"
expect_eq "the others keep an empty failure column" "" "$(cell FAILURE "$CPU")$(cell FAILURE "$IDLE")"

keys /
text oom
keys Enter
check "filtering by the failure kind keeps only that sandbox" wait_for "1 Sandboxes \(1\)"
check "the OOM one" wait_until 10 output_is "$OOM" shown_ids
keys Escape
check "Esc clears the filter" wait_for "1 Sandboxes \(3\)"
keys s s s s s s s
check "sort: failure" wait_for "sort: failure"
first_id() { list_ids | head -1; }
check "puts the failed sandbox first" wait_until 10 output_is "$OOM" first_id

keys e
check "the events view shows the OOM kill with its evidence" \
    wait_for "$OOM  failure +exec: OOM killed - memory.oom_kill 1, limit 64MiB, exit code 137"
check "and the exec line with the command" \
    wait_for "$OOM  exec +OOM killed in [0-9.]+m?s: dd if=/dev/zero of=/dev/null bs=200M count=1"
keys e

resize 80 24
check "at 80x24 the failure column stays" wait_for "^  ID +STATUS +TTL +CPU% MEM/LIMIT +PIDS FAILURE$"
check "with OOM in the row" wait_until 5 oom_shown
check "and the CPU column" wait_until 5 cpu_busy
check "no line is wider than 80 columns" lines_fit 80

keys q
check "q quits with exit status 0" wait_for "^EXIT=0$"
finish
