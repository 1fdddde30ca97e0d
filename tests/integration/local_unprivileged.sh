# The local provider for a user without root: a user namespace gives the sandbox its own
# root and isolation still holds. Limits that cannot be written are never dropped silently: a
# create that asks for one is refused (saying why and how to get limits), or runs with a
# warning when the provider block sets unenforced_limits: warn; without limits asked for, only
# status notes that the default pids limit is not applied.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" -eq 0 ]; then
    # Run this same script's checks as nobody, against a state directory nobody owns.
    chown nobody "$SANDMAN_STATE_DIR"
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$SANDMAN_STATE_DIR" "$@"; }
else
    as_user() { "$@"; }
fi
# The build tree may sit where nobody cannot reach it: give the user its own copies.
if ! as_user test -x "$SANDMAN"; then
    mkdir -p "$SANDMAN_STATE_DIR/bin"
    cp "$SANDMAN" "${SANDMAN_SUPERVISOR:?}" "$SANDMAN_STATE_DIR/bin/"
    chmod -R a+rx "$SANDMAN_STATE_DIR/bin"
    SANDMAN=$SANDMAN_STATE_DIR/bin/sandman
    export SANDMAN_SUPERVISOR=$SANDMAN_STATE_DIR/bin/sandman-supervisor
fi
cleanup() {
    ids=$(as_user "$SANDMAN" ls -aq 2>/dev/null)
    [ -n "$ids" ] && as_user "$SANDMAN" rm $ids >/dev/null 2>&1
    rm -rf "$SANDMAN_STATE_DIR"
}

run as_user "$SANDMAN" providers
expect_match "providers says the user namespace is used or limits are off" "user namespace|limits not enforced" "$OUT"

# What the provider reports decides which behaviour to expect (a delegated cgroup v2 subtree
# gives an unprivileged user limits; this CI host has none).
limits_writable=yes
echo "$OUT" | grep -q "limits not enforced" && limits_writable=
if [ -z "$limits_writable" ]; then
    run as_user "$SANDMAN" create --memory-mib 64
    expect_eq "a create asking for a memory limit that cannot be applied is refused" 1 "$RC"
    expect_match "saying why and how to get limits" \
        "requested limits \(memory\) cannot be applied here: cgroups are not writable .*run sandman as root, or on a cgroup v2 host .*unenforced_limits: warn" "$ERR"
    check "and leaving nothing behind" test -z "$(as_user "$SANDMAN" ls -aq)"
    run as_user "$SANDMAN" create --cpu 0.5
    expect_eq "a CPU limit too" 1 "$RC"
    mkdir -p "$SANDMAN_STATE_DIR/config/sandman"
    printf 'warned:\n  local:\n    unenforced_limits: warn\n' >"$SANDMAN_STATE_DIR/warn.yaml"
    chmod 644 "$SANDMAN_STATE_DIR/warn.yaml"
    run as_user "$SANDMAN" -c "$SANDMAN_STATE_DIR/warn.yaml" -p warned create --memory-mib 64
    expect_eq "with unenforced_limits: warn it runs" 0 "$RC"
    expect_match "with a warning on stderr" "^sandman: warning: limits not enforced \(memory\): cgroups are not writable" "$ERR"
    run as_user "$SANDMAN" status "$OUT"
    expect_match "that status keeps" "note: +limits not enforced: cgroups are not writable" "$OUT"
fi
run as_user "$SANDMAN" create
expect_eq "an unprivileged user can create a sandbox without limits" 0 "$RC"
expect_eq "with no warning" "" "$ERR"
ID=$OUT
run as_user "$SANDMAN" exec "$ID" -- 'id -u; hostname; ls /sys/class/net'
expect_eq "inside, the user is root of its own namespace" "0" "$(echo "$OUT" | sed -n 1p)"
expect_match "with its own hostname" "^sbx-" "$(echo "$OUT" | sed -n 2p)"
expect_eq "and no network but lo" "lo" "$(echo "$OUT" | sed -n 3p)"
run as_user "$SANDMAN" exec "$ID" -- 'touch /etc/probe-userns'
check "the host root stays read-only" test "$RC" -ne 0
check "the host's /etc is untouched" test ! -e /etc/probe-userns
run as_user "$SANDMAN" status "$ID"
if [ -z "$limits_writable" ]; then
    expect_match "status notes that the default pids limit is not applied, and why" "note: +limits not enforced: cgroups are not writable" "$OUT"
fi
echo "from host" >"$SANDMAN_STATE_DIR/in.txt"
chmod 644 "$SANDMAN_STATE_DIR/in.txt"
run as_user "$SANDMAN" cp "$SANDMAN_STATE_DIR/in.txt" "$ID:/tmp/in.txt"
run as_user "$SANDMAN" exec "$ID" -- 'cat /tmp/in.txt; stat -c %u /tmp/in.txt'
expect_eq "uploads work and belong to the sandbox's root" "from host
0" "$OUT"
run as_user "$SANDMAN" rm "$ID"
expect_eq "rm works unprivileged" 0 "$RC"
check "and removes the state" test ! -e "$SANDMAN_STATE_DIR/local/$ID"

finish
