#!/bin/sh
# Runs the benchmarks of bench/ from a build directory ($1, default build) in a fresh state
# directory, prints each figure beside its same-run baseline, and exits non-zero when a target is
# missed: local_bench (the local provider beside raw bwrap/unshare spawns), then ui_bench (the
# dashboard's sampling, frame and live CPU beside htop's own), docker_bench, cli_bench (a
# headless verb's start), term_bench and transfer_bench. All always run; the exit status
# is the worst of them (1 = a target missed, 2 = an error). Further arguments go to
# local_bench (e.g. -n 200); $UI_BENCH_ARGS to ui_bench (e.g. "-n 200 -w 10"). Every sandbox is
# removed after each benchmark, also on failure or interrupt; the figures are also written to
# $BUILD/bench/<name>.json.
set -eu

cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ $# -gt 0 ] && shift
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
BENCH=$BUILD/bench/local_bench
UI_BENCH=$BUILD/bench/ui_bench
SANDMAN=$BUILD/sandman

[ -x "$BENCH" ] || { echo "bench: $BENCH is not built (make build)" >&2; exit 2; }
for tool in bwrap unshare sleep; do
    command -v "$tool" >/dev/null || { echo "bench: the baseline needs $tool" >&2; exit 2; }
done

STATE=$(mktemp -d "${TMPDIR:-/tmp}/sandman-bench.XXXXXX")
export SANDMAN_STATE_DIR="$STATE"
export SANDMAN_SUPERVISOR="${SANDMAN_SUPERVISOR:-$BUILD/sandman-supervisor}"
export SANDMAN_BIN="$SANDMAN"

leftovers() { "$SANDMAN" ls -aq 2>/dev/null | tr '\n' ' ' || true; }
remove_leftovers() {
    ids=$(leftovers)
    # shellcheck disable=SC2086 # one word per id
    [ -z "${ids% }" ] || "$SANDMAN" rm $ids >/dev/null 2>&1 || true
}
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    remove_leftovers
    rm -rf "$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Reports a benchmark's exit status ($1 name, $2 status) and its leftovers; prints the status.
verdict() {
    name=$1 r=$2
    ids=$(leftovers)
    if [ -n "${ids% }" ]; then
        echo "bench: sandboxes left behind by $name: $ids" >&2
        [ "$r" -ne 0 ] || r=1
        remove_leftovers
    fi
    case $r in
    0) echo "bench: $name: every target met (figures in $BUILD/bench/$name.json)" >&2 ;;
    1) echo "bench: $name: a target was missed" >&2 ;;
    *) echo "bench: $name failed (exit $r)" >&2 ;;
    esac
    echo "$r"
}

echo "bench: $(bwrap --version 2>/dev/null || echo bwrap), $(unshare --version 2>/dev/null | head -n1)"
rc1=0
"$BENCH" --json "$BUILD/bench/local_bench.json" "$@" || rc1=$?
rc1=$(verdict local_bench "$rc1")

echo
rc2=0
if [ ! -x "$UI_BENCH" ]; then
    echo "bench: $UI_BENCH is not built (make build)" >&2
    rc2=2
elif ! command -v htop >/dev/null || ! command -v tmux >/dev/null; then
    echo "bench: ui_bench needs htop and tmux (its baseline and terminal)" >&2
    rc2=2
else
    # shellcheck disable=SC2086 # word splitting of the optional arguments is intended
    "$UI_BENCH" --json "$BUILD/bench/ui_bench.json" ${UI_BENCH_ARGS:-} || rc2=$?
fi
rc2=$(verdict ui_bench "$rc2")

# docker_bench: the docker provider beside the docker CLI on the same engine, a private podman
# service (or $SANDMAN_DOCKER_HOST) started by the tests' docker_engine.bash and stopped after.
# $DOCKER_BENCH_ARGS go to docker_bench (e.g. "-n 40"); SANDMAN_SKIP_DOCKER=1 skips it.
echo
rc3=0
DOCKER_BENCH=$BUILD/bench/docker_bench
DK_ENGINE=
if [ "${SANDMAN_SKIP_DOCKER:-}" = 1 ]; then
    echo "bench: docker_bench skipped (SANDMAN_SKIP_DOCKER=1)" >&2
