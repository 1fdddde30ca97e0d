# Directory transfer on the local provider (core/transfer.c through local_fs.c's tar streams):
# round trips, sandbox to sandbox, tar streams, an interrupted download (lib_transfer.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib_transfer.sh"
SM_CP=("$SANDMAN")
sm_cp() { "$SANDMAN" "$@"; }

a=$("$SANDMAN" create --ttl 600) || { not_ok create; finish; }
b=$("$SANDMAN" create --ttl 600 -w /workspace) || { not_ok create; finish; }
roundtrip "$a" /tmp/rt "local /tmp"
roundtrip "$b" out "local relative to the workdir"
s2s "$a" "$b" local
# SIGKILL of the copying process itself: the final name never exists
c=$("$SANDMAN" create --ttl 600) || { not_ok create; finish; }
interrupted "$c" "\"$SANDMAN\" rm $c >/dev/null; kill -KILL \$pid" "local, killed mid-transfer"
finish
