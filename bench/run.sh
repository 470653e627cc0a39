#!/bin/sh
# run.sh SRCDIR BUILDDIR [--profile|--record]: every benchmark, side by side,
# one run (make bench).
#
# On the host: the libpcap module's read path against the savefile reader
# (instructions under callgrind, and time), merged reads of 1 to 64 queues,
# mgdump's pcapng writer against pcap_dump(), and its index: what it costs
# a packet (callgrind), and what it saves a search of an hour's recording.  In VMs (one kernel,
# MGCAP_BENCH_KERNEL, default the first built): instructions a packet for
# every contender under pktgen and test-NIC loads (the capture path's guard in
# two more boots), a profile of each, burst
# absorption, capacity by traffic shape and buffer size, a lone frame's latency,
# the recorders writing whole frames to a disk (a VM of their own, with the
# disk), multi-queue scaling and what mgdump --per-queue writes a second
# with 1, 2 and 4 writers (wall clock, the scaling's VM, with a disk).
#
# Everything goes to the build tree, nothing to the source tree: the raw CSV
# and profiles to BUILDDIR/build/bench/results/, then report.py writes the
# report, BUILDDIR/build/bench/BENCHMARKS.md, and its plots,
# BUILDDIR/build/bench/plots/.  Each run replaces the last one's.  Publishing
# a run is a separate step: make bench-publish (bench/publish.py) copies the
# report to SRCDIR/BENCHMARKS.md and the files it links to into
# SRCDIR/bench/published/.
#
# Options, in the environment:
# MGCAP_BENCH_KERNEL=KVER: the VMs' kernel (default the first built).
# MGCAP_BENCH_HOST_ONLY=1: the host benchmarks only, reported with the VM
#   results of the last full run in this build tree (if any).
# MGCAP_BENCH_BEFORE=DIR: an earlier run's results, made the same way (a copy
#   of its build/bench/results/, or bench/published/before/): the "before"
#   column of the per-packet floor's targets (report.py --before).  Without
#   it, the report has no before column.
# MGCAP_BENCH_AGREE=DIR: an earlier run's results (a copy of its
#   build/bench/results/): bench/agree.py compares this run's instruction
#   counts with them, into results/agree.txt, which the report sums up and
#   links.  Full runs only.
# Neither may be this build tree's results/, which the run replaces: copy it
# away first (cp -r build/bench/results /somewhere/results-COMMIT).
#
# --profile (make bench-profile): only the profile, printed, nothing written
# to results/: where each contender's instructions go, in a few minutes.
# --record (make bench-record): only the recorders' parts (guest-bench.sh's
# record: whole frames into files on a disk, icount; then record_rate: what
# mgdump --per-queue writes a second, wall clock), their tables printed,
# nothing written to results/.
set -eu
src=$1
build=$2
bb=$build/build/bench
res=$bb/results
first_built=$(ls "$build"/build/*/kmod/mgcap.ko | head -n 1)
first_built=${first_built%/kmod/mgcap.ko}
kver=${MGCAP_BENCH_KERNEL:-${first_built##*/}}
profile_only= record_only=
[ "${3:-}" = --profile ] && profile_only=1
[ "${3:-}" = --record ] && record_only=1

