#!/bin/sh
# guest-bench.sh OUTDIR PART...: the benchmarks that need a kernel; run inside
# a VM by bench/run.sh.  Parts:
#
#   cost     instructions a packet, every contender, pktgen and test-NIC loads
#            (a 1-vCPU VM under QEMU's -icount shift=0,sleep=off: one guest ns
#            is one guest instruction) -> OUTDIR/cost.csv, OUTDIR/capture.csv
#   guard    the capture path alone and its baseline only (pktgen, 64 bytes),
#            for its guard's other boots -> OUTDIR/cost.csv, OUTDIR/capture.csv
#   send     instructions a sent frame, every contender that captures them:
#            pktgen through the stack's transmit path out of a dummy device
#            -> OUTDIR/cost.csv, OUTDIR/capture.csv (load "send")
#   profile  perf record under icount, per contender -> OUTDIR/profile-*.txt
#   burst    the largest burst a ring takes whole (a count) -> OUTDIR/burst.csv
#   capacity the highest rate each reader keeps whole (a burst: the longest
#            burst), by traffic shape and buffer size, by bisection (icount)
#            -> OUTDIR/capacity.csv, every probe in OUTDIR/capacity-probes.csv;
#            capacity=SHAPE,... for some shapes only
#   latency  a lone frame's way to a libpcap reader, by source and read mode
#            (icount) -> OUTDIR/latency.csv
#   scaling  one queue against two, wall clock (a 2-vCPU VM: icount would
#            serialise the vCPUs) -> OUTDIR/scaling.csv
#   record   instructions a packet of the recorders (mgdump --per-queue,
#            today's mgdump, tcpdump -w) and the capture path alone, whole
#            frames of 64, 512 and 1514 bytes into files on ext4 on a virtio
#            disk the VM was given (MGCAP_BENCH_RECORD_DISK, /dev/vda: its
#            contents are lost), icount -> OUTDIR/record.csv,
#            OUTDIR/record-capture.csv
#   record_rate  the bytes mgdump --per-queue writes a second at the largest
#            rate it keeps whole, 1, 2 and 4 queues, wall clock (a VM of
#            several vCPUs, with record's disk) -> OUTDIR/record-rate.csv,
#            every probe in OUTDIR/record-rate-probes.csv
#
# A cost round is the CPU's run time (/proc/schedstat, idle excluded) over a
# window holding the injection and every reader's complete drain, divided by
# the frames: everything a packet costs, the generator's share included.
# Each contender runs a warm-up round (round 0, not judged) first.
set -u
B=$MGCAP_BUILD
K=$(uname -r)
KO=$B/build/$K/kmod/mgcap.ko
NIC=$B/build/$K/mgtestnic/mgtestnic.ko
MGCAP=$B/tools/mgcap/mgcap
RUN=$B/tools/mgcap-run
WAIT=$B/tests/programs/mgcap-wait
OUT=$1
shift
ROUNDS=${MGCAP_BENCH_ROUNDS:-3}
SIZES=${MGCAP_BENCH_SIZES:-64 128 256 1518}
PKTGEN_CONTENDERS=${MGCAP_BENCH_PKTGEN:-baseline afpacket afpacket-tmpfs netsniff-ng mgcap-ring \
mgcap-ring-sent mgcap-ring2 mgcap-mirror mgcap-mirror-B32 mgcap-drop mgcap-drop-filter mgcap-drop-full mgdump \
mgdump-drop}
SEND_CONTENDERS=${MGCAP_BENCH_SEND:-baseline afpacket mgcap-ring-sent mgcap-ring-received mgcap-mirror}
NIC_CONTENDERS=${MGCAP_BENCH_NIC:-baseline afpacket mgcap-ring mgcap-mirror mgcap-drop mgdump}
# stamps from the test NIC's PHC, converted to system time (-j adapter)
ADAPTER_CONTENDERS=${MGCAP_BENCH_ADAPTER:-baseline mgcap-mirror mgdump}
# profiles sample every PROFILE_PERIOD guest instructions, about five times a
# packet: a short function's share is then counted, rather than hit or
# missed as the per-packet loop lines up with the period
PROFILE_PERIOD=9973
PROFILE_CONTENDERS=${MGCAP_BENCH_PROFILE:-baseline afpacket mgcap-ring mgcap-mirror mgcap-drop-full \
mgcap-drop mgdump}
# frames a round: deterministic counts need no more
FRAMES=${MGCAP_BENCH_FRAMES:-50000}
# settle: a guest sleep after the injection, long enough for every reader to
# drain (AF_PACKET hands a block over after libpcap's 1 s timeout at the
# latest); idle time costs no host time with sleep=off
SETTLE=3
# the same buffer for every contender: AF_PACKET's ring (-B), netsniff-ng's, mgcap's
BUF_MB=32
SNAPLEN=96
TSOPT=
TMPFS=/run/mgcap-bench
LOG=$OUT/log
PG=/proc/net/pktgen

say() { echo "bench: $*" | tee -a "$LOG"; }

# --- contenders: start_contender NAME DEV, stop_contender NAME DEV -> $captured
wait_for() {	# wait_for FILE TEXT
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 600 ] && { say "no '$2' in $1:"; cat "$1" >>"$LOG"; return 1; }
		sleep 0.05
	done
}

start_contender() {
	name=$1
	dev=$2
	rm -f "$TMPFS"/*
	: >"$OUT/reader.txt"
	reader=
	readers=1
	case $1 in
	baseline) return 0 ;;
	afpacket)
		set -- tcpdump -i "$dev" -n -s $SNAPLEN -B $((BUF_MB * 1024)) -Z root -w /dev/null ;;
	afpacket-tmpfs)
		set -- tcpdump -i "$dev" -n -s $SNAPLEN -B $((BUF_MB * 1024)) -Z root -w "$TMPFS/out.pcap" ;;
	netsniff-ng)
		# it has no snaplen: whole frames, to /dev/null like the first tcpdump
		set -- netsniff-ng --in "$dev" --out /dev/null --ring-size ${BUF_MB}MiB --silent ;;
	mgcap-ring | mgcap-ring2 | mgcap-ring-sent | mgcap-ring-received)
		# the capture path alone: a reader that only consumes records, of
		# the received frames (two of them: what one more reader costs; of
		# both directions: with the tap of sent frames in place, which
		# costs the received ones too; in a capture started sent off: none
		# of the sent frames, at no price)
		$MGCAP start "$dev" ring-size ${BUF_MB}M snaplen $SNAPLEN \
			$([ "$1" = mgcap-ring-received ] && echo sent off) >/dev/null || return 1
		sent=
		case $1 in mgcap-ring-sent | mgcap-ring-received) sent=--sent ;; esac
		if [ "$1" = mgcap-ring2 ]; then
			$WAIT "/dev/mgcap/$dev@0" hup 1000000 >"$OUT/reader2.txt" 2>&1 &
			readers=2
		fi
		set -- $WAIT $sent "/dev/mgcap/$dev@0" hup 1000000 ;;
	mgcap-mirror | mgcap-drop)
		$MGCAP start "$dev" ring-size ${BUF_MB}M mode "${1#mgcap-}" >/dev/null || return 1
		set -- $RUN tcpdump -i "mgcap:$dev" $TSOPT -n -s $SNAPLEN -Z root -w /dev/null ;;
	mgcap-mirror-B32)	# tcpdump's buffer as large as the ring, as AF_PACKET's is
		$MGCAP start "$dev" ring-size ${BUF_MB}M >/dev/null || return 1
		set -- $RUN tcpdump -i "mgcap:$dev" $TSOPT -n -s $SNAPLEN -B $((BUF_MB * 1024)) -Z root \
			-w /dev/null ;;
	mgcap-drop-filter)
		# pktgen sends to UDP ports 9 to 108 (its maximum is exclusive): the filter passes 1 in 100
		pg "udp_dst_max 109"
		$MGCAP start "$dev" ring-size ${BUF_MB}M mode drop >/dev/null || return 1
		set -- $RUN tcpdump -i "mgcap:$dev" $TSOPT -n -s $SNAPLEN -Z root -w /dev/null \
			udp dst port 9 ;;
	mgcap-drop-full)
		# nobody reads: after the warm-up the ring is full and every frame is dropped
		$MGCAP start "$dev" ring-size 64K mode drop >/dev/null || return 1
		return 0 ;;
	mgdump | mgdump-drop)
		mode=mirror
		[ "$1" = mgdump-drop ] && mode=drop
		$MGCAP start "$dev" ring-size ${BUF_MB}M mode $mode >/dev/null || return 1
		set -- $RUN $B/tools/mgdump/mgdump -i "$dev" -s $SNAPLEN -w "$TMPFS/out.pcapng" ;;
	*) say "unknown contender $1"; return 1 ;;
	esac
	"$@" >"$OUT/reader.txt" 2>&1 &
	reader=$!
	# ready when capturing: with sleep=off a fixed sleep may end before a
	# program has even loaded
	case $name in
	afpacket* | mgcap-mirror* | mgcap-drop*) wait_for "$OUT/reader.txt" "listening on" ;;
	netsniff-ng) until [ "$(wc -l </proc/net/packet)" -gt 1 ]; do sleep 0.05; done ;;
	*) until [ "$($MGCAP -j show "$dev" | grep -o '"pid":' | wc -l)" -ge "$readers" ]; do
		sleep 0.05
	   done ;;
	esac
}

# reader_count tcpdump|mgdump: the packets it says it kept, in $OUT/reader.txt
reader_count() {
	case $1 in
	tcpdump) sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$OUT/reader.txt" ;;
	mgdump) sed -n 's/^mgdump: \([0-9]*\) packets written.*/\1/p' "$OUT/reader.txt" ;;
	esac
}

