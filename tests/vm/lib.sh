# The VM tests' library, sourced by every suite (tests-*.sh, installed-*.sh)
# in the VM: the programs under test, the runner (harness.sh) and every
# helper more than one suite uses.  A suite lists its tests, in run order, in
# ALL_TESTS="t_... t_..." at its top, and in USER_SPACE_TESTS those of
# them that test what user space does, alike on every kernel (vm-tests.sh
# runs them on the first kernel only); it sources this file, defines its
# tests (and the helpers only it uses), and ends with run_suite "$@".  It
# runs alone, in the VM, as root:
#
#   sh tests/vm/tests-kernel.sh [TEST...]     (default: its ALL_TESTS)
#
# and guest-tests.sh runs every suite.  Environment: MGCAP_BUILD, the build
# tree (default: the tree this file is in); MGCAP_INSTALLED=1: the module
# and tools the packages installed (MGCAP_DEBS: where the packages are).
#
# Each test loads the modules fresh (setup) and teardown unloads them after
# it; any check that does not hold fails it (harness.sh).
set -u
. "$(dirname "$0")/harness.sh"

: "${MGCAP_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)}"
B=$MGCAP_BUILD
K=$(uname -r)
KO=$B/build/$K/kmod/mgcap.ko
NIC=$B/build/$K/mgtestnic/mgtestnic.ko
MGCAP=$B/tools/mgcap/mgcap
SETMODE=$B/tools/mgcap/mgcap-setmode
RINGCHECK=$B/tests/programs/mgcap-ringcheck
BADINPUT=$B/tests/programs/mgcap-badinput
WAIT=$B/tests/programs/mgcap-wait
UDPCOUNT=$B/tests/programs/mgcap-udpcount
PCAPCHECK=$B/tests/programs/mgcap-pcapcheck
PCAPTEST=$B/tests/programs/mgcap-pcaptest
PAGERUNS=$B/tests/programs/mgcap-pageruns
RUN=$B/tools/mgcap-run
# through the patched libpcap, as mgcap-run does for any program
MGDUMP="$RUN $B/tools/mgdump/mgdump"
EXTRACT=$B/tools/mgcap-extract/mgcap-extract
if [ "${MGCAP_INSTALLED:-0}" = 1 ]; then
	# what the packages installed (scripts/test-packages.sh); the test
	# programs and the test NIC still come from the build tree
	KO=$(modinfo -n mgcap) || exit 1
	MGCAP=/usr/sbin/mgcap
	SETMODE=/usr/sbin/mgcap-setmode
	RUN=/usr/bin/mgcap-run
	MGDUMP=/usr/sbin/mgdump		# its RUNPATH finds the mgcap libpcap
	EXTRACT=/usr/bin/mgcap-extract
fi
TMP=$(mktemp -d)

# run_suite [TEST...]: the tests named (default: the suite's ALL_TESTS), then
# the tally; exits 0 only if none failed.  Run by guest-tests.sh, it numbers
# from $MGCAP_VM_TEST_N and writes "PASSED FAILED SKIPPED" to $MGCAP_VM_TALLY.
# The devices the tests make send nothing of their own (no IPv6: no router
# or neighbour solicitations, no MLD reports), so that what a capture holds
# is what their generators made: a capture holds what its device sends too,
# and a test that sends does so on purpose.
run_suite() {
	sysctl -qw net.ipv6.conf.default.disable_ipv6=1 || exit 1
	run_tests ${*:-$ALL_TESTS}
	R_suite_status=$?
	rm -rf "$TMP"
	if [ -n "${MGCAP_VM_TALLY:-}" ]; then
		echo "$R_passed $R_failed $R_skipped" >"$MGCAP_VM_TALLY"
	else
		echo "${0##*/}: $R_passed passed, $R_failed failed, $R_skipped skipped"
	fi
	exit $R_suite_status
}

setup() {	# setup [QUEUES [DEVICES]]
	insmod "$NIC" queues="${1:-4}" devices="${2:-1}" || return 1
	for d in $(ls /sys/class/net | grep '^mgt'); do ip link set "$d" up || return 1; done
	insmod "$KO" || return 1
}

