#!/bin/bash
# Directory transfer benchmark: upload and download of a tree of mixed file sizes (half in
# 128 MiB files, a quarter in 4 MiB files, a quarter in 32 KiB files) to a local sandbox with
# `sandman cp -r`, beside `tar c | tar x` between the same two directories in the same run
# (target: within 1.5x), and to a docker sandbox beside `docker cp` on the same engine when the
# docker CLI exists (target: faster). Usage: bench/transfer_bench.sh [BUILD] (SIZE_MIB=1024 by
# default; a smaller one for a quick run). Exit 1 when a target is missed.
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
SANDMAN=$BUILD/sandman
SIZE_MIB=${SIZE_MIB:-1024}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sandman-xbench.XXXXXX")
export SANDMAN_STATE_DIR=$WORK/state SANDMAN_SUPERVISOR=$BUILD/sandman-supervisor
export SANDMAN_BIN=$SANDMAN
mkdir -p "$SANDMAN_STATE_DIR"
ENGINE=
cleanup() {
    ids=$("$SANDMAN" ls -aq 2>/dev/null)
    [ -n "$ids" ] && "$SANDMAN" rm $ids >/dev/null 2>&1
    [ -n "${DK_IDS:-}" ] && "$SANDMAN" -p dk rm $DK_IDS >/dev/null 2>&1
    [ -n "$ENGINE" ] && docker_engine_stop "$ENGINE"
    rm -rf "$WORK"
}
trap cleanup EXIT

T=$WORK/tree
mkdir -p "$T/big" "$T/mid" "$T/small"
q=$((SIZE_MIB / 4))
for i in $(seq $((q * 2 / 128 > 0 ? q * 2 / 128 : 1))); do head -c $((128 << 20)) /dev/urandom >"$T/big/$i"; done
for i in $(seq $((q / 4 > 0 ? q / 4 : 1))); do head -c $((4 << 20)) /dev/urandom >"$T/mid/$i"; done
head -c $((q << 20)) /dev/urandom | (cd "$T/small" && split -b 32k -a 5 - f)
BYTES=$(du -sb "$T" | cut -f1)
FILES=$(find "$T" -type f | wc -l)
echo "# tree: $((BYTES >> 20)) MiB in $FILES files (SIZE_MIB=$SIZE_MIB)"
sync

secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null || { echo "bench: failed: $*" >&2; exit 2; }; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
MISSED=0
row() { # NAME OURS BASE RATIO-LIMIT HOW
    local r
    r=$(echo "scale=2; $2 / $3" | bc)
    local ok=ok
    [ "$(echo "$r <= $4" | bc)" = 1 ] || { ok=MISSED; MISSED=1; }
    printf '%-28s sandman %6.2f s (%5.0f MiB/s)   %-10s %6.2f s   ratio %4s (target <= %s) %s\n' \
        "$1" "$2" "$(echo "$BYTES / 1048576 / $2" | bc)" "$5" "$3" "$r" "$4" "$ok"
}

id=$("$SANDMAN" create --ttl 3600) || exit 2
pid=$("$SANDMAN" status -o json "$id" | python3 -c '
import json, sys
def find(d):
    if isinstance(d, dict):
        if "init_pid" in d: return d["init_pid"]
        for v in d.values():
            r = find(v)
            if r: return r
print(find(json.load(sys.stdin)))')
R=/proc/$pid/root/tmp
up=$(secs "$SANDMAN" cp -r "$T" "$id:/tmp/up")
mkdir -p "$R/tarup"
tup=$(secs sh -c "tar -C '$T' -cf - . | tar -C '$R/tarup' -xf -")
row "local upload" "$up" "$tup" 1.5 "tar|tar"
down=$(secs "$SANDMAN" cp -r "$id:/tmp/up" "$WORK/down")
mkdir -p "$WORK/tardown"
tdown=$(secs sh -c "tar -C '$R/up' -cf - . | tar -C '$WORK/tardown' -xf -")
row "local download" "$down" "$tdown" 1.5 "tar|tar"
s2s_id=$("$SANDMAN" create --ttl 3600)
cp2=$(secs "$SANDMAN" cp -r "$id:/tmp/up" "$s2s_id:/tmp/copy")
printf '%-28s sandman %6.2f s (%5.0f MiB/s)\n' "local sandbox to sandbox" "$cp2" "$(echo "$BYTES / 1048576 / $cp2" | bc)"
"$SANDMAN" rm "$id" "$s2s_id" >/dev/null
rm -rf "$WORK/down" "$WORK/tardown"

if command -v docker >/dev/null && command -v podman >/dev/null; then
    . tests/integration/docker_engine.bash
    ENGINE=$WORK/engine
    docker_engine_start "$ENGINE" $$ >/dev/null
    export SANDMAN_CONFIG=$WORK/config.yaml
    printf 'dk:\n  docker:\n    host: %s\n' "$DOCKER_TEST_HOST" >"$SANDMAN_CONFIG"
    d=$("$SANDMAN" -p dk create --image "$DOCKER_TEST_IMAGE" --ttl 3600) || exit 2
    DK_IDS=$d
    export DOCKER_HOST=$DOCKER_TEST_HOST
    up=$(secs "$SANDMAN" -p dk cp -r "$T" "$d:/tmp/up")
    dup=$(secs docker cp "$T" "$d:/tmp/dcp")
    row "docker upload" "$up" "$dup" 1.0 "docker cp"
    down=$(secs "$SANDMAN" -p dk cp -r "$d:/tmp/up" "$WORK/down")
    ddown=$(secs docker cp "$d:/tmp/up" "$WORK/dcpdown")
    row "docker download" "$down" "$ddown" 1.0 "docker cp"
else
    echo "# docker CLI or podman missing: the docker rows were not run"
fi
exit $MISSED