stop_contender() {	# stop_contender NAME DEV
	captured=
	case $1 in
	mgcap-ring | mgcap-ring2 | mgcap-ring-sent | mgcap-ring-received)	# the readers leave when the capture ends
		$MGCAP stop "$2" >/dev/null
		wait ;;
	mgcap-drop-full)
		captured=$($MGCAP -j show "$2" | grep -o '"captured":[0-9]*' | cut -d: -f2)
		$MGCAP stop "$2" >/dev/null ;;
	baseline) ;;
	*)
		kill -INT "$reader"
		wait "$reader" ;;
	esac
	cat "$OUT/reader.txt" >>"$LOG"
	case $1 in
	afpacket* | mgcap-mirror* | mgcap-drop | mgcap-drop-filter)
		captured=$(reader_count tcpdump) ;;
	netsniff-ng)
		captured=$(tr -d '\r' <"$OUT/reader.txt" | sed -n 's/^ *\([0-9]*\) *packets passed filter.*/\1/p') ;;
	mgcap-ring | mgcap-ring-sent | mgcap-ring-received)
		captured=$(sed -n 's/^end: \([0-9]*\) records read.*/\1/p' "$OUT/reader.txt") ;;
	mgcap-ring2)	# counted only when both readers read every record
		captured=$(sed -n 's/^end: \([0-9]*\) records read.*/\1/p' "$OUT/reader.txt")
		second=$(sed -n 's/^end: \([0-9]*\) records read.*/\1/p' "$OUT/reader2.txt")
		[ "$captured" = "$second" ] || { say "$1: readers read $captured and $second"; return 1; } ;;
	mgdump*)
		captured=$(reader_count mgdump) ;;
	esac
	case $1 in
	mgcap-mirror* | mgcap-drop | mgdump*) $MGCAP stop "$2" >/dev/null ;;
	mgcap-drop-filter) $MGCAP stop "$2" >/dev/null && pg "udp_dst_max 9" ;;
	esac
	[ "$1" = baseline ] || [ -n "$captured" ] || { say "$1: no packet count"; return 1; }
}

# --- loads: inject_LOAD FRAMES, after setup_LOAD SIZE -------------------------------
setup_pktgen() {
	if [ ! -e /sys/class/net/bench0 ]; then
		modprobe pktgen || return 1
		ip link add bench0 type dummy &&
			sysctl -qw net.ipv6.conf.bench0.disable_ipv6=1 && ip link set bench0 up &&
			ip addr add 198.51.100.1/24 dev bench0 || return 1
		echo "rem_device_all" >$PG/kpktgend_0
		echo "add_device bench0" >$PG/kpktgend_0
	fi
	pg() { echo "$1" >$PG/bench0; }
	# pkt_size excludes the 4-byte FCS; frames go to this host's address,
	# a UDP port nobody listens on: the stack does its full receive work
	pg "pkt_size $(($1 - 4))"
	pg "xmit_mode netif_receive"
	pg "dst 198.51.100.1"
	pg "dst_mac $(cat /sys/class/net/bench0/address)"
	pg "src_min 192.0.2.1"
	pg "src_max 192.0.2.1"
	pg "udp_dst_min 9"
	pg "udp_dst_max 9"
	DEV=bench0
}

# the same frames out of the dummy device, through dev_queue_xmit() (the
# stack's transmit path, where every capture's tap sees them), to an address
# that is not this host's
setup_send() {
	setup_pktgen "$1" || return 1
	pg "xmit_mode queue_xmit"
	pg "dst 198.51.100.2"
	pg "dst_mac 02:00:5e:00:53:02"
}
inject_send() { inject_pktgen "$@"; }

inject_pktgen() {	# synchronous: pktgen's thread runs until it has sent them all
	echo "count $1" >$PG/bench0
	echo start >$PG/pgctrl
}

# mgt0 up with this host's address (once), no IPv6 of its own
nic_address() {
	[ -n "$(ip -br addr show dev mgt0 to 198.51.100.1/32)" ] ||
		{ ip link set mgt0 up && sysctl -qw net.ipv6.conf.mgt0.disable_ipv6=1 &&
			ip addr add 198.51.100.1/24 dev mgt0; }
}

setup_nic() {
	nic_address || return 1
	echo $(($1 - 4)) >/sys/class/net/mgt0/mgtestnic/frame_len
	DEV=mgt0
}

inject_nic() {
	echo "0 $1" >/sys/class/net/mgt0/mgtestnic/generate || return 1
	while grep -q '[1-9]' /sys/class/net/mgt0/mgtestnic/pending; do sleep 1; done
}

# --- cost: instructions a packet ----------------------------------------------------
run_ns() {	# the CPU's run time in ns -> $RUN_NS, without a fork
	while read -r cpu f1 f2 f3 f4 f5 f6 f7 rest; do
		[ "$cpu" = cpu0 ] && { RUN_NS=$f7; return 0; }
	done </proc/schedstat
	return 1
}

measure() {	# measure LOAD SIZE HWTS CONTENDER: a warm-up round, then $ROUNDS
	start_contender "$4" "$DEV" || return 1
	for round in $(seq 0 "$ROUNDS"); do
		run_ns && before=$RUN_NS
		"inject_$1" "$FRAMES" || return 1
		sleep $SETTLE
		run_ns && after=$RUN_NS
		echo "$1,$2,$3,$4,$round,$FRAMES,$((after - before))" >>"$OUT/cost.csv"
	done
	stop_contender "$4" "$DEV" || return 1
	offered=$((FRAMES * (ROUNDS + 1)))
	# with a filter: the frames it passes (pktgen cycles through 100 ports)
	[ "$4" = mgcap-drop-filter ] && offered=$((offered / 100))
	echo "$1,$2,$3,$4,$offered,${captured:-}" >>"$OUT/capture.csv"
	say "$1 $2 bytes, stamps $3, $4: $(awk -F, -v c="$4" -v s="$2" -v h="$3" -v l="$1" \
		'$1 == l && $2 == s && $3 == h && $4 == c && $5 > 0 { printf "%.1f ", $7 / $6 }' \
		"$OUT/cost.csv")instructions/packet, captured ${captured:--} of $offered"
}

part_cost() {
	echo "load,size,hwts,contender,round,frames,instructions" >"$OUT/cost.csv"
	echo "load,size,hwts,contender,offered,captured" >"$OUT/capture.csv"
	for size in $SIZES; do
		setup_pktgen "$size" || return 1
		for c in $PKTGEN_CONTENDERS; do
			measure pktgen "$size" off "$c" || return 1
		done
	done
	# stamps off; on (adapter_unsynced); adapter: the NIC stamps from its PHC
	# (the generator's share grows: it reads the clock, so baseline runs too)
	for hwts in off on adapter; do
		$MGCAP hwtstamp mgt0 "$([ $hwts = off ] && echo off || echo on)" >/dev/null || return 1
		echo "$([ $hwts = adapter ] && echo 1 || echo 0)" \
			>/sys/class/net/mgt0/mgtestnic/phc_stamps || return 1
		TSOPT=
		contenders=$NIC_CONTENDERS
		[ "$hwts" = on ] && TSOPT="-j adapter_unsynced"
		[ "$hwts" = adapter ] && TSOPT="-j adapter" && contenders=$ADAPTER_CONTENDERS
		for size in $SIZES; do
			setup_nic "$size" || return 1
			for c in $contenders; do
				measure nic "$size" "$hwts" "$c" || return 1
			done
		done
	done
	$MGCAP hwtstamp mgt0 off >/dev/null
	echo 0 >/sys/class/net/mgt0/mgtestnic/phc_stamps
	TSOPT=
}

