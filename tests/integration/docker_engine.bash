# shellcheck shell=bash
# A real Docker-compatible engine for the docker provider's tests (and its benchmark).
#
# Without SANDMAN_DOCKER_HOST it starts podman's Docker-compatible service on a private socket
# with a private config (CONTAINERS_CONF: runc, ulimits this machine allows, short exec
# cleanup delay; spec/environment.md §3.6) and private storage (--root/--runroot), so tests
# never touch /etc/containers or each other. With SANDMAN_DOCKER_HOST (unix:// or tcp://, plus
# DOCKER_TLS_VERIFY/DOCKER_CERT_PATH for TLS) it uses that engine instead. Either way it
# imports a busybox image built here (no registry needed) under a name unique to the run.
#
# Use it two ways:
#   . docker_engine.bash; docker_engine_start DIR [PID]; ...; docker_engine_stop DIR
#   bash docker_engine.bash start DIR [PID]  (writes DIR/engine.env) ... bash docker_engine.bash stop DIR
# With PID, a detached watchdog stops the engine when that process dies without doing it (a
# test killed by a timeout must not leave containers running).
# After start: DOCKER_TEST_HOST (the docker provider's host), DOCKER_TEST_IMAGE,
# DOCKER_TEST_RUN (a label value every sandbox of the run carries: sandman-test-run=<run>).
# Without podman (and no SANDMAN_DOCKER_HOST) start fails, unless SANDMAN_SKIP_DOCKER=1, in which
# case it prints SKIPPED and exits 77 (ctest counts that as skipped).

DOCKER_TEST_API=v1.41

# _dk_curl ARGS...: curl against the engine (unix socket or TCP/TLS).
_dk_curl() {
    local h=$DOCKER_TEST_HOST
    case $h in
    unix://*) curl -sS --unix-socket "${h#unix://}" "$@" ;;
    tcp://*)
        if [ -n "${DOCKER_TLS_VERIFY:-}${DOCKER_CERT_PATH:-}" ]; then
            local c=${DOCKER_CERT_PATH:-$HOME/.docker}
            curl -sS --cacert "$c/ca.pem" --cert "$c/cert.pem" --key "$c/key.pem" "$@"
        else
            curl -sS "$@"
        fi
        ;;
    esac
}

# docker_engine_url PATH: the URL for a versioned API path.
docker_engine_url() {
    case $DOCKER_TEST_HOST in
    unix://*) echo "http://d/$DOCKER_TEST_API$1" ;;
    tcp://*)
        local scheme=http
        [ -n "${DOCKER_TLS_VERIFY:-}${DOCKER_CERT_PATH:-}" ] && scheme=https
        echo "$scheme://${DOCKER_TEST_HOST#tcp://}/$DOCKER_TEST_API$1"
        ;;
    esac
}

