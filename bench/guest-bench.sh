#!/bin/sh
# guest-bench.sh OUTDIR: the benchmarks that need a kernel; run inside the VM
# by bench/run.sh.  Every measurement is one line of OUTDIR/vm.csv:
#
#   load,size,queues,hwts,contender,round,offered,seconds,rx_pps,captured,dropped
#
# offered: packets the generator sent; seconds: how long the receive path
# took for them (the generators feed it synchronously, so rx_pps is the rate
# the receive path sustained); captured: what the contender reported;
# dropped: offered - captured.  Bursts go to OUTDIR/burst.csv.
set -u
B=$MGCAP_BUILD
K=$(uname -r)
KO=$B/build/$K/kmod/mgcap.ko
NIC=$B/build/$K/mgtestnic/mgtestnic.ko
MGCAP=$B/tools/mgcap
RUN=$B/tools/mgcap-run
OUT=$1
ROUNDS=${MGCAP_BENCH_ROUNDS:-3}
SIZES=${MGCAP_BENCH_SIZES:-64 128 256 1518}
CONTENDERS=${MGCAP_BENCH_CONTENDERS:-baseline afpacket afpacket-tmpfs netsniff-ng mgcap-mirror mgcap-drop mgdump}
# packets per run: one to two seconds of the receive path under emulation
PACKETS=${MGCAP_BENCH_PACKETS:-150000}
# the same buffer for every contender: AF_PACKET's ring (-B), netsniff-ng's, mgcap's
BUF_MB=32
SNAPLEN=96
READER_CPU=1	# pktgen's thread runs on CPU 0
TSOPT=
TMPFS=/run/mgcap-bench
LOG=$OUT/log
PG=/proc/net/pktgen

say() { echo "bench: $*" | tee -a "$LOG"; }

# --- contenders: start_contender NAME DEV, stop_contender -> $captured ---------
wait_for() {	# wait_for FILE TEXT
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && { say "no '$2' in $1:"; cat "$1" >>"$LOG"; return 1; }
		sleep 0.05
	done
}

start_contender() {
	name=${1%-stopped}
	dev=$2
	rm -f "$TMPFS"/*
	: >"$OUT/reader.txt"
	reader=
	case $name in
	baseline) return 0 ;;
	afpacket)
		set -- tcpdump -i "$dev" -n -s $SNAPLEN -B $((BUF_MB * 1024)) -Z root -w /dev/null ;;
	afpacket-tmpfs)
		set -- tcpdump -i "$dev" -n -s $SNAPLEN -B $((BUF_MB * 1024)) -Z root -w "$TMPFS/out.pcap" ;;
	netsniff-ng)
		# it has no snaplen: whole frames, to /dev/null like the first tcpdump
		set -- netsniff-ng --in "$dev" --out /dev/null --ring-size ${BUF_MB}MiB --silent ;;
	mgcap-mirror | mgcap-drop)
		$MGCAP start "$dev" ring-size ${BUF_MB}M mode "${name#mgcap-}" >/dev/null || return 1
		set -- $RUN tcpdump -i "mgcap:$dev" $TSOPT -n -s $SNAPLEN -Z root -w /dev/null ;;
	mgdump | mgdump-drop)
		mode=mirror
		[ "$name" = mgdump-drop ] && mode=drop
		$MGCAP start "$dev" ring-size ${BUF_MB}M mode $mode >/dev/null || return 1
		set -- $RUN $B/tools/mgdump -i "$dev" -s $SNAPLEN -w "$TMPFS/out.pcapng" ;;
	esac
	if [ -n "$READER_CPU" ]; then
		taskset -c "$READER_CPU" "$@" >"$OUT/reader.txt" 2>&1 &
	else
		"$@" >"$OUT/reader.txt" 2>&1 &
	fi
	reader=$!
	case $name in
	afpacket*|mgcap-*) wait_for "$OUT/reader.txt" "listening on" ;;
	netsniff-ng | mgdump*) sleep 1.5 ;;
	esac
	# NAME-stopped: the reader sleeps through the load (the rings hold it all)
	case $1 in *-stopped) kill -STOP "$reader" ;; esac
}

stop_contender() {	# stop_contender NAME DEV
	captured=
	[ -z "$reader" ] && return 0
	case $1 in *-stopped) kill -CONT "$reader" ;; esac
	# let the reader finish what is queued (AF_PACKET hands a block over
	# after libpcap's timeout of 1 s at the latest) before it is stopped
	sleep 1.5
	kill -INT "$reader"
	wait "$reader"
	cat "$OUT/reader.txt" >>"$LOG"
	case ${1%-stopped} in
	afpacket*|mgcap-*)
		captured=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$OUT/reader.txt") ;;
	netsniff-ng)
		captured=$(tr -d '\r' <"$OUT/reader.txt" | sed -n 's/^ *\([0-9]*\) *packets passed filter.*/\1/p') ;;
	mgdump*)
		captured=$(sed -n 's/^mgdump: \([0-9]*\) packets written.*/\1/p' "$OUT/reader.txt") ;;
	esac
	case ${1%-stopped} in mgcap-*|mgdump*) $MGCAP stop "$2" >/dev/null ;; esac
	[ -n "$captured" ] || { say "$1: no packet count"; captured=0; }
}

