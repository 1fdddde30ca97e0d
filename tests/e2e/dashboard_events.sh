# The events view on first load: newest first across sandboxes (not grouped by sandbox), with
# the TIME column in the local time zone (the journal itself is UTC). The selection stays on its
# event when new ones arrive (Enter opens the sandbox of the highlighted line); the filter
# matches what a line shows and failure kinds by name, not the raw JSON (a TTL event's evidence
# holds "oom_kills"); s pauses the live feed and resumes it.
. "$(dirname "$0")/lib_tmux.sh"

A=$("$SANDMAN" create)
B=$("$SANDMAN" create)
"$SANDMAN" exec "$A" -- echo first >/dev/null
sleep 0.1
"$SANDMAN" exec "$B" -- echo second >/dev/null
sleep 0.1
"$SANDMAN" exec "$A" -- echo third >/dev/null

# UTC+7 in POSIX form (needs no tz database): far from the machine's own zone.
dash_start -x 160 -y 40 -e TZ=XYZ-7
check "the list shows the sandboxes" wait_for "^  $B "
keys e
check "the events view shows the last command" wait_for "exec +exit 0 in [0-9.]+m?s: echo third"
check "newest first across both sandboxes" wait_until 10 has_lines \
    "$A  exec +exit 0 in [0-9.]+m?s: echo third" \
    "$B  exec +exit 0 in [0-9.]+m?s: echo second" \
    "$A  exec +exit 0 in [0-9.]+m?s: echo first"
TS=$("$SANDMAN" events -o json "$A" | python3 -c '
import json, sys
d = json.load(sys.stdin)
evs = d if isinstance(d, list) else d.get("events", [])
print([e for e in evs if e.get("cmd") == "echo third"][0]["ts"])')
LOCAL=$(python3 -c '
import datetime, sys
t = datetime.datetime.strptime(sys.argv[1], "%Y-%m-%dT%H:%M:%S.%fZ")
print((t + datetime.timedelta(hours=7)).strftime("%H:%M:%S"))' "$TS")
echo "# journal ts $TS, local (UTC+7) $LOCAL"
check "TIME is the event's local time" wait_for "^$LOCAL  $A  exec .*echo third"

# selected: the plain text of the highlighted event line (the default theme draws it black on
# cyan; the tab bar's active tab uses the same colours but holds no time).
selected() {
    screen_sgr | python3 -c '
import re, sys
for l in sys.stdin:
    m = re.match(r"^((?:\x1b\[[0-9;]*m)*)(\d\d:\d\d:\d\d  .*)", l)
    if m and "46m" in m.group(1):
        print(re.sub(r"\x1b\[[0-9;]*m", "", m.group(2)).rstrip())'
}
sel_is() { selected | grep -Eq -- "$1"; }

keys g j j
check "j j selects the oldest command" wait_until 10 sel_is "^.{8}  $A  exec .*echo first$"
"$SANDMAN" exec "$B" -- echo fourth >/dev/null
check "a new event arrives at the top" wait_for "$B  exec +exit 0 in [0-9.]+m?s: echo fourth"
check "the selection stays on its event" wait_until 10 sel_is "^.{8}  $A  exec .*echo first$"
keys Enter
check "Enter opens the selected event's sandbox" wait_for "^$A  running"
keys e

# A TTL expiry and an OOM kill, for the filter.
T=$("$SANDMAN" create --ttl 1)
O=$("$SANDMAN" create --memory-mib 64)
"$SANDMAN" exec "$O" -- dd if=/dev/zero of=/dev/null bs=200M count=1 >/dev/null 2>&1
check "the TTL expiry is in the view" wait_for "$T  lifecycle +ended: TTL expired" 20
check "so is the OOM kill" wait_for "$O  failure +exec: OOM killed"
keys /
text oom
keys Enter
check "filter oom: the OOM kill stays" wait_for "$O  failure +exec: OOM killed"
check "filter oom: its exec line too (it says OOM killed)" wait_for "$O  exec +OOM killed"
check "filter oom: the TTL event is gone (oom_kills in its JSON is not shown)" wait_gone "$T  "
check "filter oom: so are the other commands" wait_gone "echo third"
keys Escape
check "Esc clears the filter" wait_for "echo third"
keys /
text ttl_expired
keys Enter
check "a failure kind's name finds its events" wait_for "$T  lifecycle +ended: TTL expired"
check "and only those" wait_gone "$O  "
keys Escape
check "Esc clears it" wait_for "$O  failure"

keys s
check "s pauses the feed" wait_for "PAUSED, 0 new +s resumes"
"$SANDMAN" exec "$B" -- echo while-paused >/dev/null
check "an event that came in is counted" wait_for "PAUSED, 1 new +s resumes"
check "but not shown while paused" wait_gone "echo while-paused"
check "the paused view stays as it was" wait_for "echo fourth"
keys s
check "s again: live, the new event shows" wait_for "$B  exec +exit 0 in [0-9.]+m?s: echo while-paused"
check "the header says how to pause" wait_for "EVENT .* s pause$"

keys q
check "q quits" wait_for "^EXIT=0$"
finish
