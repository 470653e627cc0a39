# The test runner shared by the VM tests and their host self-test (sourced).
#
# A test is a shell function.  A check that does not hold calls `bad`, which
# marks the running test failed for good: the test fails whether or not it
# returns right after, whatever it returns later, even when `bad` ran in a
# subshell or a pipeline (the mark is a file).  A test also fails when it
# returns non-zero.  The caller defines `teardown`, run after every test.
#
#   run_tests TEST...   TAP-style lines; the status is 0 only if all passed
# (sh functions share variables: the runner's start with R_)

say() { echo "    $*"; }
bad() {
	echo "    FAILED: $*"
	: >"$R_failmark"
	return 1
}

run_tests() {
	R_failmark=$(mktemp) || return 1
	R_log=$(mktemp) || return 1
	R_passed=0
	R_failed=0
	R_n=0
	for R_t in "$@"; do
		R_n=$((R_n + 1))
		R_start=$(date +%s)
		rm -f "$R_failmark"
		$R_t >"$R_log" 2>&1
		R_status=$?
		if [ "$R_status" -eq 0 ] && [ ! -e "$R_failmark" ]; then
			echo "ok $R_n - ${R_t#t_} ($(($(date +%s) - R_start)) s)"
			grep -E '^    [^ ]' "$R_log"	# what the test measured (say)
			R_passed=$((R_passed + 1))
		else
			echo "not ok $R_n - ${R_t#t_} (status $R_status)"
			sed 's/^/    /' "$R_log"
			R_failed=$((R_failed + 1))
		fi
		teardown
	done
	rm -f "$R_failmark" "$R_log"
	[ "$R_failed" -eq 0 ]
}
