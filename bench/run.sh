#!/bin/sh
# run.sh SRCDIR BUILDDIR: every benchmark, side by side, one run (make bench).
#
# On the host: the libpcap module's read path against the savefile reader
# (time, and instructions under callgrind), mgdump's pcapng writer against
# pcap_dump().  In a VM (one kernel, MGCAP_BENCH_KERNEL, default the first
# built): pktgen, the test NIC and trafgen loads against every contender,
# and burst absorption.  Raw CSV goes to bench/results/, then report.py
# writes BENCHMARKS.md and the plots from it.  MGCAP_BENCH_HOST_ONLY=1: the
# host benchmarks only, with the last VM results.
set -eu
src=$1
build=$2
res=$src/bench/results
first_built=$(ls "$build"/build/*/kmod/mgcap.ko | head -n 1)
first_built=${first_built%/kmod/mgcap.ko}
kver=${MGCAP_BENCH_KERNEL:-${first_built##*/}}
mkdir -p "$res" "$build/build/bench"
bb=$build/build/bench

echo "bench: host read path"
"$bb/readpath" 64 128 256 1518 >"$res/readpath.csv"
echo "reader,size,packets,instructions,callback_instructions" >"$res/readpath-callgrind.csv"
for size in 64 1518; do
	for reader in mgcap savefile; do
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

echo "bench: pcapng writer"
tmp=$(mktemp -d /dev/shm/mgcap-bench.XXXXXX)
"$bb/writer" "$tmp" 64 128 256 1518 >"$res/writer.csv"
rm -rf "$tmp"

if [ -n "${MGCAP_BENCH_HOST_ONLY:-}" ]; then	# the VM results stay as they are
	python3 "$src/bench/report.py" "$res" "$src/BENCHMARKS.md"
	exit 0
fi

echo "bench: VM, kernel $kver (about 25 minutes under emulation)"
out=$bb/vm
rm -rf "$out"
# TSC: the emulated HPET costs microseconds per read and hides what is measured
MGCAP_VM_APPEND="clocksource=tsc tsc=reliable" MGCAP_VM_MEMORY=2G \
	sh "$src/testprogs/vm/run-vm.sh" "$kver" "$out" \
	"MGCAP_BUILD='$build' sh '$src/bench/guest-bench.sh' '$out'" >"$out.console" 2>&1 || {
	cat "$out.console"
	exit 1
}
cp "$out/vm.csv" "$res/vm.csv"
cp "$out/burst.csv" "$res/burst.csv"
echo "kernel,$kver" >"$res/environment.csv"
echo "host_cpu,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/,/ /g')" >>"$res/environment.csv"
echo "date,$(date -u +%Y-%m-%d)" >>"$res/environment.csv"

python3 "$src/bench/report.py" "$res" "$src/BENCHMARKS.md"
