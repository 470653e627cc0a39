#!/bin/sh
# Sets everything up on a Debian 12 machine and runs every test: host unit
# tests (plain and under ASan/UBSan), checkpatch --strict, sparse, the
# kernel tests in a VM on each installed kernel (6.1 and 6.12), and the
# Debian packages built, installed, tested in the VM and purged.
set -eu
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
autoreconf -fi >/dev/null
./configure -q
make -j2
status=0
make -j1 check || status=$?
# the Debian packages, installed and used as a user would (after make check:
# it leaves them installed only if it fails)
sh scripts/test-packages.sh || status=$?
for log in tests/unit/unit.log tests/unit/unit-san.log tests/vm/vm-tests.sh.log; do
	[ -f "$log" ] && { echo "----- $log"; cat "$log"; }
done
exit $status
