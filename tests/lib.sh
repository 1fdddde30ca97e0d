# Shared helpers for the shell tests: a private state directory, assertions that name what a
# user would have seen, and cleanup of every sandbox the test made. Source it first.
set -u
SANDMAN=${SANDMAN_BIN:?SANDMAN_BIN must point at the sandman binary}
SRC=${SANDMAN_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
TEST_NAME=$(basename "$0" .sh)
export SANDMAN_STATE_DIR=$(mktemp -d /tmp/sandman-${TEST_NAME}-XXXXXX)
unset SANDMAN_CONFIG
export XDG_CONFIG_HOME=$SANDMAN_STATE_DIR/config
chmod 755 "$SANDMAN_STATE_DIR"
FAILED=0
PASSED=0

cleanup() {
    local ids
    ids=$("$SANDMAN" ls -aq 2>/dev/null)
    [ -n "$ids" ] && "$SANDMAN" rm $ids >/dev/null 2>&1
    rm -rf "$SANDMAN_STATE_DIR"
}
trap cleanup EXIT

ok() { PASSED=$((PASSED + 1)); echo "ok   - $*"; }
not_ok() { FAILED=$((FAILED + 1)); echo "FAIL - $*"; }

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
    local what=$1
    shift
    if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected [$2], got [$3]"; fi
}

# expect_match DESCRIPTION REGEX TEXT
expect_match() {
    if printf '%s' "$3" | grep -Eq -- "$2"; then ok "$1"; else not_ok "$1: [$3] does not match /$2/"; fi
}

expect_no_match() {
    if printf '%s' "$3" | grep -Eq -- "$2"; then not_ok "$1: [$3] matches /$2/"; else ok "$1"; fi
}

# run CMD...: sets OUT, ERR and RC.
run() {
    local o e
    o=$(mktemp) e=$(mktemp)
    "$@" >"$o" 2>"$e"
    RC=$?
    OUT=$(cat "$o")
    ERR=$(cat "$e")
    rm -f "$o" "$e"
}

# json EXPR: reads JSON on stdin and prints a field with python (available on every machine).
json() {
    python3 -c "import json,sys; d=json.load(sys.stdin); v=$1; print(v if not isinstance(v,(dict,list)) else json.dumps(v))"
}

# A busybox root filesystem for image dir:... tests.
make_rootfs() {
    local r=$SANDMAN_STATE_DIR/rootfs
    mkdir -p "$r/bin" "$r/etc" "$r/tmp" "$r/root"
    cp "$(command -v busybox)" "$r/bin/busybox"
    for a in $("$r/bin/busybox" --list); do
        [ "$a" = busybox ] || ln -sf busybox "$r/bin/$a"
    done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
    echo "rootfs-marker" >"$r/etc/marker"
    echo "$r"
}

# process_gone PID: no such process, or only a zombie waiting for its parent to reap it.
process_gone() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
    [ -z "$state" ] || [ "$state" = Z ]
}

# wait_until SECONDS COMMAND...: polls COMMAND until it succeeds (true) or SECONDS pass (false).
wait_until() {
    local end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -ge "$end" ] && return 1
        sleep 0.2
    done
}

finish() {
    echo "# $TEST_NAME: $PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
    exit $?
}
