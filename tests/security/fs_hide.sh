# What a host-image sandbox must not read: other sandman state directories (another context's,
# another user's, one reached through a symlink), home directories and credential files; and
# the config keys that change it (expose_home, hide). Also: a workdir with ".." is refused
# before anything is made on the host.
. "$(dirname "$0")/lib_security.sh"


# mkstate: a state directory outside /tmp (the sandbox's /tmp is private anyway), this mode's.
mkstate() {
    local d
    d=$(mktemp -d /var/tmp/sandman-fs-hide-XXXXXX)
    [ "$MODE" = user ] && chown nobody "$d"
    echo "$d" >>"$EXTRA_STATES" # a file: mkstate runs in $(...)
    echo "$d"
}
EXTRA_STATES=$(mktemp /tmp/sandman-fs-hide-states-XXXXXX)
hide_cleanup() {
    for d in $(cat "$EXTRA_STATES"); do
        ids=$(SANDMAN_STATE_DIR=$d "$SANDMAN" ls -aq 2>/dev/null)
        [ -n "$ids" ] && SANDMAN_STATE_DIR=$d "$SANDMAN" rm $ids >/dev/null 2>&1
        rm -rf "$d"
    done
    rm -f /tmp/sandman-fs-hide-link-* "$EXTRA_STATES"
    sec_cleanup
}
trap hide_cleanup EXIT