# --- guard: the capture path's guard again, in a boot of its own ----------------------
# The capture path alone against nothing capturing, pktgen, 64 bytes: the
# counts move by a few instructions from boot to boot (the kernel's layout
# and hash seeds), so its guard is judged on the median of several boots.
part_guard() {
	echo "load,size,hwts,contender,round,frames,instructions" >"$OUT/cost.csv"
	echo "load,size,hwts,contender,offered,captured" >"$OUT/capture.csv"
	setup_pktgen 64 || return 1
	for c in baseline mgcap-ring mgcap-ring-sent; do
		measure pktgen 64 off "$c" || return 1
	done
}

# --- send: what capturing the frames a host sends costs each ----------------------------
# (the cost part's files, its rows of load "send"; mgcap-ring-received holds
# none of them: what a capture without the tap costs a sending host)
part_send() {
	[ -e "$OUT/cost.csv" ] ||
		echo "load,size,hwts,contender,round,frames,instructions" >"$OUT/cost.csv"
	[ -e "$OUT/capture.csv" ] || echo "load,size,hwts,contender,offered,captured" >"$OUT/capture.csv"
	for size in 64 1518; do
		setup_send "$size" || return 1
		for c in $SEND_CONTENDERS; do
			measure send "$size" off "$c" || return 1
		done
	done
	setup_pktgen 64
}

# --- profile: where the instructions go, per contender --------------------------------
part_profile() {
	mkdir -p /run/perf && mount -t tmpfs tmpfs /run/perf || return 1
	setup_pktgen 64 || return 1
	for c in $PROFILE_CONTENDERS; do
		start_contender "$c" "$DEV" || return 1
		inject_pktgen "$FRAMES"	# warm-up
		sleep $SETTLE
		# kernel and user space, every CPU
		perf record -q -e cpu-clock -c $PROFILE_PERIOD -a -o /run/perf/perf.data \
			sh -c "echo count $FRAMES >$PG/bench0; echo start >$PG/pgctrl; sleep $SETTLE" \
			>>"$LOG" 2>&1
		stop_contender "$c" "$DEV" || return 1
		# samples per symbol; report.py leaves out the idle loop's
		{
			echo "# frames $FRAMES period $PROFILE_PERIOD"
			perf report -i /run/perf/perf.data --stdio --no-children -n --sort dso,sym \
				2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 150
		} >"$OUT/profile-$c.txt"
		rm -f /run/perf/perf.data
	done
	umount /run/perf
}

# --- burst absorption: no reader, bursts of P frames, the largest P kept whole ---
burst_lossless() {	# burst_lossless RING P: 0 if all P frames were captured
	$MGCAP start mgt0 ring-size "$1" mode drop >/dev/null || return 2
	inject_nic "$2"
	dropped=$($MGCAP -j show mgt0 | grep -o '"dropped":[0-9]*' | awk -F: '{ n += $2 } END { print n }')
	$MGCAP stop mgt0 >/dev/null
	[ "$dropped" = 0 ]
}

part_burst() {
	size=${BURST_SIZE:-128}
	rec=$(( (24 + size - 4 + 7) / 8 * 8 ))
	setup_nic "$size" || return 1
	echo "ring_bytes,frame_size,record_bytes,capacity_records,largest_lossless_burst" >"$OUT/burst.csv"
	for ring in ${BURST_RINGS:-65536 262144 1048576 4194304}; do
		cap=$((ring / rec))
		lo=0		# lossless
		hi=$((2 * cap))	# assumed lossy; checked below
		burst_lossless "$ring" "$hi" && { say "a burst of $hi into $ring bytes lost nothing"; return 1; }
		while [ $((hi - lo)) -gt 1 ]; do
			mid=$(((lo + hi) / 2))
			if burst_lossless "$ring" "$mid"; then lo=$mid; else hi=$mid; fi
		done
		echo "$ring,$size,$rec,$cap,$lo" >>"$OUT/burst.csv"
		say "burst: ring $ring, $rec-byte records: capacity $cap, largest lossless burst $lo"
	done
}

# --- capacity: the highest rate each reader keeps whole, by traffic shape and buffer ---
# Each contender reads the same stream alone, with the same buffer: AF_PACKET's
# ring (tcpdump -B), or each queue's ring for mgcap (mgcap start ring-size,
# and tcpdump's -B the same), full frames (tcpdump's default snaplen), as a
# user runs them.  Under icount a rate is in guest time, one ns an
# instruction: each frame has a budget of instructions, the generator's, the
# stack's and the reader's work share one vCPU, and whether a probe keeps
# every frame repeats from boot to boot but near its edge (most likely the
# guest clock's jumps while it waits for the host over 9p move the timers'
# phase: a cell may move by a step or more).  So the highest rate a contender
# keeps whole is found by bisection, a probe a step, between bounds checked
# in each cell (a cell whose high end is kept is unbounded, one whose low end
# loses is below the range: said as such, never a figure made up).
CAPACITY_SHAPES=${MGCAP_BENCH_CAPACITY_SHAPES:-one-flow even-imix zipf4-imix zipf16-imix burst}
CAPACITY_BUFFERS_MB=${MGCAP_BENCH_CAPACITY_BUFFERS:-1 2 8}
# afpacket-tmpfs: tcpdump -w into a file, as mgdump writes one (the bar it
# is held to; -w /dev/null writes nothing)
CAPACITY_CONTENDERS=${MGCAP_BENCH_CAPACITY_CONTENDERS:-afpacket afpacket-tmpfs mgcap-merged \
mgcap-queue0 mgdump}
# the bisection stops once high / low is at most this (5 %: five probes from
# a range of 4x); a burst's, whose probes take a moment, at the frame
CAPACITY_RESOLUTION=1.05

# capacity_shape NAME: the stream's frame_len, the test NIC's queues and how
# its frames go out, into $shape_len $shape_queues $shape_how, the frames a
# probe offers ($shape_frames; a burst: its length is what is bisected) and
# the bounds ($shape_low $shape_high: frames a second, a burst's frames).
# A probe offers three times what the largest buffer, 8 MiB, holds of the
# shape's frames: 5,433 mgcap records of 1514 bytes (1,544 each, header and
# padding), 21,771 of the IMIX (385 on average); AF_PACKET's frames take
# more room.  (mgcap's ring is a queue's: a stream spread over N queues
# fills N of them less, and a reader that falls behind loses there only once
# the CPU no longer takes the rate; three times every ring would take more
# than an hour more.)  The bounds: the bottom kept by every reader, the top
# beyond what the CPU takes (a 1514-byte frame costs the generator, the
# stack and a reader 11,000 to 14,000 instructions, the IMIX's 6,000 to
# 7,000, seen on 6.1); each cell checks both.
capacity_shape() {
	case $1 in
	one-flow)	# RSS puts one big flow on one queue: the other three are quiet
		shape_len=1514 shape_queues=4 shape_how=queue0 shape_frames=16500
		shape_low=20000 shape_high=80000 ;;
	even-imix)	# an even spread over four queues, sizes mixed
		shape_len=imix shape_queues=4 shape_how=all shape_frames=66000
		shape_low=50000 shape_high=200000 ;;
	zipf4-imix | zipf16-imix)
		# many flows, skewed over the queues by Zipf's law (queue i a share
		# of 1/(i+1), queue 0 48 % of four, 30 % of sixteen), sizes mixed
		shape_len=imix shape_queues=${1%-imix} shape_queues=${shape_queues#zipf} shape_how=zipf
		shape_frames=66000 shape_low=50000 shape_high=200000 ;;
	burst)	# line rate, as fast as the generator goes, on one queue, into a
		# reader that cannot run meanwhile (probe())
		shape_len=1514 shape_queues=4 shape_how=burst shape_frames=
		shape_low=500 shape_high=32000 ;;
	*) say "unknown shape $1"; return 1 ;;
	esac
	# (a test's bounds, for every shape it runs)
	if [ -n "${MGCAP_BENCH_CAPACITY_RANGE:-}" ]; then
		set -- $MGCAP_BENCH_CAPACITY_RANGE
		shape_low=$1 shape_high=$2
	fi
	shape_frames=${MGCAP_BENCH_CAPACITY_FRAMES:-$shape_frames}
}

