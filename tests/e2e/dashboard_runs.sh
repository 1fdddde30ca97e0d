# A rollout is a run: R groups the list by the attribution label nemo-gym.nvidia.com/run under a
# header per run with its counts (sandboxes, running, failed), sandboxes without a run last;
# the filter's run=ID and user=NAME select a run's or a user's sandboxes exactly (as ls --run
# and --user), not every id that contains the text.
. "$(dirname "$0")/lib_tmux.sh"

A1=$(NEMO_GYM_RUN_ID=alpha NEMO_GYM_USER=ann "$SANDMAN" create)
B1=$(NEMO_GYM_RUN_ID=beta NEMO_GYM_USER=bob "$SANDMAN" create)
A2=$(NEMO_GYM_RUN_ID=alpha NEMO_GYM_USER=bob "$SANDMAN" create --memory-mib 64)
AB=$(NEMO_GYM_RUN_ID=alphabet NEMO_GYM_USER=ann "$SANDMAN" create)
"$SANDMAN" exec "$A2" -- false >/dev/null 2>&1
echo "# alpha: $A1 $A2, beta: $B1, alphabet: $AB"

dash_start -x 160 -y 40
check "the list shows the four sandboxes" wait_until 10 output_is 4 eval 'list_ids | wc -l'
keys R
check "R groups by run: alpha's header with its counts" \
    wait_for "^run alpha  2 sandboxes: 2 running, 1 failed"
check "beta's header" wait_for "^run beta  1 sandbox: 1 running, 0 failed"
check "alpha's rows are under its header, in creation order" wait_until 10 has_lines \
    "^run alpha " "^. $A1 " "^. $A2 " "^run beta " "^. $B1 " "^run alphabet " "^. $AB "
check "the header line says grouped" wait_for "by run  sort: created"
keys j
check "j moves from the first row to the next (headers are not selectable)" \
    wait_until 10 output_is "$A2" eval "screen_sgr | grep -E '46m  [0-9a-f]{12}' | grep -Eo '[0-9a-f]{12}' | head -1"
keys R
check "R again: one list without headers" wait_gone "^run alpha "

keys /
text "run=alpha"
keys Enter
check "run=alpha shows alpha's sandboxes" wait_until 10 output_is "$A1 $A2" shown_ids
check "not alphabet's (the run is matched exactly)" wait_gone "^  $AB "
keys Escape
check "Esc clears it" wait_until 10 output_is 4 eval 'list_ids | wc -l'
keys /
text "user=bob"
keys Enter
check "user=bob shows bob's sandboxes" wait_until 10 output_is "$B1 $A2" shown_ids
keys Escape /
text "run=alpha user=bob"
keys Enter
check "both words: alpha's sandbox of bob" wait_until 10 output_is "$A2" shown_ids
keys Escape
finish
