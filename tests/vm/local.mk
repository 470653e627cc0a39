# The tests that need a kernel: tests/vm/vm-tests.sh boots a VM per kernel
# and runs the suites in it (tests/vm/lib.sh says how a suite is made); on
# the host, the runner's self-test and the check of the suites
TESTS += tests/vm/harness-selftest.sh tests/vm/check-suites.sh tests/vm/vm-tests.sh
EXTRA_DIST += tests/vm
check-local: checkpatch sparse kmod-calls $(BENCH_BIN)

# every VM test on every kernel (make check runs the suites' USER_SPACE_TESTS
# on the first kernel only)
check-all:
	$(MAKE) check MGCAP_VM_SCOPE=all
.PHONY: check-all

# the kernel-facing suites and the fuzzer on the debug kernel (KASAN, lockdep,
# kmemleak...): tests/vm/check-debug.sh
check-debug: all
	+abs_top_builddir="$(abs_top_builddir)" abs_top_srcdir="$(abs_top_srcdir)" \
		sh $(srcdir)/tests/vm/check-debug.sh
.PHONY: check-debug
