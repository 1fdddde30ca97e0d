# OpenTelemetry from the command line, as a rollout uses it: each sandman process writes its
# spans as OTLP JSON files, the create, exec, cp and rm of one sandbox (four processes) form one
# trace, the command line is not in it; a collector that is down, a bad endpoint or an
# unwritable directory never change what a command prints or returns, and are named once.
. "$(dirname "$0")/../lib.sh"

OBS=$SANDMAN_STATE_DIR/obs
export NEMO_GYM_SANDBOX_OBSERVABILITY_DIR=$OBS
ID=$("$SANDMAN" create)
run "$SANDMAN" exec "$ID" -- 'echo SECRET_FLAG; exit 3'
expect_eq "the command's exit status is kept" 3 "$RC"
expect_eq "and its output" SECRET_FLAG "$OUT"
expect_eq "nothing on stderr when the export works" "" "$ERR"
echo data >"$SANDMAN_STATE_DIR/up.txt"
"$SANDMAN" cp "$SANDMAN_STATE_DIR/up.txt" "$ID:/tmp/up.txt"
"$SANDMAN" rm "$ID" >/dev/null

spans() {
    python3 - "$OBS" "$ID" <<'EOF'
import glob, json, sys
obs, sid = sys.argv[1:]
rows = []
for f in glob.glob(obs + "/traces/*.json"):
    for rs in json.load(open(f))["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                a = {x["key"]: list(x["value"].values())[0] for x in s["attributes"]}
                if a.get("nemo.gym.sandbox.id") == sid:
                    rows.append((int(s["startTimeUnixNano"]), s["name"], s["traceId"],
                                 a.get("nemo.gym.sandbox.return_code", "-")))
for r in sorted(rows):
    print(*r[1:])
EOF
}
SPANS=$(spans)
echo "$SPANS" | sed 's/^/# /'
expect_eq "one span per operation, in order" \
    "gym.sandbox.start gym.sandbox.exec gym.sandbox.upload gym.sandbox.stop" \
    "$(echo "$SPANS" | awk '{print $1}' | paste -sd ' ')"
expect_eq "the four processes' spans share one trace" 1 "$(echo "$SPANS" | awk '{print $2}' | sort -u | wc -l)"
expect_match "the exec span has the exit code" "^gym.sandbox.exec [0-9a-f]{32} 3$" "$(echo "$SPANS" | grep exec)"
check "the command line is in no file" bash -c "! grep -rq SECRET_FLAG '$OBS'"
check "the metrics files name the seed's instruments" \
    grep -lq '"gym.sandbox.exec_duration_ms"' -r "$OBS/metrics"
unset NEMO_GYM_SANDBOX_OBSERVABILITY_DIR

ID=$("$SANDMAN" create)
# A port nobody listens on: refused at once.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$PORT "$SANDMAN" exec "$ID" -- 'echo out; exit 4'
expect_eq "a collector that is down: the exit status is kept" 4 "$RC"
expect_eq "and the output" out "$OUT"
expect_eq "one line on stderr" 1 "$(printf '%s\n' "$ERR" | grep -c .)"
expect_match "naming the collector" "^sandman: OpenTelemetry export failed, not sending again in this process: cannot reach the OpenTelemetry collector at http://127.0.0.1:$PORT/v1/traces" "$ERR"

run env OTEL_EXPORTER_OTLP_ENDPOINT=ftp://collector:4318 "$SANDMAN" exec "$ID" -- true
expect_eq "a bad endpoint: the command still runs" 0 "$RC"
expect_match "and the URL is named once" "^sandman: OpenTelemetry export off: unsupported URL 'ftp://collector:4318/v1/traces'" "$ERR"
expect_eq "on one line" 1 "$(printf '%s\n' "$ERR" | grep -c .)"

run env NEMO_GYM_SANDBOX_OBSERVABILITY_DIR=/proc/no-such-dir "$SANDMAN" exec "$ID" -o json -- true
expect_eq "an unwritable directory: the command still runs" 0 "$RC"
expect_eq "its JSON is untouched" 0 "$(printf '%s' "$OUT" | json 'd["return_code"]')"
expect_match "the directory is named" "^sandman: OpenTelemetry: cannot create /proc/no-such-dir/traces" "$ERR"

run env OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer otlp-sekrit-42" \
    OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$PORT "$SANDMAN" exec "$ID" -- true
expect_no_match "a header's credential never reaches stderr" "otlp-sekrit" "$ERR"
finish