# (a program started under emulation costs about half a second: what is
# not there is not asked to go)
teardown() {
	# a reader a failed test left running would keep mgcap loaded for the next
	readers_left=$(find /proc/[0-9]*/fd -lname '/dev/mgcap/*' 2>/dev/null | cut -d/ -f3 | sort -u)
	if [ -n "$readers_left" ]; then
		# (a stopped one, as a test of a stalled reader leaves it, takes
		# its SIGTERM only once it goes on)
		kill $readers_left 2>/dev/null
		kill -CONT $readers_left 2>/dev/null
		wait_for 10000 "the readers a test left to end" no_reader_left
	fi
	for ns in /run/netns/*; do [ -e "$ns" ] && ip netns del "${ns##*/}"; done
	[ -e /sys/class/net/br0 ] && ip link del br0 2>/dev/null
	for m in mgcap mgtestnic; do [ -e /sys/module/$m ] && rmmod $m 2>/dev/null; done
	rm -rf "$TMP"/*
	return 0
}

# --- frames as on the wire (tests-wire.sh, tests-drivers.sh) ---------------------
# A link's two ends: 192.0.2.1 sends from a namespace of its own, its
# segmentation offloads off (so that the "wire" carries frames of the MTU);
# 192.0.2.2 receives here, captured.
TRAFFIC="python3 $(dirname "$0")/wire-traffic.py"

# gro DEV: on or off, as ethtool -k says
gro() { ethtool -k "$1" | sed -n 's/^generic-receive-offload: \([a-z]*\).*/\1/p'; }

# tcp_stream NS BYTES: BYTES over one TCP connection from 192.0.2.1 (in
# namespace NS) to 192.0.2.2
tcp_stream() {
	# (a debug kernel's stream of 4 MB took longer than a minute)
	start_until receiver ready timeout 300 $TRAFFIC tcp-recv || return 1
	ip netns exec "$1" timeout 300 $TRAFFIC tcp-send "$2" >"$TMP/sender" 2>&1 ||
		{ bad "the sender: $(tail -n 3 "$TMP/sender")"; return 1; }
	wait_end receiver >/dev/null && grep -q "^received $2\$" "$TMP/receiver" ||
		{ bad "the receiver got: $(cat "$TMP/receiver")"; return 1; }
}

# udp_imix NS COUNT: COUNT datagrams of IMIX frames from 192.0.2.1 (in NS)
udp_imix() {
	ip netns exec "$1" timeout 300 $TRAFFIC udp-imix "$2" >"$TMP/sender" 2>&1 ||
		{ bad "the sender: $(tail -n 3 "$TMP/sender")"; return 1; }
}

# files_settled FILE...: no FILE grew over half a second
files_settled() {
	f_before=$(stat -c %s "$@")
	sleep 0.5	# (the span a growing file is watched)
	[ "$(stat -c %s "$@")" = "$f_before" ]
}

# stop_tcpdumps NAME...: SIGINT to each, then their ends
stop_tcpdumps() {
	for n in "$@"; do eval "kill -INT \$pid_$n"; done
	for n in "$@"; do wait_end "$n" >/dev/null; done
}

