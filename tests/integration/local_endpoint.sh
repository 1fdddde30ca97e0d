# sandman endpoint on the local provider: with network: private a sandbox's declared ports are
# forwarded from 127.0.0.1 on the host (a server inside answers through the URL endpoint
# prints), endpoint without a port lists each, an undeclared port is refused naming the
# declared ones, network: none says how to get a network, and the link (slirp4netns) ends
# with the sandbox, by rm and by its TTL, leaving no process or cgroup behind.
. "$(dirname "$0")/../lib.sh"

wait_until() {
    local end=$(($(date +%s) + $1))
    shift
    while ! "$@"; do
        [ "$(date +%s)" -ge "$end" ] && return 1
        sleep 0.1
    done
}
mkdir -p "$XDG_CONFIG_HOME/sandman"
printf 'priv:\n  local:\n    network: private\nnone:\n  local:\n    network: none\n' \
    >"$XDG_CONFIG_HOME/sandman/config.yaml"
S() { "$SANDMAN" -p priv "$@"; }
slirp_of() { sed -n 's/^slirp_pid=//p' "$SANDMAN_STATE_DIR/local/$1/net"; }
is_slirp() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = slirp4netns ] && ! process_gone "$1"; }
# the server answers: a GET of URL/index.html prints what the sandbox wrote
serves() { [ "$(curl -s --max-time 2 "$1/index.html")" = "$2" ]; }

run S create --port 8080 --port 9090
expect_eq "create with network: private exits 0" 0 "$RC"
ID=$OUT
SLIRP=$(slirp_of "$ID")
check "its link runs (slirp4netns)" is_slirp "$SLIRP"
run S exec "$ID" -- 'ip -4 -o addr show tap0'
expect_match "the sandbox has its user-mode link" 'tap0 +inet 10\.0\.2\.100/24' "$OUT"
run S exec "$ID" -- 'ip -o link show lo'
expect_match "and loopback, up" 'lo: <LOOPBACK,UP' "$OUT"

S exec "$ID" -- 'mkdir -p /tmp/www && echo from-8080 >/tmp/www/index.html && cd /tmp/www && (setsid python3 -m http.server 8080 >/dev/null 2>&1 &)'
run S endpoint "$ID" 8080
expect_eq "endpoint ID PORT exits 0" 0 "$RC"
URL=$OUT
expect_match "it prints a URL on the host's loopback" '^http://127\.0\.0\.1:[0-9]+$' "$URL"
check "the sandbox's server answers through it" wait_until 20 serves "$URL" from-8080
HP=${URL##*:}
expect_match "the host port is bound on 127.0.0.1 only" "^127\.0\.0\.1:$HP\$" \
    "$(ss -Hltn "sport = :$HP" | awk '{print $4}' | sort -u | tr '\n' ' ' | sed 's/ $//')"

run S endpoint "$ID"
expect_match "endpoint ID lists each declared port" "^8080 +$URL" "$OUT"
expect_match "9090 too" '9090 +http://127\.0\.0\.1:[0-9]+' "$OUT"
run S endpoint -o json "$ID" 9090
expect_eq "-o json has the port" 9090 "$(echo "$OUT" | json 'd["port"]')"
expect_eq "and no headers are needed" "{}" "$(echo "$OUT" | json 'd["headers"]')"

run S endpoint "$ID" 1234
expect_eq "an undeclared port is refused (bad input)" 2 "$RC"
expect_match "naming the declared ports" "port 1234 was not declared.*declared: 8080, 9090" "$ERR"
run S endpoint -o json "$ID" 1234
expect_eq "with a JSON error object" invalid "$(echo "$OUT" | json 'd["error"]["kind"]')"
run S endpoint "$ID" 70000
expect_eq "a port out of range is a usage error" 2 "$RC"

# a second sandbox declaring the same port gets its own host port
run S create --port 8080
ID2=$OUT
run S endpoint "$ID2" 8080
expect_match "a second sandbox on the same port gets another host port" '^http://127\.0\.0\.1:[0-9]+$' "$OUT"
check "that is not the first one's" test "$OUT" != "$URL"

run "$SANDMAN" -p none create --port 8080
NONE=$OUT
run "$SANDMAN" -p none endpoint "$NONE" 8080
expect_eq "network: none has no endpoint" 1 "$RC"
expect_match "and says which setting gives one" "network: private" "$ERR"

CGS=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1])).get('cgroups',{}); print(' '.join(x+'/net' for k,v in c.items() if k!='version' for x in (v if isinstance(v,list) else [v])))" "$SANDMAN_STATE_DIR/local/$ID/spec.json")
check "the link runs in a cgroup below the sandbox's own" test -n "$CGS"
run S rm "$ID"
expect_eq "rm exits 0" 0 "$RC"
check "rm ends the link" process_gone "$SLIRP"
left=""
for c in $CGS; do [ -e "$c" ] && left="$left $c"; done
expect_eq "and removes its cgroups" "" "$left"
check "nothing answers on its port any more" wait_until 10 sh -c "! curl -s --max-time 1 '$URL' >/dev/null"

run S create --ttl 2 --port 8080
TTL=$OUT
TSLIRP=$(slirp_of "$TTL")
check "a sandbox with a TTL has its link" is_slirp "$TSLIRP"
check "its link ends when the TTL ends the sandbox" wait_until 30 process_gone "$TSLIRP"

finish
