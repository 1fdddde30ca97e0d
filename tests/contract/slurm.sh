#!/usr/bin/env bash
# Runs the provider contract suite against the slurm provider on a private 4-node cluster
# (tests/slurm/cluster.bash), with the shared state directory in the cluster's directory, so
# stopping the cluster removes whatever a failed test left. The endpoint test needs the node's
# sandbox on the host network. Without slurm-wlm it fails, unless SANDMAN_SKIP_SLURM=1 (exit 77).
# usage: slurm.sh PATH/TO/contract_suite
set -u
suite=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/sandman-contract-slurm-XXXXXX)
trap 'bash "$here/../slurm/cluster.bash" stop "$dir" >/dev/null 2>&1' EXIT
bash "$here/../slurm/cluster.bash" start "$dir" $$ >/dev/null || exit
# shellcheck disable=SC1091 # written by cluster.bash start
. "$dir/cluster.env"
export SANDMAN_CONTRACT_CONFIG="{\"state_dir\": \"$dir/shared\", \"partition\": \"$SLURM_TEST_PARTITION\"}"
export SANDMAN_CONTRACT_NET_CONFIG="{\"state_dir\": \"$dir/shared\", \"network\": \"host\"}"
"$suite" slurm