# as_sent NS TX RX TRAFFIC...: TRAFFIC, with the frames from 192.0.2.1
# captured three times: as they go out of TX (AF_PACKET, in NS), by
# mgcap:RX and by AF_PACKET on RX; each frame's length on the wire in
# $TMP/sent.len, mgcap.len, afpacket.len.  Fails unless mgcap's capture
# holds every frame sent, each of its length, dropping none (not in the
# order of the sender's tap: frames sent from two CPUs reach the receiver
# through two CPUs' backlogs), and
# AF_PACKET's on RX does too unless it says it dropped some (the
# emulated guest's CPU is AF_PACKET's limit, not the wire's).  The
# sending side's capture is the truth: it must have dropped none.
as_sent() {
	a_ns=$1 a_tx=$2 a_rx=$3
	shift 3
	a_filter="src host 192.0.2.1"
	# (600 s at most: a debug kernel's TCP stream takes minutes)
	start_until mgcap "listening on" timeout 600 $RUN tcpdump -Z root -i "mgcap:$a_rx" \
		-s 262144 -w "$TMP/mgcap.pcap" "$a_filter" || return 1
	# (AF_PACKET's in immediate mode, each frame written as it comes: a
	# block of TPACKET_V3 not yet handed over when tcpdump stops is lost
	# without being counted)
	start_until afpacket "listening on" timeout 600 tcpdump -Z root -i "$a_rx" -s 262144 \
		-B 32768 --immediate-mode -U -w "$TMP/afpacket.pcap" "$a_filter" || return 1
	start_until sent "listening on" ip netns exec "$a_ns" timeout 600 tcpdump -Z root \
		-i "$a_tx" -Q out -s 262144 -B 32768 --immediate-mode -U -w "$TMP/sent.pcap" \
		"$a_filter" || return 1
	"$@" || return 1
	# (the last frames are in every capture's buffer by now)
	wait_drained && wait_for 20000 "AF_PACKET's files to stop growing" \
		files_settled "$TMP/afpacket.pcap" "$TMP/sent.pcap" || return 1
	stop_tcpdumps mgcap afpacket sent
	grep -q "^0 packets dropped by kernel" "$TMP/mgcap" ||
		bad "tcpdump -i mgcap:$a_rx: $(grep "dropped by kernel" "$TMP/mgcap")"
	grep -q "^0 packets dropped by kernel" "$TMP/sent" ||
		{ bad "the sending side's capture, the truth, lost frames: $(grep "dropped by kernel" "$TMP/sent")"; return 1; }
	! grep "coalesced" "$TMP/mgcap" || bad "tcpdump -i mgcap:$a_rx said so"
	for a_f in sent mgcap afpacket; do
		$TRAFFIC pcap-lengths "$TMP/$a_f.pcap" | sort -n >"$TMP/$a_f.len" || return 1
	done
	a_sent=$(wc -l <"$TMP/sent.len")
	a_longest=$(sort -n "$TMP/mgcap.len" | tail -n 1)
	say "$*: sent $a_sent frames; mgcap:$a_rx $(wc -l <"$TMP/mgcap.len"), the longest" \
		"${a_longest:-no} bytes; AF_PACKET on $a_rx $(wc -l <"$TMP/afpacket.len")"
	cmp -s "$TMP/sent.len" "$TMP/mgcap.len" ||
		bad "mgcap:$a_rx holds $(wc -l <"$TMP/mgcap.len") frames (the longest $a_longest bytes), not the $a_sent sent:" \
			"$(diff "$TMP/sent.len" "$TMP/mgcap.len" | head -n 6 | tr '\n' ' ')"
	if grep -q "^0 packets dropped by kernel" "$TMP/afpacket"; then
		cmp -s "$TMP/sent.len" "$TMP/afpacket.len" ||
			bad "AF_PACKET on $a_rx holds $(wc -l <"$TMP/afpacket.len") frames, not the $a_sent sent:" \
				"$(diff "$TMP/sent.len" "$TMP/afpacket.len" | head -n 6 | tr '\n' ' ')"
	else
		say "AF_PACKET on $a_rx: $(grep "dropped by kernel" "$TMP/afpacket")"
	fi
}

# background reader: wait_start NAME ARGS...; its output in $TMP/NAME
wait_start() {
	name=$1
	shift
	start_until "$name" ready "$@"
}

# start_until NAME TEXT ARGS...: ARGS in the background, output in $TMP/NAME,
# pid in $pid_NAME; returns once the output shows TEXT (wait_text)
start_until() {
	name=$1
	text=$2
	shift 2
	"$@" >"$TMP/$name" 2>&1 &
	eval "pid_$name=\$!"
	wait_text "$TMP/$name" "$text"
}

# wait_idle DEV: until its generators have nothing pending, for as long as
# they go on (a debug kernel's 200,000 frames took more than a minute):
# 30 s at most without a frame made. One count, read once a round: a count
# read again after "not idle" may already be 0, and nothing is fewer than 0
wait_idle() {
	w_pending=$(frames_pending "$1")
	while [ "$w_pending" -gt 0 ]; do
		wait_for 30000 "$1's generators to go on from $w_pending frames pending" \
			fewer_pending "$1" "$w_pending" || return 1
		w_pending=$(frames_pending "$1")
	done
}
generators_idle() { [ "$(frames_pending "$1")" -eq 0 ]; }
frames_pending() {	# frames_pending DEV: what its generators have still to make
	awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s + 0 }' \
		"/sys/class/net/$1/mgtestnic/pending"
}
fewer_pending() { [ "$(frames_pending "$1")" -lt "$2" ]; }	# fewer_pending DEV N

