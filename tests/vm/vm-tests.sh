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
# What runs where goes by a kernel's flavour, never by what else happens to
# be installed: the first generic kernel runs every test, the other generic
# ones all but the suites' USER_SPACE_TESTS and the suites in
# $MGCAP_FIRST_ONLY_SUITES (the shapes: the readers' order and wake-up
# policies in user space, over ring code the kernel suite drives there
# too); the first PREEMPT_RT kernel (-rt-) the kernel-facing
# suites ($MGCAP_RT_SUITES), the other RT ones nothing.  MGCAP_VM_SCOPE=all
# (make check-all): every test on every kernel.  Tests named
# (MGCAP_VM_TESTS) or the installed packages' run on any kernel.
: "${MGCAP_RT_SUITES:=kernel readers adapter fuzz}"
: "${MGCAP_FIRST_ONLY_SUITES:=shapes}"
other_suites=$(for f in "$abs_top_srcdir"/tests/vm/tests-*.sh; do
	suite=${f##*/tests-}
	case " $MGCAP_FIRST_ONLY_SUITES " in *" ${suite%.sh} "*) ;; *) echo "${suite%.sh}" ;; esac
done)
other_suites=$(echo $other_suites)
first=$(printf '%s\n' $KERNELS | grep -v -- '-rt-' | head -n 1)
first_rt=$(printf '%s\n' $KERNELS | grep -- '-rt-' | head -n 1)
status=0
passed=0
failed=0
skipped=0
for k in $KERNELS; do
	suites=${MGCAP_VM_SUITES:-}
	case $k in
	*-rt-*)
		if [ "${MGCAP_VM_SCOPE:-}" != all ] && [ -z "${MGCAP_VM_TESTS:-}" ] &&
			[ "${MGCAP_INSTALLED:-0}" != 1 ]; then
			if [ "$k" != "$first_rt" ]; then
				echo "=== kernel $k: make check-all's only ==="
				continue
			fi
			suites=${suites:-$MGCAP_RT_SUITES}
		fi
		scope=${MGCAP_VM_SCOPE:-kernel} ;;
	*)	scope=${MGCAP_VM_SCOPE:-$([ "$k" = "$first" ] && echo all || echo kernel)}
		if [ "$scope" = kernel ] && [ -z "${MGCAP_VM_TESTS:-}" ] &&
			[ "${MGCAP_INSTALLED:-0}" != 1 ]; then
			suites=${suites:-$other_suites}
		fi ;;
	esac
	out=$abs_top_builddir/build/vm-results$([ "${MGCAP_INSTALLED:-0}" = 1 ] && echo -installed)/$k
	rm -rf "$out"
	mkdir -p "$out"
	# the tests named, in a file: the guest's command line is the kernel's, and short
	printf '%s\n' ${MGCAP_VM_TESTS:-} >"$out/tests"
	echo "=== kernel $k$([ "$scope" = kernel ] && [ -n "$first" ] && [ "$k" != "$first" ] &&
		echo " (its user-space tests ran on $first)")$([ "$suites" != "${MGCAP_VM_SUITES:-}" ] &&
		echo " (suites: $suites)") ==="
	"$abs_top_srcdir/tests/vm/run-vm.sh" "$k" "$out" \
		"MGCAP_BUILD='$abs_top_builddir' MGCAP_INSTALLED='${MGCAP_INSTALLED:-0}' MGCAP_DEBS='${MGCAP_DEBS:-}' MGCAP_VM_SCOPE=$scope MGCAP_VM_SUITES='$suites' MGCAP_FUZZ_SEED='${MGCAP_FUZZ_SEED:-}' sh '$abs_top_srcdir/tests/vm/guest-tests.sh' \$(cat '$out/tests')" \
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
