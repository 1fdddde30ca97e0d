#!/usr/bin/env bash
# Runs the provider contract suite against the docker provider: a real engine (the private
# podman service of tests/integration/docker_engine.bash, or SANDMAN_DOCKER_HOST), its test
# image, and a label on every sandbox so that stopping the engine removes what a failed test
# left. Sandboxes have no network, except for the endpoint test (the engine's default network
# publishes ports). Without podman it fails, unless SANDMAN_SKIP_DOCKER=1 (exit 77 = skipped).
# usage: docker.sh PATH/TO/contract_suite
set -u
suite=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/sandman-contract-dk-XXXXXX)
# stopping undoes whatever a start got to, a failed one too
trap 'bash "$here/../integration/docker_engine.bash" stop "$dir" >/dev/null 2>&1' EXIT
bash "$here/../integration/docker_engine.bash" start "$dir" $$ >/dev/null || exit
# shellcheck disable=SC1091 # written by docker_engine.bash start
. "$dir/engine.env"
export SANDMAN_CONTRACT_CONFIG="{\"host\": \"$DOCKER_TEST_HOST\", \"create\": {\"network\": \"none\"}}"
export SANDMAN_CONTRACT_NET_CONFIG="{\"host\": \"$DOCKER_TEST_HOST\"}"
export SANDMAN_CONTRACT_IMAGE=$DOCKER_TEST_IMAGE
export SANDMAN_CONTRACT_LABEL=sandman-test-run=$DOCKER_TEST_RUN
"$suite" docker