elif [ ! -x "$DOCKER_BENCH" ]; then
    echo "bench: $DOCKER_BENCH is not built (make build)" >&2
    rc3=2
elif ! command -v docker >/dev/null; then
    echo "bench: docker_bench needs the docker CLI, its baseline (Debian: apt-get install docker.io; it talks to the same private podman socket)" >&2
    rc3=2
else
    DK_ENGINE=$(mktemp -d "${TMPDIR:-/tmp}/sandman-bench-dk.XXXXXX")
    trap 'bash tests/integration/docker_engine.bash stop "$DK_ENGINE" >/dev/null 2>&1; cleanup' EXIT
    if bash tests/integration/docker_engine.bash start "$DK_ENGINE" $$ >/dev/null; then
        # shellcheck disable=SC1091 # written by docker_engine.bash
        . "$DK_ENGINE/engine.env"
        # shellcheck disable=SC2086 # word splitting of the optional arguments is intended
        "$DOCKER_BENCH" --host "$DOCKER_TEST_HOST" --image "$DOCKER_TEST_IMAGE" \
            --json "$BUILD/bench/docker_bench.json" ${DOCKER_BENCH_ARGS:-} || rc3=$?
    else
        echo "bench: cannot start a Docker engine for docker_bench" >&2
        rc3=2
    fi
    bash tests/integration/docker_engine.bash stop "$DK_ENGINE" >/dev/null 2>&1
    trap cleanup EXIT
fi
rc3=$(verdict docker_bench "$rc3")

# cli_bench: a headless verb's start (a new process per call) beside `true`, `git --version` and
# a bwrap spawn. $CLI_BENCH_ARGS go to it (e.g. "-n 500").
echo
rc5=0
# shellcheck disable=SC2086 # word splitting of the optional arguments is intended
python3 bench/cli_bench.py "$BUILD" --json "$BUILD/bench/cli_bench.json" ${CLI_BENCH_ARGS:-} || rc5=$?
rc5=$(verdict cli_bench "$rc5")

# term_bench: the embedded terminal's throughput (cat of a 50 MB stream) and keypress-to-echo
# latency beside tmux, through the real dashboard in tmux (its own sandbox, tmux servers and
# state). $TERM_BENCH_ARGS go to it (e.g. "-s 10 -n 1 -k 20"); SANDMAN_SKIP_TERM=1 skips it.
echo
rc4=0
if [ "${SANDMAN_SKIP_TERM:-}" = 1 ]; then
    echo "bench: term_bench skipped (SANDMAN_SKIP_TERM=1)" >&2
else
    # shellcheck disable=SC2086 # word splitting of the optional arguments is intended
    sh bench/term_bench.sh "$BUILD" ${TERM_BENCH_ARGS:-} || rc4=$?
fi
rc4=$(verdict term_bench "$rc4")

# transfer_bench: directory upload/download beside tar | tar (and docker cp). $SIZE_MIB sets the
# tree's size (default 1024); SANDMAN_SKIP_TRANSFER=1 skips it.
echo
rc6=0
if [ "${SANDMAN_SKIP_TRANSFER:-}" = 1 ]; then
    echo "bench: transfer_bench skipped (SANDMAN_SKIP_TRANSFER=1)" >&2
else
    bash bench/transfer_bench.sh "$BUILD" || rc6=$?
fi
rc6=$(verdict transfer_bench "$rc6")

rc=$rc1
[ "$rc6" -le "$rc" ] || rc=$rc6
[ "$rc2" -le "$rc" ] || rc=$rc2
[ "$rc3" -le "$rc" ] || rc=$rc3
[ "$rc4" -le "$rc" ] || rc=$rc4
[ "$rc5" -le "$rc" ] || rc=$rc5
[ "$rc" -eq 0 ] && echo "bench: every target met"
exit "$rc"
