# Item 18 of issue 8: secrets stay off command lines and out of what sandman prints and records.
# -e KEY takes the value from sandman's own environment and --env-file reads KEY=VALUE lines, so
# a value need not be in argv (which `ps` shows every user); secret-looking values (token
# prefixes, URL passwords, values of secret-named keys) are redacted in status, events, ls,
# errors and the journal, whatever their key is called.
. "$(dirname "$0")/lib_security.sh"

GHP=ghp_$(printf 'Ab1%.0s' $(seq 12))           # ghp_ + 36 characters, GitHub's classic form
URLPW=pa55-$$-word                                 # the password part of a URL
AWS=AKIA$(printf 'Q%.0s' $(seq 16))                # an AWS access key id
ENVSECRET=from-env-$$-value                        # a value only sandman's environment holds

secrets_absent() { # TEXT: none of the secrets appears in it
    case "$1" in *"$GHP"* | *"$URLPW"* | *"$AWS"* | *"$ENVSECRET"*) return 1 ;; esac
}

attacks() {
    local dir=$SANDMAN_STATE_DIR/$MODE
    mkdir -p "$dir"
    chmod 755 "$dir"
    # -e KEY: the value comes from the environment and reaches the sandbox.
    run sm create -l github_pat=$GHP -e REPO_URL=https://bob:$URLPW@git.example.com/r.git
    local id=$OUT
    ENV_ONLY=$ENVSECRET run sm create -e ENV_ONLY
    local id2=$OUT
    expect_eq "$(say create -e KEY takes the value from the environment)" 0 "$RC"
    inside "$id2" 'printf %s "$ENV_ONLY"'
    expect_eq "$(say and the sandbox sees it)" "$ENVSECRET" "$OUT"
    inside "$id" 'printf %s "$REPO_URL"'
    expect_eq "$(say an env value with a URL password still reaches the sandbox exactly)" "https://bob:$URLPW@git.example.com/r.git" "$OUT"

    # While exec -e KEY runs, its command line (what ps shows) does not hold the value.
    local seen=$dir/seen
    rm -f "$seen"
    ENV_ONLY=$ENVSECRET sm exec -e ENV_ONLY "$id" -- 'printf %s "$ENV_ONLY"; sleep 3' >"$seen" 2>&1 &
    local pid=$!
    local i=0
    while [ "$(cat "$seen" 2>/dev/null)" != "$ENVSECRET" ] && [ $i -lt 200 ] && ! process_gone $pid; do
        sleep 0.05
        i=$((i + 1))
    done
    expect_eq "$(say exec -e KEY hands the value from the environment to the command)" "$ENVSECRET" "$(cat "$seen")"
    local cmdline proc
    proc=$(pgrep -P $pid | head -1) # the background job is a subshell running sm
    cmdline=
    [ -n "$proc" ] && cmdline=$(tr '\0' ' ' <"/proc/$proc/cmdline" 2>/dev/null)
    expect_match "$(say the running sandman exec is visible in ps)" "exec -e ENV_ONLY" "$cmdline"
    check "$(say but its command line does not hold the value)" secrets_absent "$cmdline"
    wait $pid

    # --env-file: docker's format (comments, blank lines, KEY=VALUE verbatim, KEY from the env).
    printf '# a comment\n\nPLAIN=a b "c"\nENV_ONLY\n  # indented comment\nEMPTY=\n' >"$dir/good.env"
    chmod 644 "$dir/good.env"
    ENV_ONLY=$ENVSECRET run sm exec --env-file "$dir/good.env" "$id" -- 'printf "%s|%s|%s|" "$PLAIN" "$ENV_ONLY" "${EMPTY-unset}"'
    expect_eq "$(say exec --env-file sets each line verbatim)" "a b \"c\"|$ENVSECRET||" "$OUT"
    printf 'OK=1\n# fine\n=oops\n' >"$dir/bad.env"
    chmod 644 "$dir/bad.env"
    run sm create --env-file "$dir/bad.env"
    expect_eq "$(say a bad env file line exits 2)" 2 "$RC"
    expect_match "$(say naming file and line)" "bad.env:3: " "$ERR"
    expect_eq "$(say in one line)" 1 "$(printf '%s\n' "$ERR" | wc -l)"
    run sm create --env-file "$dir/missing.env"
    expect_match "$(say a missing env file is named)" "missing.env" "$ERR"
    expect_eq "$(say and exits 2)" 2 "$RC"
    run sm create -e NOT_SET_ANYWHERE_$$
    expect_eq "$(say -e KEY with KEY unset is refused)" 2 "$RC"
    expect_match "$(say saying it is not set)" "NOT_SET_ANYWHERE_$$ is not set" "$ERR"

    # A credential-named variable's value is redacted where the command line repeats it.
    run sm exec -e MY_API_TOKEN=plainvalue-$$-xyz "$id" -- 'test "$MY_API_TOKEN" = plainvalue-'$$'-xyz'
    expect_eq "$(say a secret env value reaches the command)" 0 "$RC"
    run sm events "$id"
    expect_no_match "$(say and events do not repeat it)" "plainvalue-$$-xyz" "$OUT"

    # Redaction by value, whatever the key is called.
    inside "$id" "git clone https://bob:$URLPW@git.example.com/r.git /tmp/r 2>/dev/null; echo $AWS >/dev/null; true $GHP"
    run sm status "$id"
    check "$(say status prints no secret)" secrets_absent "$OUT$ERR"
    expect_match "$(say status shows the label redacted)" 'github_pat=\*\*\*' "$OUT"
    run sm status -o json "$id"
    check "$(say status -o json prints no secret)" secrets_absent "$OUT$ERR"
    run sm events "$id"
    check "$(say events prints no secret)" secrets_absent "$OUT$ERR"
    expect_match "$(say events shows the URL with its password redacted)" "https://bob:\*\*\*@git.example.com" "$OUT"
    run sm events -o json "$id"
    check "$(say events -o json prints no secret)" secrets_absent "$OUT$ERR"
    run sm ls
    check "$(say ls prints no secret)" secrets_absent "$OUT$ERR"
    run sm exec -o json "$id" -- 'printf %s "$REPO_URL"'
    expect_eq "$(say exec -o json keeps the output of the command itself exact)" \
        "https://bob:$URLPW@git.example.com/r.git" "$(printf '%s' "$OUT" | json 'd["stdout"]')"
    run sm cp "$id:/tmp/$GHP" "$dir/x"
    check "$(say an error quoting a token prints no secret)" secrets_absent "$OUT$ERR"
    local state=$SANDMAN_STATE_DIR
    [ "$MODE" = user ] && state=$USER_STATE/state
    local journal
    journal=$(cat "$state"/journal/local/"$id".jsonl 2>/dev/null)
    expect_match "$(say the journal records the exec)" "git clone" "$journal"
    check "$(say the journal holds no secret in plain text)" secrets_absent "$journal"
    # The sandbox record keeps env values (the sandbox needs them) but never a secret label.
    local record
    record=$(cat "$state/local/$id/spec.json" 2>/dev/null)
    expect_match "$(say the sandbox record is where it is looked for)" '"github_pat"' "$record"
    case "$record" in *"$GHP"*) not_ok "$(say the record holds the github_pat label in plain text)" ;; *) ok "$(say the record holds no secret label)" ;; esac
    sm rm "$id" $id2 >/dev/null
}

run_modes
