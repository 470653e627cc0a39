#!/bin/sh
# The libFuzzer targets (tests/fuzz/fuzz_*.c), each built with clang under
# ASan and UBSan and run over its corpus (tests/fuzz/corpus/NAME) and then
# on for a bounded number of new inputs.  A crash, a leak, undefined
# behaviour or a broken check fails the run, with the input that did it
# left in build/fuzz/ for a replay: build/fuzz/NAME build/fuzz/crash-...
#   fuzzers.sh [NAME...]     (default: every target; make check and
#                            make fuzz FUZZ_TARGETS="NAME..." run it)
# Environment: MGCAP_CFLAGS (the project's C flags; make check and make fuzz
# pass them), FUZZ_RUNS (new inputs a target, default 20000), CLANG
# (default clang-14), FUZZ_GROW=1 (what the run found that covers new code
# goes into the corpus: how the corpus was made; merged, minimal).
set -u
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
: "${FUZZ_RUNS:=20000}"
: "${CLANG:=clang-14}"
: "${MGCAP_CFLAGS:?the project's C flags: run through make check or make fuzz}"
src=$abs_top_srcdir
out=$abs_top_builddir/build/fuzz
mkdir -p "$out"
command -v "$CLANG" >/dev/null ||
	{ echo "fuzzers: no $CLANG (apt-get install clang-14 libclang-rt-14-dev)"; exit 1; }

# sources NAME: what target NAME is built from, with its flags
sources() {
	case $1 in
	erspan)	echo "-I$src/tools/mgdump $src/tools/mgdump/erspan.c" ;;
	pcapng)	echo "-I$src/lib/capfile -I$src/include/uapi $src/lib/capfile/pcapng.c" ;;
	capindex)
		echo "-I$src/lib/capfile -I$src/include/uapi $src/lib/capfile/capindex_read.c $src/lib/capfile/flowkey.c"
		echo "$src/lib/capfile/pcapng.c" ;;
	nl_reply)
		echo "-I$src/lib -I$src/include/uapi $src/lib/mgcap_nl_reply.c"
		pkg-config --cflags --libs libnl-genl-3.0 ;;
	parse)	echo "-I$src/lib -I$src/lib/cli -I$src/include/uapi $src/lib/cli/parse.c"
		echo "$src/lib/mgcap_source.c $src/lib/mgcap_netdev.c" ;;
	clock)	echo "-I$src/lib $src/lib/mgcap_clock.c -lm" ;;
	reader)	echo "-I$src/lib -I$src/include/uapi $src/lib/mgcap_reader.c" ;;
	*)	return 1 ;;
	esac
}

names=${*:-$(for f in "$src"/tests/fuzz/fuzz_*.c; do n=${f##*/fuzz_}; echo "${n%.c}"; done)}
status=0
for n in $names; do
	flags=$(sources "$n") || { echo "fuzzers: no target $n"; status=1; continue; }
	# shellcheck disable=SC2086 # (the flags are words)
	if ! "$CLANG" $MGCAP_CFLAGS -g -O1 -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		"$src/tests/fuzz/fuzz_$n.c" $flags -o "$out/$n" 2>"$out/$n.build"; then
		cat "$out/$n.build"
		echo "not ok - $n: does not build"
		status=1
		continue
	fi
	corpus=$src/tests/fuzz/corpus/$n
	mkdir -p "$corpus"
	# new inputs in a directory of the run's own: the corpus in the tree stays as it is
	rm -rf "$out/$n.new"
	mkdir -p "$out/$n.new"
	if ! (cd "$out" && ./"$n" -runs="$FUZZ_RUNS" -seed=1 -max_len=4096 \
		-artifact_prefix="$out/" "$out/$n.new" "$corpus" >"$out/$n.log" 2>&1); then
		tail -n 40 "$out/$n.log"
		echo "not ok - $n: $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$out/$n.log")"
		status=1
		continue
	fi
	if [ "${FUZZ_GROW:-0}" = 1 ]; then
		(cd "$out" && ./"$n" -merge=1 "$corpus" "$out/$n.new" >>"$out/$n.log" 2>&1)
	fi
	echo "ok - $n: $(grep -m1 -oE '#[0-9]+[[:space:]]+DONE.*' "$out/$n.log" | tr -s ' ') ($(ls "$corpus" | wc -l) inputs in its corpus)"
done
exit $status
