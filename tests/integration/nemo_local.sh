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

finish