record() {	# record LOAD SIZE QUEUES HWTS CONTENDER ROUND OFFERED SECONDS
	rate=$(awk -v n="$7" -v s="$8" 'BEGIN { printf "%.0f", n / s }')
	if [ -n "$captured" ]; then
		echo "$1,$2,$3,$4,$5,$6,$7,$8,$rate,$captured,$(($7 - captured))" >>"$OUT/vm.csv"
	else
		echo "$1,$2,$3,$4,$5,$6,$7,$8,$rate,," >>"$OUT/vm.csv"
	fi
	say "$1 size $2 queues $3 hwts $4 $5 round $6: $rate pps, captured ${captured:--} of $7"
}

# --- pktgen, netif_receive mode, into a dummy device -----------------------------
pktgen_setup() {
	modprobe pktgen || return 1
	ip link add bench0 type dummy &&
		sysctl -qw net.ipv6.conf.bench0.disable_ipv6=1 && ip link set bench0 up &&
		ip addr add 198.51.100.1/24 dev bench0 || return 1
	echo "rem_device_all" >$PG/kpktgend_0
	echo "add_device bench0" >$PG/kpktgend_0
}

pktgen_run() {	# pktgen_run SIZE -> $seconds
	pg() { echo "$1" >$PG/bench0; }
	# pkt_size excludes the 4-byte FCS; frames go to this host's address,
	# a UDP port nobody listens on: the stack does its full receive work
	pg "pkt_size $(($1 - 4))"
	pg "count $PACKETS"
	pg "xmit_mode netif_receive"
	pg "dst 198.51.100.1"
	pg "dst_mac $(cat /sys/class/net/bench0/address)"
	pg "src_min 192.0.2.1"
	pg "src_max 192.0.2.1"
	pg "udp_dst_min 9"
	pg "udp_dst_max 9"
	echo start >$PG/pgctrl
	usec=$(sed -n 's/.*Result: OK: \([0-9]*\)(c.*/\1/p' $PG/bench0)
	seconds=$(awk -v u="$usec" 'BEGIN { printf "%.6f", u / 1e6 }')
}

bench_pktgen() {
	pktgen_setup || { say "pktgen setup failed"; return 1; }
	for size in $SIZES; do
		for round in $(seq "$ROUNDS"); do
			for c in $CONTENDERS; do
				start_contender "$c" bench0 || return 1
				pktgen_run "$size"
				stop_contender "$c" bench0
				record pktgen "$size" 1 off "$c" "$round" "$PACKETS" "$seconds"
			done
		done
	done
	ip link del bench0
}

# --- the test NIC's generators: 1 and 2 queues, hardware stamps on and off ------
# Each queue's NAPI runs on the CPU that wrote its generate request: queue N
# on CPU N, so two queues use both vCPUs.
nic_run() {	# nic_run QUEUES COUNT_PER_QUEUE -> $seconds
	gen=/sys/class/net/mgt0/mgtestnic
	start=$(date +%s%N)
	for q in $(seq 0 $(($1 - 1))); do
		taskset -c "$q" sh -c "echo '$q $2' >$gen/generate"
	done
	until ! grep -q '[1-9]' $gen/pending; do sleep 0.02; done
	end=$(date +%s%N)
	seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
}

bench_nic() {
	ip link set mgt0 up && sysctl -qw net.ipv6.conf.mgt0.disable_ipv6=1 || return 1
	ip addr add 198.51.100.1/24 dev mgt0 || return 1
	echo $((${NIC_SIZE:-64} - 4)) >/sys/class/net/mgt0/mgtestnic/frame_len
	saved_cpu=$READER_CPU
	READER_CPU=	# both CPUs receive: readers go where the scheduler puts them
	for hwts in off on; do
		$MGCAP hwtstamp mgt0 "$hwts" >/dev/null || return 1
		TSOPT=
		[ "$hwts" = on ] && TSOPT="-j adapter_unsynced"
		for queues in 1 2; do
			for round in $(seq "$ROUNDS"); do
				for c in ${NIC_CONTENDERS:-baseline afpacket mgcap-drop mgdump-drop}; do
					start_contender "$c" mgt0 || return 1
					nic_run "$queues" $((PACKETS / 2))
					stop_contender "$c" mgt0
					record nic "${NIC_SIZE:-64}" "$queues" "$hwts" "$c" "$round" \
						$((PACKETS / 2 * queues)) "$seconds"
				done
			done
		done
	done
	$MGCAP hwtstamp mgt0 off >/dev/null
	TSOPT=
	READER_CPU=$saved_cpu
}

