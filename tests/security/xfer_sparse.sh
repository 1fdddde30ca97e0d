# Sparse files stay sparse through sandman cp in both directions: a file of holes the agent
# made (truncate -s) must not be expanded into gigabytes of zeros on the host disk, and a host
# file with holes must not fill the sandbox's disk; a file that cannot fit fails at once.
. "$(dirname "$0")/lib_security.sh"

SPARSE_GIB=1

# allocated KiB of a file
kib() { du -k "$1" | cut -f1; }

attacks() {
    local id d
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    d=$(mktemp -d /tmp/sandman-xfer-XXXXXX)
    chmod 777 "$d"

    inside "$id" "truncate -s ${SPARSE_GIB}G /tmp/sparse && printf middle | dd of=/tmp/sparse bs=1 seek=$((1 << 29)) conv=notrunc 2>/dev/null && printf end | dd of=/tmp/sparse bs=1 seek=$(((SPARSE_GIB << 30) - 3)) conv=notrunc 2>/dev/null && md5sum </tmp/sparse"
    local sum=$OUT
    run sm cp "$id:/tmp/sparse" "$d/sparse"
    expect_eq "$(say "a sparse download succeeds")" 0 "$RC"
    expect_eq "$(say "with the full size")" $((SPARSE_GIB << 30)) "$(stat -c %s "$d/sparse" 2>/dev/null)"
    check "$(say "and its holes kept (under 1 MiB allocated on the host)")" test "$(kib "$d/sparse")" -lt 1024
    expect_eq "$(say "and the same bytes")" "$sum" "$(md5sum <"$d/sparse")"

    run sm cp "$d/sparse" "$id:/tmp/back"
    expect_eq "$(say "a sparse upload succeeds")" 0 "$RC"
    inside "$id" "du -k /tmp/back | cut -f1"
    check "$(say "and stays sparse inside")" test "${OUT:-999999}" -lt 1024
    inside "$id" "md5sum </tmp/back"
    expect_eq "$(say "with the same bytes")" "$sum" "$OUT"

    # A file ending in data and one that is all hole.
    inside "$id" "truncate -s 1M /tmp/hole"
    run sm cp "$id:/tmp/hole" "$d/hole"
    expect_eq "$(say "a file that is one hole keeps its size")" 1048576 "$(stat -c %s "$d/hole" 2>/dev/null)"
    # More data than the destination can hold fails at once, saying so, and leaves nothing.
    head -c $((100 << 20)) /dev/zero >"$d/dense"
    chmod 644 "$d/dense"
    run sm cp "$d/dense" "$id:/dev/shm/dense"
    check "$(say "an upload larger than the room left fails")" test "$RC" -ne 0
    expect_match "$(say "saying how much room there is")" "100 MiB of data but .* only [0-9]+ MiB free" "$ERR"
    inside "$id" "ls -A /dev/shm | wc -l; df -k /dev/shm | awk 'NR==2 {print \$3}'"
    expect_eq "$(say "and /dev/shm is left empty")" "0
0" "$OUT"
    sm rm "$id" >/dev/null
    rm -rf "$d"
}

run_modes