# the generated counts of mgt0's queues, summed: all, or queue 0's
generated() {
	read -r q0 rest </sys/class/net/mgt0/mgtestnic/generated
	[ "$1" = queue0 ] && { echo "$q0"; return; }
	echo $((q0 + $(echo "$rest" | sed 's/ /+/g; s/^$/0/')))
}

# mgt0 with N queues, its address, no stamps
nic_with_queues() {
	rmmod mgtestnic && insmod "$NIC" queues="$1" && nic_address
}

# reader_start CONTENDER MB: CONTENDER reading mgt0 with an MB-MiB buffer, and
# ready (reading every queue, or listening) -> $reader; 1 if it never got
# ready (the log says why, and nothing is left running)
reader_start() {
	contender=$1 mb=$2
	kb=$((mb * 1024))
	rm -f "$TMPFS"/*
	: >"$OUT/reader.txt"
	case $contender in
	afpacket) set -- tcpdump -i mgt0 -Q in -n -B $kb -Z root -w /dev/null ;;
	afpacket-tmpfs) set -- tcpdump -i mgt0 -Q in -n -B $kb -Z root -w "$TMPFS/out.pcap" ;;
	mgcap-merged) set -- $RUN tcpdump -i mgcap:mgt0 -n -B $kb -Z root -w /dev/null ;;
	mgcap-queue0) set -- $RUN tcpdump -i mgcap:mgt0@0 -n -B $kb -Z root -w /dev/null ;;
	mgdump) set -- $RUN $B/tools/mgdump/mgdump -i mgt0 -w "$TMPFS/out.pcapng" ;;
	*) say "unknown reader $contender"; return 1 ;;
	esac
	case $contender in
	mgcap-* | mgdump) $MGCAP start mgt0 ring-size "${mb}M" >/dev/null || return 1 ;;
	esac
	"$@" >"$OUT/reader.txt" 2>&1 &
	reader=$!
	queues=$(ls -d /sys/class/net/mgt0/queues/rx-* | wc -l)
	# 30 s at most
	i=0
	until case $contender in
		mgdump) [ "$($MGCAP -j show mgt0 | grep -o '"pid":' | wc -l)" -ge "$queues" ] ;;
		*) grep -q "listening on" "$OUT/reader.txt" ;;
		esac; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 "$reader" 2>/dev/null; then
			say "$contender, $mb MiB, never got ready:" "$(cat "$OUT/reader.txt"; $MGCAP show mgt0)"
			kill -KILL "$reader" 2>/dev/null
			wait "$reader"
			case $contender in afpacket*) ;; *) $MGCAP stop mgt0 >/dev/null ;; esac
			return 1
		fi
		sleep 0.05
	done
}

# reader_stop CONTENDER: stops the reader, once it has had time to drain
# -> $captured, the frames it says it kept (empty: it said nothing)
reader_stop() {
	kill -CONT "$reader"	# (a burst's, stopped meanwhile)
	sleep $SETTLE
	kill -INT "$reader"
	wait "$reader"
	cat "$OUT/reader.txt" >>"$LOG"
	captured=$(reader_count "$([ "$1" = mgdump ] && echo mgdump || echo tcpdump)")
	case $1 in afpacket*) ;; *) $MGCAP stop mgt0 >/dev/null ;; esac
}

# probe SHAPE MB CONTENDER LOAD: one stream of the shape (capacity_shape),
# LOAD frames a second (a burst: LOAD frames), read by CONTENDER -> a line of
# capacity-probes.csv; 0 if it kept every frame it was judged on (all of
# them, or queue 0's for mgcap:mgt0@0) at the rate asked, 1 if it lost one
# or the CPU could not keep up (below), 2 if it did not run or its count
# makes no sense
probe() {
	shape=$1 mb=$2 contender=$3 load=$4
	if [ "$shape_how" = burst ]; then
		pace=0 frames=$load request="0 $load"
	else
		frames=$shape_frames
		# each queue's pace: the stream's rate over its queues (Zipf's:
		# every queue at queue 0's pace, the others with fewer frames, so
		# the stream's LOAD is its frames over queue 0's time)
		case $shape_how in
		queue0) pace=$load request="0 $frames" ;;
		all) pace=$((load / shape_queues)) request="all $((frames / shape_queues))"
			frames=$((frames / shape_queues * shape_queues)) ;;
		zipf) pace=$(awk -v n="$shape_queues" -v l="$load" \
				'BEGIN { for (i = 1; i <= n; i++) h += 1 / i; printf "%d", l / h }')
			request="zipf $frames" ;;
		esac
	fi
	# a probe that did not run is in the CSV too, without counts
	reader_start "$contender" "$mb" || {
		echo "$shape,$mb,$contender,$load,$pace,$frames,,,,0" >>"$OUT/capacity-probes.csv"
		return 2
	}
	which=all
	[ "$contender" = mgcap-queue0 ] && which=queue0
	# A burst comes while its reader cannot run (busy, or on a CPU the burst
	# outruns): what the reader's buffer holds is kept.  Read as it comes,
	# every burst would be kept: on one vCPU the reader runs between the
	# generator's polls, and takes a frame for a tenth of what making it costs.
	[ "$shape_how" = burst ] && kill -STOP "$reader"
	before=$(generated $which)
	echo "$shape_len" >/sys/class/net/mgt0/mgtestnic/frame_len &&
		echo "$pace" >/sys/class/net/mgt0/mgtestnic/rate_pps &&
		echo "$request" >/sys/class/net/mgt0/mgtestnic/generate || {
		reader_stop "$contender"
		echo "$shape,$mb,$contender,$load,$pace,$frames,,,,0" >>"$OUT/capacity-probes.csv"
		return 2
	}
	run_ns && t0=$RUN_NS
	# (the shell's read costs no fork; guest time while waiting for a file
	# over 9p is not the stream's: the CPU's busy time is what is measured)
	while read -r left </sys/class/net/mgt0/mgtestnic/pending; do
		case $left in *[1-9]*) sleep 0.2 ;; *) break ;; esac
	done
	run_ns && busy=$((RUN_NS - t0))
	offered=$(($(generated $which) - before))
	reader_stop "$contender"
	# the frames it was judged on: every one made, none more
	[ -n "$captured" ] && [ "$offered" -gt 0 ] && [ "$captured" -le "$offered" ] || {
		say "capacity: $contender: no count, or more than offered"
		echo "$shape,$mb,$contender,$load,$pace,$frames,$offered,$captured,$busy,0" \
			>>"$OUT/capacity-probes.csv"
		return 2
	}
	# The test NIC waits for a host that falls behind its pace, where a real
	# NIC's receive ring would fill and drop: on one vCPU a stream faster
	# than the system takes slows down, NAPI goes to ksoftirqd, the reader
	# gets its turn and keeps every frame, and a rate far beyond what it
	# takes would seem kept.  So a paced stream is kept only if the CPU's
	# busy time from the request until the NIC had made every frame fits in
	# the stream's time: it was not saturated.  (Softirqs run from idle are
	# not in the run time: below saturation it is an underestimate, at it
	# exact.)
	kept=0
	[ "$captured" = "$offered" ] &&
		{ [ "$pace" = 0 ] || [ "$busy" -le $((frames * 1000000000 / load)) ]; } && kept=1
	echo "$shape,$mb,$contender,$load,$pace,$frames,$offered,$captured,$busy,$kept" \
		>>"$OUT/capacity-probes.csv"
	say "capacity: $shape, $mb MiB, $contender, $load$([ "$pace" = 0 ] && echo " frames" || echo /s):" \
		"$captured of $offered, CPU busy $((busy / 1000000)) ms$([ "$pace" = 0 ] ||
		echo " of $((frames * 1000 / load))"): $([ $kept = 1 ] && echo kept || echo lost)"
	[ $kept = 1 ]
}

# capacity_cell SHAPE MB CONTENDER -> a line of capacity.csv: the highest
# load kept whole between the shape's bounds, and how it was found
capacity_cell() {
	low=$shape_low high=$shape_high
	exact=$([ "$shape_how" = burst ] && echo 1)
	# the bounds first: the high end kept is a capacity beyond the range, the
	# low end lost one below it; a probe that did not run ends the cell
	probe "$1" "$2" "$3" "$high"
	case $? in
	0) status=unbounded ;;
	1)	probe "$1" "$2" "$3" "$low"
		case $? in 0) status=bounded ;; 1) status=below ;; *) status=failed ;; esac ;;
	*) status=failed ;;
	esac
	# geometric steps: a rate's error is a share of it
	while [ $status = bounded ] &&
		awk -v l="$low" -v h="$high" -v r="$CAPACITY_RESOLUTION" -v exact="$exact" \
			'BEGIN { exit !(exact ? h > l + 1 : h > l * r) }'; do
		# (to the frame: halves, each strictly between the bounds)
		mid=$(awk -v l="$low" -v h="$high" -v exact="$exact" \
			'BEGIN { printf "%d", exact ? (l + h) / 2 : sqrt(l * h) }')
		probe "$1" "$2" "$3" "$mid"
		case $? in 0) low=$mid ;; 1) high=$mid ;; *) status=failed ;; esac
	done
	case $status in
	bounded) capacity=$low ;;
	unbounded) capacity=$high ;;	# at least
	*) capacity= ;;
	esac
	echo "$1,$shape_len,$shape_queues,${shape_frames:-},$2,$3,$shape_low,$shape_high,$status,$capacity" \
		>>"$OUT/capacity.csv"
	say "capacity: $1, $2 MiB, $3: $status${capacity:+ $capacity}"
}

part_capacity() {
	echo "shape,buffer_mb,contender,load,pace_pps,frames,offered,captured,busy_ns,kept" \
		>"$OUT/capacity-probes.csv"
	echo "shape,frame_len,queues,frames,buffer_mb,contender,low,high,status,capacity" \
		>"$OUT/capacity.csv"
	for shape in $CAPACITY_SHAPES; do
		capacity_shape "$shape" || return 1
		nic_with_queues "$shape_queues" || return 1
		for mb in $CAPACITY_BUFFERS_MB; do
			for c in $CAPACITY_CONTENDERS; do
				capacity_cell "$shape" "$mb" "$c" || return 1
			done
		done
	done
	echo 0 >/sys/class/net/mgt0/mgtestnic/rate_pps
	nic_with_queues "$(nproc)"
}

# --- latency: how long a lone frame on a quiet device takes to reach its reader ----
# One frame at a time on queue 1, the other queues quiet, 200 ms apart (idle
# time, which icount skips); the test NIC stamps from its clock and writes the
# system time of each frame's making into it; bench/latency reads with
# libpcap, as a live viewer does, and says how long after that it had each.
# In guest time: the instructions on the way plus every timer the frame
# waited for.  Immediate mode (tcpdump to a terminal) and tcpdump's default
# read timeout (1000 ms, with -w).
LATENCY_FRAMES=${MGCAP_BENCH_LATENCY_FRAMES:-20}

latency_cell() {	# latency_cell SOURCE MODE
	opts=immediate
	[ "$2" = timeout ] && opts="timeout 1000"
	$RUN $B/build/bench/latency "$1" $LATENCY_FRAMES $opts >"$OUT/reader.txt" 2>&1 &
	reader=$!
	wait_for "$OUT/reader.txt" "latency: reading" || return 1
	for i in $(seq $LATENCY_FRAMES); do
		echo "1 1" >/sys/class/net/mgt0/mgtestnic/generate || return 1
		sleep 0.2
	done
	i=0
	while kill -0 "$reader" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && { say "latency: $1 $2 read fewer than $LATENCY_FRAMES"; return 1; }
		sleep 0.2
	done
	wait "$reader" || { cat "$OUT/reader.txt" >>"$LOG"; return 1; }
	# each frame's ns (its "latency: reading" line is on stderr, in the same file)
	ns=$(awk '$1 == "latency:" && $2 != "reading" { print $3 }' "$OUT/reader.txt")
	echo "$ns" | awk -v s="$1" -v m="$2" '{ print s "," m "," NR "," $1 }' >>"$OUT/latency.csv"
	say "latency: $1, $2: $(echo "$ns" | awk '{ printf "%d ", $1 / 1000 }')us"
}

part_latency() {
	echo "source,mode,frame,latency_ns" >"$OUT/latency.csv"
	nic_with_queues 4 || return 1
	$MGCAP hwtstamp mgt0 on >/dev/null &&
		echo 1 >/sys/class/net/mgt0/mgtestnic/phc_stamps &&
		echo 128 >/sys/class/net/mgt0/mgtestnic/frame_len || return 1
	for mode in immediate timeout; do
		latency_cell mgt0 "$mode" || return 1
		$MGCAP start mgt0 >/dev/null || return 1
		for source in mgcap:mgt0 mgcap:mgt0@1; do
			latency_cell "$source" "$mode" || return 1
		done
		$MGCAP stop mgt0 >/dev/null || return 1
	done
	echo 0 >/sys/class/net/mgt0/mgtestnic/phc_stamps
	nic_with_queues "$(nproc)"
}

# --- scaling: one queue against two, wall clock ------------------------------------------
# Each queue's NAPI runs on the CPU that wrote its generate request: queue N on CPU N.
nic_run_wallclock() {	# nic_run_wallclock QUEUES COUNT_PER_QUEUE -> $seconds
	gen=/sys/class/net/mgt0/mgtestnic
	start=$(date +%s%N)
	for q in $(seq 0 $(($1 - 1))); do
		taskset -c "$q" sh -c "echo '$q $2' >$gen/generate"
	done
	until ! grep -q '[1-9]' $gen/pending; do sleep 0.02; done
	end=$(date +%s%N)
	seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
}

part_scaling() {
	echo "hwts,contender,queues,round,offered,seconds,captured" >"$OUT/scaling.csv"
	setup_nic 64 || return 1
	per_queue=${MGCAP_BENCH_SCALING_FRAMES:-100000}
	for hwts in off on; do
		$MGCAP hwtstamp mgt0 "$hwts" >/dev/null || return 1
		TSOPT=
		[ "$hwts" = on ] && TSOPT="-j adapter_unsynced"
		for round in $(seq "$ROUNDS"); do
			for queues in 1 2; do
				for c in ${MGCAP_BENCH_SCALING:-mgcap-drop mgdump-drop}; do
					start_contender "$c" mgt0 || return 1
					nic_run_wallclock "$queues" "$per_queue"
					sleep 1.5	# let the readers drain before they stop
					stop_contender "$c" mgt0 || return 1
					echo "$hwts,$c,$queues,$round,$((per_queue * queues)),$seconds,$captured" \
						>>"$OUT/scaling.csv"
					say "scaling: stamps $hwts, $c, $queues queue(s), round $round:" \
						"$captured of $((per_queue * queues)) in $seconds s"
				done
			done
		done
	done
	$MGCAP hwtstamp mgt0 off >/dev/null
	TSOPT=
}

# --- record: the recorder writing whole frames to a disk, instructions a packet ----------
# Whole frames (snaplen 262144) of 64, 512 and 1514 bytes (the test NIC's
# frame_len: as captured, no FCS), one queue, into files on ext4 on a virtio
# disk of the VM's, never tmpfs: what writing a file costs is the point, and
# mgdump --per-queue writes with O_DIRECT, which tmpfs does not take.
# bench/run.sh attaches the disk (a raw image on the host, cache=none); its
# file system is made afresh here, its inode tables and journal written at
# once (mkfs.ext4's lazy init would zero them from a kernel thread in the
# middle of the rounds).
#
# A round's window holds the injection, every reader's drain (SETTLE) and a
# syncfs of the disk: every byte the round brought is on the disk then, the
# page cache's writeback of the buffered writers (tcpdump -w, today's
# mgdump) included, so that it is counted where it is owed and not left to
# a flusher thread in another contender's round.  The stop is a window of
# its own (its row "stop"): the program told to stop, its last pages
# written, its file completed and synced (mgdump fsyncs and renames it), the
# program gone and its capture ended, then a syncfs.
#
# Every contender must have every frame the test NIC made, by its own count
# and, for a file, by capinfos's count of the file: a round that lost one is
# marked failed in record-capture.csv (report.py then shows no figure) and
# the part fails once every contender has run.
RECORD_SIZES=${MGCAP_BENCH_RECORD_SIZES:-64 512 1514}
RECORD_CONTENDERS=${MGCAP_BENCH_RECORD:-baseline mgcap-ring afpacket mgdump-copy mgdump-one-copy \
tcpdump-w}
# frames a round: a round's 1514-byte frames fit the smallest buffer (32 MiB:
# AF_PACKET takes some 1,600 bytes a frame, 20,900 frames), so that a reader
# scheduled late loses none however one vCPU is shared out
RECORD_FRAMES=${MGCAP_BENCH_RECORD_FRAMES:-20000}
# five rounds, not three: waiting for the disk under icount, the guest clock
# races through timers, and now and then a round holds some background
# work (seen: up to 1,000 instructions a packet more, one round in a
# contender's three, on a busy host); the median of five outlasts two
RECORD_ROUNDS=${MGCAP_BENCH_RECORD_ROUNDS:-5}
RECORD_DISK=${MGCAP_BENCH_RECORD_DISK:-/dev/vda}
RECORD_DIR=/run/mgcap-record
WHOLE=262144

# the disk: a virtio one, not in use; ext4 made and mounted on $RECORD_DIR
record_disk() {
	d=${RECORD_DISK##*/}
	[ -b "$RECORD_DISK" ] ||
		{ say "record: no block device $RECORD_DISK (bench/run.sh attaches one)"; return 1; }
	case $(readlink -f "/sys/class/block/$d/device/driver") in
	*/virtio_blk) ;;
	*) say "record: $RECORD_DISK is not a virtio disk"; return 1 ;;
	esac
	! grep -q "^$RECORD_DISK " /proc/mounts || { say "record: $RECORD_DISK is mounted"; return 1; }
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$RECORD_DISK" >>"$LOG" 2>&1 &&
		mkdir -p "$RECORD_DIR" && mount -t ext4 "$RECORD_DISK" "$RECORD_DIR" || return 1
	say "record: ext4 on $RECORD_DISK ($(($(cat "/sys/class/block/$d/size") / 2048)) MiB)"
}

