#!/bin/sh
# The VM test runner's self-test, on the host: a failed check fails its test
# wherever it stands, and the run; passing tests pass; a skipped test is
# reported skipped, is no pass, and fails no run unless it failed; a wait
# returns once its state came, and one that runs out fails its test, saying
# what it waited for, whatever the test does after.
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
t_skips() { say "looked for it"; skip "no frobnicator here"; return; }
t_skips_in_a_subshell() { (skip "not from here"); true; }
t_fails_then_skips() { bad "broken first"; skip "then gone"; }
t_skips_then_fails_by_status() { skip "gone"; return 1; }
# (a state that comes later: a file a background process makes, a counter it moves)
t_waits_for_a_state() {
	(sleep 0.3; : >"$state") &
	wait_for 10000 "the state file" test -e "$state" && test -e "$state" || bad "returned early"
	wait
}
t_a_wait_that_runs_out_fails() { wait_for 300 "the frobnicator" false; say "goes on"; return 0; }
t_waits_for_a_counter() {
	echo 5 >"$counter"
	(for n in 6 7 8 9; do sleep 0.1; echo $n >"$counter"; done) &
	wait_for_counter 10000 "the counter" 3 cat "$counter" && at_least 8 cat "$counter" ||
		bad "returned before the counter moved by 3"
	wait
}
t_a_counter_that_stays_fails() { wait_for_counter 300 "a counter" 1 echo 7; return 0; }

torn=$(mktemp)
outfile=$(mktemp)
state=$(mktemp -u)
counter=$(mktemp)
run_tests t_passes t_fails_in_the_middle t_fails_in_a_subshell t_fails_by_status \
	t_passes_after_a_failure "$t_no_such_test_is_a_failure" t_skips t_skips_in_a_subshell \
	t_fails_then_skips t_skips_then_fails_by_status t_waits_for_a_state \
	t_a_wait_that_runs_out_fails t_waits_for_a_counter t_a_counter_that_stays_fails \
	>"$outfile" 2>&1
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
expect '^ok 7 - skips # SKIP no frobnicator here$'
expect '^    looked for it$'
expect '^ok 8 - skips_in_a_subshell # SKIP not from here$'
expect '^not ok 9 - fails_then_skips \(status 0\)$'
expect '^not ok 10 - skips_then_fails_by_status \(status 1\)$'
expect '^ok 11 - waits_for_a_state '
expect '^not ok 12 - a_wait_that_runs_out_fails \(status 0\)$'
expect '^        FAILED: timed out after 0\.3 s waiting for the frobnicator$'
expect '^ok 13 - waits_for_a_counter '
expect '^not ok 14 - a_counter_that_stays_fails \(status 0\)$'
expect '^        FAILED: timed out after 0\.3 s waiting for a counter to reach 8 \(from 7\)$'
expect '^        a counter at the end: 7$'
[ "$status" -ne 0 ] || { echo "harness self-test: the run exited 0 with failed tests"; rc=1; }
[ "$R_passed" = 4 ] && [ "$R_failed" = 8 ] && [ "$R_skipped" = 2 ] ||
	{ echo "harness self-test: tally $R_passed passed, $R_failed failed, $R_skipped skipped" \
		"(want 4, 8, 2)"; rc=1; }
[ "$(wc -l <"$torn")" = 14 ] ||
	{ echo "harness self-test: teardown ran $(wc -l <"$torn") times, not 14"; rc=1; }

# and a run of passing tests only exits 0, as does one with skips
run_tests t_passes t_passes_after_a_failure >/dev/null 2>&1 ||
	{ echo "harness self-test: a passing run exited non-zero"; rc=1; }
run_tests t_passes t_skips >/dev/null 2>&1 ||
	{ echo "harness self-test: a run that passed and skipped exited non-zero"; rc=1; }
[ "$R_passed" = 1 ] && [ "$R_skipped" = 1 ] ||
	{ echo "harness self-test: a skip counted as a pass"; rc=1; }
# the numbers go on from MGCAP_VM_TEST_N (guest-tests.sh runs suite after suite)
[ "$(MGCAP_VM_TEST_N=41 run_tests t_passes 2>&1 | head -n 1 | cut -d' ' -f1-2)" = "ok 42" ] ||
	{ echo "harness self-test: MGCAP_VM_TEST_N=41 did not number the test 42"; rc=1; }
rm -f "$torn" "$outfile" "$state" "$counter"
[ $rc -eq 0 ] && echo "harness self-test: ok"
printf '%s\n' "$out"
exit $rc
