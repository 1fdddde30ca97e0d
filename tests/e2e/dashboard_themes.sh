# Colours as the terminal receives them (capture-pane -e keeps the SGR escapes): NO_COLOR turns
# every colour off but keeps selection and headings apart by attributes; the default and
# `--theme light` colour the screen, each its own way; an unknown theme is one clear error line.
. "$(dirname "$0")/lib_tmux.sh"

A=$("$SANDMAN" create)
B=$("$SANDMAN" create --memory-mib 64)

# sgr_colors: the colour-setting SGR escapes on stdin (foreground, background, 256 and direct
# colours), one per line; 39/49 (the terminal's own colours) do not count.
sgr_colors() {
    python3 -c '
import re, sys
for m in re.finditer(r"\x1b\[([0-9;:]*)m", sys.stdin.read()):
    ps = [p for p in re.split("[;:]", m.group(1)) if p]
    if any(p in ("38", "48", "58") or (p.isdigit() and (30 <= int(p) <= 37 or 40 <= int(p) <= 47
           or 90 <= int(p) <= 97 or 100 <= int(p) <= 107)) for p in ps):
        print(repr(m.group(0)))'
}
# sgr_has PARAM TEXT: some SGR escape in TEXT carries that parameter (e.g. 7 = reverse video).
sgr_has() {
    printf '%s' "$2" | python3 -c '
import re, sys
want = sys.argv[1].split(";")
for m in re.finditer(r"\x1b\[([0-9;:]*)m", sys.stdin.read()):
    ps = [p for p in re.split("[;:]", m.group(1)) if p]
    for i in range(len(ps) - len(want) + 1):
        if ps[i:i + len(want)] == want:
            sys.exit(0)
sys.exit(1)' "$1"
}
sgr_line() { screen_sgr | sed -n "${1}p"; }

# NO_COLOR: no colour at all, on the list, a marked row, the help box and the create form.
dash_start -x 120 -y 30 -e NO_COLOR=1
check "NO_COLOR: the dashboard runs" wait_for "^  $B "
keys g Space
check "a row can be marked" wait_for "^[●*] $A "
expect_eq "NO_COLOR: no colour escapes on the list" "" "$(screen_sgr | sgr_colors)"
selected_reverse() { sgr_has 7 "$(screen_sgr | grep -F "$B")"; }
check "the selected row is in reverse video instead" wait_until 10 selected_reverse
check "the header is bold" sgr_has 1 "$(sgr_line 1)"
keys '?'
check "the help opens" wait_for "any key closes this"
expect_eq "NO_COLOR: no colour escapes in the help box" "" "$(screen_sgr | sgr_colors)"
keys x n
check "the create form opens" wait_for "new sandbox"
expect_eq "NO_COLOR: no colour escapes in the form" "" "$(screen_sgr | sgr_colors)"
keys Escape q
check "and quits with 0" wait_for "^EXIT=0$"

# An empty NO_COLOR does not count (no-color.org), so this is the default theme.
dash_start -x 120 -y 30 -e NO_COLOR=
check "default theme: the dashboard runs" wait_for "^  $B "
check "the screen has colour escapes" test -n "$(screen_sgr | sgr_colors)"
check "the header is black on green (default theme)" sgr_has 42 "$(sgr_line 1)"
check "the running status of an unselected row is green" sgr_has 32 "$(screen_sgr | grep -F "$B")"
DEFAULT_SCREEN=$(screen_sgr)
keys q
check "and quits with 0" wait_for "^EXIT=0$"

dash_start -x 120 -y 30 --theme light
check "--theme light: the dashboard runs" wait_for "^  $B "
check "the screen has colour escapes" test -n "$(screen_sgr | sgr_colors)"
check "the header is white on blue (light theme)" sgr_has 44 "$(sgr_line 1)"
check "the running status of an unselected row is dark green (256 colour 28)" \
    sgr_has "38;5;28" "$(screen_sgr | grep -F "$B")"
check "which differs from the default theme" test "$(screen_sgr)" != "$DEFAULT_SCREEN"
keys q
check "and quits with 0" wait_for "^EXIT=0$"

# An unknown theme: one line naming it and what exists, before the terminal is touched.
dash_start -x 120 -y 30 --theme no-such-theme
check "an unknown theme stops the dashboard with exit status 1 or 2" wait_for "^EXIT=[12]$"
expect_match "with one line naming the theme and the ones there are" \
    "^sandman: unknown theme 'no-such-theme' \(available: default, high-contrast, light, mono\)$" \
    "$(line 1)"
expect_eq "the screen holds just that line and the status" 2 "$(printf '%s\n' "$SCREEN" | grep -c .)"
expect_eq "the terminal never left the normal screen" 0 "$(pane '#{alternate_on}')"
run "$SANDMAN" tui --theme no-such-theme
check "sandman tui --theme no-such-theme exits 1 or 2" test "$RC" = 1 -o "$RC" = 2
expect_eq "with one line on stderr" 1 "$(printf '%s\n' "$ERR" | wc -l)"
expect_match "naming the theme" "unknown theme 'no-such-theme'" "$ERR"
expect_eq "and nothing on stdout" "" "$OUT"

finish
