#!/bin/bash
# The journal as a record that survives damage and size: a line a crash cut short is skipped and
# the events around it kept; a journal of 1 GB costs ls only its tail.
. "$(dirname "$0")/../lib.sh"

# A line cut by a crash, then more events: every whole event is read, the cut one skipped.
C=$("$SANDMAN" create)
J=$SANDMAN_STATE_DIR/journal/local/$C.jsonl
printf '{"ts":"2026-11-30T00:00:00.000Z","type":"exec","event":"ex' >>"$J"
"$SANDMAN" exec "$C" -- 'echo after; exit 4' >/dev/null
run "$SANDMAN" events -o json "$C"
expect_eq "events reads every whole event around a cut line" "created exec" "$(echo "$OUT" | json '" ".join(e["event"] for e in d)')"
run "$SANDMAN" ls
expect_match "ls names the failure after the cut line" "^${C:0:12} .* exit 4$" "$OUT"
check "the cut line was ended, so the next event stands on a line of its own" \
    test "$(grep -c '^{"ts":' "$J")" -eq 3

# 1 GB of journal (sparse: only its end is written; what ls must read is the tail), ending with an
# OOM kill of the sandbox's last command.
G=$("$SANDMAN" create)
J=$SANDMAN_STATE_DIR/journal/local/$G.jsonl
truncate -s 1G "$J"
python3 - "$J" "$G" <<'PY'
import sys
path, sid = sys.argv[1], sys.argv[2]
with open(path, "a") as f:
    f.write("\n")
    for i in range(20000):
        f.write('{"ts":"2026-11-30T10:00:00.000Z","type":"exec","event":"exec","sandbox_id":"%s",'
                '"provider":"local","cmd":"step %d","return_code":0,"duration_ms":3}\n' % (sid, i))
    f.write('{"ts":"2026-11-30T10:00:01.000Z","type":"failure","event":"oom","sandbox_id":"%s",'
            '"provider":"local","failure":{"kind":"oom_killed","oom_kills":2,"memory_limit":67108864}}\n' % sid)
PY
check "the journal is over 1 GB" test "$(stat -c %s "$J")" -gt 1073741824
T0=$(date +%s%N)
run "$SANDMAN" ls
T1=$(date +%s%N)
MS=$(((T1 - T0) / 1000000))
echo "# ls with a 1 GB journal: ${MS} ms"
expect_match "ls names the OOM kill at the end of a 1 GB journal" "^${G:0:12} .* OOM killed$" "$OUT"
check "and answers in under a second, loaded machine or not (${MS} ms)" test "$MS" -lt 1000
run "$SANDMAN" status "$G"
expect_match "status too" "failed: +OOM killed" "$OUT"
finish
