#!/bin/sh
# The VM test runner's self-test, on the host: a failed check fails its test
# wherever it stands, and the run; passing tests pass.
set -u
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$abs_top_srcdir/tests/vm/harness.sh"

teardown() { echo teardown >>"$torn"; }

t_passes() { say "measured 42"; true; }
t_fails_in_the_middle() { bad "first check"; say "goes on"; return 0; }
t_fails_in_a_subshell() { (bad "inside ( )"); echo x | while read -r _; do bad "in a pipeline"; done; true; }
t_fails_by_status() { false; }
t_passes_after_a_failure() { [ 1 = 1 ] || bad "1 != 1"; }
t_no_such_test_is_a_failure=t_no_such_function

torn=$(mktemp)
outfile=$(mktemp)
run_tests t_passes t_fails_in_the_middle t_fails_in_a_subshell t_fails_by_status \
	t_passes_after_a_failure "$t_no_such_test_is_a_failure" >"$outfile" 2>&1
status=$?
out=$(cat "$outfile")
rc=0
expect() {	# expect PATTERN: a line of the runner's output matches it
	printf '%s\n' "$out" | grep -qE "$1" || { echo "harness self-test: no line '$1'"; rc=1; }
}
expect '^ok 1 - passes \([0-9]+ s\)$'
expect '^    measured 42$'
expect '^not ok 2 - fails_in_the_middle \(status 0\)$'
expect '^        FAILED: first check$'
expect '^not ok 3 - fails_in_a_subshell \(status 0\)$'
expect '^        FAILED: in a pipeline$'
expect '^not ok 4 - fails_by_status \(status 1\)$'
expect '^ok 5 - passes_after_a_failure '
expect '^not ok 6 - no_such_function '
[ "$status" -ne 0 ] || { echo "harness self-test: the run exited 0 with failed tests"; rc=1; }
[ "$R_passed" = 2 ] && [ "$R_failed" = 4 ] ||
	{ echo "harness self-test: tally $R_passed passed, $R_failed failed (want 2, 4)"; rc=1; }
[ "$(wc -l <"$torn")" = 6 ] || { echo "harness self-test: teardown ran $(wc -l <"$torn") times, not 6"; rc=1; }

# and a run of passing tests only exits 0
run_tests t_passes t_passes_after_a_failure >/dev/null 2>&1 ||
	{ echo "harness self-test: a passing run exited non-zero"; rc=1; }
rm -f "$torn" "$outfile"
[ $rc -eq 0 ] && echo "harness self-test: ok"
printf '%s\n' "$out"
exit $rc
