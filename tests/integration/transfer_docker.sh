# Directory transfer on the docker provider (the engine's archive API as tar streams): round
# trips, sandbox to sandbox, tar streams, a container removed mid-download.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/docker_engine.bash"
. "$(dirname "$0")/lib_transfer.sh"
docker_test_begin "network: none"
SM_CP=("$SANDMAN" -p dk)
sm_cp() { "$SANDMAN" -p dk "$@"; }

a=$(sm_cp create --image "$IMG" --ttl 600) || { not_ok create; finish; }
b=$(sm_cp create --image "$IMG" --ttl 600) || { not_ok create; finish; }
roundtrip "$a" /tmp/rt docker
s2s "$a" "$b" docker
c=$(sm_cp create --image "$IMG" --ttl 600) || { not_ok create; finish; }
interrupted "$c" "sm_cp rm $c >/dev/null" "docker, container removed mid-download"
finish
