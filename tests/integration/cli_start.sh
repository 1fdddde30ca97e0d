# A headless verb starts light: the `sandman` program loads neither the dashboard's libraries
# (they are in `sandman-dashboard`, which `sandman tui` executes) nor libcurl or libarchive (loaded on
# first use); the dashboard still opens through `sandman` and says clearly when its
# program is missing.
. "$(dirname "$0")/../lib.sh"

LIBS=$(ldd "$SANDMAN")
expect_no_match "sandman links none of libcurl, libarchive, ncursesw, libvterm, libuv" \
    "libcurl|libarchive|libncurses|libvterm|libuv" "$LIBS"
run env LD_DEBUG=files "$SANDMAN" ls
expect_eq "ls works" 0 "$RC"
expect_no_match "and loads no library at run time either" "file=.*(libcurl|libarchive|libncurses|libvterm|libuv)" "$ERR"
expect_match "the dashboard program beside it has them" "libncursesw.*libvterm|libvterm.*libncursesw" \
    "$(ldd "$(dirname "$SANDMAN")/sandman-dashboard" | tr '\n' ' ')"

# `sandman tui` hands its arguments on: a bad theme is refused by the dashboard program.
run "$SANDMAN" tui --theme /nonexistent/theme.yaml
expect_eq "a missing theme file is a usage error" 2 "$RC"
expect_match "and names it" "/nonexistent/theme.yaml" "$ERR"

# Without its dashboard program beside it, sandman says which file is missing.
LONE=$(mktemp -d)
cp "$SANDMAN" "$LONE/sandman"
run "$LONE/sandman" tui
expect_eq "a missing dashboard program exits 1" 1 "$RC"
expect_match "naming it" "cannot start the dashboard \($LONE/sandman-dashboard\): No such file" "$ERR"
run "$LONE/sandman" --version
expect_eq "the headless verbs still work" 0 "$RC"
rm -rf "$LONE"

finish
