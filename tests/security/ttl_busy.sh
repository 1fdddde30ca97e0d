# An agent cannot outlive its TTL by keeping the supervisor busy: an entrypoint that floods its
# output (whose capture wakes the supervisor without pause) still ends at its ttl_s, recorded as
# ttl_expired.
. "$(dirname "$0")/lib_security.sh"

ended_by_ttl() {
    sm status -o json "$1" 2>/dev/null | grep -q "\"kind\":[[:space:]]*\"ttl_expired\""
}

attacks() {
    local id
    id=$(sm create --ttl 2 --entrypoint sh --entrypoint -c --entrypoint 'exec yes flood') ||
        { not_ok "[$MODE] create"; return; }
    local waited=0
    until ended_by_ttl "$id" || [ $waited -ge 300 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    check "[$MODE] a flooding entrypoint still ends at its TTL (2 s), as ttl_expired" ended_by_ttl "$id"
    sm rm "$id" >/dev/null
}

run_modes
