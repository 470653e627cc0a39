#!/bin/sh
# check-debug.sh: make check-debug.  The debug kernel (scripts/debug-kernel.sh
# builds it once, outside the checkout), its gates shown to fail modules made
# to fail them (debug-gates.sh), then the kernel-facing suites and the
# fuzzer on it ($MGCAP_DEBUG_SUITES).  The kernel is linked where builds and
# the VM find one only while this runs.
set -u
: "${abs_top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${abs_top_srcdir:=$abs_top_builddir}"
: "${MGCAP_DEBUG_SUITES:=kernel readers adapter fuzz wire drivers mgdump}"
# udev's coldplug, each rule run under KASAN and emulation, took most of
# the boot: two workers, each event given 5 s, cut it from 133 to 42 s
# (two vCPUs; the boot to the command from 196 to 86 s)
MGCAP_VM_APPEND="udev.event_timeout=5 udev.children_max=2 ${MGCAP_VM_APPEND:-}"
export MGCAP_VM_APPEND
k=$(sh "$abs_top_srcdir/scripts/debug-kernel.sh") || exit 1
trap 'sh "$abs_top_srcdir/scripts/debug-kernel.sh" --uninstall' EXIT
trap 'exit 130' INT TERM
sh "$abs_top_srcdir/tests/vm/debug-gates.sh" "$k" || exit 1
make -s -C "$abs_top_builddir" modules testnic KERNELS="$k" || exit 1
KERNELS=$k MGCAP_VM_SCOPE=kernel MGCAP_VM_SUITES=$MGCAP_DEBUG_SUITES MGCAP_VM_TIMEOUT=7200 \
	abs_top_builddir=$abs_top_builddir abs_top_srcdir=$abs_top_srcdir \
	sh "$abs_top_srcdir/tests/vm/vm-tests.sh"
