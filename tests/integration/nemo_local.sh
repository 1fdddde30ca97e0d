# NeMo Gym habits on the local provider: spec.files readable (0644) by an unprivileged exec
# user in a workdir that user can use, and a rollout handled as a run: ls/top filter and group
# by the attribution labels, rm --run removes every sandbox of a run and says how many.
. "$(dirname "$0")/../lib.sh"

TASK=$SANDMAN_STATE_DIR/task.md
printf '# Task\nSort the list.\n' >"$TASK"

# ---- spec.files and the workdir (issue 10 item 9)
ROOTFS=$(make_rootfs)
for case in host:/workspace host:/tmp/agent "dir:$ROOTFS:/workspace"; do
    img=${case%:*} wd=${case##*:}
    run "$SANDMAN" create -i "$img" -w "$wd" --file "$wd/task.md=$TASK" --file "$wd/notes/n.txt=$TASK"
    expect_eq "create -w $wd with spec files exits 0 ($img)" 0 "$RC"
    ID=$OUT
    run "$SANDMAN" exec -u nobody "$ID" -- cat task.md
    expect_eq "exec -u nobody reads task.md in $wd ($img)" "$(cat "$TASK")" "$OUT"
    run "$SANDMAN" exec "$ID" -- stat -c %a task.md notes/n.txt
    expect_eq "spec files are 0644 in $wd ($img)" "644 644" "$(echo $OUT)"
    run "$SANDMAN" exec -u nobody "$ID" -- 'echo done > result.txt && cat result.txt'
    expect_eq "exec -u nobody can write in the workdir $wd ($img)" "done" "$OUT"
    run "$SANDMAN" exec -u nobody "$ID" -- 'echo x > notes/own.txt'
    expect_match "but not in a directory spec files made (it is root's, 0755)" \
        "[Pp]ermission denied" "$ERR"
    "$SANDMAN" rm "$ID" >/dev/null
done

# ---- a rollout is a run (issue 10 item 7)
A1=$(NEMO_GYM_RUN_ID=rollout-a NEMO_GYM_USER=alice "$SANDMAN" create)
A2=$(NEMO_GYM_RUN_ID=rollout-a NEMO_GYM_USER=alice "$SANDMAN" create)
B1=$(NEMO_GYM_RUN_ID=rollout-b NEMO_GYM_USER=bob "$SANDMAN" create)
expect_match "three sandboxes of two runs" '^[0-9a-f]{12} [0-9a-f]{12} [0-9a-f]{12}$' "$A1 $A2 $B1"

run "$SANDMAN" ls
expect_match "ls has a RUN column" "ID +PROVIDER +STATUS +RUN +IMAGE" "$OUT"
expect_match "that shows each sandbox's run" "$B1 +local +running +rollout-b +host" "$OUT"
run "$SANDMAN" ls -q --run rollout-a
expect_eq "ls --run lists that run's sandboxes only" "$(printf '%s\n%s' "$A1" "$A2")" "$OUT"
run "$SANDMAN" ls -q --user bob
expect_eq "ls --user lists that user's sandboxes only" "$B1" "$OUT"
run "$SANDMAN" ls -q -l nemo-gym.nvidia.com/run=rollout-b
expect_eq "ls -l with the run label is the same selection" "$B1" "$OUT"
run "$SANDMAN" ls -q --run rollout-a --user bob
expect_eq "--run and --user together must both match" "" "$OUT"
run "$SANDMAN" ls --group-by run
expect_match "ls --group-by run gives a heading per run with its count" \
    "run rollout-a \(2 sandboxes\)" "$OUT"
expect_match "and one per other run" "run rollout-b \(1 sandbox\)" "$OUT"
GROUP_A=$(echo "$OUT" | sed -n '/^run rollout-a /,/^$/p' | awk 'NR > 2 && NF {print $1}' | tr '\n' ' ')
expect_eq "rows sit under their run's heading" "$A1 $A2 " "$GROUP_A"
run "$SANDMAN" ls -g user
expect_match "--group-by user groups by the user label" "user alice \(2 sandboxes\)" "$OUT"
run "$SANDMAN" top -n 1 --run rollout-b
expect_match "top --run shows the run's sandbox" "$B1 +local +running +rollout-b" "$OUT"
expect_no_match "and no other" "$A1" "$OUT"
run "$SANDMAN" -o json top -n 1 --user alice
expect_eq "top -o json carries the run" "rollout-a rollout-a" \
    "$(echo "$OUT" | python3 -c 'import sys, json; print(" ".join(json.loads(l)["run"] for l in sys.stdin))')"

run "$SANDMAN" ls --run ""
expect_eq "an empty --run is a usage error" 2 "$RC"
expect_match "that says what is wanted" "--run wants a non-empty value" "$ERR"
run "$SANDMAN" ls --group-by ""
expect_eq "an empty --group-by is a usage error" 2 "$RC"
run "$SANDMAN" rm --run rollout-a "$B1"
expect_eq "rm with ids and a selection is a usage error" 2 "$RC"
expect_match "that names both" "not both" "$ERR"
run "$SANDMAN" ls -q
expect_eq "and removes nothing" 3 "$(echo "$OUT" | wc -l)"

run "$SANDMAN" rm --run rollout-a
expect_eq "rm --run exits 0" 0 "$RC"
expect_eq "it prints the ids it removed" "$(printf '%s\n%s' "$A1" "$A2")" "$OUT"
expect_match "and says how many" "removed 2 of 2 sandboxes with run=rollout-a" "$ERR"
run "$SANDMAN" ls -aq
expect_eq "only the other run's sandbox is left" "$B1" "$OUT"
run "$SANDMAN" rm --run rollout-a
expect_eq "rm --run of a run with no sandboxes left exits 0" 0 "$RC"
expect_match "and says so" "no sandbox has run=rollout-a: nothing to remove" "$ERR"
run "$SANDMAN" -o json rm -l nemo-gym.nvidia.com/user=bob
expect_eq "rm -l selects by any label; -o json lists what it removed" "$B1" \
    "$(echo "$OUT" | json '" ".join(d["removed"])')"

finish