# record_file CONTENDER: the file it writes ("" for none)
record_file() {
	case $1 in
	tcpdump-w) echo "$RECORD_DIR/tcpdump.pcap" ;;
	mgdump-copy) echo "$RECORD_DIR/copy.pcapng" ;;
	# (--per-queue: FILE.DEV@N, before the extension)
	mgdump-one-copy) echo "$RECORD_DIR/one.mgt0@0.pcapng" ;;
	esac
}

# record_start CONTENDER: it reads mgt0, and is ready -> $reader
record_start() {
	reader=
	: >"$OUT/reader.txt"
	file=$(record_file "$1")
	case $1 in
	baseline) return 0 ;;
	mgcap-ring)
		# woken as mgdump --per-queue's thread is (an eighth of the ring,
		# 4 MiB at most: queue_files.c's WAKE_MARK_MAX; and what is below
		# every 100 ms), so that what --per-queue adds is its writing, not
		# the wakeups it saves: woken at the ring's default, 64 KiB or
		# 1 ms, this reader and the receive path cost 99 instructions a
		# packet more at 1514 bytes, and 19 more at 64
		mark=$((BUF_MB << 17)); [ $mark -le $((4 << 20)) ] || mark=$((4 << 20))
		$MGCAP start mgt0 ring-size ${BUF_MB}M snaplen $WHOLE >/dev/null || return 1
		set -- $WAIT --mark $mark /dev/mgcap/mgt0@0 hup 1000000 ;;
	afpacket)
		set -- tcpdump -i mgt0 -n -s $WHOLE -B $((BUF_MB * 1024)) -Z root -w /dev/null ;;
	tcpdump-w)
		set -- tcpdump -i mgt0 -n -s $WHOLE -B $((BUF_MB * 1024)) -Z root -w "$file" ;;
	mgdump-copy)
		$MGCAP start mgt0 ring-size ${BUF_MB}M >/dev/null || return 1
		set -- $RUN $B/tools/mgdump/mgdump -i mgt0 -s $WHOLE -w "$file" ;;
	mgdump-one-copy)
		$MGCAP start mgt0 ring-size ${BUF_MB}M >/dev/null || return 1
		set -- $RUN $B/tools/mgdump/mgdump --per-queue -i mgt0 -s $WHOLE \
			-w "$RECORD_DIR/one.pcapng" ;;
	*) say "unknown contender $1"; return 1 ;;
	esac
	name=$1
	"$@" >"$OUT/reader.txt" 2>&1 &
	reader=$!
	# ready when reading: it said so (mgdump: its file, FILE.part until
	# complete, once its queues are open), and then every thread of it
	# waits for frames.  The first is not enough here: seen in this part,
	# with the injection right after "listening on", tcpdump read each
	# round's frames only when the next round's came (the last round's
	# never: lost at the stop), and today's mgdump lost the whole first
	# round, which its activation discarded.  No fixed sleep would do: under
	# icount a program's start waits for 9p and the disk, idle time that
	# skips the guest clock forward without running anyone.
	case $name in
	mgcap-ring) wait_for "$OUT/reader.txt" ready ;;
	afpacket | tcpdump-w) wait_for "$OUT/reader.txt" "listening on" ;;
	mgdump*)
		i=0
		until [ -s "$file.part" ] || [ -s "$file" ]; do
			i=$((i + 1))
			if [ $i -gt 600 ] || ! kill -0 "$reader" 2>/dev/null; then
				say "record: $name never started its file:" "$(cat "$OUT/reader.txt")"
				return 1
			fi
			sleep 0.05
		done ;;
	esac
	i=0
	until waiting "$reader"; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 "$reader" 2>/dev/null; then
			say "record: $name never waited for frames:" "$(cat "$OUT/reader.txt")" \
				"$(grep . /proc/"$reader"/task/*/wchan)"
			return 1
		fi
		sleep 0.05
	done
}

