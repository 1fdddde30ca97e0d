# NeMo Gym's files through the CLI, with the local provider: a merged run config (top-level
# values, a helper anchor, a server block beside the sandbox block) works with and without -p;
# an unset ${oc.env:...} in a block that is not selected does not block -p local;
# ${oc.env:X,null} in default_metadata leaves the label out; other resolvers are errors naming
# them; a provider this build lacks is named, never replaced by a local sandbox; option errors
# name file, line and block; `providers -c FILE` checks the file and lists its blocks.
. "$(dirname "$0")/../lib.sh"

D=$SANDMAN_STATE_DIR
unset OPENSANDBOX_API_KEY NG_TEAM
one_line() { [ "$(printf '%s\n' "$1" | wc -l)" -eq 1 ]; }
count_sandboxes() { "$SANDMAN" -p local ls -aq | grep -c . ; }

# ---- a merged run config, written the way NeMo Gym merges its config_paths
cat >"$D/merged.yaml" <<'YAML'
config_paths: [agent.yaml, local_sandbox.yaml, model.yaml]
policy_base_url: http://127.0.0.1:8000/v1
policy_model_name: some-model
_shared:
  spec_resources: &res {cpu: 1, memory_mib: 512}
  retries: 3
my_agent:
  responses_api_agents:
    my_agent:
      entrypoint: app.py
      sandbox_provider: sandbox
      sandbox_spec:
        resources: *res
        metadata: {benchmark: "${oc.env:NG_BENCHMARK_UNSET}"}
sandbox:
  default_metadata:
    sandbox-api: local
    team: ${oc.env:NG_TEAM,null}
  local:
    default_timeout_s: 60
remote:
  opensandbox:
    connection:
      api_key: ${oc.env:OPENSANDBOX_API_KEY}
YAML

run "$SANDMAN" -c "$D/merged.yaml" create
expect_eq "a merged run config creates in the block its agent names" 0 "$RC"
ID=$OUT
run "$SANDMAN" -c "$D/merged.yaml" status -o json "$ID"
expect_eq "from that block's default_metadata" "local" "$(echo "$OUT" | json 'd["labels"]["sandbox-api"]')"
expect_eq "an \${oc.env:X,null} label with X unset is left out" "False" \
    "$(echo "$OUT" | json '"team" in d["labels"]')"
run env NG_TEAM=evals "$SANDMAN" -c "$D/merged.yaml" create
expect_eq "with X set, the label is there" 0 "$RC"
run "$SANDMAN" -c "$D/merged.yaml" status -o json "$OUT"
expect_eq "with the variable's value" "evals" "$(echo "$OUT" | json 'd["labels"]["team"]')"

run "$SANDMAN" -c "$D/merged.yaml" -p local ls
expect_eq "-p local works beside a block whose variable is unset" 0 "$RC"
run "$SANDMAN" -c "$D/merged.yaml" -p remote ls
expect_eq "selecting that block is a config error" 2 "$RC"
expect_eq "naming the file, line, block and variable" \
    "sandman: $D/merged.yaml:24:7: block 'remote': environment variable OPENSANDBOX_API_KEY is not set (use \${oc.env:OPENSANDBOX_API_KEY,default})" "$ERR"

run "$SANDMAN" -c "$D/merged.yaml" -p my_agent ls
expect_eq "a server block selected exits 2" 2 "$RC"
expect_match "saying what it is" "block 'my_agent' in .*merged.yaml is a NeMo Gym server block \(responses_api_agents\), not a sandbox block" "$ERR"
run "$SANDMAN" -c "$D/merged.yaml" -p policy_base_url ls
expect_match "a top-level value selected says so" "top-level key 'policy_base_url' in .* is not a sandbox block \(a scalar\)" "$ERR"

# ---- resolvers sandman does not have
printf 'net: none\nsandbox:\n  local:\n    network: ${oc.select:net,none}\n' >"$D/select.yaml"
run "$SANDMAN" -c "$D/select.yaml" ls
expect_eq "oc.select is a config error" 2 "$RC"
expect_match "naming the resolver and where" "select.yaml:4:5: block 'sandbox': '\\$\\{oc.select:net,none\\}' uses the resolver 'oc.select', which sandman does not support" "$ERR"
check "in one line" one_line "$ERR"
printf 'net: none\nsandbox:\n  local:\n    network: ${net}\n' >"$D/ref.yaml"
run "$SANDMAN" -c "$D/ref.yaml" ls
expect_match "a key reference is an error naming it" "'\\$\\{net\\}' refers to another config key" "$ERR"

# ---- a provider this build lacks: named, never a local sandbox
cat >"$D/apptainer.yaml" <<'YAML'
policy_base_url: http://127.0.0.1:8000/v1
my_agent:
  responses_api_agents:
    my_agent:
      entrypoint: app.py
      sandbox_provider: sandbox
sandbox:
  apptainer:
    create: {extra_start_args: [--containall]}
