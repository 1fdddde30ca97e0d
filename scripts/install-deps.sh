#!/bin/sh
# Installs the Debian packages sandman needs to build, run and test, but only those missing.
# Idempotent and fast when nothing is missing (one dpkg-query call).
set -eu

PKGS="build-essential cmake pkg-config libncurses-dev libvterm-dev libcurl4-openssl-dev \
libcjson-dev libyaml-dev libuv1-dev libcmocka-dev libmicrohttpd-dev \
tmux ncurses-term bubblewrap busybox-static util-linux iproute2 htop clang-format keyutils \
podman runc conmon catatonit netavark aardvark-dns iptables curl stress-ng slirp4netns libarchive-dev \
slurm-wlm slurm-client"
# make fuzz: clang and its libFuzzer/sanitizer runtimes (Debian 12's clang is 14).
[ "${SANDMAN_FUZZ_DEPS:-}" = 1 ] && PKGS="$PKGS clang libclang-rt-14-dev perl"
[ -n "${SANDMAN_EXTRA_PKGS:-}" ] && PKGS="$PKGS $SANDMAN_EXTRA_PKGS"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
