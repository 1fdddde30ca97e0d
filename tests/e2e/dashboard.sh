# The dashboard as a person uses it, on real local sandboxes made by another process (this
# shell): the live list, filter, sort, mark + delete, the create form, help, the command
# palette (:ctx, a CLI verb, interactive verbs refused), the events view, a resize to 80x24 and back, and quitting.
. "$(dirname "$0")/lib_tmux.sh"

A=$("$SANDMAN" create --label team=alpha)
B=$("$SANDMAN" create --label team=beta)
C=$("$SANDMAN" create --label team=gamma)
printf 'sandbox_provider: agents\nagents:\n  local:\n    default_timeout_s: 60\n' \
    >"$SANDMAN_STATE_DIR/agents.yaml"

dash_start -x 160 -y 40 -c "$SANDMAN_STATE_DIR/agents.yaml"
check "the dashboard lists the sandboxes that already exist" wait_for "^  $C "
check "the header names the context of the config file" wait_for "sandman  ctx agents \(local\)"
expect_match "and counts them" "3 running" "$(line 1)"
expect_eq "newest last (sort: created)" "$A $B $C" "$(shown_ids)"
D=$("$SANDMAN" create --label team=delta)
check "a sandbox created by another process appears without a key press" wait_for "^  $D "
expect_match "the tab counts it" "1 Sandboxes \(4\)" "$(line 2)"
expect_match "the wide layout shows every column" \
    "ID +PROVIDER +STATUS +IMAGE +AGE +TTL +CPU% HISTORY +MEM/LIMIT +PIDS FAILURE" "$(line 3)"
expect_match "a row shows id, provider, status and image" "^  $A local +running +host " "$(row "$A")"
check "the footer lists the keys" wait_until 10 line_matches 40 "\? help  / filter  s sort .* q quit"

# Filter: live as you type, by label; Esc clears it.
keys /
text team=beta
check "typing a filter narrows the list to the matching sandbox" wait_for "1 Sandboxes \(1\)"
check "only the team=beta sandbox is left" wait_until 10 output_is "$B" shown_ids
check "the prompt shows what is typed" wait_until 10 line_matches 40 "^/team=beta"
keys Enter
check "Enter keeps the filter and names it in the header" wait_for "filter: team=beta"
check "the footer hints are back" wait_until 5 line_matches 40 "q quit"
keys / C-u
text running
check "a status word matches every running sandbox" wait_for "1 Sandboxes \(4\)"
keys C-u
text zzz-nothing
check "a filter matching nothing says so" wait_for "no sandbox matches the filter \(Esc clears it\)"
keys Enter Escape
check "Esc clears the filter" wait_for "1 Sandboxes \(4\)"
check "and the header no longer shows one" wait_gone "filter:"

# Sort: s cycles the key, S reverses.
keys s
check "s sorts by id" wait_for "sort: id"
check "the rows are in id order" \
    wait_until 10 output_is "$(printf '%s\n' "$A" "$B" "$C" "$D" | sort | xargs)" shown_ids
keys S
check "S reverses" wait_for "sort: id \(reversed\)"
check "the rows are in reverse id order" \
    wait_until 10 output_is "$(printf '%s\n' "$A" "$B" "$C" "$D" | sort -r | xargs)" shown_ids
keys S s s s s s s s
check "seven more presses come back to creation order" wait_for "sort: created *$"
check "in creation order" wait_until 10 output_is "$A $B $C $D" shown_ids

# Mark two with space, delete them, confirm.
keys g Space Space
check "space marks a row" wait_for "^[●*] $B "
check "the first one too" wait_for "^[●*] $A "
check "the third stays unmarked" wait_for "^  $C "
keys d
check "d asks for confirmation naming the count" wait_for "Delete 2 sandboxes\?"
check "and the ids" wait_for "$A $B"
keys y
check "y deletes them" wait_for "deleting 2 sandboxes \(exit 0\)"
keys Escape
check "the output closes" wait_gone "deleting 2 sandboxes"
rest_listed() { [ "$(shown_ids)" = "$C $D" ]; }
check "the deleted sandboxes leave the list, the others stay" wait_until 5 rest_listed
run "$SANDMAN" ls -aq
expect_no_match "sandman ls no longer lists them" "$A|$B" "$OUT"
expect_match "but still the others" "$C" "$OUT"

# The create form: n, memory 64, Enter.
keys n
check "n opens the create form" wait_for "new sandbox"
check "with a memory field" wait_for "memory MiB"
keys Tab Tab
text 64
check "typing fills the memory field" wait_for "memory MiB +64_"
keys Enter
check "Enter creates the sandbox and shows its id" wait_for "^create: [0-9a-f]{12}"
NEW=$(line 40 | sed -E 's/^create: ([0-9a-f]{12}).*/\1/')
check "the new sandbox appears in the list" wait_for "^  $NEW "
limit_64() { cell MEM/LIMIT "$NEW" | grep -q '/64MiB$'; }
check "with its 64 MiB limit in the memory column" wait_until 5 limit_64
run "$SANDMAN" ls -aq
expect_match "sandman ls lists it" "^$NEW" "$OUT"
expect_eq "with memory 64 MiB" 64 "$("$SANDMAN" status -o json "$NEW" | json 'd["resources"]["memory_mib"]')"

