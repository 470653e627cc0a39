#!/bin/sh
# The kernel tests: testprogs/vm/guest-tests.sh in a VM, once per kernel the
# modules were built for ($KERNELS, set by make check).
set -u
: "${abs_top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
: "${KERNELS:=$(ls "$abs_top_builddir/build" 2>/dev/null | grep -v -e checkpatch -e vm-results -e '\.log$')}"

if [ -z "$KERNELS" ]; then
	echo "vm-tests: no kernel modules were built (no kernel headers?)" >&2
	exit 1
fi
status=0
for k in $KERNELS; do
	out=$abs_top_builddir/build/vm-results/$k
	rm -rf "$out"
	mkdir -p "$out"
	echo "=== kernel $k ==="
	if ! "$abs_top_srcdir/testprogs/vm/run-vm.sh" "$k" "$out" \
		"MGCAP_BUILD='$abs_top_builddir' MGCAP_SRC='$abs_top_srcdir' MGCAP_OUT='$out' sh '$abs_top_srcdir/testprogs/vm/guest-tests.sh' ${MGCAP_VM_TESTS:-}"; then
		echo "=== kernel $k: FAILED ==="
		status=1
	fi
done
exit $status