# wait_readers DEV [N]: until every queue of DEV has N readers (1), 90 s at
# most (mgdump faults its 256 MiB buffer in before it opens a queue: more
# than 30 s on the debug kernel, emulated)
wait_readers() {
	wait_for 90000 "${2:-1} reader(s) on every queue of $1" readers_on "$1" "${2:-1}" ||
		{ echo "$W_show"; return 1; }
}
readers_on() {	# readers_on DEV N: every queue of DEV has N readers or more
	# queue lines of the table end in the node; their 7th column counts readers
	W_show=$($MGCAP show "$1" 2>&1) && [ -n "$W_show" ] &&
		echo "$W_show" | awk -v n="$2" '$NF ~ "^/dev/mgcap/" && $7 < n {few = 1}
			END {exit few}'
}

# wait_text FILE TEXT: until FILE shows TEXT; 60 s at most (a user's
# tshark under emulation has taken more than 30 s to start capturing), then
# it says what FILE shows
wait_text() {
	wait_for 60000 "'$2' in $1" shows "$1" "$2" ||
		{ sed 's/^/      /' "$1"; return 1; }
}

shows() { grep -q "$2" "$1" 2>/dev/null; }	# shows FILE TEXT
no_reader_left() { [ -z "$(find /proc/[0-9]*/fd -lname '/dev/mgcap/*' 2>/dev/null)" ]; }

wait_end() {	# wait_end NAME: its exit status
	eval "wait \$pid_$1"
	st=$?
	sed 's/^/      /' "$TMP/$1"
	return $st
}

# capture CLIENT-ARGS...: starts a libpcap client through mgcap-run in the
# background (output in $TMP/client, pid in $client) and waits until it is
# capturing.  tcpdump says "listening on" once the source is active; dumpcap
# says "Capturing on" before it opens the source, and "File: " only after
# (frames sent in between would be discarded by the activation, and the
# test would wait for them in vain).
capture() {
	timeout 120 $RUN "$@" >"$TMP/client" 2>&1 &
	client=$!
	wait_text "$TMP/client" "listening on\|^File: "
}

# nic_clock: the node of the test NIC's PHC (/dev/ptpN; nothing without one)
nic_clock() {
	for d in /sys/class/ptp/ptp*; do
		[ "$(cat "$d/clock_name" 2>/dev/null)" = mgtestnic ] && echo "/dev/${d##*/}"
	done
}

# start_tcpdump NAME ARGS...: tcpdump through mgcap-run in the background,
# output in $TMP/NAME, pid in $pid_NAME; returns once it is capturing
start_tcpdump() {
	name=$1
	shift
	start_until "$name" "listening on" timeout 120 $RUN tcpdump -Z root "$@"
}

# reader_field PID N: the Nth counter (1 captured, 2 bytes, 3 dropped,
# 4 fill) of the reader PID, summed over the queues it reads
reader_field() {
	$MGCAP show | awk -v pid="$1" -v n="$2" '$6 == "pid" && $7 == pid {s += $n}
		END {print s + 0}'
}

# wait_drained: until no reader has records left to read (30 s at most)
wait_drained() {
	wait_for 30000 "every reader to read what its rings hold" nothing_unread
}
nothing_unread() { [ "$($MGCAP show | awk '$6 == "pid" {s += $4} END {print s + 0}')" = 0 ]; }

# reader_reading PID: the reader PID has read records: what its rings hold
# unread (fill) is less than the bytes captured for it, which it would hold
# still had it read nothing (a record is the frame and a header)
reader_reading() {
	$MGCAP show | awk -v pid="$1" '$6 == "pid" && $7 == pid {c += $1; b += $2; f += $4}
		END {exit !(c > 0 && f < b)}'
}

# captured DEV: the frames DEV's capture took, summed over its queues
captured() { $MGCAP show "$1" | awk '$NF ~ "^/dev/mgcap/" {s += $2} END {print s + 0}'; }

