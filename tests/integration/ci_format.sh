# CI checks the formatting of every tracked C file (.ci/run format): a misformatted file fails
# the check and is named; a formatted tree passes. Run on a scratch repository holding the
# project's .ci/run and .clang-format, so the test does not depend on the tree being clean.
. "$(dirname "$0")/../lib.sh"

REPO=$SANDMAN_STATE_DIR/repo
mkdir -p "$REPO/.ci" "$REPO/core"
cp "$SRC/.ci/run" "$REPO/.ci/run"
cp "$SRC/.clang-format" "$REPO/.clang-format"
printf 'int f(void)\n{\n    return 1;\n}\n' >"$REPO/core/good.c"
git -C "$REPO" init -q
git -C "$REPO" add -A

run sh "$REPO/.ci/run" format
expect_eq "a formatted tree passes the check" 0 "$RC"

printf 'int   g( void ){return 2;}\n' >"$REPO/core/bad.c"
run sh "$REPO/.ci/run" format
expect_eq "an untracked misformatted file is not the check's business" 0 "$RC"
git -C "$REPO" add core/bad.c
run sh "$REPO/.ci/run" format
check "a tracked misformatted file fails the check" [ "$RC" -ne 0 ]
expect_match "and is named" "core/bad.c:1:.*clang-formatted" "$ERR"
expect_no_match "the formatted one is not" "good.c" "$ERR"

grep -q '^check_format$' "$SRC/.ci/run"
expect_eq "the full CI run checks formatting too" 0 "$?"

finish