attacks() {
    local id other oid real link lid cfg
    # A state directory first used while a sandbox runs is hidden in that sandbox too.
    local early late lateid
    early=$(sm create) || not_ok "[$MODE] create"
    late=$(mkstate)
    lateid=$(sm_in "$late" create) || not_ok "[$MODE] create in a new state dir"
    # (its sandbox's supervisor follows the registries: wait for the mask, up to 10 s)
    inside "$early" "for i in \$(seq 100); do [ -z \"\$(ls -A $late)\" ] && break; sleep 0.1; done; ls -A $late | wc -l; test -S $late/local/$lateid/ctl.sock && echo socket"
    expect_eq "[$MODE] a state directory first used later is hidden in running sandboxes" 0 "$OUT"
    sm rm "$early" >/dev/null
    # The same across users: a user's new state directory, root's running sandbox.
    if [ "$MODE" = user ]; then
        local rid ulate
        rid=$("$SANDMAN" create)
        ulate=$(mkstate)
        sm_in "$ulate" create >/dev/null || not_ok "[$MODE] create in a new state dir"
        run "$SANDMAN" exec "$rid" -- "for i in \$(seq 100); do [ -z \"\$(ls -A $ulate)\" ] && break; sleep 0.1; done; ls -A $ulate | wc -l"
        expect_eq "[$MODE] a user's new state directory is hidden in root's running sandboxes" 0 "$OUT"
        "$SANDMAN" rm "$rid" >/dev/null
    fi
    # Another context's state directory, with a live sandbox in it.
    other=$(mkstate)
    oid=$(sm_in "$other" create) || not_ok "[$MODE] create in another state dir"
    real=$(mkstate)
    link=$(mktemp -u /tmp/sandman-fs-hide-link-XXXXXX)
    ln -s "$real" "$link"
    lid=$(sm_in "$link" create) || not_ok "[$MODE] create through a symlinked state dir"
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    inside "$id" "ls -A $other | wc -l; cat $other/local/$oid/spec.json 2>/dev/null | head -c 1 | wc -c; test -S $other/local/$oid/ctl.sock && echo socket"
    expect_eq "[$MODE] another context's state directory is hidden (empty, no spec, no socket)" "0
0" "$OUT"
    # A state directory reached through a symlink: the real directory is hidden too.
    run sm_in "$link" exec "$lid" -- "ls -A $real | wc -l; ls $real/local/$lid 2>/dev/null | wc -l"
    expect_eq "[$MODE] a symlinked state directory's real path is hidden from its own sandbox" "0
0" "$OUT"
    inside "$id" "ls -A $real | wc -l"
    expect_eq "[$MODE] and from every other sandbox" 0 "$OUT"
    # A user's registry cannot hide what is not theirs (a local user breaking every sandbox).
    if [ "$MODE" = user ] && [ -n "$(ls -A /opt)" ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'echo /opt >> /tmp/.sandman-state-dirs/65534'
        local rid
        rid=$("$SANDMAN" create)
        run "$SANDMAN" exec "$rid" -- 'ls -A /opt | wc -l'
        expect_eq "[$MODE] a path listed in a user's registry that the user does not own stays visible" \
            "$(ls -A /opt | wc -l)" "$OUT"
        "$SANDMAN" rm "$rid" >/dev/null
        setpriv --reuid=65534 --regid=65534 --clear-groups sed -i '\|^/opt$|d' /tmp/.sandman-state-dirs/65534
    fi
    # Homes and credentials.
    inside "$id" 'ls -A /root /home | grep -v "^/\|^$" | wc -l'
    expect_eq "[$MODE] /root and /home are empty" 0 "$OUT"
    for f in /etc/shadow /etc/gshadow /etc/ssh/ssh_host_ed25519_key /etc/sudoers; do
        [ -e "$f" ] || continue
        inside "$id" "head -c 1 $f 2>/dev/null | wc -c"
        expect_eq "[$MODE] $f reads nothing" 0 "$OUT"
    done
    inside "$id" 'head -c 1 /etc/passwd | wc -c'
    expect_eq "[$MODE] ordinary /etc files stay readable" 1 "$OUT"
    sm rm "$id" >/dev/null
    # A workdir inside a hidden home still works (an empty private directory).
    local home
    home=$(ls -d /home/*/ 2>/dev/null | head -n1)
    if [ -n "$home" ]; then
        home=${home%/}
        id=$(sm create -w "$home") || not_ok "[$MODE] create with a workdir under /home"
        inside "$id" "pwd; ls -A $home | wc -l; ls -A /home"
        expect_eq "[$MODE] a workdir under /home is a private empty directory" "$home
0
$(basename "$home")" "$OUT"
        sm rm "$id" >/dev/null
    fi
    # Config: expose_home brings the homes back; hide adds paths.
    cfg=$(mktemp /tmp/sandman-fs-hide-cfg-XXXXXX)
    chmod 644 "$cfg"
    printf 'open:\n  local:\n    expose_home: true\n    hide: [/etc/hostname, /opt]\n' >"$cfg"
    id=$(sm -c "$cfg" -p open create) || not_ok "[$MODE] create with expose_home and hide"
    inside "$id" 'ls -A /home | wc -l; head -c 1 /etc/hostname 2>/dev/null | wc -c; ls -A /opt | wc -l; head -c 1 /etc/shadow 2>/dev/null | wc -c'
    expect_eq "[$MODE] expose_home shows /home, hide hides the listed paths, credentials stay hidden" \
        "$(ls -A /home | wc -l)
0
0
0" "$OUT"
    sm rm "$id" >/dev/null
    printf 'bad:\n  local:\n    hide: [relative/path]\n' >"$cfg"
    run sm -c "$cfg" -p bad create
    check "[$MODE] a relative hide path is refused" test "$RC" -ne 0
    expect_match "[$MODE] naming the key" "hide" "$ERR"
    printf 'bad:\n  local:\n    hide: [/]\n' >"$cfg"
    run sm -c "$cfg" -p bad create
    expect_match "[$MODE] hiding / is refused" "local.hide cannot hide /" "$ERR"
    rm -f "$cfg"
    # A workdir with ".." creates nothing on the host.
    local probe=/var/tmp/sandman-fs-hide-probe-$$
    for wd in "/tmp/../..$probe" "/workspace/../..$probe" "/a/./b" "/a//b/.."; do
        run sm create -w "$wd"
        check "[$MODE] workdir $wd is refused" test "$RC" -ne 0
        expect_match "[$MODE] with a clear error" "workdir.*(\.\.|\.)" "$ERR"
    done
    check "[$MODE] nothing was created on the host" test ! -e "$probe"
    printf 'dots:\n  local:\n    workdir: /tmp/../..%s\n' "$probe" >"$cfg"
    chmod 644 "$cfg"
    run sm -c "$cfg" -p dots create
    check "[$MODE] a config workdir with .. is refused" test "$RC" -ne 0
    check "[$MODE] and creates nothing" test ! -e "$probe"
    rm -rf "$probe" "$cfg"
}

run_modes