# Help.
keys '?'
check "? opens the help" wait_for "any key closes this"
check "which lists the keys" wait_for "space  a +mark / mark all"
check "with the palette example whole" wait_for ":create --memory-mib 64"
keys x
check "any key closes it" wait_gone "any key closes this"

# The command palette.
keys :
text 'ctx nowhere'
keys Enter
check ":ctx with an unknown context says so on the status line" \
    wait_for "^sandman: unknown provider context 'nowhere'"
expect_match "and the dashboard stays on its context" "ctx agents \(local\)" "$(line 1)"
keys :
text 'ctx local'
keys Enter
check ":ctx local switches the context" wait_for "sandman  ctx local \(local\)"
check "and says so" wait_until 5 line_matches 40 "context local \(local\)"
check "the list shows the sandboxes of the new context" wait_for "^  $NEW "
keys :
text 'create --label via=palette'
keys Enter
check "a CLI verb runs from the palette and reports its result" \
    wait_for "^create --label via=palette: [0-9a-f]{12}"
PAL=$(line 40 | sed -E 's/^create --label via=palette: ([0-9a-f]{12}).*/\1/')
check "its sandbox appears" wait_for "^  $PAL "
expect_eq "with the label" palette "$("$SANDMAN" status -o json "$PAL" | json 'd["labels"]["via"]')"

# The events view: exec lines of commands run from outside.
"$SANDMAN" exec "$C" -- echo hello-e2e >/dev/null
"$SANDMAN" exec "$C" -- false
keys e
check "e opens the events view" wait_for "^TIME +SANDBOX +TYPE +EVENT"
check "which shows the exec with its exit code and command" \
    wait_for "$C  exec +exit 0 in [0-9.]+m?s: echo hello-e2e"
check "and the failing one" wait_for "$C  exec +exit 1 in [0-9.]+m?s: false"
check "the create from the palette" wait_for "$PAL  lifecycle +created"
keys /
text hello
keys Enter
check "the filter applies to events" wait_gone "exit 1 in"
check "keeping the matching line" wait_for "echo hello-e2e"
keys Escape e
check "e again goes back to the list" wait_for "^  ID +PROVIDER"

# Resize to 80x24 and back.
check "the status line gives way to the key hints again" wait_for "^\? help .* q quit *$" 10
resize 80 24
check "the terminal is 80x24" test "$(pane '#{pane_width}x#{pane_height}')" = 80x24
check "the header is redrawn for 80 columns" wait_for "^ sandman  ctx local \(local\)  4 running +load"
wait_until 5 lines_fit 80
check "no line is wider than 80 columns" lines_fit 80
expect_eq "the screen has 24 lines" 24 "$(printf '%s\n' "$SCREEN" | wc -l)"
check "the tab line" wait_until 10 line_matches 2 "^ 1 Sandboxes \(4\)   2 Events"
check "the narrow column titles" \
    wait_until 10 line_matches 3 "^  ID +STATUS +TTL +CPU% MEM/LIMIT +PIDS FAILURE$"
check "rows keep id, status and memory" wait_for "^  $NEW running .*/64MiB"
check "the footer hints fit, quit included" wait_until 10 line_matches 24 "^\? help .* q quit *$"
expect_no_match "no leftovers of the wide layout" "PROVIDER|HISTORY|IMAGE" "$SCREEN"
resize 160 40
check "back at 160x40 the wide layout returns" wait_for "PROVIDER +STATUS +IMAGE +AGE"
check "with the history column" wait_until 10 line_matches 3 "HISTORY"
check "the footer is on the last line" wait_until 10 line_matches 40 "\? help  / filter .* q quit"
check "no line is wider than 160 columns" lines_fit 160

keys :
text 'frobnicate'
keys Enter
check "an unknown palette verb is named on the status line" \
    wait_for "^unknown command 'frobnicate' \(try :help\)"

# Verbs that want the terminal or never end are refused, with what to use instead.
keys :
text "shell $C"
keys Enter
check ":shell is refused: t opens a terminal instead" \
    wait_for "^shell: press t for a terminal into the sandbox"
expect_match "the list stays on screen" "^  ID +PROVIDER +STATUS" "$(line 3)"
keys :
text 'top --interval 0.5'
keys Enter
check ":top is refused: the dashboard is top" wait_for "^top: the dashboard is top"
keys :
text 'tui'
keys Enter
check ":tui is refused" wait_for "^tui: the dashboard is already open"
keys :
text 'status '"$C"
keys Enter
check "other verbs still run" wait_for "status $C \(exit 0\)"
keys Escape
check "the output closes" wait_gone "status $C \(exit 0\)"

# q quits with status 0 and gives the terminal back.
expect_eq "while running, the dashboard uses the alternate screen" 1 "$(pane '#{alternate_on}')"
keys q
check "q quits with exit status 0" wait_for "^EXIT=0$"
expect_eq "the alternate screen is left" 0 "$(pane '#{alternate_on}')"
expect_eq "the cursor is visible again" 1 "$(pane '#{cursor_flag}')"
expect_eq "mouse reporting is off" 0000 \
    "$(pane '#{mouse_standard_flag}#{mouse_button_flag}#{mouse_any_flag}#{mouse_all_flag}')"
expect_eq "cursor keys are back in normal mode" 0 "$(pane '#{keypad_cursor_flag}')"
expect_no_match "nothing of the dashboard is left on the screen" "Sandboxes|q quit" "$SCREEN"

finish