# earlier results, as absolute paths (make runs this in the build tree)
earlier() {
	[ -n "$2" ] || return 0
	[ -f "$2/cost.csv" ] || { echo "bench: $1=$2: no cost.csv there" >&2; exit 1; }
	dir=$(cd "$2" && pwd -P)
	case $dir/ in
	"$(mkdir -p "$res" && cd "$res" && pwd -P)"/*)
		echo "bench: $1 is in this run's own results/, which it replaces: copy it away first" >&2
		exit 1 ;;
	esac
	echo "$dir"
}
before=$(earlier MGCAP_BENCH_BEFORE "${MGCAP_BENCH_BEFORE:-}")
agree=$(earlier MGCAP_BENCH_AGREE "${MGCAP_BENCH_AGREE:-}")

# the commit measured, -dirty with changes not committed
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null) || commit='?'
if [ "$commit" != '?' ] && ! git -C "$src" diff --quiet HEAD -- 2>/dev/null; then
	commit=$commit-dirty
fi

# report: the report and its plots from the results, and where it is
report() {
	python3 "$src/bench/report.py" "$res" "$bb/BENCHMARKS.md" ${before:+--before "$before"}
	echo "bench: report in $bb/BENCHMARKS.md (raw results in $res/);" \
		"make bench-publish publishes it"
}

# a full run starts from nothing; a host-only one keeps the VM results
if [ -z "$profile_only$record_only" ] && [ -z "${MGCAP_BENCH_HOST_ONLY:-}" ]; then
	rm -rf "$res"
fi
mkdir -p "$res"

# vm NAME CPUS QEMU_OPTS PART...: guest-bench.sh's PARTs in a VM; results in $bb/NAME
vm() {
	name=$1 cpus=$2 qemu=$3
	shift 3
	out=$bb/$name
	rm -rf "$out"
	# TSC: the emulated HPET costs microseconds per read and hides what is measured.
	# The system's QEMU (7.2), not run-vm.sh's 10.0: under icount 10.0 printed
	# nothing in 8 minutes of a boot (6.1, one vCPU) that 7.2 makes in 30 s.
	# No self-tests of the crypto algorithms: under icount, on a busy host,
	# udev killed the worker loading aesni_intel while it waited for its
	# test, a WARNING that failed two runs at their end (stop 47).
	MGCAP_VM_APPEND="clocksource=tsc tsc=reliable cryptomgr.notests=1" \
		MGCAP_VM_MEMORY=2G MGCAP_VM_CPUS=$cpus \
		MGCAP_VM_QEMU=${MGCAP_VM_QEMU:-$(command -v qemu-system-x86_64)} \
		MGCAP_VM_QEMU_OPTS=$qemu MGCAP_VM_NICS= MGCAP_VM_TIMEOUT=${MGCAP_VM_TIMEOUT:-3600} \
		sh "$src/tests/vm/run-vm.sh" "$kver" "$out" \
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

# disk NAME: a disk for the recorders' files, $bb/NAME-disk.img, and the QEMU
# options that attach it -> $disk: a raw image on the host, sparse, with
# cache=none (the host's page cache between would make the disk faster than
# any), which the guest makes ext4 (guest-bench.sh record, record_rate).
# 1 GiB: the largest file of part record, 80,000 frames of 1514 bytes, is
# some 125 MB; a probe of record_rate's, 5 s of what the VM makes, 400 MB
disk() {
	rm -f "$bb/$1-disk.img"
	truncate -s 1G "$bb/$1-disk.img"
	disk="-drive file=$bb/$1-disk.img,if=virtio,format=raw,cache=none"
}

# the recorder's part in a VM of its own under icount, with its disk;
# results in $bb/record
vm_record() {
	disk record
	vm record 1 "-icount shift=0,sleep=off $disk" record
	rm -f "$bb/record-disk.img"
}
if [ -n "$record_only" ]; then
	echo "bench: VM, kernel $kver: the recorder under icount"
	vm_record
	echo "bench: VM, kernel $kver: mgdump --per-queue's writing, wall clock"
	disk wallclock
	vm record-rate 2 "$disk" record_rate
	rm -f "$bb/wallclock-disk.img"
	cp "$bb"/record-rate/record-rate*.csv "$bb/record/"
	exec python3 "$src/bench/report.py" --record "$bb/record"
fi

# counted FN TOTAL: whether callgrind counted FN's instructions (none if the
# compiler inlined it: then no figure, and a warning, rather than a wrong one)
counted() {
	case $2 in
	'' | *[!0-9]*)
		echo "bench: warning: callgrind counted no instructions in $1 (inlined?): figure left out" >&2
		return 1 ;;
	esac
}

echo "bench: host read path"
"$bb/readpath" 64 128 256 1518 >"$res/readpath.csv"
echo "reader,size,packets,instructions,callback_instructions" >"$res/readpath-callgrind.csv"
for size in 64 1518; do
	for reader in mgcap mgcap-adapter savefile; do
		# the module's read op (activate() chose one of pcap_mgcap_read_*), or the
		# savefile's; the callback is subtracted
		fn='pcap_mgcap_read_*'
		[ "$reader" = savefile ] && fn=pcap_offline_read
		n=2000	# what the ring holds of the largest frames
		valgrind -q --tool=callgrind --toggle-collect=$fn --callgrind-out-file="$bb/cg.out" \
			"$bb/readpath" --once $reader $size $n
		total=$(callgrind_annotate "$bb/cg.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
		cb=$(callgrind_annotate "$bb/cg.out" | awk '/:count_packet / { gsub(",", "", $1); print $1; exit }')
		counted "$fn" "$total" || continue
		echo "$reader,$size,$n,$total,${cb:-0}" >>"$res/readpath-callgrind.csv"
	done
done

echo "bench: merged reads of 1 to 64 queues"
echo "shape,queues,read,records,instructions,callback_instructions" >"$res/merge-callgrind.csv"
# one queue (its own read op, the same in every shape), then each shape over 4
# to 64, reads of 4096 records; then a record a read, as pcap_next_ex() reads
for case in round-robin:1:batch round-robin:4:batch round-robin:16:batch round-robin:64:batch \
	one-busy:4:batch one-busy:16:batch one-busy:64:batch zipf:4:batch zipf:16:batch \
	zipf:64:batch round-robin:1:one-at-a-time one-busy:64:one-at-a-time \
	round-robin:64:one-at-a-time; do
	shape=${case%%:*} queues=${case#*:} read=${case##*:} n=20000
	queues=${queues%:*}
	# the read op: one queue has its own, several pcap_mgcap_read_merged()
	valgrind -q --tool=callgrind --toggle-collect='pcap_mgcap_read_*' --callgrind-out-file="$bb/cg.out" \
		"$bb/readpath" --merge $queues $n $shape $([ $read = batch ] || echo $read)
	total=$(callgrind_annotate "$bb/cg.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	# the callback: the order's check, and the count it calls (if not in line),
	# each function's first line (callgrind_annotate may name a file two ways)
	cb=$(callgrind_annotate "$bb/cg.out" | awk '
		/:count_in_order / && !seen["in_order"]++ { gsub(",", "", $1); s += $1 }
		/:count_packet / && !seen["packet"]++ { gsub(",", "", $1); s += $1 }
		END { print s + 0 }')
	counted 'pcap_mgcap_read_*' "$total" || continue
	echo "$shape,$queues,$read,$n,$total,$cb" >>"$res/merge-callgrind.csv"
done

echo "bench: pcapng writer"
tmp=$(mktemp -d /dev/shm/mgcap-bench.XXXXXX)
"$bb/writer" "$tmp" 64 128 256 1518 >"$res/writer.csv"
rm -rf "$tmp"

echo "bench: mgdump's index, its cost and what it saves"
tmp=$(mktemp -d /dev/shm/mgcap-bench.XXXXXX)
# (an hour's recording is 700 MB of memory: gone however the run ends)
trap 'rm -rf "$tmp"' EXIT
echo "flows,packets,instructions" >"$res/index-cost.csv"
for flows in 1 1000; do
	# capindex_blocks() and what it calls: all the index does a packet
	n=200000
	valgrind -q --tool=callgrind --toggle-collect=capindex_blocks --callgrind-out-file="$bb/cg.out" \
		"$bb/index" cost $flows $n "$tmp"
	total=$(callgrind_annotate "$bb/cg.out" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	rm -f "$tmp"/*
	counted capindex_blocks "$total" || continue
	echo "$flows,$n,$total" >>"$res/index-cost.csv"
done
# an hour, then one flow's second of it, through the index and by a full scan
"$bb/index" hour "$tmp" >"$bb/hour.csv"
IFS=, read -r from to wanted <"$bb/hour.csv"
extract() {	# extract OUT [--no-index]: its summary line
	"$build/tools/mgcap-extract/mgcap-extract" ${2:-} -r "$tmp" --from "$from" --to "$to" -w "$bb/$1" \
		udp src port 10000 2>&1
}
indexed=$(extract extract-indexed.pcapng) || { echo "$indexed" >&2; exit 1; }
scan=$(extract extract-scan.pcapng --no-index) || { echo "$scan" >&2; exit 1; }
rm -rf "$tmp"
same=0
cmp -s "$bb/extract-indexed.pcapng" "$bb/extract-scan.pcapng" && same=1
rm -f "$bb/extract-indexed.pcapng" "$bb/extract-scan.pcapng"
# "mgcap-extract: N packets from F files (I by their index); read R bytes of A (P %)"
summary() {
	echo "$1" | sed -n 's/^mgcap-extract: \([0-9]*\) packets from \([0-9]*\) files .* read \([0-9]*\) bytes of \([0-9]*\) .*/\1,\2,\3,\4/p'
}
echo "wanted,packets,files,bytes_read,bytes_all,scan_packets,scan_files,scan_bytes_read,scan_bytes_all,same" \
	>"$res/index-extract.csv"
