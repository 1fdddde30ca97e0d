#!/bin/sh
# `make run`: a short headless tour of sandman on the local provider: create a sandbox, run a
# command in it, show its status and stats, remove it.
set -eu
BUILD=${1:-build}
S="$BUILD/sandman"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

say sandman providers
"$S" providers
say sandman create --memory-mib 256 --ttl 600 -l demo=tour
ID=$("$S" create --memory-mib 256 --ttl 600 -l demo=tour)
echo "$ID"
say sandman exec "$ID" -- 'uname -a; id; hostname; ls /sys/class/net'
"$S" exec "$ID" -- 'uname -a; id; hostname; ls /sys/class/net'
say sandman exec "$ID" -- 'touch /etc/x'
"$S" exec "$ID" -- 'touch /etc/x' || echo "(exit $?: the host root is read-only inside)"
say sandman ls
"$S" ls
say sandman status "$ID"
"$S" status "$ID"
say sandman stats "$ID"
"$S" stats "$ID"
say sandman events "$ID"
"$S" events "$ID"
say sandman rm "$ID"
"$S" rm "$ID"
