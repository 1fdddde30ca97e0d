# `sandman shell` keeps typeahead as ssh does (keys typed before the remote shell is ready
# reach it, nothing flushed when raw mode begins), and a shell on image host starts clean:
# none of the host's dotfiles' noise, a plain prompt, unless the sandbox was made with
# `shell_rc: host`. Bad values of shell_rc are refused naming what is allowed.
. "$(dirname "$0")/lib_tmux.sh"

# ---- typeahead: the keys are typed while the client is still starting (the outer shell
# sleeps), so they are pending input when raw mode begins.
run_in_tmux -x 100 -y 30 "sleep 1; \"\$SANDMAN\" shell --new"
text 'exit 5'
keys Enter
check "shell --new with 'exit 5' typed at once exits 5" wait_for "^EXIT=5$" 30
run "$SANDMAN" ls -aq
expect_eq "and its sandbox is removed" "" "$OUT"

ID=$("$SANDMAN" create)
run_in_tmux -x 100 -y 30 "sleep 1; \"\$SANDMAN\" shell $ID"
text 'echo ahead-$((6*7)); exit 6'
keys Enter
check "a line typed ahead into 'shell ID' runs in the shell" wait_for "^ahead-42$" 30
check "and its exit ends the client with the shell's status" wait_for "^EXIT=6$" 30

# ---- a clean shell on image host. The dotfiles are the sandbox's own ($HOME points at them),
# so the test never touches the host's.
"$SANDMAN" exec "$ID" -- 'mkdir -p /tmp/h && echo "echo RC-NOISE-PROFILE" >/tmp/h/.bash_profile &&
    echo "echo RC-NOISE-RC" >/tmp/h/.bashrc && echo "echo RC-NOISE-PROFILE" >/tmp/h/.profile'
run_in_tmux -x 100 -y 30 "\"\$SANDMAN\" shell -e HOME=/tmp/h $ID"
check "the shell comes up" wait_prompt "$ID"
expect_no_match "without the dotfiles' noise" "RC-NOISE" "$SCREEN"
type_line 'echo "[$PS1]"'
check "with a plain prompt of user, host and directory" wait_for '^\[\\u@\\h:\\w\\\$ \]$'
type_line 'exit 3'
check "exit 3 ends it with 3" wait_for "^EXIT=3$"

cat >"$SANDMAN_STATE_DIR/rc.yaml" <<EOF
hostrc:
  local:
    shell_rc: host
bad:
  local:
    shell_rc: noisy
EOF
H=$("$SANDMAN" -c "$SANDMAN_STATE_DIR/rc.yaml" -p hostrc create)
"$SANDMAN" exec "$H" -- 'mkdir -p /tmp/h && echo "echo RC-NOISE-PROFILE" >/tmp/h/.bash_profile'
run_in_tmux -x 100 -y 30 "\"\$SANDMAN\" shell -e HOME=/tmp/h $H"
check "shell_rc: host (kept with the sandbox, used without -c) reads the image's profile" \
    wait_for "^RC-NOISE-PROFILE$" 30
type_line 'exit 4'
check "and exits as asked" wait_for "^EXIT=4$"
run "$SANDMAN" -c "$SANDMAN_STATE_DIR/rc.yaml" -p bad create
expect_eq "shell_rc: noisy is refused" 2 "$RC"
expect_match "naming the allowed values" "local.shell_rc must be clean or host, not 'noisy'" "$ERR"

finish
