# Shared by the attack tests in tests/security: each test defines attacks(), a function that
# creates sandboxes with sm and tries its attacks from inside them; run_modes runs it once as
# root and once as an unprivileged user (nobody, with a state directory of its own), since the
# local provider isolates differently in each (a user namespace when not root). Helpers:
#   sm ARGS...             sandman as the current mode's user ($MODE is root or user)
#   inside ID SHELL-CMD    runs the command in the sandbox; sets OUT, ERR, RC
#   say WHAT               prefixes check names with the mode
#   as_mode CMD...         runs a host command as the current mode's user
#   SM_ARGV                the command line that sm runs (for script -c, sh -c 'exec ...',
#                          timeout, and a background job whose pid is sandman's own)
#   sm_in STATE ARGS...    sandman as this mode's user with another state directory
#   mode_state             prints the current mode's state directory
. "$(dirname "$0")/../lib.sh"

MODE=root
ROOT_STATE=$SANDMAN_STATE_DIR

sm() { "$SANDMAN" "$@"; }
SM_ARGV=(env SANDMAN_STATE_DIR="$SANDMAN_STATE_DIR" "$SANDMAN")
inside() {
    local id=$1
    shift
    run sm exec "$id" -- "$@"
}
say() { echo "[$MODE] $*"; }
as_mode() { "$@"; }
mode_state() { echo "$SANDMAN_STATE_DIR"; }
sm_in() {
    local st=$1
    shift
    if [ "$MODE" = root ]; then
        SANDMAN_STATE_DIR=$st "$SANDMAN" "$@"
    else
        setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$USER_STATE" \
            SANDMAN_STATE_DIR="$st" SANDMAN_SUPERVISOR="$USER_SUPERVISOR" \
            XDG_CONFIG_HOME="$USER_STATE/config" "$USER_SANDMAN" "$@"
    fi
}

# The unprivileged user's own copies of the binaries, reachable whatever the build tree's modes.
user_setup() {
    USER_STATE=$(mktemp -d /tmp/sandman-${TEST_NAME}-user-XXXXXX)
    chmod 755 "$USER_STATE"
    mkdir -p "$USER_STATE/bin"
    cp "$SANDMAN" "${SANDMAN_SUPERVISOR:?}" "$USER_STATE/bin/"
    chmod -R a+rx "$USER_STATE/bin"
    chown -R nobody "$USER_STATE"
    USER_SANDMAN=$USER_STATE/bin/sandman
    USER_SUPERVISOR=$USER_STATE/bin/sandman-supervisor
}

sec_cleanup() {
    cleanup
    if [ -n "${USER_STATE:-}" ]; then
        local ids
        ids=$(MODE=user sm_user ls -aq 2>/dev/null)
        [ -n "$ids" ] && sm_user rm $ids >/dev/null 2>&1
        rm -rf "$USER_STATE"
    fi
}
trap sec_cleanup EXIT

sm_user() {
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        env HOME="$USER_STATE" SANDMAN_STATE_DIR="$USER_STATE/state" \
        SANDMAN_SUPERVISOR="$USER_SUPERVISOR" XDG_CONFIG_HOME="$USER_STATE/config" \
        "$USER_SANDMAN" "$@"
}

run_modes() {
    if [ "$(id -u)" -ne 0 ]; then
        MODE=user
        attacks
        finish
    fi
    MODE=root
    attacks
    user_setup
    MODE=user
    sm() { sm_user "$@"; }
    SM_ARGV=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$USER_STATE"
        SANDMAN_STATE_DIR="$USER_STATE/state" SANDMAN_SUPERVISOR="$USER_SUPERVISOR"
        XDG_CONFIG_HOME="$USER_STATE/config" "$USER_SANDMAN")
    as_mode() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$USER_STATE" "$@"; }
    mode_state() { echo "$USER_STATE/state"; }
    attacks
    finish
}