# docker_engine_api METHOD PATH [JSON]: one API call; prints the body.
docker_engine_api() {
    if [ $# -ge 3 ]; then
        _dk_curl -X "$1" -H 'Content-Type: application/json' -d "$3" "$(docker_engine_url "$2")"
    else
        _dk_curl -X "$1" "$(docker_engine_url "$2")"
    fi
}

# docker_engine_service: starts (or, after a test stopped it, restarts) the private podman
# service on DOCKER_TEST_HOST and writes its pid to service.pid. The background job is a simple
# command, not a function, so that $! is podman itself (which docker_engine_stop kills).
# --time: a safety net if the test dies without stopping it.
docker_engine_service() {
    CONTAINERS_CONF=$_DK_DIR/containers.conf podman --root "$_DK_DIR/root" \
        --runroot "$_DK_DIR/run" --tmpdir "$_DK_DIR/tmp" \
        system service --time=600 "$DOCKER_TEST_HOST" >>"$_DK_DIR/service.log" 2>&1 &
    echo $! >"$_DK_DIR/service.pid"
}

_dk_podman() {
    CONTAINERS_CONF=$_DK_DIR/containers.conf podman --root "$_DK_DIR/root" \
        --runroot "$_DK_DIR/run" --tmpdir "$_DK_DIR/tmp" "$@"
}

_dk_rootfs() {
    local r=$1 bb
    bb=$(command -v busybox) || { echo "docker_engine: busybox is not installed" >&2; return 1; }
    mkdir -p "$r/bin" "$r/etc" "$r/tmp" "$r/root" "$r/proc" "$r/dev" "$r/sys"
    chmod 1777 "$r/tmp"
    cp "$bb" "$r/bin/busybox"
    # one process for ~400 links (a loop of ln takes seconds on a busy machine)
    "$r/bin/busybox" --list | perl -e 'my $d = shift;
        while (<STDIN>) { chomp; symlink("busybox", "$d/$_") if $_ ne "busybox" && !-l "$d/$_"; }' "$r/bin"
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
}

_dk_write_env() {
    cat >"$_DK_DIR/engine.env" <<EOF
DOCKER_TEST_HOST=$DOCKER_TEST_HOST
DOCKER_TEST_IMAGE=$DOCKER_TEST_IMAGE
DOCKER_TEST_RUN=$DOCKER_TEST_RUN
DOCKER_TEST_KIND=$DOCKER_TEST_KIND
EOF
}

docker_engine_start() {
    _DK_DIR=$1
    mkdir -p "$_DK_DIR"
    if [ -n "${2:-}" ]; then
        setsid bash "${BASH_SOURCE[0]}" watch "$_DK_DIR" "$2" </dev/null >/dev/null 2>&1 &
    fi
    DOCKER_TEST_RUN=$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')
    DOCKER_TEST_IMAGE=localhost/sandman-test-$DOCKER_TEST_RUN:latest
    _DK_PODMAN_PID=
    if [ -n "${SANDMAN_DOCKER_HOST:-}" ]; then
        DOCKER_TEST_HOST=$SANDMAN_DOCKER_HOST
        DOCKER_TEST_KIND=external
    else
        if ! command -v podman >/dev/null 2>&1; then
            if [ "${SANDMAN_SKIP_DOCKER:-}" = 1 ]; then
                echo "SKIPPED: podman is not installed and SANDMAN_SKIP_DOCKER=1"
                exit 77
            fi
            echo "FAIL: podman is not installed: the docker provider's tests need a real engine" \
                "(scripts/install-deps.sh installs podman; or set SANDMAN_DOCKER_HOST; or" \
                "SANDMAN_SKIP_DOCKER=1 to skip them)" >&2
            exit 1
        fi
        DOCKER_TEST_KIND=podman
        mkdir -p "$_DK_DIR/tmp"
        cat >"$_DK_DIR/containers.conf" <<'EOF'
[containers]
# soft must equal hard: raising a limit needs CAP_SYS_RESOURCE, which CI machines lack
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
# how long an ended exec stays inspectable (podman's default keeps 2 conmons per exec alive for
# 300 s; 2 s, as environment.md suggests, loses exit codes on a loaded machine)
exit_command_delay = 20
EOF
        DOCKER_TEST_HOST=unix://$_DK_DIR/podman.sock
        docker_engine_service
        _DK_PODMAN_PID=$(cat "$_DK_DIR/service.pid")
        _dk_write_env
        for _ in $(seq 200); do
            [ "$(_dk_curl "$(docker_engine_url /_ping)" 2>/dev/null)" = OK ] && break
            if ! kill -0 "$_DK_PODMAN_PID" 2>/dev/null; then
                echo "FAIL: podman system service exited: $(tail -3 "$_DK_DIR/service.log")" >&2
                exit 1
            fi
            sleep 0.05
        done
    fi
    _dk_write_env # from here on, docker_engine_stop can undo everything
    if [ "$(_dk_curl "$(docker_engine_url /_ping)" 2>/dev/null)" != OK ]; then
        echo "FAIL: the engine at $DOCKER_TEST_HOST does not answer /_ping" >&2
        exit 1
    fi
    _dk_rootfs "$_DK_DIR/rootfs" || exit 1
    local out
    out=$(tar -C "$_DK_DIR/rootfs" -c . | _dk_curl -X POST -H 'Content-Type: application/x-tar' \
        --data-binary @- \
        "$(docker_engine_url "/images/create?fromSrc=-&repo=${DOCKER_TEST_IMAGE%:latest}&tag=latest")")
    if ! docker_engine_api GET "/images/$DOCKER_TEST_IMAGE/json" | grep -q '"Id"'; then
        echo "FAIL: importing the test image failed: $out" >&2
        exit 1
    fi
    export DOCKER_TEST_HOST DOCKER_TEST_IMAGE DOCKER_TEST_RUN DOCKER_TEST_KIND
}

# Removes every container of the run (by its label; with the private podman, every container),
# the image, and the private podman.
docker_engine_stop() {
    _DK_DIR=$1
    # shellcheck disable=SC1091 # written by docker_engine_start
    [ -f "$_DK_DIR/engine.env" ] && . "$_DK_DIR/engine.env"
    [ -n "${DOCKER_TEST_HOST:-}" ] || { rm -rf "$_DK_DIR"; return 0; }
    local q="/containers/json?all=1" ids id
    [ "${DOCKER_TEST_KIND:-}" = podman ] ||
        q="$q&filters=%7B%22label%22%3A%5B%22sandman-test-run%3D$DOCKER_TEST_RUN%22%5D%7D"
    ids=$(docker_engine_api GET "$q" 2>/dev/null | grep -o '"Id":"[0-9a-f]*"' | cut -d'"' -f4)
    for id in $ids; do
        docker_engine_api DELETE "/containers/$id?force=1&v=1" >/dev/null 2>&1
    done
    if [ "${DOCKER_TEST_KIND:-}" = podman ]; then
        local pid
        pid=$(cat "$_DK_DIR/service.pid" 2>/dev/null)
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
            _dk_podman rm -af -t 0 >/dev/null 2>&1 # the service died: clean up without it
        fi
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null
            for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
            kill -9 "$pid" 2>/dev/null
        fi
        # podman bind-mounts its storage onto itself; unmount before removing
        awk -v d="$_DK_DIR/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r |
            while read -r m; do umount -l "$m" 2>/dev/null; done
    else
        docker_engine_api DELETE "/images/$DOCKER_TEST_IMAGE?force=1" >/dev/null 2>&1
    fi
    rm -rf "$_DK_DIR"
}

# Run as a program: start DIR | stop DIR.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    case ${1:-} in
    start) docker_engine_start "$2" "${3:-}" ;;
    stop) docker_engine_stop "$2" ;;
    watch)
        trap '' HUP INT TERM
        while kill -0 "$3" 2>/dev/null && [ -d "$2" ]; do sleep 1; done
        [ -d "$2" ] && docker_engine_stop "$2"
        ;;
    *)
        echo "usage: $0 start DIR [PID] | stop DIR" >&2
        exit 2
        ;;
    esac
