#!/usr/bin/env bash
# Runs the provider contract suite against the opensandbox provider and the fake OpenSandbox
# server of tests/fakes (real local sandboxes behind a faked control plane, on a loopback port).
# The fake keeps the real server's rules except the 60 s floor of `timeout`, lowered here to
# 1 s so the TTL test can watch an expiry (tests/integration/opensandbox_faults.sh checks the
# floor). Stopping the fake removes every sandbox it made.
# usage: opensandbox.sh PATH/TO/contract_suite PATH/TO/osb_fake_server PATH/TO/osb_fake_execd
set -u
suite=$1 server=$2 execd=$3
dir=$(mktemp -d /tmp/sandman-contract-osb-XXXXXX)
export SANDMAN_STATE_DIR=$dir/state
key=test-key-$RANDOM$RANDOM
"$server" --port-file "$dir/port" --execd "$execd" --api-key "$key" --min-timeout 1 \
    --local-config '{"network": "host"}' 2>"$dir/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
[ -s "$dir/port" ] || { echo "the fake server did not start"; cat "$dir/server.log"; exit 1; }
port=$(cat "$dir/port")
export SANDMAN_CONTRACT_CONFIG="{\"connection\": {\"domain\": \"127.0.0.1:$port\", \"api_key\": \"$key\", \"request_timeout_s\": 30}, \"create\": {\"retry_delay_s\": 0.05, \"retry_max_delay_s\": 0.2}, \"operations\": {\"retry_delay_s\": 0.05, \"retry_max_delay_s\": 0.2}, \"probe\": {\"stable_count\": 2, \"deadline_s\": 30}}"
export SANDMAN_CONTRACT_IMAGE=ubuntu:22.04
"$suite" opensandbox