# waiting PID: every thread of PID asleep in a wait for data or time (poll,
# a futex, a nap), none running or waiting for the disk
waiting() {
	for t in /proc/"$1"/task/*; do
		grep -q '^State:.*S (sleeping)' "$t/status" 2>/dev/null || return 1
		case $(cat "$t/wchan" 2>/dev/null) in
		*poll* | *select* | *futex* | *nanosleep*) ;;
		*) return 1 ;;
		esac
	done
}

# record_stop CONTENDER: it stops, its file complete, and is gone, and so is
# its capture (mgcap's ring, as AF_PACKET's goes with tcpdump's socket)
record_stop() {
	case $1 in
	baseline) ;;
	mgcap-ring)	# the reader leaves when the capture ends
		$MGCAP stop mgt0 >/dev/null
		wait "$reader" ;;
	*)
		kill -INT "$reader"
		wait "$reader"
		case $1 in mgdump*) $MGCAP stop mgt0 >/dev/null ;; esac ;;
	esac
}

# the test NIC's frames made so far (one queue) -> $made, without a fork
nic_made() { read -r made </sys/class/net/mgt0/mgtestnic/generated; }

record_inject() {	# record_inject FRAMES: until the test NIC has made them all
	echo "0 $1" >/sys/class/net/mgt0/mgtestnic/generate || return 1
	while read -r left </sys/class/net/mgt0/mgtestnic/pending; do
		case $left in *[1-9]*) sleep 0.2 ;; *) break ;; esac
	done
}

# per_queue_summary Q FILE: mgdump --per-queue's summary line of mgt0's queue
# Q in FILE -> pq_line, and its pq_packets, pq_bytes and pq_dropped (by the
# ring); each empty where FILE has no such line
per_queue_summary() {
	pq_line=$(grep "^mgdump: mgt0@$1: " "$2")
	pq_packets=$(echo "$pq_line" | sed -n 's/^mgdump: mgt0@[0-9]*: \([0-9]*\) packets, .*/\1/p')
	pq_bytes=$(echo "$pq_line" | sed -n 's/.* packets, \([0-9]*\) bytes, .*/\1/p')
	pq_dropped=$(echo "$pq_line" |
		sed -n 's/.*; \([0-9]*\) dropped by the ring\(, [0-9]* for a full disk\)\{0,1\}$/\1/p')
}

