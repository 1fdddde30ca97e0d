#!/usr/bin/env bash
# The opensandbox provider against a real OpenSandbox server: runs only when
# OPENSANDBOX_DOMAIN and OPENSANDBOX_API_KEY are set (exit 77 = skipped, saying so otherwise).
# Creates one sandbox (OPENSANDBOX_LIVE_IMAGE, default python:3.11-slim), runs a command,
# moves a file both ways, lists it by its run label and removes it.
set -u
if [ -z "${OPENSANDBOX_DOMAIN:-}" ] || [ -z "${OPENSANDBOX_API_KEY:-}" ]; then
    echo "skipped: set OPENSANDBOX_DOMAIN and OPENSANDBOX_API_KEY to test a real OpenSandbox server"
    exit 77
fi
dir=$(mktemp -d /tmp/sandman-osb-live-XXXXXX)
trap '[ -n "${id:-}" ] && "$SANDMAN_BIN" -c "$dir/conf.yaml" rm "$id" >/dev/null 2>&1; rm -rf "$dir"' EXIT
cat >"$dir/conf.yaml" <<'YAML'
sandbox:
  opensandbox:
    connection: {domain: "${oc.env:OPENSANDBOX_DOMAIN}", api_key: "${oc.env:OPENSANDBOX_API_KEY}", use_server_proxy: true}
YAML
S="$SANDMAN_BIN -c $dir/conf.yaml"
export NEMO_GYM_RUN_ID=sandman-live-$RANDOM
fail=0 pass=0
check() { if [ "$2" = "$3" ]; then pass=$((pass+1)); else echo "FAIL: $1: expected [$2] got [$3]"; fail=$((fail+1)); fi; }
id=$($S create --image "${OPENSANDBOX_LIVE_IMAGE:-python:3.11-slim}" --ttl 600)
check "create" 1 "$([ -n "$id" ] && echo 1 || echo 0)"
check "exec" "live-ok" "$($S exec "$id" -- echo live-ok 2>&1)"
echo payload >"$dir/up.txt"
$S cp "$dir/up.txt" "$id:/tmp/up.txt" >/dev/null 2>&1
check "upload" "payload" "$($S exec "$id" -- cat /tmp/up.txt 2>&1)"
check "ls by run" 1 "$($S ls --run "$NEMO_GYM_RUN_ID" 2>&1 | grep -c "${id:0:12}")"
$S rm "$id" >/dev/null 2>&1 && id=
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