# frames_made DEV: the frames DEV's generators made, summed over its queues
frames_made() {
	read -r W_made <"/sys/class/net/$1/mgtestnic/generated" || return 1
	echo $(($(echo "$W_made" | tr ' ' '+')))
}

# asleep PID: the process PID sleeps (in a poll, say), its state S
asleep() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = S ]; }

# ip_received: the IPv4 packets the stack received (InReceives): the test
# NIC's frames that a capture passed on, in a guest with no other traffic
ip_received() { awk '$1 == "Ip:" && $2 ~ /^[0-9]/ {print $4}' /proc/net/snmp; }

# tap_setup: the two ports of a tap, two test NICs whose clocks are 1 s apart
tap_setup() {
	setup 2 2 || return 1
	for d in mgt0 mgt1; do
		$MGCAP start $d >/dev/null || return 1
		echo 1 >/sys/class/net/$d/mgtestnic/phc_stamps &&
			echo extended >/sys/class/net/$d/mgtestnic/phc_best || return 1
	done
	echo 38000000000 >/sys/class/net/mgt1/mgtestnic/phc_offset_ns &&
		echo -30000 >/sys/class/net/mgt1/mgtestnic/phc_error_ppb
}

# mgdump_summary FILE: mgdump's summary line in FILE (its stderr) into
# $summary, and its counts into $written, $received, $ringdrop, $bufdrop,
# $diskdrop (empty where the line is missing)
mgdump_summary() {
	summary=$(grep '^mgdump: [0-9]* packets written' "$1")
	written=$(echo "$summary" | sed -n 's/^mgdump: \([0-9]*\) packets written.*/\1/p')
	received=$(echo "$summary" | sed -n 's/.* of \([0-9]*\) received.*/\1/p')
	ringdrop=$(echo "$summary" | sed -n 's/.*dropped: \([0-9]*\) in the rings.*/\1/p')
	bufdrop=$(echo "$summary" | sed -n 's/.*, \([0-9]*\) in the buffer.*/\1/p')
	diskdrop=$(echo "$summary" | sed -n 's/.*, \([0-9]*\) for a full disk.*/\1/p')
}

# hangup PID: SIGHUP to the program timeout(1) runs as PID, to it alone.
# (timeout passes a signal on to the program and then to its whole process
# group: the program gets it twice, and may rotate twice, and a -z command
# running then is killed before it has done its work.)
hangup() { pkill -HUP -P "$1"; }

# mgdump_reading FILE: until mgdump reads with adapter stamps.  Its reader
# threads start after every source is open and FILE is created; a frame
# before a reader's first read lies in the first interval of the clock's
# samples, with no drift model yet, and may get the kernel's stamp.
has_bytes() { [ -s "$1.part" ] || [ -s "$1" ]; }	# has_bytes FILE: FILE or FILE.part has bytes
mgdump_reading() {
	wait_readers mgt0 || return 1
	# (written as FILE.part until complete)
	wait_for 10000 "mgdump's file $1" has_bytes "$1" || return 1
	# a duration, not a state: nothing outside mgdump shows its reader
	# threads' first read, which comes right after the file
	sleep 0.5
}

# calls_counted FUNC: a kprobe on the kernel's (or a module's) FUNC, counting
# its calls from now; calls FUNC: how many so far, the kprobe then gone.
# (For a path nothing outside the kernel tells apart from another: the
# module writing a ring's pages, or the mapping's pages written.)
TRACEFS=/sys/kernel/tracing
calls_counted() {
	[ -e $TRACEFS/kprobe_events ] || mount -t tracefs nodev $TRACEFS 2>/dev/null
	# (one a test that failed before it counted left)
	[ ! -e $TRACEFS/events/mgcap_test/$1 ] || calls "$1" >/dev/null
	echo "p:mgcap_test/$1 $1" >>$TRACEFS/kprobe_events &&
		echo 1 >$TRACEFS/events/mgcap_test/$1/enable
}
calls() {
	# (kprobe_profile: "EVENT HITS MISSES", while the probe is on)
	awk -v e="$1" '$1 == e { print $2 }' $TRACEFS/kprobe_profile
	echo 0 >$TRACEFS/events/mgcap_test/$1/enable
	echo "-:mgcap_test/$1" >>$TRACEFS/kprobe_events
}
