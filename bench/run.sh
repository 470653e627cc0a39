#!/bin/sh
# run.sh SRCDIR BUILDDIR [--profile]: every benchmark, side by side, one run
# (make bench).
#
# On the host: the libpcap module's read path against the savefile reader
# (instructions under callgrind, and time), merged reads of 1 to 64 queues,
# and mgdump's pcapng writer against pcap_dump().  In VMs (one kernel,
# MGCAP_BENCH_KERNEL, default the first built): instructions a packet for
# every contender under pktgen and test-NIC loads, a profile of each, burst
# absorption, and multi-queue scaling.  Raw CSV goes to bench/results/, then
# report.py writes BENCHMARKS.md and the plots from it.
#
# MGCAP_BENCH_HOST_ONLY=1: the host benchmarks only, with the last VM results.
# --profile (make bench-profile): only the profile, printed, nothing written
# to bench/results/: where each contender's instructions go, in a few minutes.
set -eu
src=$1
build=$2
res=$src/bench/results
first_built=$(ls "$build"/build/*/kmod/mgcap.ko | head -n 1)
first_built=${first_built%/kmod/mgcap.ko}
kver=${MGCAP_BENCH_KERNEL:-${first_built##*/}}
mkdir -p "$res" "$build/build/bench"
bb=$build/build/bench
profile_only=
[ "${3:-}" = --profile ] && profile_only=1

# vm NAME CPUS QEMU_OPTS PART...: guest-bench.sh's PARTs in a VM; results in $bb/NAME
vm() {
	name=$1 cpus=$2 qemu=$3
	shift 3
	out=$bb/$name
	rm -rf "$out"
	# TSC: the emulated HPET costs microseconds per read and hides what is measured
	MGCAP_VM_APPEND="clocksource=tsc tsc=reliable" MGCAP_VM_MEMORY=2G MGCAP_VM_CPUS=$cpus \
		MGCAP_VM_QEMU_OPTS=$qemu sh "$src/tests/vm/run-vm.sh" "$kver" "$out" \
		"MGCAP_BUILD='$build' sh '$src/bench/guest-bench.sh' '$out' $*" >"$out.console" 2>&1 || {
		cat "$out.console"
		exit 1
	}
	grep -E '^(run-vm|bench):' "$out.console"
}
if [ -n "$profile_only" ]; then
	echo "bench: VM, kernel $kver: profiles under icount"
	vm profile 1 "-icount shift=0,sleep=off" profile
	exec python3 "$src/bench/report.py" --profile "$bb/profile"
fi

echo "bench: host read path"
"$bb/readpath" 64 128 256 1518 >"$res/readpath.csv"
echo "reader,size,packets,instructions,callback_instructions" >"$res/readpath-callgrind.csv"
for size in 64 1518; do
	for reader in mgcap mgcap-adapter savefile; do
		# the module's read op, or the savefile's; the callback is subtracted
		fn=pcap_mgcap_read
		[ "$reader" = savefile ] && fn=pcap_offline_read
		n=2000	# what the ring holds of the largest frames
		valgrind -q --tool=callgrind --toggle-collect=$fn --callgrind-out-file="$bb/cg.out" \
			"$bb/readpath" --once $reader $size $n
		total=$(callgrind_annotate "$bb/cg.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
		cb=$(callgrind_annotate "$bb/cg.out" | awk '/:count_packet / { gsub(",", "", $1); print $1; exit }')
		echo "$reader,$size,$n,$total,${cb:-0}" >>"$res/readpath-callgrind.csv"
	done
done

echo "bench: merged reads of 1 to 64 queues"
echo "queues,records,instructions,callback_instructions" >"$res/merge-callgrind.csv"
for queues in 1 4 16 64; do
	n=20000
	valgrind -q --tool=callgrind --toggle-collect=deliver_merged --callgrind-out-file="$bb/cg.out" \
		"$bb/readpath" --merge $queues $n
	total=$(callgrind_annotate "$bb/cg.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	cb=$(callgrind_annotate "$bb/cg.out" | awk '/:count_packet / { gsub(",", "", $1); print $1; exit }')
	echo "$queues,$n,$total,${cb:-0}" >>"$res/merge-callgrind.csv"
done

echo "bench: pcapng writer"
tmp=$(mktemp -d /dev/shm/mgcap-bench.XXXXXX)
"$bb/writer" "$tmp" 64 128 256 1518 >"$res/writer.csv"
rm -rf "$tmp"

if [ -n "${MGCAP_BENCH_HOST_ONLY:-}" ]; then	# the VM results stay as they are
	python3 "$src/bench/report.py" "$res" "$src/BENCHMARKS.md"
	exit 0
fi

# the kernel parts: instruction counts in a 1-vCPU VM under icount (one guest
# ns per guest instruction, idle time skipped), then the multi-queue scaling,
# which icount cannot show, on the wall clock in a 2-vCPU VM
t0=$(date +%s)
echo "bench: VM, kernel $kver: instruction counts under icount"
vm icount 1 "-icount shift=0,sleep=off" cost profile burst
echo "bench: VM, kernel $kver: multi-queue scaling, wall clock"
vm wallclock 2 "" scaling
rm -f "$res"/vm.csv "$res"/profile-*.txt
cp "$bb"/icount/*.csv "$bb"/icount/profile-*.txt "$bb"/wallclock/scaling.csv "$res/"
echo "kernel,$kver" >"$res/environment.csv"
echo "host_cpu,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/,/ /g')" >>"$res/environment.csv"
echo "date,$(date -u +%Y-%m-%d)" >>"$res/environment.csv"
echo "vm_minutes,$((($(date +%s) - t0 + 59) / 60))" >>"$res/environment.csv"

python3 "$src/bench/report.py" "$res" "$src/BENCHMARKS.md"
