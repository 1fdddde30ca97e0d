#!/bin/sh
# Runs the benchmarks of bench/ from a build directory ($1, default build) in a fresh state
# directory, prints each figure beside its same-run baseline, and exits non-zero when a target is
# missed. Further arguments go to local_bench (e.g. -n 200). Every sandbox is removed at the end,
# also on failure or interrupt; the figures are also written to $BUILD/bench/local_bench.json.
set -eu

cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ $# -gt 0 ] && shift
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
BENCH=$BUILD/bench/local_bench
SANDMAN=$BUILD/sandman

[ -x "$BENCH" ] || { echo "bench: $BENCH is not built (make build)" >&2; exit 2; }
for tool in bwrap unshare sleep; do
    command -v "$tool" >/dev/null || { echo "bench: the baseline needs $tool" >&2; exit 2; }
done

STATE=$(mktemp -d "${TMPDIR:-/tmp}/sandman-bench.XXXXXX")
export SANDMAN_STATE_DIR="$STATE"
export SANDMAN_SUPERVISOR="${SANDMAN_SUPERVISOR:-$BUILD/sandman-supervisor}"

leftovers() { "$SANDMAN" ls -aq 2>/dev/null | tr '\n' ' ' || true; }
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    ids=$(leftovers)
    # shellcheck disable=SC2086 # one word per id
    [ -z "${ids% }" ] || "$SANDMAN" rm $ids >/dev/null 2>&1 || true
    rm -rf "$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "bench: $(bwrap --version 2>/dev/null || echo bwrap), $(unshare --version 2>/dev/null | head -n1)"
rc=0
"$BENCH" --json "$BUILD/bench/local_bench.json" "$@" || rc=$?

ids=$(leftovers)
if [ -n "${ids% }" ]; then
    echo "bench: sandboxes left behind by local_bench: $ids" >&2
    [ "$rc" -ne 0 ] || rc=1
fi
case $rc in
0) echo "bench: every target met (figures in $BUILD/bench/local_bench.json)" ;;
1) echo "bench: a target was missed" >&2 ;;
*) echo "bench: local_bench failed (exit $rc)" >&2 ;;
esac
exit "$rc"
