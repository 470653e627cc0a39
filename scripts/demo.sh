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
make -s -j2 >/dev/null
kver=$(ls /boot | sed -n 's/^vmlinuz-\(6\.1\..*-amd64\)$/\1/p' | sort -V | tail -n 1)
out=$PWD/build/demo
mkdir -p "$out"
exec tests/vm/run-vm.sh "$kver" "$out" "sh '$PWD/tests/vm/demo-guest.sh' '$PWD'"