fi

# docker_test_begin [CREATE-KEY-LINE...]: the common start of a shell test of the docker
# provider (after lib.sh): a private engine in a fresh directory, removed at exit with the
# test's sandboxes (running $DOCKER_TEST_ON_EXIT first when set), IMG, and $SANDMAN_CONFIG with
# a block `dk` on that engine whose containers carry this run's label, its create keys given as
# "key: value" arguments.
docker_test_begin() {
    ENGINE=$(mktemp -d /tmp/sandman-dk-XXXXXX)
    trap '${DOCKER_TEST_ON_EXIT:-:}; docker_engine_stop "$ENGINE"; cleanup' EXIT
    docker_engine_start "$ENGINE" $$
    IMG=$DOCKER_TEST_IMAGE
    echo "# engine: $DOCKER_TEST_HOST ($DOCKER_TEST_KIND), image $IMG"
    export SANDMAN_CONFIG=$SANDMAN_STATE_DIR/config.yaml
    {
        printf 'dk:\n  docker:\n    host: %s\n' "$DOCKER_TEST_HOST"
        [ $# -gt 0 ] && printf '    create:\n' && printf '      %s\n' "$@"
        printf '  default_metadata:\n    sandman-test-run: "%s"\n' "$DOCKER_TEST_RUN"
    } >"$SANDMAN_CONFIG"
}