# record_check CONTENDER OFFERED: what it kept by its own count ($kept) and
# in its file ($in_file, capinfos), its drops; a line of
# record-capture.csv; 1 (loudly) unless it has every frame offered
record_check() {
	c=$1 offered=$2
	file=$(record_file "$c")
	kept= in_file= bytes= dropped=0
	case $c in
	baseline) kept=$offered ;;
	mgcap-ring) kept=$(sed -n 's/^end: \([0-9]*\) records read.*/\1/p' "$OUT/reader.txt") ;;
	afpacket | tcpdump-w)
		kept=$(reader_count tcpdump)
		dropped=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$OUT/reader.txt") ;;
	mgdump-copy)
		kept=$(reader_count mgdump)
		# (its rings', its buffer's and a full disk's, summed)
		dropped=$(sed -n 's/^mgdump: .*; dropped: \([0-9]*\) in the rings, \([0-9]*\) in the buffer, \([0-9]*\) for a full disk.*/\1+\2+\3/p' \
			"$OUT/reader.txt") ;;
	mgdump-one-copy)
		per_queue_summary 0 "$OUT/reader.txt"
		kept=$pq_packets dropped=$pq_dropped
		# one copy: the file written with O_DIRECT, or it is not this contender
		! grep -q 'O_DIRECT' "$OUT/reader.txt" ||
			{ say "record: $c: $(grep O_DIRECT "$OUT/reader.txt")"; kept=; } ;;
	esac
	dropped=$((${dropped:-0}))
	if [ -n "$file" ]; then
		[ -f "$file" ] && [ ! -e "$file.part" ] || say "record: $c: no complete file $file"
		[ -f "$file" ] && in_file=$(capinfos -M -c "$file" 2>>"$LOG" |
			sed -n 's/^Number of packets: *\([0-9]*\)$/\1/p') && bytes=$(stat -c %s "$file")
	fi
	ok=0
	[ "$kept" = "$offered" ] && [ "$dropped" = 0 ] &&
		{ [ -z "$file" ] || [ "$in_file" = "$offered" ]; } && ok=1
	echo "$size,$c,$offered,${kept:-},${file:+${in_file:-}},$dropped,${bytes:-},$ok" \
		>>"$OUT/record-capture.csv"
	[ $ok = 1 ] && return 0
	say "record: $size bytes, $c: FAILED: $offered frames made, it kept ${kept:-none}," \
		"${file:+${in_file:-none} in its file, }$dropped dropped (its output in $LOG)"
	return 1
}

