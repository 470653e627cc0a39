#!/bin/sh
# Sets everything up on a Debian 12 machine and runs every test: host unit
# tests (plain and under ASan/UBSan), the fuzzers, checkpatch --strict,
# sparse, the kernel tests in a VM on Debian's 6.1, 6.12 and 6.1 RT
# kernels, and the Debian packages built, installed, tested in the VM and
# purged.  (make check-debug, the debug kernel's, runs apart.)
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
# failures: what each failed test of make check said, first (CI shows a
# part of the output; passing logs after it would push this out)
failures() {
	for trs in $(find tests -name '*.trs' | sort); do
		grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs" || continue
		log=${trs%.trs}.log
		echo "----- failed: $log"
		case $log in
		*/vm-tests.sh.log)	# the failed tests, their kernels and the kernels' verdicts
			awk '/^=== kernel / || /^kernel .*: [0-9]+ passed/ { print; on = 0; next }
				/^run-vm: / { print; on = /complained|did not finish/; next }
				/^not ok / { print; on = 1; next }
				/^ok / { on = 0 }
				on' "$log" ;;
		*)	tail -n 60 "$log" ;;
		esac
	done
}
phase "make check"
make -j1 check || { status=$?; failures; }
# the Debian packages, installed and used as a user would (after make check:
# it leaves them installed only if it fails)
phase "the packages"
sh scripts/test-packages.sh || status=$?
phase "done, status $status"
[ -f tests/vm/vm-tests.sh.log ] && { echo "----- tests/vm/vm-tests.sh.log"; cat tests/vm/vm-tests.sh.log; }
exit $status
