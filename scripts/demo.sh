#!/bin/sh
# One command from a fresh Debian 12 machine to a capture you can look at:
# installs what is needed, builds, boots Debian's kernel in a VM (the host
# may not be able to load modules), captures the test NIC's traffic with
# hardware time stamps, and shows what was captured.
set -eu
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
[ -x configure ] || autoreconf -fi >/dev/null
[ -f Makefile ] || ./configure -q
make -s -j2 all testnic >/dev/null
# the machine's own kernel where Debian's generic one runs it, else Debian
# 12's own generic kernel (never a PREEMPT_RT one: the demo shows the common case)
kver=$(uname -r)
case $kver in
*-rt-*|*-mgcap-debug) kver= ;;
esac
[ -n "$kver" ] && [ -f "/boot/vmlinuz-$kver" ] && [ -f "build/$kver/kmod/mgcap.ko" ] ||
	kver=$(ls /boot | sed -n 's/^vmlinuz-\(6\.1\.[0-9]*-[0-9]*-amd64\)$/\1/p' | sort -V | tail -n 1)
if [ -z "$kver" ] || [ ! -f "build/$kver/kmod/mgcap.ko" ]; then
	echo "demo: no generic Debian kernel with mgcap.ko built for it (scripts/install-deps.sh installs one)" >&2
	exit 1
fi
out=$PWD/build/demo
mkdir -p "$out"
exec tests/vm/run-vm.sh "$kver" "$out" "sh '$PWD/tests/vm/demo-guest.sh' '$PWD'"
