#!/bin/sh
# debug-gates.sh KVER: the debug kernel's gates fail when they should.  Two
# scratch builds of mgcap.ko, each with a defect put in its module init on
# purpose, are loaded one after the other in a VM of kernel KVER (make
# check-debug's: one boot, as a boot is most of the time), and run-vm.sh
# must fail the run, naming the report of each:
#   sleep     an allocation that may sleep with a spinlock held: "BUG:
#             sleeping function called from invalid context"
#             (DEBUG_ATOMIC_SLEEP)
#   leak      an allocation dropped: "unreferenced object" (kmemleak's scan
#             at the end of the run)
# Run by make check-debug before the suites.
set -u
k=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# defect NAME: the line that goes at the top of mgcap_init(), in $code, and
# the report the run must fail with, in $report
defect() {
	case $1 in
	sleep)	code='{ static DEFINE_SPINLOCK(gate); spin_lock(&gate); kfree(kmalloc(64, GFP_KERNEL)); spin_unlock(&gate); }'
		report="sleeping function called from invalid context" ;;
	leak)	code='{ void * volatile gate = kmalloc(512, GFP_KERNEL); gate = NULL; }'
		report="unreferenced object" ;;
	esac
}

for d in sleep leak; do
	defect $d
	src=$tmp/$d
	mkdir -p "$src"
	cp "$top"/kmod/*.[ch] "$top"/kmod/Kbuild "$src"/
	# the defect, and the headers it needs
	awk -v defect="$code" '
		NR == 1 { print; print "#include <linux/slab.h>"; next }
		{ print }
		/^static int __init mgcap_init\(void\)$/ { getline; print; print "\t" defect }
	' "$top/kmod/main.c" >"$src/main.c"
	grep -q 'gate' "$src/main.c" || { echo "debug-gates: $d: the defect did not go in"; exit 1; }
	make -s -C "/lib/modules/$k/build" M="$src" MGCAP_UAPI="$top/include/uapi" modules \
		>"$tmp/$d.build" 2>&1 || { cat "$tmp/$d.build"; exit 1; }
done
"$top/tests/vm/run-vm.sh" "$k" "$tmp/vm" \
	"insmod '$tmp/sleep/mgcap.ko' && rmmod mgcap && insmod '$tmp/leak/mgcap.ko' && rmmod mgcap" \
	>"$tmp/vm.log" 2>&1
rc=$?
for d in sleep leak; do
	defect $d
	if [ $rc -ne 0 ] && grep -q "$report" "$tmp/vm.log"; then
		echo "ok - a module that does '$d' fails the run: $(grep -m1 "$report" "$tmp/vm.log")"
	else
		echo "FAILED: a module that does '$d' passed the run (status $rc):"
		tail -n 20 "$tmp/vm.log"
		status=1
	fi
done
exit $status