line="$wanted,$(summary "$indexed"),$(summary "$scan"),$same"
case $line in
*,,* | ,*) echo "bench: mgcap-extract's summaries unread: $indexed / $scan" >&2; exit 1 ;;
esac
echo "$line" >>"$res/index-extract.csv"

if [ -n "${MGCAP_BENCH_HOST_ONLY:-}" ]; then	# the VM results stay as they are
	echo "commit,$commit" >"$res/host.csv"
	echo "host_cpu,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/,/ /g')" >>"$res/host.csv"
	echo "date,$(date -u +%Y-%m-%d)" >>"$res/host.csv"
	report
	exit 0
fi

# the kernel parts: instruction counts in a 1-vCPU VM under icount (one guest
# ns per guest instruction, idle time skipped), then the multi-queue scaling,
# which icount cannot show, on the wall clock in a 2-vCPU VM
t0=$(date +%s)
# two 1-vCPU VMs under icount side by side, a host core each (a count does
# not depend on the host's load): the instruction counts and one shape's
# capacity in one, the other shapes' capacity and the latency in the other
# (the capacity's bisections take some 40 minutes of VM time: so
# that each VM ends within its MGCAP_VM_TIMEOUT)
echo "bench: VM, kernel $kver: instruction counts, capacity and latency under icount"
vm shapes 1 "-icount shift=0,sleep=off" capacity=one-flow,zipf4-imix,zipf16-imix,burst latency &
shapes=$!
vm icount 1 "-icount shift=0,sleep=off" cost send profile burst capacity=even-imix
# the capture path's guard in two more boots: it is judged on the median of three
for boot in 2 3; do
	vm guard-boot$boot 1 "-icount shift=0,sleep=off" guard
	cp "$bb/guard-boot$boot/cost.csv" "$res/guard-boot$boot.csv"
