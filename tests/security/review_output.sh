# A command's output against the host's memory (review of issue 8): `exec -o json` (and the
# dashboard's palette) keep what a command prints in the CLI's memory, so an agent that prints
# without end (or a command it tampered with) made the sandman process on the host grow by
# gigabytes until the exec timeout. Captured output is capped; the cut is said on stderr.
# Streamed text output (the plain `exec`) is not captured and stays whole.
. "$(dirname "$0")/lib_security.sh"
# Under the sanitizer build, freed memory waits in ASan's quarantine (256 MiB by default) and
# would count as the CLI's: keep it small, so the figure is sandman's own. No effect otherwise.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"

attacks() {
    local id rss
    id=$(sm create) || { not_ok "[$MODE] create"; return; }
    # 128 MiB of output: before the cap, the CLI held it several times over (GiBs of RSS).
    rss=$( { /usr/bin/time -f '%M' "${SM_ARGV[@]}" exec -o json "$id" -- \
        'head -c 134217728 /dev/zero; echo done >&2' >"$SANDMAN_STATE_DIR/out.json"; } 2>&1 | tail -n1)
    check "$(say "the CLI stays under 400 MiB while a command prints 128 MiB (RSS ${rss} KiB)")" \
        test "${rss:-999999999}" -lt 409600
    local got
    got=$(json 'len(d["stdout"]), d["stderr"], d["return_code"]' <"$SANDMAN_STATE_DIR/out.json" 2>&1)
    expect_match "$(say "stdout is kept up to 16 MiB")" "^\(16777216, " "$got"
    expect_match "$(say "stderr says what was cut")" "stdout was cut at 16 MiB" "$got"
    expect_match "$(say "the command's own stderr and exit status are kept")" '^\(16777216, .done.*, 0\)$' "$got"
    rm -f "$SANDMAN_STATE_DIR/out.json"
    # Streamed output is relayed as it comes, uncut.
    local n
    n=$(sm exec "$id" -- 'head -c 33554432 /dev/zero' | wc -c)
    expect_eq "$(say "plain exec streams all 32 MiB")" 33554432 "$n"
    sm rm "$id" >/dev/null
}

run_modes
