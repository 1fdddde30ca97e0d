# A damaged record (a truncated spec.json, a ready or end file cut short, a record with no
# spec.json at all) must not make a running sandbox vanish: ls and status show it as broken,
# naming what is damaged, and rm still ends its processes and removes it.
. "$(dirname "$0")/lib_security.sh"

state_dir() { if [ "$MODE" = user ]; then echo "$USER_STATE/state"; else echo "$SANDMAN_STATE_DIR"; fi; }

# damage ID FILE HOW: damages one file of the record, then checks what the user sees.
damage() {
    local id=$1 file=$2 how=$3 dir pid cgs c
    dir=$(state_dir)/local/$id
    pid=$(sm status "$id" -o json | json 'd["provider_info"]["init_pid"]')
    cgs=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1])).get('cgroups',{}); print(' '.join(v for k,v in c.items() if k!='version'))" "$dir/spec.json" 2>/dev/null)
    case $how in
    truncate) truncate -s 17 "$dir/$file" ;;
    empty) : >"$dir/$file" ;;
    garbage) printf 'kin' >"$dir/$file" ;;
    remove) rm -f "$dir/$file" ;;
    esac
    run sm ls -q
    expect_match "$(say "with $file $how: ls still lists the sandbox")" "$id" "$OUT"
    run sm ls
    expect_match "$(say "with $file $how: ls shows it as broken")" "$id.*error" "$OUT"
    run sm status "$id" -o json
    expect_eq "$(say "with $file $how: status says error")" error "$(echo "$OUT" | json 'd["status"]' 2>/dev/null)"
    expect_match "$(say "with $file $how: and names the damaged file")" "damaged record: $file" \
        "$(echo "$OUT" | json 'd["failure"]["reason"]' 2>/dev/null)"
    run sm status "$id"
    expect_match "$(say "with $file $how: the text status says so too")" "damaged record: $file" "$OUT"
    check "$(say "with $file $how: its init was still running")" test -n "$pid" -a -d "/proc/$pid"
    run sm rm "$id"
    expect_eq "$(say "with $file $how: rm succeeds")" 0 "$RC"
    local i
    for i in $(seq 200); do process_gone "$pid" && break; sleep 0.05; done
    check "$(say "with $file $how: rm ended its processes")" process_gone "$pid"
    check "$(say "with $file $how: and removed its directory")" test ! -e "$dir"
    for c in $cgs; do
        check "$(say "with $file $how: and its cgroup ${c#/sys/fs/cgroup/}")" test ! -e "$c"
    done
}

attacks() {
    local id
    for d in "spec.json truncate" "spec.json empty" "spec.json remove" "ready empty" \
        "ready truncate" "end garbage"; do
        id=$(sm create) || { not_ok "[$MODE] create"; return; }
        damage "$id" $d
    done
}

run_modes
