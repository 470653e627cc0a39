#!/bin/sh
# The libpcap module's tests with the stock Debian clients, each through
# mgcap-run (capture, in lib.sh).
#   sh tests/vm/tests-pcap.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_tcpdump_every_frame_with_adapter_stamps
	t_tcpdump_leaves_the_stamping_to_a_reader_still_running
	t_stamping_given_back_as_found_and_a_ptp_daemons_kept
	t_tcpdump_host_stamps_by_default
	t_tcpdump_one_queue_filter_snaplen
	t_tcpdump_vlan_filter
	t_tcpdump_adapter_stamps_on_a_nic_without
	t_tcpdump_of_a_member_refused_at_once_where_no_rule_gives_the_nodes
	t_tcpdump_stops_on_sigint_with_its_counts
	t_tcpdump_sleeps_while_nothing_can_be_delivered
	t_dumpcap_pcapng_nanoseconds
	t_libpcap_api
	t_argus_through_the_ifflags_shim
	t_argus_plain_by_the_kernels_name
"
USER_SPACE_TESTS="
	t_argus_through_the_ifflags_shim t_argus_plain_by_the_kernels_name
"
. "$(dirname "$0")/lib.sh"

t_tcpdump_every_frame_with_adapter_stamps() {
	setup 4 && $MGCAP start mgt0 >/dev/null || return 1
	# -Z root: Debian's tcpdump otherwise drops root after opening, and then
	# cannot give the NIC's stamping setting back at exit
	capture tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -Z root \
		-c 8000 -w "$TMP/out.pcap" || return 1
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/out.pcap" --queues 4 --count 2000 || return 1
	# tcpdump reads it back the same way
	first=$(tcpdump -r "$TMP/out.pcap" --time-stamp-precision=nano -n -tt -c 1 2>/dev/null)
	echo "$first" |
		grep -q '^1700000000\.000000000 IP 198\.51\.100\.2\.10000 > 198\.51\.100\.1\.5555: UDP' ||
		bad "tcpdump -r shows '$first'"
	# stamping was switched on for the capture and given back after it
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: none" ||
		bad "the NIC's stamping setting was not restored"
}

t_tcpdump_leaves_the_stamping_to_a_reader_still_running() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	# the first switches stamping on, the second finds it on
	capture tcpdump -i mgcap:mgt0 -j adapter_unsynced -Z root -w "$TMP/first.pcap" || return 1
	first=$client
	capture tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -Z root \
		-c 1000 -w "$TMP/out.pcap" || return 1
	kill -INT $first
	wait $first
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: all" ||
		bad "the first reader switched the stamping off under the second"
	echo "all 500" >/sys/class/net/mgt0/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/out.pcap" --queues 2 --count 500
}

# hwts DEV [TX RX]: sets the NIC's stamping as a PTP daemon does (SIOCSHWTSTAMP:
# tx_type TX, rx_filter RX), then prints what it is: "tx T rx R"
hwts() {
	python3 - "$@" <<'EOF'
import ctypes, fcntl, socket, struct, sys
cfg = ctypes.create_string_buffer(12)
ifr = lambda: struct.pack("16sP", sys.argv[1].encode(), ctypes.addressof(cfg)) + bytes(16)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if len(sys.argv) == 4:
    struct.pack_into("iii", cfg, 0, 0, int(sys.argv[2]), int(sys.argv[3]))
    fcntl.ioctl(s.fileno(), 0x89b0, ifr())		# SIOCSHWTSTAMP
fcntl.ioctl(s.fileno(), 0x89b1, ifr())			# SIOCGHWTSTAMP
flags, tx, rx = struct.unpack_from("iii", cfg)
print("tx %d rx %d" % (tx, rx))
EOF
}

