# The test runner shared by the VM tests (tests/vm/lib.sh sources it) and
# its host self-test (sourced).
#
# A test is a shell function.  A check that does not hold calls `bad`, which
# marks the running test failed for good: the test fails whether or not it
# returns right after, whatever it returns later, even when `bad` ran in a
# subshell or a pipeline (the mark is a file).  A test also fails when it
# returns non-zero.  A test that cannot run here (a tool missing, say) calls
# `skip REASON` and returns: it is reported skipped, which is not a pass,
# unless it failed (a failure wins).  The caller defines `teardown`, run
# after every test.
#
#   run_tests TEST...   TAP-style lines, numbered on from $MGCAP_VM_TEST_N
#                       (0); R_passed, R_failed and R_skipped count them; the
#                       status is 0 only if none failed
#   suite_tests FILE [LIST]  the tests a suite lists in its ALL_TESTS (or
#                       LIST), a line each
#
# A test waits for the state it needs (a reader started, a counter moved, a
# file there), never for a time that was long enough on some machine; a
# wait that runs out fails the test, saying what it waited for:
#
#   wait_for MS WHAT CMD...  until CMD succeeds, polled every 20 ms; MS
#                       milliseconds at most (the guest is emulated: be generous)
#   wait_for_counter MS WHAT DELTA CMD...  until the number CMD prints is
#                       DELTA more than it was at the call
#   at_least N CMD...   the number CMD prints is N or more (a condition)
# (sh functions share variables: the runner's start with R_)

say() { echo "    $*"; }
bad() {
	echo "    FAILED: $*"
	: >"$R_failmark"
	return 1
}
skip() {
	printf '%s\n' "$*" >"$R_skipmark"
	return 0
}

# W_now: milliseconds since boot, without starting a process (/proc/uptime
# in centiseconds; the seconds part is never 0 here, so no octal digits)
w_clock() {
	read -r W_up _ </proc/uptime
	W_now=$((${W_up%.*}${W_up#*.} * 10))
}

wait_for() {
	W_ms=$1
	W_what=$2
	shift 2
	w_clock
	W_end=$((W_now + W_ms))
	until "$@"; do
		w_clock
		if [ "$W_now" -ge "$W_end" ]; then
			bad "timed out after $((W_ms / 1000)).$((W_ms % 1000 / 100)) s waiting for $W_what"
			return 1
		fi
		sleep 0.02
	done
}

at_least() {
	W_least=$1
	shift
	W_value=$("$@") && [ "$W_value" -ge "$W_least" ] 2>/dev/null
}

wait_for_counter() {
	W_c_ms=$1
	W_c_what=$2
	W_c_delta=$3
	shift 3
	W_base=$("$@") && [ "$W_base" -ge 0 ] 2>/dev/null ||
		{ bad "no count of $W_c_what: '$W_base'"; return 1; }
	wait_for "$W_c_ms" "$W_c_what to reach $((W_base + W_c_delta)) (from $W_base)" \
		at_least $((W_base + W_c_delta)) "$@" || { say "$W_c_what at the end: $W_value"; return 1; }
}

run_tests() {
	R_failmark=$(mktemp) || return 1
	R_skipmark=$(mktemp) || return 1
	R_log=$(mktemp) || return 1
	R_passed=0
	R_failed=0
	R_skipped=0
	R_n=${MGCAP_VM_TEST_N:-0}
	for R_t in "$@"; do
		R_n=$((R_n + 1))
		R_start=$(date +%s)
		rm -f "$R_failmark" "$R_skipmark"
		$R_t >"$R_log" 2>&1
		R_status=$?
		if [ "$R_status" -ne 0 ] || [ -e "$R_failmark" ]; then
			echo "not ok $R_n - ${R_t#t_} (status $R_status)"
			sed 's/^/    /' "$R_log"
			R_failed=$((R_failed + 1))
		elif [ -e "$R_skipmark" ]; then
			echo "ok $R_n - ${R_t#t_} # SKIP $(tail -n 1 "$R_skipmark")"
			grep -E '^    [^ ]' "$R_log"	# what the test said (say)
			R_skipped=$((R_skipped + 1))
		else
			echo "ok $R_n - ${R_t#t_} ($(($(date +%s) - R_start)) s)"
			grep -E '^    [^ ]' "$R_log"	# what the test measured (say)
			R_passed=$((R_passed + 1))
		fi
		teardown
	done
	rm -f "$R_failmark" "$R_skipmark" "$R_log"
	[ "$R_failed" -eq 0 ]
}

# suite_tests FILE [LIST]: the words of the suite's LIST="..." (default
# ALL_TESTS; it may span lines), one a line
suite_tests() {
	awk -v list="${2:-ALL_TESTS}" '$0 ~ "^" list "=\"" { on = 1; sub("^" list "=\"", "") }
		on { if (sub(/".*/, "")) { print; exit } print }' "$1" | tr -s '[:space:]' '\n' |
		grep -v '^$'
}
