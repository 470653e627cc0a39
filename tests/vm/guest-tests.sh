#!/bin/sh
# The mgcap tests that need a kernel; run inside the VM by tests/vm/vm-tests.sh.
#   guest-tests.sh [TEST...]     (default: the ALL_TESTS of each tests-*.sh;
#                                 MGCAP_VM_SCOPE=kernel: less USER_SPACE_TESTS)
# Each suite runs as a process of its own (lib.sh), as it runs alone; the
# tests run in the order given, a run of consecutive tests of one suite in
# one process, numbered on across suites.  Then the tally of them all:
#   kernel K: P passed, F failed, S skipped
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/harness.sh"
K=$(uname -r)
SUITES=$(ls "$HERE"/tests-*.sh)
# MGCAP_VM_SUITES="kernel readers": those suites only (tests-kernel.sh, ...)
if [ -n "${MGCAP_VM_SUITES:-}" ]; then
	SUITES=$(for s in $MGCAP_VM_SUITES; do echo "$HERE/tests-$s.sh"; done)
	for s in $SUITES; do
		[ -f "$s" ] || { echo "guest-tests: no suite $s (MGCAP_VM_SUITES)"; exit 1; }
	done
fi
if [ "${MGCAP_INSTALLED:-0}" = 1 ]; then
	SUITES="$SUITES $(ls "$HERE"/installed-*.sh)"
	# what the packages put in place, each used at least once: the module
	# DKMS built, the tools, the libpcap (its module, its conversion to
	# system time, its event loop API, its report to mgdump), mgcap-run
	# with the Argus shim; then the package tests (a user in the capture
	# group: dumpcap, tshark, adapter stamps; the service).  The logic
	# under them ran on the build tree just before (scripts/test.sh).
	INSTALLED_TESTS="t_every_frame_hw_stamps t_hwtstamp_control
		t_tcpdump_every_frame_with_adapter_stamps t_libpcap_api
		t_argus_through_the_ifflags_shim t_argus_plain_by_the_kernels_name
		t_mgdump_every_frame_per_queue
		t_mgdump_adapter_stamps_where_the_nic_has_a_clock t_mgcap_show_reports_the_clock
		$(for s in "$HERE"/installed-*.sh; do suite_tests "$s"; done)"
fi
# a suite's tests; with MGCAP_VM_SCOPE=kernel, those of its USER_SPACE_TESTS left out
scoped_tests() {
	if [ "${MGCAP_VM_SCOPE:-all}" = kernel ]; then
		suite_tests "$1" | grep -vxF "$(suite_tests "$1" USER_SPACE_TESTS)"
	else
		suite_tests "$1"
	fi
}
TESTS=${*:-${INSTALLED_TESTS:-$(for s in $SUITES; do scoped_tests "$s"; done)}}

# the plan: a line per run of consecutive tests of one suite, "SUITE TEST...";
# "-" for tests no suite lists
map=$(mktemp) && tally=$(mktemp) || exit 1
for s in $SUITES; do suite_tests "$s" | sed "s|\$| $s|"; done >"$map"
plan=$(printf '%s\n' $TESTS | awk -v map="$map" 'BEGIN {
		while ((getline line <map) > 0) {
			split(line, w, " ")
			if (!(w[1] in suite)) suite[w[1]] = w[2]
		}
	}
	NF { s = ($1 in suite) ? suite[$1] : "-"
	  if (s != last) { if (last != "") printf "\n"; printf "%s", s; last = s }
	  printf " %s", $1 }
	END { if (last != "") printf "\n" }')

teardown() { :; }	# (for the tests no suite lists)
n=0
passed=0
failed=0
skipped=0
while read -r suite tests <&3; do
	[ -n "$suite" ] || continue
	if [ "$suite" = - ]; then
		# as a suite runs a test it does not have: not found, a failure
		MGCAP_VM_TEST_N=$n run_tests $tests
		p=$R_passed f=$R_failed s=$R_skipped
	else
		rm -f "$tally"
		MGCAP_VM_TEST_N=$n MGCAP_VM_TALLY=$tally sh "$suite" $tests 3<&-
		st=$?
		if [ -s "$tally" ]; then
			read -r p f s <"$tally"
		else
			# it never got to its tally: none of its tests passed
			set -- $tests
			p=0 f=$# s=0
			echo "    FAILED: ${suite##*/} ended with status $st before its tally"
		fi
	fi
	n=$((n + p + f + s))
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done 3<<EOF
$plan
EOF
rm -f "$map" "$tally"
echo "kernel $K: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
