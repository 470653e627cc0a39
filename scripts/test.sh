#!/bin/sh
# Sets everything up on a Debian 12 machine and runs every test: host unit
# tests (plain and under ASan/UBSan), checkpatch --strict, sparse, the
# kernel tests in a VM on each installed kernel (6.1 and 6.12), and the
# Debian packages built, installed, tested in the VM and purged.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
# phase WHAT: a line saying where the run is, and how long it has taken
phase() {
	t=$(($(date +%s) - start))
	echo "=== test.sh: $* ($((t / 60)) min $((t % 60)) s in)"
}
phase "dependencies"
bash scripts/install-deps.sh
phase "build"
autoreconf -fi >/dev/null
./configure -q
make -j2
status=0
phase "make check"
make -j1 check || status=$?
# the Debian packages, installed and used as a user would (after make check:
# it leaves them installed only if it fails)
phase "the packages"
sh scripts/test-packages.sh || status=$?
phase "done, status $status"
for log in tests/unit/unit.log tests/unit/unit-san.log tests/vm/vm-tests.sh.log; do
	[ -f "$log" ] && { echo "----- $log"; cat "$log"; }
done
exit $status