done
# the recorder, whole frames into files on a disk of its VM's
vm_record
cp "$bb"/record/record*.csv "$res/"
wait "$shapes" || exit 1
echo "bench: VM, kernel $kver: multi-queue scaling and mgdump --per-queue's writing, wall clock"
disk wallclock
vm wallclock 2 "$disk" scaling record_rate
rm -f "$bb/wallclock-disk.img"
for f in "$bb"/icount/*.csv "$bb"/shapes/*.csv; do
	case ${f##*/} in
	capacity*.csv) ;;	# in both VMs: joined below
	*) cp "$f" "$res/" ;;
	esac
done
cp "$bb"/icount/profile-*.txt "$bb"/wallclock/scaling.csv "$bb"/wallclock/record-rate*.csv "$res/"
# the capacity's shapes from both VMs, one table
for f in capacity.csv capacity-probes.csv; do
	{ cat "$bb/shapes/$f" && tail -n +2 "$bb/icount/$f"; } >"$res/$f" || exit 1
done
echo "commit,$commit" >"$res/environment.csv"
echo "kernel,$kver" >>"$res/environment.csv"
echo "host_cpu,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/,/ /g')" >>"$res/environment.csv"
echo "date,$(date -u +%Y-%m-%d)" >>"$res/environment.csv"
echo "vm_minutes,$((($(date +%s) - t0 + 59) / 60))" >>"$res/environment.csv"

if [ -n "$agree" ]; then
	python3 "$src/bench/agree.py" "$agree" "$res" >"$res/agree.txt" ||
		echo "bench: figures missing from one run or beyond 1 % of $agree (results/agree.txt)"
	[ ! -f "$agree/environment.csv" ] || cp "$agree/environment.csv" "$res/agree-environment.csv"
fi
report
