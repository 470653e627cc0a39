# The tests that need a kernel: tests/vm/vm-tests.sh boots a VM per kernel
# and runs the suites in it (tests/vm/README.md)
TESTS += tests/vm/harness-selftest.sh tests/vm/vm-tests.sh
EXTRA_DIST += tests/vm
check-local: checkpatch sparse kmod-calls $(BENCH_BIN)