# mgdump's readers, one handle a queue, give the stamping back when the last
# of them closes; a PTP daemon that turned transmit stamping on while
# tcpdump read keeps its setting when tcpdump ends (tx_type 1: on, rx_filter
# 1: all)
t_stamping_given_back_as_found_and_a_ptp_daemons_kept() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	[ "$(hwts mgt0)" = "tx 0 rx 0" ] || bad "not off at the start: $(hwts mgt0)"
	timeout 60 $MGDUMP -i mgt0 --tstamp adapter_unsynced -w "$TMP/out.pcapng" -c 200 -q &
	dump=$!
	wait_readers mgt0 || return 1
	[ "$(hwts mgt0)" = "tx 0 rx 1" ] || bad "mgdump did not switch stamping on: $(hwts mgt0)"
	echo "all 100" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || bad "mgdump failed"
	[ "$(hwts mgt0)" = "tx 0 rx 0" ] || bad "mgdump left the stamping on: $(hwts mgt0)"

	capture tcpdump -i mgcap:mgt0 -j adapter_unsynced -Z root -w "$TMP/out.pcap" || return 1
	[ "$(hwts mgt0 1 1)" = "tx 1 rx 1" ] || bad "the daemon's setting did not take"
	kill -INT $client
	wait $client
	[ "$(hwts mgt0)" = "tx 1 rx 1" ] ||
		bad "tcpdump's end took the daemon's stamping: $(hwts mgt0)"
}

t_tcpdump_host_stamps_by_default() {
	setup 2 && $MGCAP start mgt0 >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	after=$(date +%s%N)
	capture tcpdump -i mgcap:mgt0 --time-stamp-precision=nano -c 2000 -w "$TMP/out.pcap" ||
		return 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/out.pcap" --queues 2 --count 1000 --sw-after "$after"
}

t_tcpdump_one_queue_filter_snaplen() {
	setup 4 && $MGCAP start mgt0 >/dev/null || return 1
	capture tcpdump -i mgcap:mgt0@1-2 -j adapter_unsynced --time-stamp-precision=nano \
		-s 60 -c 1000 -w "$TMP/out.pcap" 'udp src port 10002' || return 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/out.pcap" --queues 4 --count 1000 --only-queue 2 --snaplen 60
}

t_tcpdump_vlan_filter() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	echo 10 >/sys/class/net/mgt0/mgtestnic/vlan_tci
	capture tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano \
		-c 2000 -w "$TMP/out.pcap" 'vlan 10 and udp dst port 5555' || return 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/out.pcap" --queues 2 --count 1000 --vlan 10
}

t_tcpdump_adapter_stamps_on_a_nic_without() {
	setup 1 && ip link add nostamp0 type dummy && ip link set nostamp0 up || return 1
	$MGCAP start nostamp0 >/dev/null || return 1
	capture tcpdump -i mgcap:nostamp0 -j adapter_unsynced -w "$TMP/out.pcap" || return 1
	kill -INT $client
	wait $client
	grep -q "not supported by that device" "$TMP/client" ||
		bad "no warning: $(cat "$TMP/client")"
	ip link del nostamp0
	return 0
}

# A member of the group mgcap opening a node that no udev rule gives the
# group (a build tree's module, without the packages) is refused at once:
# libpcap waits for udev only while the node is new (a member right after
# root's start; installed-packages.sh has that), not 25 s for a rule that
# is not there.
t_tcpdump_of_a_member_refused_at_once_where_no_rule_gives_the_nodes() {
	[ -e /run/udev/control ] || { skip "udev does not run in this VM"; return 0; }
	[ -f /lib/udev/rules.d/60-mgcap.rules ] && { skip "the packages' udev rule is installed"; return 0; }
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	[ "$(stat -c %a /dev/mgcap/mgt0@0)" = 600 ] || bad "mgt0@0: $(ls -l /dev/mgcap/mgt0@0)"
	# (the point: the node older than the wait for udev, 25 s)
	sleep 26
	m_start=$(date +%s%N)
	setpriv --reuid=65534 --regid=65534 --clear-groups -- timeout 60 $RUN tcpdump -p -i mgcap:mgt0 \
		-c 1 -w /dev/null >"$TMP/member" 2>&1 && bad "nobody opened mgt0@0: $(cat "$TMP/member")"
	m_ms=$((($(date +%s%N) - m_start) / 1000000))
	say "refused after $m_ms ms: $(grep -v "^tcpdump: listening" "$TMP/member" | head -n 1)"
	grep -q "Permission denied\|permission" "$TMP/member" || bad "the refusal: $(cat "$TMP/member")"
	[ "$m_ms" -lt 10000 ] || bad "a member waited $m_ms ms for a node no rule will give"
	$MGCAP stop mgt0 >/dev/null
}

