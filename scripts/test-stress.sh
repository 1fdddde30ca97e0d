#!/bin/sh
# `make test-stress`: the whole suite with the machine loaded, as CI's and users' machines often
# are. Two CPU hogs per core (stress-ng, at normal priority) run for the suite's whole length, so
# a test that passes only on a quiet machine fails here. Usage: test-stress.sh BUILD_DIR [JOBS]
set -eu
build=$1
jobs=${2:-$(nproc)}
hogs=$(($(nproc) * 2))
stress-ng --cpu "$hogs" --cpu-method loop --timeout 3600 --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null || true' EXIT INT TERM
echo "test-stress: $hogs CPU hogs running (stress-ng pid $hog)"
cd "$build"
ctest --output-on-failure -j"$jobs"