# --- trafgen (TX_RING) over a veth pair, from a namespace of its own ------------
bench_trafgen() {
	ip netns add tg && ip link add vcap0 type veth peer name vtg0 netns tg || return 1
	sysctl -qw net.ipv6.conf.vcap0.disable_ipv6=1
	ip netns exec tg sysctl -qw net.ipv6.conf.vtg0.disable_ipv6=1
	ip link set vcap0 up && ip addr add 198.51.100.1/24 dev vcap0 || return 1
	ip -n tg link set vtg0 up && ip -n tg addr add 198.51.100.2/24 dev vtg0 || return 1
	mac=$(cat /sys/class/net/vcap0/address)
	for size in ${TRAFGEN_SIZES:-64 1518}; do
		# Ethernet, IPv4 (198.51.100.2 -> .1), UDP to port 9, zero payload
		pad=$((size - 4 - 42))
		cat >/dev/shm/trafgen.cfg <<CFG
{ $(echo "$mac" | sed 's/^/0x/; s/:/, 0x/g'), 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, c16(0x0800),
  0x45, 0x00, c16($((size - 4 - 14))), 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, csumip(14, 33),
  198, 51, 100, 2, 198, 51, 100, 1,
  c16(1024), c16(9), c16($((size - 4 - 34))), 0x00, 0x00,
  fill(0x00, $pad) }
CFG
		for round in $(seq "$ROUNDS"); do
			for c in ${TRAFGEN_CONTENDERS:-baseline afpacket mgcap-mirror mgcap-drop mgdump}; do
				start_contender "$c" vcap0 || return 1
				before=$(cat /sys/class/net/vcap0/statistics/rx_packets)
				# trafgen shares a mapped file in its working directory
				cd /dev/shm && ip netns exec tg taskset -c 0 trafgen --dev vtg0 --conf trafgen.cfg \
					--num "$PACKETS" --cpus 1 -Q >"$OUT/trafgen.txt" 2>&1
				cat "$OUT/trafgen.txt" >>"$LOG"
				# the receive side may still be busy with the backlog
				sleep 0.2
				got=$(($(cat /sys/class/net/vcap0/statistics/rx_packets) - before))
				# veth hands each frame to the receive path in the sender's
				# context: the sender's time on its CPU is the receive path's
				seconds=$(tr -d '\r' <"$OUT/trafgen.txt" |
					sed -n 's/^ *\([0-9]*\) sec, \([0-9]*\) usec on CPU.*/\1 \2/p' |
					awk '{ printf "%.6f", $1 + $2 / 1e6 }')
				stop_contender "$c" vcap0
				record trafgen "$size" 1 off "$c" "$round" "$got" "$seconds"
			done
		done
	done
	ip link del vcap0
	ip netns del tg
}

# --- burst absorption: no reader, bursts of P frames, the largest P kept whole ---
burst_lossless() {	# burst_lossless RING P: 0 if all P frames were captured
	$MGCAP start mgt0 ring-size "$1" mode drop >/dev/null || return 2
	echo "0 $2" >/sys/class/net/mgt0/mgtestnic/generate
	until ! grep -q '[1-9]' /sys/class/net/mgt0/mgtestnic/pending; do sleep 0.02; done
	dropped=$($MGCAP -j show mgt0 | grep -o '"dropped":[0-9]*' | awk -F: '{ n += $2 } END { print n }')
	$MGCAP stop mgt0 >/dev/null
	[ "$dropped" = 0 ]
}

bench_burst() {
	size=${BURST_SIZE:-128}
	rec=$(( (24 + size - 4 + 7) / 8 * 8 ))
	ip link set mgt0 up
	echo $((size - 4)) >/sys/class/net/mgt0/mgtestnic/frame_len
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

mkdir -p "$TMPFS" && mount -t tmpfs -o size=1G tmpfs "$TMPFS" || exit 1
# trafgen needs a working directory where it can map a shared file
mkdir -p /dev/shm && { mountpoint -q /dev/shm || mount -t tmpfs tmpfs /dev/shm; } || exit 1
insmod "$KO" || exit 1
insmod "$NIC" queues=2 || exit 1
echo "load,size,queues,hwts,contender,round,offered,seconds,rx_pps,captured,dropped" >"$OUT/vm.csv"
say "kernel $K, clock source $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
for b in ${MGCAP_BENCH_PARTS:-pktgen nic trafgen burst}; do
	"bench_$b" || { say "$b failed"; exit 1; }
done
rmmod mgtestnic
rmmod mgcap
umount "$TMPFS"