# stop_ms DEVICE: how long tcpdump capturing on DEVICE takes to exit after
# SIGINT, in ms, in $ms
stop_ms() {
	capture tcpdump -i "$1" -w "$TMP/out.pcap" || return 1
	# (its read blocked, as a capture with nothing to read is)
	wait_for 10000 "tcpdump asleep in its read" asleep "$(pgrep -x -P $client tcpdump)" ||
		return 1
	t0=$(date +%s%N)
	kill -INT $client
	wait $client || bad "$1: tcpdump exited with $? after SIGINT"
	ms=$((($(date +%s%N) - t0) / 1000000))
	grep -q "0 packets dropped by kernel" "$TMP/client" || bad "$1: no statistics"
}

# SIGINT ends tcpdump's read, and it reports its counts; how long that took
# is reported beside AF_PACKET's (300-900 ms under emulation with the
# host's other core busy, either ahead by up to 430 ms in 6 runs: too noisy
# for a bound that would catch a missed wakeup, which costs at most the 1 s
# read timeout).  A wakeup missed in a read blocked without a timeout, where
# it would block for ever, is what mgcap-pcaptest checks (t_libpcap_api).
t_tcpdump_stops_on_sigint_with_its_counts() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	stop_ms mgcap:mgt0 && mgcap_ms=$ms && stop_ms mgt0 || return 1
	say "tcpdump exited $mgcap_ms ms after SIGINT (AF_PACKET's: $ms ms)"
}

# cpu_ticks PID: the clock ticks PID has run, user and system
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# trickle_sleeps WHAT QUEUE: frames on QUEUE every 0.2 s for 2 s (QUEUE -:
# none), while tcpdump is to sleep between them: fails if it ran a tenth of
# the time
trickle_sleeps() {
	pid=$(pgrep -x tcpdump) || { bad "$1: no tcpdump"; return 1; }
	hz=$(getconf CLK_TCK)
	ran=$(cpu_ticks "$pid")
	since=$(cut -d' ' -f1 /proc/uptime)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ "$2" = - ] || echo "$2 1" >/sys/class/net/mgt0/mgtestnic/generate
		sleep 0.2	# a duration: the frames' pace, the time tcpdump is to sleep
	done
	ran=$(($(cpu_ticks "$pid") - ran))
	window=$(awk -v since="$since" -v hz="$hz" '{ printf "%d", ($1 - since) * hz }' /proc/uptime)
	say "$1: tcpdump ran $ran of $window ticks"
	[ $((ran * 10)) -lt "$window" ] || bad "$1: tcpdump ran $ran of $window ticks"
}

t_tcpdump_sleeps_while_nothing_can_be_delivered() {
	setup 4 2 && $MGCAP start mgt0 >/dev/null && $MGCAP start mgt1 >/dev/null || return 1
	# immediate mode: the kernel wakes the reader at every record
	# 1. frames the filter rejects in user space (the kernel leaves a
	# stripped tag's frame to it): their ring space goes back at once
	echo 10 >/sys/class/net/mgt0/mgtestnic/vlan_tci
	capture tcpdump -i mgcap:mgt0@0 --immediate-mode -w "$TMP/out.pcap" 'udp port 1' || return 1
	trickle_sleeps "frames the filter rejects" 0
	kill -INT $client
	wait $client
	echo 0 >/sys/class/net/mgt0/mgtestnic/vlan_tci
	# 2. frames on one queue of four, each held back while the empty
	# queues might still bring an older one
	capture tcpdump -i mgcap:mgt0 --immediate-mode -j adapter_unsynced \
		--time-stamp-precision=nano -Z root -c 11 -w "$TMP/out.pcap" || return 1
	trickle_sleeps "frames held back for the order" 0
	echo "0 1" >/sys/class/net/mgt0/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/out.pcap" --queues 4 --count 11 --only-queue 0 || return 1
	# 3. two devices, and one's capture ends: its rings stay hung up
	capture tcpdump -i mgcap:mgt0,mgt1 -w "$TMP/out.pcap" || return 1
	$MGCAP stop mgt1 >/dev/null || return 1
	trickle_sleeps "one device of two stopped" -
	kill -INT $client
	wait $client
	return 0
}

