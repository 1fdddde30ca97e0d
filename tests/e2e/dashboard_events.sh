# The events view on first load: newest first across sandboxes (not grouped by sandbox), with
# the TIME column in the local time zone (the journal itself is UTC).
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
keys q
check "q quits" wait_for "^EXIT=0$"
finish
