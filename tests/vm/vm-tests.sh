#!/bin/sh
# The kernel tests: tests/vm/guest-tests.sh in a VM, once per kernel the
# modules were built for ($KERNELS, set by make check).  MGCAP_INSTALLED=1:
# against the installed packages (MGCAP_DEBS: where their files are), with
# the tests of tests/vm/installed-*.sh too.
set -u
: "${abs_top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
# without $KERNELS: every kernel the module was built for
: "${KERNELS:=$(for ko in "$abs_top_builddir"/build/*/kmod/mgcap.ko; do
	[ -f "$ko" ] && basename "$(dirname "$(dirname "$ko")")"
done)}"

if [ -z "$KERNELS" ]; then
	echo "vm-tests: no kernel modules were built (no kernel headers?)" >&2
	exit 1
fi
status=0
passed=0
failed=0
skipped=0
first=$(echo $KERNELS | cut -d' ' -f1)
for k in $KERNELS; do
	scope=${MGCAP_VM_SCOPE:-$([ "$k" = "$first" ] && echo all || echo kernel)}
	out=$abs_top_builddir/build/vm-results$([ "${MGCAP_INSTALLED:-0}" = 1 ] && echo -installed)/$k
	rm -rf "$out"
	mkdir -p "$out"
	# the tests named, in a file: the guest's command line is the kernel's, and short
	printf '%s\n' ${MGCAP_VM_TESTS:-} >"$out/tests"
	echo "=== kernel $k$([ "$scope" = kernel ] && [ "$k" != "$first" ] &&
		echo " (its user-space tests ran on $first)") ==="
	"$abs_top_srcdir/tests/vm/run-vm.sh" "$k" "$out" \
		"MGCAP_BUILD='$abs_top_builddir' MGCAP_INSTALLED='${MGCAP_INSTALLED:-0}' MGCAP_DEBS='${MGCAP_DEBS:-}' MGCAP_VM_SCOPE=$scope MGCAP_VM_SUITES='${MGCAP_VM_SUITES:-}' MGCAP_FUZZ_SEED='${MGCAP_FUZZ_SEED:-}' sh '$abs_top_srcdir/tests/vm/guest-tests.sh' \$(cat '$out/tests')" \
		>>"$out/console.log" 2>&1	# append: QEMU reopens its output
	rc=$?
	cat "$out/console.log"
	# guest-tests.sh's last line: "kernel K: P passed, F failed, S skipped"
	tally=$(grep -F "kernel $k: " "$out/console.log" |
		grep -E ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n 1)
	if [ -n "$tally" ]; then
		p=$(echo "$tally" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
		f=$(echo "$tally" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		s=$(echo "$tally" | sed -E 's/.* ([0-9]+) skipped$/\1/')
	else
		p=0 f=1 s=0	# the VM never got to the end
	fi
	# a clean run whose kernel complained still fails
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	if [ "$rc" -ne 0 ]; then
		echo "=== kernel $k: FAILED ==="
		status=1
	fi
done
echo "vm-tests: $passed passed, $failed failed, $skipped skipped"
exit $status
