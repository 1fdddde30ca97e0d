#!/usr/bin/env bash
# sandman -c FILE with a NeMo Gym-style opensandbox block (OPENSANDBOX_DOMAIN and
# OPENSANDBOX_API_KEY through ${oc.env:...}), against the fake server of tests/fakes: create,
# exec, ls by run, rm; the key never appears in what sandman prints; keys sandman cannot honour
# are named in a warning.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bindir=$(dirname "$SANDMAN_BIN")
dir=$(mktemp -d /tmp/sandman-osb-cli-XXXXXX)
export SANDMAN_STATE_DIR=$dir/state
key=cli-secret-$RANDOM$RANDOM
"$bindir/tests/osb_fake_server" --port-file "$dir/port" --execd "$bindir/tests/osb_fake_execd" \
    --api-key "$key" 2>"$dir/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
export OPENSANDBOX_DOMAIN=127.0.0.1:$(cat "$dir/port") OPENSANDBOX_API_KEY=$key
cat >"$dir/conf.yaml" <<'YAML'
sandbox:
  default_metadata: {sandbox-api: opensandbox-sdk}
  opensandbox:
    connection:
      domain: ${oc.env:OPENSANDBOX_DOMAIN}
      api_key: ${oc.env:OPENSANDBOX_API_KEY}
      protocol: http
      request_timeout_s: 300
      use_server_proxy: true
      keepalive_expiry_s: 3.0
      max_keepalive_connections: 20
      max_connections: null
      connect_retries: 2
      transport_backend: httpx
    create: {request_timeout_s: 1200, timeout_s: 1500, retries: 10, retry_delay_s: 5, retry_max_delay_s: 90, image_pull_policy: IfNotPresent, skip_health_check: false, connect_attempt_timeout_s: 1500, connect_poll_s: 2}
    probe: {command: printf nemo-gym-sandbox-ready, timeout_s: 60, deadline_s: 180, stable_count: 2, stable_delay_s: 1}
    operations: {retries: 5, retry_delay_s: 1, retry_max_delay_s: 45, command_retries: 0, close_timeout_s: 30, background_exec: false, background_poll_initial_s: 1, background_poll_interval_s: 30}
    attribution: {enabled: true, key_prefix: nemo-gym.nvidia.com/}
YAML
fail=0 pass=0
check() { if [ "$2" = "$3" ]; then pass=$((pass+1)); else echo "FAIL: $1: expected [$2] got [$3]"; fail=$((fail+1)); fi; }
S="$SANDMAN_BIN -c $dir/conf.yaml"
out=$($S providers 2>&1)
check "providers names transport_backend as ignored" 1 "$(grep -c 'transport_backend is ignored' <<<"$out")"
id=$($S create --image ubuntu:22.04 2>"$dir/create.err"); cat "$dir/create.err" >&2
check "create prints an id" 1 "$([ -n "$id" ] && echo 1 || echo 0)"
check "exec through the server proxy" "hello" "$($S exec "$id" -- echo hello 2>&1)"
NEMO_GYM_RUN_ID= check "ls shows it" 1 "$($S ls 2>&1 | grep -c "${id:0:12}")"
$S rm "$id" >/dev/null 2>&1
check "rm removed it" 0 "$($S ls 2>&1 | grep -c "${id:0:12}")"
check "the key is never printed" 0 "$(cat "$dir/create.err" <(echo "$out") | grep -c "$key")"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