record_cell() {	# record_cell SIZE CONTENDER: a warm-up round, $RECORD_ROUNDS, the stop
	size=$1 c=$2
	rm -f "$RECORD_DIR"/*.pcap* && sync -f "$RECORD_DIR" || return 1
	nic_made && first=$made
	record_start "$c" || { say "record: $size bytes, $c did not start"; return 1; }
	for round in $(seq 0 "$RECORD_ROUNDS"); do
		run_ns && before=$RUN_NS
		record_inject "$RECORD_FRAMES" || return 1
		sleep $SETTLE
		sync -f "$RECORD_DIR"
		run_ns && after=$RUN_NS
		echo "$size,$c,$round,$RECORD_FRAMES,$((after - before))" >>"$OUT/record.csv"
	done
	run_ns && before=$RUN_NS
	record_stop "$c"
	sync -f "$RECORD_DIR"
	run_ns && after=$RUN_NS
	nic_made
	offered=$((made - first))
	echo "$size,$c,stop,$offered,$((after - before))" >>"$OUT/record.csv"
	cat "$OUT/reader.txt" >>"$LOG"
	[ "$offered" = $((RECORD_FRAMES * (RECORD_ROUNDS + 1))) ] || {
		say "record: the test NIC made $offered frames, not $((RECORD_FRAMES * (RECORD_ROUNDS + 1)))"
		return 1
	}
	record_check "$c" "$offered" || return 1
	say "record: $size bytes, $c: $(awk -F, -v c="$c" -v s="$size" \
		'$1 == s && $2 == c && $3 ~ /^[1-9][0-9]*$/ { printf "%.1f ", $5 / $4 }' \
		"$OUT/record.csv")instructions/packet," \
		"stop $(awk -F, -v c="$c" -v s="$size" '$1 == s && $2 == c && $3 == "stop" { print $5 }' \
		"$OUT/record.csv") instructions, kept ${kept:--} of $offered${in_file:+, $in_file in the file}"
	rm -f "$RECORD_DIR"/*.pcap*
}

part_record() {
	echo "size,contender,round,frames,instructions" >"$OUT/record.csv"
	echo "size,contender,offered,kept,in_file,dropped,file_bytes,ok" >"$OUT/record-capture.csv"
	record_disk || return 1
	# Under icount with sleep=off a task waiting for the host's disk sees
	# the guest clock race ahead (idle time skipped to the next timer, again
	# and again): the hung task detector called jbd2 and sync blocked for
	# more than 120 s in a round that took a few host seconds.  A real hang
	# ends the VM at its timeout all the same.
	hung=$(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null)
	[ -z "$hung" ] || sysctl -qw kernel.hung_task_timeout_secs=0
	# one queue: one writer, one file
	nic_with_queues 1 || return 1
	failed=
	for size in $RECORD_SIZES; do
		echo "$size" >/sys/class/net/mgt0/mgtestnic/frame_len || return 1
		for c in $RECORD_CONTENDERS; do
			# a contender that lost frames fails the part, once every row
			# is measured; one that failed on the way is ended (left
			# running, it would spoil every row after it)
			record_cell "$size" "$c" && continue
			failed="$failed $size/$c"
			[ -z "$reader" ] || { kill -KILL "$reader" 2>/dev/null; wait "$reader"; }
			$MGCAP stop mgt0 >/dev/null 2>&1
			rm -f "$RECORD_DIR"/*.pcap*
		done
	done
	umount "$RECORD_DIR"
	[ -z "$hung" ] || sysctl -qw kernel.hung_task_timeout_secs="$hung"
	nic_with_queues "$(nproc)"
	[ -z "$failed" ] || { say "record: failed:$failed"; return 1; }
}

# --- record_rate: what mgdump --per-queue writes a second, 1, 2 and 4 writers (wall clock) ---
# The largest rate of 1514-byte frames (whole) that mgdump --per-queue keeps
# whole with 1, 2 and 4 queues, a writer (thread, file) each, and the bytes
# it wrote a second there: a wall-clock figure (icount serialises the vCPUs
# and has no time of its own to write in), in a VM of several vCPUs (queue
# N's frames made on vCPU N mod their number) with the record part's disk.
# A probe offers RATE_SECONDS of the stream, spread evenly over the queues
# and paced by the test NIC, into rings of RATE_RING each, far less than the
# stream (4 MiB holds about 0.1 s of 1514-byte frames at 25,000 a second,
# about what the VM makes): what a writer cannot keep up with, or a stall
# of its longer than that, is lost once its ring is full, not absorbed.  It keeps the rate if every frame made is in the files, by
# mgdump's own count a queue, none dropped by a ring, and the test NIC kept
# the pace: it waits where the host falls behind, where a real NIC's
# receive ring would drop, so a stream made 5 % slower than asked was not
# offered at its rate (lost, as the capacity part judges a busy CPU).  The
# bytes written a second: the files' bytes over the time from the stream's
# start until mgdump, told to stop once the last frame was made, had
# written its rings out, completed its files and exited.  Bisection between
# the bounds, checked (a top kept or a bottom lost is said as such), to
# within RATE_RESOLUTION; every probe in OUTDIR/record-rate-probes.csv,
# each cell in OUTDIR/record-rate.csv.
RATE_QUEUES=${MGCAP_BENCH_RATE_QUEUES:-1 2 4}
RATE_SIZE=${MGCAP_BENCH_RATE_SIZE:-1514}
RATE_SECONDS=5
RATE_RING=4M
RATE_LOW=${MGCAP_BENCH_RATE_LOW:-1000}
RATE_HIGH=${MGCAP_BENCH_RATE_HIGH:-200000}
RATE_RESOLUTION=1.10

now_ns() { date +%s%N; }

# rate_probe QUEUES RATE: 0 kept, 1 lost, 2 did not run -> a line of the probes' CSV
rate_probe() {
	queues=$1 rate=$2
	gen=/sys/class/net/mgt0/mgtestnic
	per_queue=$((rate * RATE_SECONDS / queues))
	pace=$((rate / queues))
	rm -f "$RECORD_DIR"/*.pcap* && sync -f "$RECORD_DIR" || return 2
	read -r made_before <$gen/generated
	echo "$RATE_SIZE" >$gen/frame_len && echo "$pace" >$gen/rate_pps || return 2
	$MGCAP start mgt0 ring-size $RATE_RING >/dev/null || return 2
	: >"$OUT/reader.txt"
	$RUN $B/tools/mgdump/mgdump --per-queue -i mgt0 -s $WHOLE -w "$RECORD_DIR/rate.pcapng" \
		>"$OUT/reader.txt" 2>&1 &
	reader=$!
	# ready: every queue's file started, every thread waiting for frames
	i=0
	until [ "$(ls "$RECORD_DIR" | grep -c '^rate\.mgt0@[0-9]*\.pcapng\.part$')" = "$queues" ] &&
		waiting "$reader"; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 "$reader" 2>/dev/null; then
			say "record_rate: mgdump never got ready: $(cat "$OUT/reader.txt")"
			kill -KILL "$reader" 2>/dev/null
			wait "$reader"
			$MGCAP stop mgt0 >/dev/null
			return 2
		fi
		sleep 0.05
	done
	# each queue's request from a shell on its vCPU, forked beforehand and
	# waiting on a FIFO of its own: the requests go at once (a fork and an
	# exec a queue took a good part of a second under emulation)
	helpers= all=$(seq 0 $((queues - 1)))
	for q in $all; do
		rm -f "$TMPFS/go$q" && mkfifo "$TMPFS/go$q" || return 2
		taskset -c $((q % $(nproc))) sh -c "read -r go <'$TMPFS/go$q' &&
			echo '$q $per_queue' >$gen/generate" &
		helpers="$helpers $!"
	done
	for h in $helpers; do
		until grep -q 'wait_for_partner\|pipe' /proc/$h/wchan 2>/dev/null; do sleep 0.05; done
	done
	t0=$(now_ns)
	for q in $all; do
		echo go >"$TMPFS/go$q"
	done
	wait $helpers
	# the pace: at the stream's end the test NIC had made 95 % or more of
	# what was due by then, all of it or its rate's worth of the time since
	# its start (its frames counted when read, the time taken after, which
	# a late reading does not favour); else it is stopped there (a rate far
	# beyond what the VM makes would run for minutes and fill the disk)
	sleep $RATE_SECONDS
	read -r made_then <$gen/generated
	t1=$(now_ns)
	got=$(echo "$made_before $made_then" |
		awk '{ for (i = 1; i <= NF / 2; i++) n += $(i + NF / 2) - $i; print n }')
	due=$((rate * (t1 - t0) / 1000000000))
	[ $due -le $((per_queue * queues)) ] || due=$((per_queue * queues))
	paced=1
	[ $((got * 100)) -ge $((95 * due)) ] || { echo stop >$gen/generate; paced=0; }
	until ! grep -q '[1-9]' $gen/pending; do sleep 0.05; done
	kill -INT "$reader"
	wait "$reader"
	t2=$(now_ns)
	$MGCAP stop mgt0 >/dev/null
	echo 0 >$gen/rate_pps
	cat "$OUT/reader.txt" >>"$LOG"
	# each queue: its frames made, in its file by mgdump's count, none dropped
	read -r made_after <$gen/generated
	kept=$paced packets=0 bytes=0 dropped=0 offered_all=0 q=0
	for after in $made_after; do
		offered=$((after - $(echo "$made_before" | awk -v i=$((q + 1)) '{ print $i }')))
		per_queue_summary $q "$OUT/reader.txt"
		p=$pq_packets b=$pq_bytes d=$pq_dropped
		[ -n "$p" ] && [ -n "$b" ] && [ -n "$d" ] && [ "$offered" -le "$per_queue" ] || {
			say "record_rate: queue $q: $offered frames made of $per_queue, mgdump said: ${pq_line:-nothing}"
			return 2
		}
		# (a stream stopped for its pace made fewer)
		[ "$p" = "$offered" ] && [ "$d" = 0 ] && [ "$offered" = "$per_queue" ] || kept=0
		packets=$((packets + p)) bytes=$((bytes + b)) dropped=$((dropped + d))
		offered_all=$((offered_all + offered)) q=$((q + 1))
	done
	[ $q = "$queues" ] || { say "record_rate: $q queues, not $queues"; return 2; }
	# and a probe kept has them in its files, by capinfos's count
	q=0
	while [ $kept = 1 ] && [ $q -lt "$queues" ]; do
		f=$RECORD_DIR/rate.mgt0@$q.pcapng
		n=$(capinfos -M -c "$f" 2>>"$LOG" | sed -n 's/^Number of packets: *\([0-9]*\)$/\1/p')
		[ "$n" = "$per_queue" ] ||
			{ say "record_rate: $f holds ${n:-no} packets, not $per_queue"; return 2; }
		q=$((q + 1))
	done
	echo "$queues,$rate,$((per_queue * queues)),$offered_all,$got,$((t1 - t0)),$packets,$dropped,$bytes,$((t2 - t0)),$kept" \
		>>"$OUT/record-rate-probes.csv"
	say "record_rate: $queues queue(s), $rate/s: $packets of $offered_all made" \
		"($((per_queue * queues)) asked, $got of them in the first $(((t1 - t0) / 1000000)) ms)," \
		"$dropped dropped, $bytes bytes written in $(((t2 - t0) / 1000000)) ms:" \
		"$([ $kept = 1 ] && echo kept || echo lost)"
	[ $kept = 1 ]
}

# rate_cell QUEUES -> a line of record-rate.csv: the largest rate kept, and
# the bytes a second written at it (its probe's)
rate_cell() {
	low=$RATE_LOW high=$RATE_HIGH
	rate_probe "$1" "$high"
	case $? in
	0) status=unbounded ;;
	1)	rate_probe "$1" "$low"
		case $? in 0) status=bounded ;; 1) status=below ;; *) status=failed ;; esac ;;
	*) status=failed ;;
	esac
	while [ $status = bounded ] &&
		awk -v l="$low" -v h="$high" -v r="$RATE_RESOLUTION" 'BEGIN { exit !(h > l * r) }'; do
		mid=$(awk -v l="$low" -v h="$high" 'BEGIN { printf "%d", sqrt(l * h) }')
		rate_probe "$1" "$mid"
		case $? in 0) low=$mid ;; 1) high=$mid ;; *) status=failed ;; esac
	done
	case $status in
	bounded) best=$low ;;
	unbounded) best=$high ;;	# at least
	*) best= ;;
	esac
	# the kept probe at that rate: its bytes over its time
	bps=
	[ -z "$best" ] || bps=$(awk -F, -v q="$1" -v r="$best" \
		'$1 == q && $2 == r && $11 == 1 { printf "%d", $9 * 1e9 / $10 }' "$OUT/record-rate-probes.csv" |
		tail -n 1)
	echo "$1,$RATE_SIZE,$RATE_LOW,$RATE_HIGH,$status,$best,$bps" >>"$OUT/record-rate.csv"
	say "record_rate: $1 queue(s): $status${best:+, $best frames/s, $bps bytes written a second}"
}

part_record_rate() {
	echo "queues,rate,asked,offered,made_by_end,end_ns,packets,dropped,bytes,written_ns,kept" \
		>"$OUT/record-rate-probes.csv"
	echo "queues,frame_len,low,high,status,rate,bytes_per_second" >"$OUT/record-rate.csv"
	record_disk || return 1
	for queues in $RATE_QUEUES; do
		nic_with_queues "$queues" || return 1
		rate_cell "$queues"
	done
	umount "$RECORD_DIR"
	nic_with_queues "$(nproc)"
	! grep -q ',failed,' "$OUT/record-rate.csv" || { say "record_rate: a cell did not run"; return 1; }
}

mkdir -p "$TMPFS" && mount -t tmpfs -o size=1G tmpfs "$TMPFS" || exit 1
# No ICMP port unreachables for the frames to closed ports: their rate limit
# is a token bucket in time, so a slower receive path would send more of them
# and the stack's own work a packet would depend on the contender.
sysctl -qw net.ipv4.icmp_msgs_burst=0 net.ipv4.icmp_msgs_per_sec=0 || exit 1
: >"$LOG"
insmod "$KO" || exit 1
# one queue per vCPU
insmod "$NIC" queues="$(nproc)" || exit 1
say "kernel $K, $(nproc) vCPU(s), clock source $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
for part in "$@"; do
	# capacity=SHAPE,...: those shapes' capacity (run.sh shares them out
	# between two VMs)
	case $part in
	capacity=*) CAPACITY_SHAPES=$(echo "${part#capacity=}" | tr , ' ') part=capacity ;;
	esac
	"part_$part" || { say "$part failed"; exit 1; }
done
ip link del bench0 2>/dev/null
rmmod mgtestnic
rmmod mgcap
umount "$TMPFS"
