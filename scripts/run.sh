#!/bin/sh
# `make run`: opens the sandman dashboard on the local provider. With no sandboxes yet it offers
# the demo rollout (`sandman demo`) so there is something to watch. Without a terminal (CI, a
# pipe) it runs a short headless tour instead: create, exec, status, stats, rm.
set -eu
BUILD=${1:-build}
S="$BUILD/sandman"

if [ -t 0 ] && [ -t 1 ]; then
    if [ -z "$("$S" ls -q 2>/dev/null)" ]; then
        printf 'No sandboxes yet. Start the demo rollout (8 sandboxes, removed with "sandman demo --stop")? [Y/n] '
        read -r answer || answer=n
        case $answer in
        n* | N*) ;;
        *) "$S" demo ;;
        esac
    fi
    exec "$S"
fi

say() { printf '\n$ %s\n' "$*"; }
say sandman providers
"$S" providers
say sandman create --memory-mib 256 --ttl 600 -l demo=tour
ID=$("$S" create --memory-mib 256 --ttl 600 -l demo=tour)
echo "$ID"
say sandman exec "$ID" -- 'uname -a; id; hostname; ls /sys/class/net'
"$S" exec "$ID" -- 'uname -a; id; hostname; ls /sys/class/net'
say sandman exec "$ID" -- 'touch /etc/x'
"$S" exec "$ID" -- 'touch /etc/x' || echo "(exit $?: the host root is read-only inside)"
say sandman status "$ID"
"$S" status "$ID"
say sandman stats "$ID"
"$S" stats "$ID"
say sandman events "$ID"
"$S" events "$ID"
say sandman rm "$ID"
"$S" rm "$ID"
echo
echo "Run 'make run' in a terminal (or '$S') for the dashboard."
