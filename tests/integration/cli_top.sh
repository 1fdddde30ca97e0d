# `sandman top` streams the dashboard's rows headlessly: live CPU %, memory, and the failure
# attribution (OOM from an exec, and from counters when no command reported it).
. "$(dirname "$0")/../lib.sh"

BURN=$("$SANDMAN" create --cpu 1 --entrypoint sh --entrypoint -c --entrypoint 'while :; do :; done')
OOM=$("$SANDMAN" create --memory-mib 64)
"$SANDMAN" exec "$OOM" -- dd if=/dev/zero of=/dev/null bs=200M count=1 >/dev/null 2>&1
QUIET=$("$SANDMAN" create --memory-mib 64 --entrypoint sh --entrypoint -c --entrypoint 'sleep 2; dd if=/dev/zero of=/dev/null bs=200M count=1; sleep 600')

run "$SANDMAN" top -o json --count 3 --interval 1
expect_eq "top -o json prints one line per sandbox per update" 9 "$(printf '%s\n' "$OUT" | wc -l)"
last() { printf '%s\n' "$OUT" | grep "\"id\":\"$1\"" | tail -1; }
check "a CPU-burning sandbox shows CPU above 50%" python3 -c "import json,sys; sys.exit(0 if json.loads('''$(last "$BURN")''')['cpu_percent'] > 50 else 1)"
expect_eq "an OOM-killed command is the sandbox's failure" "oom_killed" "$(last "$OOM" | json 'd["failure"]["kind"]')"
expect_eq "with evidence" "memory.oom_kill 1, limit 64MiB, exit code 137" "$(last "$OOM" | json 'd["failure"]["evidence"]')"
expect_eq "an OOM kill no command reported is seen in the counters" "oom_killed" "$(last "$QUIET" | json 'd["failure"]["kind"]')"
expect_eq "a quiet sandbox's memory limit is reported" "67108864" "$(last "$QUIET" | json 'd["memory_limit"]')"

run "$SANDMAN" top --count 1 --interval 0.5
expect_match "the text table has the columns" "ID +STATUS +CPU% +MEM/LIMIT +PIDS" "$OUT"
expect_match "and the failure label" "$OOM +running .*OOM killed" "$OUT"
run "$SANDMAN" top --interval 0
expect_eq "a bad interval is a usage error" 2 "$RC"

finish
