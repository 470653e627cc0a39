#!/bin/sh
# The VM test suites (tests-*.sh, installed-*.sh), on the host:
#   check-suites.sh [DIR]    (default: tests/vm)
# each suite lists in ALL_TESTS exactly the t_ functions it defines, each
# once, and its USER_SPACE_TESTS only tests of those; no two suites have a
# test of the same name; each sources lib.sh and
# ends with run_suite "$@", so that it runs alone; and no suite calls a
# helper another suite defines (one more than one suite uses is lib.sh's).
# Without DIR it checks tests/vm, then that broken suites fail the check.
set -u
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$abs_top_srcdir/tests/vm/harness.sh"	# suite_tests

# defined FILE: the functions FILE defines (at any depth), a line each
defined() {
	sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\)()[[:space:]]*{.*/\1/p' "$1" | sort -u
}

# calls FILE NAME: FILE calls NAME, as a command (comment lines aside)
calls() {
	grep -v '^[[:space:]]*#' "$1" |
		grep -Eq "(^|[;&|({!]|\\\$\\(|\\<(then|do|else|elif|if|until|while)\\>)[[:space:]]*$2([[:space:]]|[;&|)]|\$)"
}

# check DIR: what is wrong with the suites in DIR, a line each; fails if anything is
check() {
	c_tmp=$(mktemp -d)
	c_bad=0
	c_suites=$(ls "$1"/tests-*.sh "$1"/installed-*.sh 2>/dev/null)
	[ -n "$c_suites" ] || { echo "no suites in $1"; rm -rf "$c_tmp"; return 1; }
	for s in $c_suites; do
		n=${s##*/}
		suite_tests "$s" >"$c_tmp/$n.listed"
		grep -o '^t_[A-Za-z0-9_]*()' "$s" | tr -d '()' >"$c_tmp/$n.defined"
		[ -s "$c_tmp/$n.listed" ] || { echo "$n: no ALL_TESTS=\"...\""; c_bad=1; }
		for t in $(sort "$c_tmp/$n.defined" | uniq -d); do
			echo "$n: $t is defined twice"; c_bad=1
		done
		for t in $(sort "$c_tmp/$n.listed" | uniq -d); do
			echo "$n: $t is listed twice in ALL_TESTS"; c_bad=1
		done
		sort -u "$c_tmp/$n.listed" >"$c_tmp/$n.l"
		sort -u "$c_tmp/$n.defined" >"$c_tmp/$n.d"
		for t in $(comm -13 "$c_tmp/$n.l" "$c_tmp/$n.d"); do
			echo "$n: $t is not in its ALL_TESTS"; c_bad=1
		done
		for t in $(comm -23 "$c_tmp/$n.l" "$c_tmp/$n.d"); do
			echo "$n: ALL_TESTS lists $t, which it does not define"; c_bad=1
		done
		for t in $(suite_tests "$s" USER_SPACE_TESTS | sort -u | comm -23 - "$c_tmp/$n.l"); do
			echo "$n: USER_SPACE_TESTS lists $t, which is not in its ALL_TESTS"; c_bad=1
		done
		grep -q '^\. "$(dirname "$0")/lib\.sh"$' "$s" ||
			{ echo "$n: does not source lib.sh"; c_bad=1; }
		[ "$(grep -v '^[[:space:]]*$' "$s" | tail -n 1)" = 'run_suite "$@"' ] ||
			{ echo "$n: does not end with run_suite \"\$@\""; c_bad=1; }
		defined "$s" >"$c_tmp/$n.fn"
	done
	# a test name in two suites: guest-tests.sh would run one of them only
	for t in $(for s in $c_suites; do cat "$c_tmp/${s##*/}.d"; done | sort | uniq -d); do
		echo "$t is a test of more than one suite"; c_bad=1
	done
	# another suite's helper: the suite would not run alone
	[ -f "$1/lib.sh" ] && defined "$1/lib.sh" >"$c_tmp/lib.fn" || : >"$c_tmp/lib.fn"
	for s in $c_suites; do
		for o in $c_suites; do
			[ "$o" = "$s" ] && continue
			for f in $(sort -u "$c_tmp/${o##*/}.fn" | comm -23 - "$c_tmp/${s##*/}.fn" |
				comm -23 - "$c_tmp/lib.fn"); do
				calls "$s" "$f" &&
					{ echo "${s##*/} calls $f, which ${o##*/} defines"; c_bad=1; }
			done
		done
	done
	rm -rf "$c_tmp"
	return $c_bad
}

if [ $# -gt 0 ]; then
	check "$1"
	exit
fi
status=0
if out=$(check "$abs_top_srcdir/tests/vm"); then
	echo "ok - every suite lists its tests and runs alone"
else
	echo "FAILED: the suites of tests/vm:"
	echo "$out"
	status=1
fi

# broken suites fail the check, each for what is wrong with it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
suite() {	# suite NAME ALL_TESTS BODY: $tmp/NAME as a suite
	printf '#!/bin/sh\nALL_TESTS="%s"\n. "$(dirname "$0")/lib.sh"\n%s\nrun_suite "$@"\n' \
		"$2" "$3" >"$tmp/$1"
}
printf 'shared() { :; }\n' >"$tmp/lib.sh"
suite tests-a.sh "t_a1 t_a2" 't_a1() { shared; own; }
t_a2() { true; }
own() { :; }'
suite tests-b.sh "
	t_b1
	t_b2
" 't_b1() { if true; then ok=$(own_b); fi; }
t_b2() { true; }
# own is a word in comments, and in strings: "own it"
own_b() { echo "own it"; }'
if out=$(check "$tmp"); then
	echo "ok - a well-formed pair of suites passes"
else
	echo "FAILED: well-formed suites fail the check: $out"
	status=1
fi
# fails_with WHAT TEXT: the check of $tmp fails, naming TEXT
fails_with() {
	if out=$(check "$tmp"); then
		echo "FAILED: $1 passed the check"
		status=1
	elif echo "$out" | grep -qF "$2"; then
		echo "ok - $1 fails: $out"
	else
		echo "FAILED: $1 failed the check without '$2': $out"
		status=1
	fi
}
cp "$tmp/tests-b.sh" "$tmp/b"
sed -i 's/^t_b2() {/t_b3() { :; }\nt_b2() {/' "$tmp/tests-b.sh"
fails_with "a test missing from ALL_TESTS" "tests-b.sh: t_b3 is not in its ALL_TESTS"
cp "$tmp/b" "$tmp/tests-b.sh"
sed -i 's/^\tt_b2$/\tt_b2 t_b4/' "$tmp/tests-b.sh"
fails_with "ALL_TESTS listing a test the suite lacks" \
	"tests-b.sh: ALL_TESTS lists t_b4, which it does not define"
cp "$tmp/b" "$tmp/tests-b.sh"
sed -i 's/^\. "\$(dirname/USER_SPACE_TESTS="t_b2 t_b5"\n&/' "$tmp/tests-b.sh"
fails_with "USER_SPACE_TESTS listing a test not in ALL_TESTS" \
	"tests-b.sh: USER_SPACE_TESTS lists t_b5, which is not in its ALL_TESTS"
cp "$tmp/b" "$tmp/tests-b.sh"
sed -i 's/^t_b2() { true; }/t_b2() { true \&\& own; }/' "$tmp/tests-b.sh"
fails_with "another suite's helper" "tests-b.sh calls own, which tests-a.sh defines"
cp "$tmp/b" "$tmp/tests-b.sh"
sed -i 's/t_b2/t_a2/' "$tmp/tests-b.sh"
fails_with "a test in two suites" "t_a2 is a test of more than one suite"
cp "$tmp/b" "$tmp/tests-b.sh"
sed -i '/^run_suite/d' "$tmp/tests-b.sh"
fails_with "a suite that cannot run alone" "tests-b.sh: does not end with run_suite"
exit $status
