# Descriptors the CLI inherited (a host file open as fd 5 and 6) must not reach the sandbox's
# init or its entrypoint: the init closes everything but its own pipes before setup.
. "$(dirname "$0")/lib_security.sh"

attacks() {
    local secret id
    secret=$(mktemp /var/tmp/sandman-fs-initfds-XXXXXX)
    echo "host secret" >"$secret"
    chmod 644 "$secret"
    id=$(sm create --entrypoint sh --entrypoint -c \
        --entrypoint 'ls -l /proc/self/fd/ > /tmp/fds.part; mv /tmp/fds.part /tmp/entry-fds; (echo pwned >&6) 2>/dev/null; exec sleep 600' \
        5<"$secret" 6>>"$secret") || { not_ok "[$MODE] create"; rm -f "$secret"; return; }
    inside "$id" 'for i in $(seq 100); do [ -e /tmp/entry-fds ] && break; sleep 0.1; done; cat /tmp/entry-fds'
    expect_match "[$MODE] the entrypoint listed its descriptors" "null|pipe|socket" "$OUT"
    expect_no_match "[$MODE] no host file the CLI inherited reaches the entrypoint" "sandman-fs-initfds" "$OUT"
    inside "$id" '(echo pwned >> /proc/1/fd/6) 2>/dev/null'
    expect_eq "[$MODE] and the host file is untouched" "host secret" "$(cat "$secret")"
    sm rm "$id" >/dev/null
    rm -f "$secret"
}

run_modes
