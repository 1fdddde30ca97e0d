# Shared by tests/security/sys_*.sh (system-call defences: seccomp, no_new_privs, keyrings,
# nested user namespaces): builds sys_probe.c with the host's compiler once, and makes
# sandboxes with the probe copied in at /tmp/sys_probe.
#   box [create args]       creates a sandbox with the probe; sets BOX (empty on failure)
#   probe ID WHAT [ARG]     runs one probe inside; sets OUT ("ok" or an errno name), ERR, RC
#   sys_config NAME YAML    writes a config file with a local block NAME holding YAML's keys,
#                           readable by both modes' users; prints its path
. "$(dirname "$0")/lib_security.sh"

PROBE_DIR=$(mktemp -d /tmp/sandman-probe-XXXXXX)
chmod 755 "$PROBE_DIR"
PROBE=$PROBE_DIR/sys_probe
if ! cc -O1 -o "$PROBE" "$SRC/tests/security/sys_probe.c"; then
    echo "FAIL - cannot build tests/security/sys_probe.c with cc"
    exit 1
fi
chmod 755 "$PROBE"
sys_cleanup() {
    sec_cleanup
    rm -rf "$PROBE_DIR"
}
trap sys_cleanup EXIT

box() {
    BOX=$(sm create "$@")
    if [ -z "$BOX" ]; then
        not_ok "[$MODE] create $*"
        return 1
    fi
    sm cp "$PROBE" "$BOX:/tmp/sys_probe" >/dev/null && sm exec "$BOX" -- chmod 755 /tmp/sys_probe
}

probe() {
    inside "$1" "/tmp/sys_probe $2 ${3:-}"
}

sys_config() {
    local f=$PROBE_DIR/$1.yaml
    printf '%s:\n  local:\n' "$1" >"$f"
    printf '%s\n' "$2" | sed 's/^/    /' >>"$f"
    chmod 644 "$f"
    echo "$f"
}
