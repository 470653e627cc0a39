#!/usr/bin/env bash
# Install everything mgcap needs to build and test on a fresh Debian 12 machine.
# Idempotent; pinned where the package source allows it.
set -euo pipefail

VIRTME_NG_VERSION=1.42
BACKPORTS_KVER=6.12

export DEBIAN_FRONTEND=noninteractive

sources=/etc/apt/sources.list.d/debian.sources
if [ -f "$sources" ] && ! grep -q '^Types: deb deb-src' "$sources"; then
	sed -i '0,/^Types: deb$/s//Types: deb deb-src/' "$sources"
fi
bpo=/etc/apt/sources.list.d/mgcap-backports.sources
if [ ! -f "$bpo" ]; then
	cat >"$bpo" <<EOS
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
fi

apt-get update -qq

apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake libtool pkg-config flex bison dpkg-dev \
	libnl-3-dev libnl-genl-3-dev libcunit1-dev libpcap-dev libsystemd-dev libcap-ng-dev \
	qemu-system-x86 linux-image-amd64 linux-headers-amd64 \
	linux-image-rt-amd64 linux-headers-rt-amd64 \
	sparse linux-source-6.1 xz-utils help2man groff-base \
	iproute2 ethtool kmod busybox-static procps python3-pip \
	tcpdump tshark wireshark-common argus-server argus-client \
	netsniff-ng valgrind gnuplot-nox python3 linux-perf \
	debhelper dh-dkms dkms lintian systemd udev \
	clang-14 libclang-rt-14-dev \
	libelf-dev libssl-dev bc >/dev/null	# (clang: the fuzzers; the last: make check-debug's kernel)

# Second kernel: Debian's 6.12 from bookworm-backports, generic and
# PREEMPT_RT (the VM tests pick what runs on each by its flavour)
apt-get install -y -qq --no-install-recommends -t bookworm-backports \
	"linux-image-${BACKPORTS_KVER}-amd64" "linux-headers-${BACKPORTS_KVER}-amd64" \
	"linux-image-${BACKPORTS_KVER}-rt-amd64" "linux-headers-${BACKPORTS_KVER}-rt-amd64" >/dev/null

pip install -q --root-user-action=ignore "virtme-ng==${VIRTME_NG_VERSION}"
echo "install-deps: done"
