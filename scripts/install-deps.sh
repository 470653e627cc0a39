#!/usr/bin/env bash
# Install everything mgcap needs to build and test on a fresh Debian 12 machine.
# Idempotent; pinned where the package source allows it.
set -euo pipefail

VIRTME_NG_VERSION=1.42
BACKPORTS_KVER=6.12
QEMU_SERIES=10.0	# (backports keeps its newest build of a series alone)
QEMU_DIR=/opt/mgcap-qemu	# (tests/vm/run-vm.sh looks here)

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
	libnl-3-dev libnl-genl-3-dev libcunit1-dev libpcap-dev libsystemd-dev libcap-ng-dev liburing-dev \
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

# QEMU 10 of bookworm-backports beside the stock 7.2, for the VM tests
# igb (82576, RSS over 8 queues: QEMU 8 and later): unpacked into $QEMU_DIR
# with a wrapper that points it at its own modules and data (installing it
# would replace 7.2).  Its firmware is the system's (/usr/share/seabios,
# /usr/lib/ipxe/qemu): bookworm's seabios 1.16.2 boots it, though its
# package asks for 1.16.3.  The display modules come too: without them
# QEMU 10 reaches for 7.2's and aborts (`-device help`, which run-vm.sh asks).
if ! "$QEMU_DIR/bin/qemu-system-x86_64" --version 2>/dev/null |
	grep -q "^QEMU emulator version $QEMU_SERIES\."; then
	qemu_debs=$(mktemp -d) && chmod 755 "$qemu_debs"	# (apt downloads as _apt)
	(cd "$qemu_debs" && apt-get download -qq -t bookworm-backports qemu-system-x86 \
		qemu-system-common qemu-system-data qemu-system-modules-opengl \
		qemu-system-modules-spice) ||
		{ echo "install-deps: cannot download QEMU $QEMU_SERIES from bookworm-backports" >&2; exit 1; }
	# its libraries (7.2 needs fewer): the Depends of its debs but QEMU's
	# own and the firmware, the first of each set of alternatives
	qemu_libs=$(for deb in "$qemu_debs"/*.deb; do dpkg-deb -f "$deb" Depends; done |
		tr ',' '\n' | sed 's/|.*//; s/(.*//; s/ //g' |
		grep -v -e '^qemu' -e '^seabios$' -e '^ipxe' -e '^$' | sort -u)
	apt-get install -y -qq --no-install-recommends $qemu_libs >/dev/null
	rm -rf "$QEMU_DIR" && mkdir -p "$QEMU_DIR/bin"
	for deb in "$qemu_debs"/*.deb; do dpkg-deb -x "$deb" "$QEMU_DIR/root"; done
	rm -rf "$qemu_debs"
	cat >"$QEMU_DIR/bin/qemu-system-x86_64" <<EOS
#!/bin/sh
# QEMU $QEMU_SERIES of bookworm-backports, unpacked by mgcap's install-deps.sh
root=$QEMU_DIR/root
QEMU_MODULE_DIR=\$root/usr/lib/x86_64-linux-gnu/qemu exec "\$root/usr/bin/qemu-system-x86_64" \\
	-L "\$root/usr/share/qemu" "\$@"
EOS
	chmod 755 "$QEMU_DIR/bin/qemu-system-x86_64"
fi

pip install -q --root-user-action=ignore "virtme-ng==${VIRTME_NG_VERSION}"
echo "install-deps: done"