YAML
before=$(count_sandboxes)
# the providers this sandman has, as `sandman providers` lists them
AVAIL=$("$SANDMAN" providers -o json | json '", ".join(p["name"] for p in d)')
run "$SANDMAN" -c "$D/apptainer.yaml" create
expect_eq "create with a provider sandman lacks exits 2" 2 "$RC"
expect_eq "saying which provider the file asked for" \
    "sandman: provider 'apptainer' (block 'sandbox' in $D/apptainer.yaml) is not built into this sandman; available: $AVAIL" "$ERR"
expect_eq "and no sandbox was made" "$before" "$(count_sandboxes)"
cat >"$D/inline.yaml" <<'YAML'
my_agent:
  responses_api_agents:
    my_agent:
      sandbox_provider:
        apptainer: {}
YAML
run "$SANDMAN" -c "$D/inline.yaml" create
expect_eq "an inline sandbox_provider under a server block is used too" \
    "sandman: provider 'apptainer' (block 'my_agent.responses_api_agents.my_agent.sandbox_provider' in $D/inline.yaml) is not built into this sandman; available: $AVAIL" "$ERR"
expect_eq "nothing made then either" "$before" "$(count_sandboxes)"

# ---- provider option errors point into the file
printf 'policy_base_url: x\nsandbox:\n  local:\n    default_timeout_s: 60\n    netwrk: none\n' >"$D/typo.yaml"
run "$SANDMAN" -c "$D/typo.yaml" ls
expect_eq "an unknown option exits 2" 2 "$RC"
expect_match "with file, line and block" "^sandman: $D/typo.yaml:5: block 'sandbox': unknown key 'netwrk' in local config \(allowed: " "$ERR"
printf 'sandbox:\n  local:\n    pids_limit: lots\n' >"$D/pids.yaml"
run "$SANDMAN" -c "$D/pids.yaml" ls
expect_eq "a mistyped value names its line" "sandman: $D/pids.yaml:3: block 'sandbox': local.pids_limit must be an integer" "$ERR"

# ---- providers -c FILE
run "$SANDMAN" providers -c "$D/merged.yaml"
expect_eq "providers -c with a block in error exits 2" 2 "$RC"
expect_match "lists the sandbox block, its provider and that it is the default" \
    "sandbox +sandbox +local +15 +\(default\) ok" "$OUT"
expect_match "the server block, ignored, and what it uses" "my_agent +server +- +7 +ignored \(responses_api_agents; uses sandbox 'sandbox'\)" "$OUT"
expect_match "top-level values, ignored" "config_paths +value +- +1 +ignored \(a list\)" "$OUT"
expect_match "and the block in error with its error" "remote +sandbox +opensandbox +21 +.*OPENSANDBOX_API_KEY is not set" "$OUT"
expect_match "which also goes to stderr" "OPENSANDBOX_API_KEY is not set" "$ERR"
run env OPENSANDBOX_API_KEY=k "$SANDMAN" providers -c "$D/merged.yaml" -o json
expect_eq "in JSON: the default and each block" "sandbox local True" \
    "$(echo "$OUT" | json 'd["default"]+" "+[b for b in d["blocks"] if b["name"]=="sandbox"][0]["provider"]+" "+str([b for b in d["blocks"] if b["name"]=="sandbox"][0]["ok"])')"
expect_match "with the key set, the block's own check is the remaining error (file, line, key)" \
    "merged.yaml:[0-9]+: block 'remote': opensandbox.connection.domain is required" \
    "$(echo "$OUT" | json '[b for b in d["blocks"] if b["name"]=="remote"][0]["error"]')"
printf 'sandbox:\n  local: {default_timeout_s: 60}\n' >"$D/good.yaml"
run "$SANDMAN" providers -c "$D/good.yaml"
expect_eq "a valid file exits 0" 0 "$RC"
# NeMo Gym's docker provider file, every key set: accepted; what sandman cannot do is named
cat >"$D/docker.yaml" <<'YAML'
sandbox:
  default_metadata:
    sandbox-api: docker-cli
  docker:
    create:
      keepalive_shell: /bin/sh
      keepalive_cmd: "while :; do sleep 2147483647; done"
      start_timeout_s: 600
      use_init: true
      apply_resource_limits: true
      publish_host: 127.0.0.1
      extra_run_args: [--shm-size=2g, --platform, linux/amd64]
    exec:
      default_timeout_s: 180
      concurrency: 32
      exec_shell: null
      extra_exec_args: []
    probe:
      command: printf docker-sandbox-ready
      expected_stdout: docker-sandbox-ready
      timeout_s: 30
      deadline_s: 60
      stable_count: 1
      stable_delay_s: 0
    networking: {loopback_forwarding: true}
YAML
run "$SANDMAN" providers -c "$D/docker.yaml"
expect_eq "NeMo Gym's docker file is valid" 0 "$RC"
expect_match "flags and keys sandman cannot honour are named" \
    "sandbox +sandbox +docker +1 +\(default\) ok .*warning: docker.create.extra_run_args ignores --platform linux/amd64 .*docker.networking is ignored" "$OUT"
run "$SANDMAN" providers -c "$D/missing.yaml"
expect_eq "a missing file is an error" 2 "$RC"
expect_match "naming it" "missing.yaml: No such file or directory" "$ERR"
run "$SANDMAN" providers
expect_match "without -c, the providers as before" "^PROVIDER +CAPABILITIES" "$OUT"

finish
