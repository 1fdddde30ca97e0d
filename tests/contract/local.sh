#!/usr/bin/env bash
# Runs the provider contract suite against the local provider. Its sandboxes have no network
# unless the config says network: host, which the endpoint test needs to reach a port.
# usage: local.sh PATH/TO/contract_suite
export SANDMAN_CONTRACT_NET_CONFIG='{"network": "host"}'
exec "$1" local
