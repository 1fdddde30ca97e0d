#!/usr/bin/env bash
# Runs each libFuzzer target of a fuzz build (make fuzz) for FUZZ_SECONDS, starting from its
# committed corpus and regression inputs, then merges what it found back into
# tests/fuzz/corpus/<target>/ minimised (-merge=1 into a fresh directory: only inputs that add
# coverage survive, so the corpus stays small). A crash, leak or timeout stops that target with
# the input under <build>/fuzz-artifacts/<target>/ and the command that replays it (and makes
# the run fail); once fixed, keep that input in tests/fuzz/regress/<target>/ so ctest replays it
# in every build.
#   tests/fuzz/run.sh BUILD_DIR [TARGET...]     (targets: term config proto vtquery journal spec)
# FUZZ_SECONDS (default 60) per target; FUZZ_FLAGS adds libFuzzer flags.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [TARGET...]}
shift
src=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(term config proto vtquery journal spec)
[[ $seconds =~ ^[0-9]+$ ]] || { echo "FUZZ_SECONDS=$seconds: a whole number of seconds" >&2; exit 2; }

status=0
for t in "${targets[@]}"; do
    bin=$build/tests/fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: no $bin (build with -DSANDMAN_FUZZ=ON; targets: term config proto vtquery journal spec)" >&2; exit 2; }
    corpus=$src/corpus/$t regress=$src/regress/$t
    work=$build/fuzz-work/$t art=$build/fuzz-artifacts/$t
    mkdir -p "$corpus" "$regress" "$work" "$art"
    seeds=("$corpus" "$regress")
    dict=(); [ -f "$src/$t.dict" ] && dict=(-dict="$src/$t.dict")
    echo "fuzz_$t: ${seconds}s from $(ls "$corpus" | wc -l) corpus and $(ls "$regress" | wc -l) regression inputs"
    # New inputs land in $work (the first directory); the committed ones are only read.
    if ! nice -n 10 "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$art/" "${dict[@]}" ${FUZZ_FLAGS:-} "$work" "${seeds[@]}" \
        >"$build/fuzz-$t.log" 2>&1; then
        grep -E 'ERROR|SUMMARY|Test unit written' "$build/fuzz-$t.log" | head -5 >&2 || true
        echo "fuzz_$t: FAILED (log $build/fuzz-$t.log); replay: $bin $art/<input>" >&2
        status=1
    else
        grep -E '^#[0-9]+[[:space:]]+DONE' "$build/fuzz-$t.log" || tail -1 "$build/fuzz-$t.log"
    fi
    # What it found up to then is kept either way (minimised).
    fresh=$build/fuzz-merge/$t
    rm -rf "$fresh" && mkdir -p "$fresh"
    if nice -n 10 "$bin" -merge=1 "$fresh" "$corpus" "$work" >"$build/fuzz-$t-merge.log" 2>&1 &&
        [ -n "$(ls "$fresh")" ]; then
        rm -f "$corpus"/* && cp "$fresh"/* "$corpus"/
    else
        echo "fuzz_$t: merge failed (log $build/fuzz-$t-merge.log); corpus left as it was" >&2
        status=1
    fi
    echo "fuzz_$t: corpus now $(ls "$corpus" | wc -l) inputs, $(cat "$corpus"/* 2>/dev/null | wc -c) bytes"
done
exit $status
