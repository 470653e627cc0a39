# The parsers of untrusted input under libFuzzer (clang-14, ASan + UBSan):
# the netlink reply, pcapng blocks, ERSPAN, the values and device lists
# users type, the clock estimator's samples.  make check runs each over its
# corpus and FUZZ_RUNS new inputs; make fuzz runs longer (FUZZ_TARGETS="NAME
# ...": those alone).
FUZZ_RUNS = 20000
TESTS += tests/fuzz/fuzzers.sh
EXTRA_DIST += tests/fuzz

fuzz:
	+abs_top_srcdir="$(abs_top_srcdir)" abs_top_builddir="$(abs_top_builddir)" \
		FUZZ_RUNS=$${FUZZ_RUNS:-2000000} MGCAP_CFLAGS="$(AM_CFLAGS)" \
		sh $(srcdir)/tests/fuzz/fuzzers.sh $(FUZZ_TARGETS)
PHONY += fuzz