t_dumpcap_pcapng_nanoseconds() {
	setup 4 && $MGCAP start mgt0 >/dev/null || return 1
	capture dumpcap -i mgcap:mgt0 --time-stamp-type adapter_unsynced -c 4000 \
		-w "$TMP/out.pcapng" || return 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	capinfos "$TMP/out.pcapng" >"$TMP/capinfos" || return 1
	grep -q "nanoseconds (9)" "$TMP/capinfos" || { cat "$TMP/capinfos"; bad "not nanoseconds"; }
	$PCAPCHECK "$TMP/out.pcapng" --queues 4 --count 1000
}

t_libpcap_api() {
	insmod "$NIC" queues=2 devices=2 || return 1
	for d in mgt0 mgt1; do ip link set $d up; done
	insmod "$KO" && $MGCAP start mgt0 ring-size 64K >/dev/null || return 1
	$RUN $PCAPTEST mgt0 mgt1
}

t_argus_through_the_ifflags_shim() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	# a backlog left in the rings is not part of a new capture
	echo "all 300" >/sys/class/net/mgt0/mgtestnic/generate
	# without the shim Argus drops the source: it cannot SIOCGIFFLAGS "mgcap:mgt0"
	(cd "$TMP" && MGCAP_ARGUS_IFFLAGS=0 timeout 20 $RUN argus -X -i mgcap:mgt0 -w "$TMP/plain.argus" \
		>"$TMP/argus-plain" 2>&1) &
	# durations: Argus says nothing when it drops a source, and has no
	# reader for the frames then; it is given the time it would take
	sleep 3
	echo "all 100" >/sys/class/net/mgt0/mgtestnic/generate
	sleep 2
	pkill -TERM -x argus
	wait
	plain=$(ra -n -r "$TMP/plain.argus" -s pkts - udp 2>/dev/null | awk 'NR > 1 {s += $1} END {print s + 0}')
	say "without the shim Argus saw $plain packets, and said:" \
		"$(grep "closed before any read" "$TMP/argus-plain")"
	[ "$plain" = 0 ] || bad "Argus kept the source without the shim?"
	# ... and its output says why, and what to name instead
	grep -q "^mgcap: mgcap:mgt0: closed before any read; .* (Argus) .*: name it mgt0:mgcap\$" \
		"$TMP/argus-plain" || bad "Argus's output does not say why: $(cat "$TMP/argus-plain")"
	# with it, as mgcap-run gives it to argus unasked: every packet of both queues
	(cd "$TMP" && timeout 30 $RUN argus -X -i mgcap:mgt0 \
		-w "$TMP/shim.argus" >"$TMP/argus-shim" 2>&1) &
	wait_text "$TMP/argus-shim" "is up" || return 1
	argus_records_both_queues "$TMP/shim.argus"
}

# argus_records_both_queues FILE: with the argus running, 1000 frames on
# each of mgt0's two queues; once it stopped, FILE holds each queue's flow
# of 1000 packets
argus_records_both_queues() {
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_drained || return 1
	pkill -TERM -x argus
	wait
	ra -n -r "$1" -s saddr sport daddr dport pkts - udp >"$TMP/flows" 2>&1
	cat "$TMP/flows"
	grep -q '198.51.100.2.10000 *198.51.100.1.5555 *1000$' "$TMP/flows" || bad "queue 0's flow"
	grep -q '198.51.100.2.10001 *198.51.100.1.5555 *1000$' "$TMP/flows" || bad "queue 1's flow"
}

# Argus as users run it, nothing preloaded (as with the system-wide
# libpcap): named by the kernel's name of the device, DEV:mgcap, it keeps
# the source and records every packet of every queue.
t_argus_plain_by_the_kernels_name() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	(cd "$TMP" && MGCAP_ARGUS_IFFLAGS=0 timeout 30 $RUN argus -X -i mgt0:mgcap \
		-w "$TMP/plain.argus" >"$TMP/argus" 2>&1) &
	wait_text "$TMP/argus" "interface mgt0:mgcap is up" || return 1
	argus_records_both_queues "$TMP/plain.argus"
	! grep -q "closed before any read" "$TMP/argus" || bad "Argus read nothing: $(cat "$TMP/argus")"
}

run_suite "$@"
