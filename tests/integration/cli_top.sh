# `sandman top` streams the dashboard's rows headlessly: live CPU %, memory, and the failure
# attribution (OOM from an exec, and from counters when no command reported it, even before
# top started); provider, image, age, TTL left and the pids limit.
. "$(dirname "$0")/../lib.sh"

BURN=$("$SANDMAN" create --cpu 1 --entrypoint sh --entrypoint -c --entrypoint 'while :; do :; done')
OOM=$("$SANDMAN" create --memory-mib 64)
"$SANDMAN" exec "$OOM" -- dd if=/dev/zero of=/dev/null bs=200M count=1 >/dev/null 2>&1
QUIET=$("$SANDMAN" create --memory-mib 64 --entrypoint sh --entrypoint -c --entrypoint 'sleep 2; dd if=/dev/zero of=/dev/null bs=200M count=1; sleep 600')
# OOM killed before top starts, by no command: only its counters know (top's first sample
# must count them, as the dashboard does)
EARLY=$("$SANDMAN" create --memory-mib 64 --ttl 600 --entrypoint sh --entrypoint -c --entrypoint 'dd if=/dev/zero of=/dev/null bs=200M count=1; sleep 600')
early_oom() { [ "$("$SANDMAN" stats -o json "$EARLY" | json 'd.get("oom_kills") or 0')" != 0 ]; }
for _ in $(seq 50); do early_oom && break; sleep 0.2; done
check "the early sandbox was OOM killed before top starts" early_oom

run "$SANDMAN" top -o json --count 3 --interval 1
expect_eq "top -o json prints one line per sandbox per update" 12 "$(printf '%s\n' "$OUT" | wc -l)"
last() { printf '%s\n' "$OUT" | grep "\"id\":\"$1\"" | tail -1; }
check "a CPU-burning sandbox shows CPU above 50%" python3 -c "import json,sys; sys.exit(0 if json.loads('''$(last "$BURN")''')['cpu_percent'] > 50 else 1)"
expect_eq "an OOM-killed command is the sandbox's failure" "oom_killed" "$(last "$OOM" | json 'd["failure"]["kind"]')"
expect_eq "with evidence" "memory.oom_kill 1, limit 64MiB, exit code 137" "$(last "$OOM" | json 'd["failure"]["evidence"]')"
expect_eq "an OOM kill no command reported is seen in the counters" "oom_killed" "$(last "$QUIET" | json 'd["failure"]["kind"]')"
expect_eq "a quiet sandbox's memory limit is reported" "67108864" "$(last "$QUIET" | json 'd["memory_limit"]')"
expect_eq "an OOM kill before top started is seen in the first sample's counters" "oom_killed" \
    "$(last "$EARLY" | json 'd["failure"]["kind"]')"
expect_eq "rows name the provider" "local" "$(last "$EARLY" | json 'd["provider"]')"
expect_eq "and the image" "host" "$(last "$EARLY" | json 'd["image"]')"
check "and the age in seconds" python3 -c "import json,sys; a=json.loads(sys.argv[1])['age_s']; sys.exit(0 if 0 < a < 120 else 1)" "$(last "$EARLY")"
check "and the TTL left" python3 -c "import json,sys; t=json.loads(sys.argv[1])['ttl_left_s']; sys.exit(0 if 480 < t <= 600 else 1)" "$(last "$EARLY")"
expect_eq "no TTL is null" "None" "$(last "$QUIET" | json 'd["ttl_left_s"]')"
expect_eq "and the pids limit" "4096" "$(last "$EARLY" | json 'd["pids_limit"]')"

run "$SANDMAN" top --count 1 --interval 0.5
expect_match "the text table has the columns" \
    "ID +PROVIDER +STATUS +RUN +IMAGE +AGE +TTL +CPU% +MEM/LIMIT +PIDS/LIMIT +IO R/W per s +FAILURE" "$OUT"
expect_match "and the failure label (after the run id)" "$OOM +local +running +[^ ]+ +host .*OOM killed" "$OUT"
expect_match "a row with provider, image, age, TTL left and pids against the limit" \
    "${EARLY:0:12} +local +running +[^ ]+ +host +[0-9.]+m?s +[0-9]+m[0-9]+s +[0-9.]+ +[0-9.]+[KMG]iB/64MiB +[0-9]+/4096 " "$OUT"
run "$SANDMAN" top --interval 0
expect_eq "a bad interval is a usage error" 2 "$RC"

finish
