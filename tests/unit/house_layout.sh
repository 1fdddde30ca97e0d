#!/usr/bin/env bash
# The house's layout rules (DESIGN.md §1 and §8, README "Architecture notes"), checked on every
# tracked C file (every C file outside build directories when the tree is no git checkout), so
# a change that breaks one fails here naming the file:
#  - no file over 800 lines (one job per file);
#  - an #include only runs along the arrows between rooms: main -> tui -> cli -> core;
#    providers/<name> -> core, and none includes another provider; providers/builtin.* (the one
#    place naming every provider) -> providers/<name>, core; main may include providers/builtin.h
#    to register them; core includes nothing of cli/, tui/, main/ or providers/; tests/ and
#    bench/ may include any room, and no room includes them;
#  - no include circle between rooms (each providers/<name> is a room of its own; tui/'s floors,
#    tui/views and the like, are one room: views read tui/state.h by design).
# A file in a folder that is no room of the house fails too, so a new room gets its arrows here.
# There is no third-party or generated C code in the tree, so nothing is exempt.
set -u
SRC=${SANDMAN_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
MAX_LINES=800
cd "$SRC" || exit 2

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list=$(git ls-files -- '*.c' '*.h')
else
    list=$(find . -type d \( -name 'build*' -o -name CMakeFiles \) -prune -o -name '*.[ch]' -print |
        sed 's|^\./||')
fi
files=()
while IFS= read -r f; do
    [ -f "$f" ] && files+=("$f")
done <<<"$list"
if [ "${#files[@]}" -lt 50 ]; then
    echo "house_layout: found only ${#files[@]} C files under $SRC; is that the source tree?" >&2
    exit 1
fi

# One stream for awk: "L <lines> <file>" per file, then "I <file> <included path>" per include.
{
    for f in "${files[@]}"; do
        printf 'L %s %s\n' "$(wc -l <"$f")" "$f"
    done
    for f in "${files[@]}"; do
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
            while IFS= read -r inc; do printf 'I %s %s\n' "$f" "$inc"; done
    done
} | awk -v max="$MAX_LINES" '
function dirof(p) { if (p !~ /\//) return "."; sub(/\/[^\/]*$/, "", p); return p }
function room(p,    n, a) {
    n = split(p, a, "/")
    if (n < 2) return "?"
    if (a[1] == "providers") return n == 2 ? "providers" : "providers/" a[2]
    if (a[1] ~ /^(core|cli|tui|main|tests|bench)$/) return a[1]
    return "?"
}
function allowed(from, to) {
    if (from == to) return 1
    if (from == "tests" || from == "bench") return to != "tests" && to != "bench" && to != "?"
    if (from == "main") return to ~ /^(tui|cli|core|providers)$/
    if (from == "tui") return to ~ /^(cli|core)$/
    if (from == "cli") return to == "core"
    if (from == "providers") return to == "core" || to ~ /^providers\//
    if (from ~ /^providers\//) return to == "core"
    return 0
}
function dfs(r, depth,    k, t, i, path, why) {
    state[r] = 1
    stack[depth] = r
    for (k = 1; k <= nedges[r]; k++) {
        t = edge[r, k]
        if (state[t] == 1) {
            path = ""; why = ""
            for (i = 0; i <= depth; i++)
                if (stack[i] == t) break
            for (; i <= depth; i++) {
                path = path stack[i] " -> "
                why = why "; " example[stack[i], (i < depth ? stack[i + 1] : t)]
            }
            if (!(path in seen)) {
                seen[path] = 1
                printf "house_layout: include circle between rooms: %s%s (%s)\n", path, t, substr(why, 3)
                bad++
            }
        } else if (state[t] == 0) {
            dfs(t, depth + 1)
        }
    }
    state[r] = 2
}
$1 == "L" {
    nfiles++
    if ($2 > max) {
        printf "house_layout: %s has %d lines (more than %d: split it by job)\n", $3, $2, max
        bad++
    }
    if (room($3) == "?") {
        printf "house_layout: %s is in no room of the house (core, cli, tui, main, providers, tests, bench)\n", $3
        bad++
    }
    next
}
$1 == "I" {
    f = $2; inc = $3
    target = inc ~ /\// ? inc : dirof(f) "/" inc
    from = room(f); to = room(target)
    nincludes++
    if (from == "?") next
    if (!allowed(from, to)) {
        printf "house_layout: %s includes \"%s\": %s may not include %s (arrows: main -> tui -> cli -> core, providers/<name> -> core)\n", f, inc, from, to == "?" ? "a file outside the rooms" : to
        bad++
    }
    if (from != to && to != "?") {
        if (!((from, to) in example)) {
            example[from, to] = f " includes " inc
            edge[from, ++nedges[from]] = to
            rooms[from] = 1; rooms[to] = 1
        }
    }
    next
}
END {
    for (r in rooms)
        if (state[r] == 0) dfs(r, 0)
    if (bad) {
        printf "house_layout: %d problem(s) in %d files (%d includes checked)\n", bad, nfiles, nincludes
        exit 1
    }
    printf "house_layout: %d files, %d includes: every file within %d lines, includes follow the arrows, no circle between rooms\n", nfiles, nincludes, max
}'
