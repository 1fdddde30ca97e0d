# The local provider for a user without root: a user namespace gives the sandbox its own
# root, isolation still holds, and cgroup limits that cannot be written are reported, not fatal.
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

run as_user "$SANDMAN" create --memory-mib 64
expect_eq "an unprivileged user can create a sandbox" 0 "$RC"
ID=$OUT
run as_user "$SANDMAN" exec "$ID" -- 'id -u; hostname; ls /sys/class/net'
expect_eq "inside, the user is root of its own namespace" "0" "$(echo "$OUT" | sed -n 1p)"
expect_match "with its own hostname" "^sbx-" "$(echo "$OUT" | sed -n 2p)"
expect_eq "and no network but lo" "lo" "$(echo "$OUT" | sed -n 3p)"
run as_user "$SANDMAN" exec "$ID" -- 'touch /etc/probe-userns'
check "the host root stays read-only" test "$RC" -ne 0
check "the host's /etc is untouched" test ! -e /etc/probe-userns
run as_user "$SANDMAN" status "$ID"
if [ "$(id -u)" -eq 0 ]; then
    expect_match "status says limits are not enforced and why" "note: +limits not enforced: cgroups are not writable" "$OUT"
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
