#!/bin/sh
# Adapter stamps in system time (PCAP_TSTAMP_ADAPTER), against the test
# NIC's PHC, whose frames carry the system time of their stamps.  The system
# clock is left alone; the PHC runs 37 s ahead with a frequency error.
#   sh tests/vm/tests-adapter.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_adapter_stamps_are_system_time_by_every_method
	t_adapter_stamps_through_dumpcap
	t_mgcap_show_reports_the_clock
	t_adapter_phc_decades_from_system_time
	t_adapter_device_gone_mid_capture
	t_adapter_unsynced_stays_the_raw_clock
	t_adapter_phc_steps_cost_no_frame_a_wrong_stamp
	t_adapter_only_with_a_phc
	t_adapter_unreadable_phc_gives_host_stamps
	t_mgdump_adapter_stamps_where_the_nic_has_a_clock
	t_mgdump_tstamp_bad_input
	t_adapter_two_devices_merge_in_true_time_order
	t_device_list_bad_input
	t_mgdump_two_devices_merged_in_true_time_order
	t_adapter_sent_frames_carry_the_kernels_stamps
"
USER_SPACE_TESTS="
	t_adapter_phc_decades_from_system_time t_mgdump_tstamp_bad_input t_device_list_bad_input
	t_mgdump_two_devices_merged_in_true_time_order
"
. "$(dirname "$0")/lib.sh"

NICSYS=/sys/class/net/mgt0/mgtestnic

# phc_setup QUEUES METHOD PPB: the test NIC stamping from its PHC
phc_setup() {
	setup "$1" && $MGCAP start mgt0 >/dev/null || return 1
	echo 1 >$NICSYS/phc_stamps && echo "$2" >$NICSYS/phc_best &&
		echo "$3" >$NICSYS/phc_error_ppb
}

# adapter_stats: the report the libpcap module gives at close (MGCAP_ADAPTER_STATS)
adapter_stats() {
	grep "adapter stamps: " "$TMP/client" || bad "no report: $(cat "$TMP/client")"
}

# every frame's stamp within 10 us of its truth, with each sampling method
t_adapter_stamps_are_system_time_by_every_method() {
	for m in precise:PTP_SYS_OFFSET_PRECISE:50000 extended:PTP_SYS_OFFSET_EXTENDED:-50000 \
		 basic:PTP_SYS_OFFSET:500000; do
		method=${m%%:*}
		ioctl=${m#*:}
		ppb=${ioctl#*:}
		ioctl=${ioctl%:*}
		phc_setup 2 "$method" "$ppb" || return 1
		MGCAP_ADAPTER_STATS=1 capture tcpdump -i mgcap:mgt0 -j adapter \
			--time-stamp-precision=nano -Z root -c 4000 -w "$TMP/out.pcap" || return 1
		echo "all 2000" >$NICSYS/generate
		wait $client || { cat "$TMP/client"; return 1; }
		check=$($PCAPCHECK "$TMP/out.pcap" --queues 2 --count 2000 --truth 10000) ||
			bad "$method: $check"
		stats=$(adapter_stats)
		echo "$stats" | grep -q "by $ioctl, " || bad "$method: not sampled by $ioctl: $stats"
		echo "$stats" | grep -q " 0 stamps fell back" || bad "$method: $stats"
		bound=$(echo "$stats" | sed -n 's/.*worst bound \([0-9]*\) ns.*/\1/p')
		[ -n "$bound" ] && [ "$bound" -lt 10000 ] || bad "$method: bound '$bound'"
		say "$method ($ppb ppb): $(echo "$check" | sed -n 's/.*truth: //p'), bound $bound ns;" \
			"$(echo "$stats" | sed 's/.*by //')"
		teardown
	done
}

# Wireshark's dumpcap asks for adapter stamps by their libpcap name too
t_adapter_stamps_through_dumpcap() {
	phc_setup 2 precise 20000 || return 1
	capture dumpcap -i mgcap:mgt0 --time-stamp-type adapter -c 2000 -w "$TMP/out.pcapng" ||
		return 1
	echo "all 1000" >$NICSYS/generate
	wait $client || { cat "$TMP/client"; return 1; }
	check=$($PCAPCHECK "$TMP/out.pcapng" --queues 2 --count 1000 --truth 10000) || bad "$check"
	say "$(echo "$check" | sed -n 's/.*truth: //p')"
}

# mgcap show measures each device's clock against system time (over 0.1 s:
# the frequency within 5 ppm of the test NIC's 50 ppm)
t_mgcap_show_reports_the_clock() {
	phc_setup 1 extended 50000 || return 1
	$MGCAP show mgt0 >"$TMP/show" || return 1
	line=$(grep "^  clock: " "$TMP/show")
	echo "$line" | grep -Eq "^  clock: /dev/ptp[0-9]+, \+37\.0[0-9]{8} s from system time, \+(4[5-9]|5[0-4])\.[0-9] ppm \(\+-[0-9.]+\), by PTP_SYS_OFFSET_EXTENDED, window [0-9]+ ns$" ||
		bad "$line"
	$MGCAP show -j mgt0 | grep -q '"clock":{"phc":"/dev/ptp[0-9]*","method":"PTP_SYS_OFFSET_EXTENDED","offset_ns":370' ||
		bad "$($MGCAP show -j mgt0)"
	say "$line"
	echo 0 >$NICSYS/phc_stamps || return 1
	$MGCAP show mgt0 | grep -q "^  clock: none named by the NIC" || bad "$($MGCAP show mgt0)"
}

# a free-running PHC, counting from its reset 5 s ago, decades from system
# time (further than a double carries to the ns): stamps and the clock's
# frequency as exact as with a PHC set near system time, and no false steps
t_adapter_phc_decades_from_system_time() {
	phc_setup 2 precise 50000 || return 1
	echo $((5000000000 - $(date +%s%N))) >$NICSYS/phc_offset_ns || return 1
	line=$($MGCAP show mgt0 | grep "^  clock: ")
	echo "$line" | grep -Eq " -1[0-9]{9}\.[0-9]{9} s from system time, \+(4[5-9]|5[0-4])\.[0-9] ppm " ||
		bad "$line"
	MGCAP_ADAPTER_STATS=1 capture tcpdump -i mgcap:mgt0 -j adapter --time-stamp-precision=nano \
		-Z root -c 2000 -w "$TMP/out.pcap" || return 1
	echo "all 1000" >$NICSYS/generate
	wait $client || { cat "$TMP/client"; return 1; }
	check=$($PCAPCHECK "$TMP/out.pcap" --queues 2 --count 1000 --truth 10000) || bad "$check"
	stats=$(adapter_stats)
	echo "$stats" | grep -q " 0 steps, .* 0 stamps fell back" || bad "$stats"
	say "${line#  }; $(echo "$check" | sed -n 's/.*truth: //p')"
}

# the NIC and its clock gone during an adapter capture: tcpdump ends with
# the capture's error, the frames before it kept, the kernel clean
t_adapter_device_gone_mid_capture() {
	phc_setup 1 extended 0 || return 1
	MGCAP_ADAPTER_STATS=1 capture tcpdump -i mgcap:mgt0 -j adapter --time-stamp-precision=nano \
		-Z root -w "$TMP/out.pcap" || return 1
	echo "0 500" >$NICSYS/generate
	# tcpdump has them (they come at its read timeout)
	wait_idle mgt0 && wait_drained || return 1
	rmmod mgtestnic || return 1
	wait $client
	st=$?
	[ $st -ne 0 ] && grep -q "the capture was stopped" "$TMP/client" ||
		bad "status $st: $(cat "$TMP/client")"
	$PCAPCHECK "$TMP/out.pcap" --queues 1 --count 500 --truth 10000 || return 1
}

# adapter_unsynced is the PHC's own time, 37 s ahead; host stamps are not
t_adapter_unsynced_stays_the_raw_clock() {
	phc_setup 2 extended 50000 || return 1
	capture tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -Z root \
		-c 2000 -w "$TMP/out.pcap" || return 1
	offset=$(cat $NICSYS/phc_offset_ns)
	echo "all 1000" >$NICSYS/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/out.pcap" --queues 2 --count 1000 --raw-offset "$offset" || return 1
	# and the same frames' adapter stamps are not (the check can fail)
	if $PCAPCHECK "$TMP/out.pcap" --queues 2 --count 1000 --truth 10000 >/dev/null 2>&1; then
		bad "raw stamps passed as system time"
	fi
	[ "${offset%?????????}" = 37 ] || bad "the PHC is $offset ns ahead, not 37 s"
}

# steps of the PHC during a capture (ptp4l's settime): no frame gets a stamp
# converted across one; those around it carry the kernel's stamp, counted
t_adapter_phc_steps_cost_no_frame_a_wrong_stamp() {
	phc_setup 1 extended 20000 || return 1
	MGCAP_ADAPTER_STATS=1 capture tcpdump -i mgcap:mgt0 -j adapter \
		--time-stamp-precision=nano -Z root -B 16384 -c 20000 -w "$TMP/out.pcap" || return 1
	# each step while the generator runs, so that frames surround it
	for step in 500000000 -500000000 3000 -3000; do
		before=$(frames_made mgt0)
		echo "0 4000" >$NICSYS/generate
		wait_for 10000 "frames before the step" at_least $((before + 200)) frames_made mgt0 ||
			return 1
		echo "$step" >$NICSYS/phc_step_ns
		wait_idle mgt0 || return 1
		# a duration: a quiet gap between the steps' runs, the clock sampled
		# without traffic
		sleep 0.2
	done
	echo "0 4000" >$NICSYS/generate
	wait $client || { cat "$TMP/client"; return 1; }
	stats=$(adapter_stats)
	fallbacks=$(echo "$stats" | sed -n 's/.* \([0-9]*\) stamps fell back.*/\1/p')
	steps=$(echo "$stats" | sed -n 's/.* \([0-9]*\) steps,.*/\1/p')
	[ -n "$steps" ] && [ "$steps" -ge 2 ] || bad "steps not seen: $stats"
	check=$($PCAPCHECK "$TMP/out.pcap" --queues 1 --count 20000 --truth 10000 \
		--fallbacks "$fallbacks" --unmerged) || bad "$check"
	say "$(echo "$check" | sed -n 's/.*truth: //p'); $(echo "$stats" | sed 's/.*by //')"
}

# tcpdump -J lists adapter only where the NIC has a PHC, and neither
# adapter type where it stamps nothing, as AF_PACKET's list; asking for
# them there gives libpcap's warning and host stamps
t_adapter_only_with_a_phc() {
	setup 1 && ip link add nostamp0 type dummy && ip link set nostamp0 up || return 1
	# stamping from a clock it does not name: no adapter
	$RUN tcpdump -J -i mgcap:mgt0 >"$TMP/j" 2>&1 || { cat "$TMP/j"; return 1; }
	grep -q "^  adapter (" "$TMP/j" && bad "mgt0 without a PHC lists adapter: $(cat "$TMP/j")"
	echo 1 >$NICSYS/phc_stamps || return 1
	$RUN tcpdump -J -i mgcap:mgt0 >"$TMP/j" 2>&1 || { cat "$TMP/j"; return 1; }
	grep -q "^  adapter (" "$TMP/j" || bad "mgt0: $(cat "$TMP/j")"
	grep -q "^  adapter_unsynced (" "$TMP/j" || bad "mgt0: $(cat "$TMP/j")"
	$RUN tcpdump -J -i mgcap:nostamp0 >"$TMP/j" 2>&1 || { cat "$TMP/j"; return 1; }
	grep -q "^  adapter" "$TMP/j" && bad "nostamp0 lists adapter stamps: $(cat "$TMP/j")"
	# (tcpdump prints the list on stderr)
	tcpdump -J -i nostamp0 2>&1 | sed 1d >"$TMP/j-afpacket"
	grep -q "^  host (" "$TMP/j-afpacket" || bad "tcpdump -J -i nostamp0: $(cat "$TMP/j-afpacket")"
	sed 1d "$TMP/j" | cmp -s - "$TMP/j-afpacket" ||
		bad "mgcap:nostamp0 lists $(sed 1d "$TMP/j" | tr -s '\n ' ' '), AF_PACKET $(tr -s '\n ' ' ' <"$TMP/j-afpacket")"
	$MGCAP start nostamp0 >/dev/null || return 1
	capture tcpdump -i mgcap:nostamp0 -j adapter -w "$TMP/out.pcap" || return 1
	kill -INT $client
	wait $client
	grep -q "When trying to set timestamp type 'adapter'.*not supported" "$TMP/client" ||
		bad "no warning: $(cat "$TMP/client")"
	ip link del nostamp0
	return 0
}

# a PHC that cannot be read: a one-line warning, and host stamps
t_adapter_unreadable_phc_gives_host_stamps() {
	phc_setup 2 extended 0 || return 1
	ptp=$(nic_clock)
	[ -n "$ptp" ] || { ls /sys/class/ptp; return 1; }
	mount --bind /dev/null "$ptp" || return 1
	start=$(date +%s%N)
	capture tcpdump -i mgcap:mgt0 -j adapter --time-stamp-precision=nano -Z root -c 200 \
		-w "$TMP/out.pcap"
	st=$?
	echo "all 100" >$NICSYS/generate
	wait $client
	umount "$ptp"
	[ $st -eq 0 ] || return 1
	grep -q "mgcap:mgt0: cannot read the NIC's clock $ptp: .*; using host time stamps" \
		"$TMP/client" || bad "no warning: $(cat "$TMP/client")"
	$PCAPCHECK "$TMP/out.pcap" --queues 2 --count 100 --sw-after "$start" --truth 1000000000 ||
		return 1
}

# mgdump takes adapter stamps by default where the NIC has a clock, and says
# so in each interface's description and statistics (pcapng has no field)
t_mgdump_adapter_stamps_where_the_nic_has_a_clock() {
	phc_setup 2 extended -20000 || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/out.pcapng" -c 4000 -q >"$TMP/d" 2>&1 &
	dump=$!
	mgdump_reading "$TMP/out.pcapng" || return 1
	echo "all 2000" >$NICSYS/generate
	wait $dump || { cat "$TMP/d"; return 1; }
	check=$($PCAPCHECK "$TMP/out.pcapng" --queues 2 --count 2000 --truth 10000 \
		--unmerged) || bad "$check"
	capinfos "$TMP/out.pcapng" >"$TMP/ci" || return 1
	n=$(grep -c "Description = mgcap:mgt0@[01], receive queue [01]; time stamps: adapter$" \
		"$TMP/ci")
	[ "$n" = 2 ] || bad "descriptions: $(grep Description "$TMP/ci")"
	n=$(grep -ao "buffer drops: 0; time stamps: adapter, /dev/ptp[0-9]* by PTP_SYS_OFFSET_EXTENDED, [0-9]* samples (widest window [0-9]* ns), 0 steps, worst bound [0-9]* ns, 0 stamps fell back" \
		"$TMP/out.pcapng" | wc -l)
	[ "$n" = 2 ] || bad "statistics comments: $(strings "$TMP/out.pcapng" | grep 'buffer drops')"
	say "$(echo "$check" | sed -n 's/.*truth: //p')"
	# merged, and asked for the raw clock
	offset=$(cat $NICSYS/phc_offset_ns)
	timeout 120 $MGDUMP -i mgt0 --merged --tstamp adapter_unsynced -w "$TMP/raw.pcapng" \
		-c 2000 -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "all 1000" >$NICSYS/generate
	wait $dump || { cat "$TMP/d"; return 1; }
	$PCAPCHECK "$TMP/raw.pcapng" --queues 2 --count 1000 --raw-offset "$offset" ||
		return 1
	capinfos "$TMP/raw.pcapng" | grep -q "Description = .*; time stamps: adapter_unsynced$" ||
		bad "$(capinfos "$TMP/raw.pcapng" | grep Description)"
}

# mgdump --tstamp: a type it does not know is refused, naming the option
t_mgdump_tstamp_bad_input() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	out=$($MGDUMP -i mgt0 -w "$TMP/x" --tstamp adapter_synced 2>&1)
	st=$?
	[ $st -eq 2 ] && [ "$out" = "mgdump: bad value 'adapter_synced' for --tstamp" ] ||
		bad "status $st: '$out'"
	[ ! -e "$TMP/x" ] || bad "a refused mgdump left $TMP/x"
	# adapter on a NIC without a clock: libpcap's warning, and mgdump goes on
	timeout 120 $MGDUMP -i mgt0 --tstamp adapter -w "$TMP/out.pcapng" -c 100 -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "all 100" >$NICSYS/generate
	wait $dump || { cat "$TMP/d"; return 1; }
	grep -q "^mgdump: mgcap:mgt0@0: time stamps adapter: .*not supported" "$TMP/d" ||
		bad "no warning: $(cat "$TMP/d")"
	capinfos "$TMP/out.pcapng" | grep -q "Description = .*; time stamps: host$" ||
		bad "$(capinfos "$TMP/out.pcapng" | grep Description)"
}

# tap_traffic: mgt1's frames first; by their raw clocks, mgt0's would come first.
# Then every frame within 10 us of its truth, all in stamp order.
tap_traffic() {	# tap_traffic FILE PID [PCAPCHECK-OPTION...]
	file=$1
	pid=$2
	shift 2
	echo "all 1000" >/sys/class/net/mgt1/mgtestnic/generate
	wait_idle mgt1 || return 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait "$pid" || { cat "$TMP/client" "$TMP/d" 2>/dev/null; return 1; }
	check=$($PCAPCHECK "$file" --queues 2 --devices 2 --count 1000 --truth 10000 "$@") ||
		bad "$check"
}

# the two directions of a tap on two NICs: one stream, in true time order (by
# their stamps in system time, not their raw clocks)
t_adapter_two_devices_merge_in_true_time_order() {
	tap_setup || return 1
	MGCAP_ADAPTER_STATS=1 capture tcpdump -i mgcap:mgt0,mgt1 -j adapter \
		--time-stamp-precision=nano -Z root -c 4000 -w "$TMP/out.pcap" || return 1
	tap_traffic "$TMP/out.pcap" $client || return 1
	first=$(tcpdump -r "$TMP/out.pcap" -c 1 -e -n 2>/dev/null)
	echo "$first" | grep -q "> 02:6d:67:74:00:01," || bad "mgt0 came first: $first"
	n=$(grep -c "adapter stamps: .* 0 stamps fell back" "$TMP/client")
	[ "$n" = 2 ] || bad "$(grep 'adapter stamps' "$TMP/client")"
	say "$(echo "$check" | sed -n 's/.*truth: //p')"
}

# a device list names each device once, and only devices that exist
t_device_list_bad_input() {
	setup 2 2 || return 1
	for list in "mgt0,mgt0:mgt0 is listed twice" "mgt0,nosuch0:no such device nosuch0" \
		    "mgt0@1,mgt1:bad queue list" "mgt0,:bad device name in the list"; do
		dev=${list%%:*}
		text=${list#*:}
		out=$($RUN tcpdump -i "mgcap:$dev" -c 1 -w "$TMP/x" 2>&1)
		st=$?
		[ $st -ne 0 ] && echo "$out" | grep -q "$text" ||
			bad "mgcap:$dev: status $st, '$out' (want '$text')"
	done
	[ ! -e "$TMP/x" ] || bad "a refused tcpdump left $TMP/x"
	# and two devices stamp alike: both hardware, or host with libpcap's warning
	capture tcpdump -i mgcap:mgt0,mgt1 -j adapter_unsynced --time-stamp-precision=nano -Z root \
		-c 400 -w "$TMP/raw.pcap" || return 1
	echo "all 100" >/sys/class/net/mgt0/mgtestnic/generate
	echo "all 100" >/sys/class/net/mgt1/mgtestnic/generate
	wait $client || { cat "$TMP/client"; return 1; }
	$PCAPCHECK "$TMP/raw.pcap" --queues 2 --devices 2 --count 100
}

# mgdump -i mgt0 -i mgt1 --merged: each device its own interface, all of
# them in true time order; a device twice, or one mgcap does not capture, refused
t_mgdump_two_devices_merged_in_true_time_order() {
	tap_setup || return 1
	timeout 120 $MGDUMP -i mgt0 -i mgt1 --merged -w "$TMP/out.pcapng" -c 4000 -q \
		>"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt1 && mgdump_reading "$TMP/out.pcapng" || return 1
	tap_traffic "$TMP/out.pcapng" $dump || return 1
	capinfos "$TMP/out.pcapng" >"$TMP/ci" || return 1
	grep -q "Number of interfaces in file: 2" "$TMP/ci" || bad "not 2 interfaces"
	grep -q "Name = mgt1" "$TMP/ci" || bad "no interface mgt1"
	first=$(tshark -r "$TMP/out.pcapng" -c 1 -T fields -e frame.interface_name 2>/dev/null)
	[ "$first" = mgt1 ] || bad "the first frame is from '$first', not mgt1"
	say "$(echo "$check" | sed -n 's/.*truth: //p')"
	for args in "-i mgt0 -i mgt0:2:-i mgt0 given twice" \
		    "-i mgt0 -i lo:1:lo is not captured by mgcap"; do
		a=${args%%:*}
		rest=${args#*:}
		want=${rest%%:*}
		text=${rest#*:}
		out=$($MGDUMP $a --merged -w "$TMP/x" 2>&1)
		st=$?
		[ $st -eq "$want" ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
			echo "$out" | grep -q -- "$text" || bad "mgdump $a: status $st, '$out'"
	done
	[ ! -e "$TMP/x" ] || bad "a refused mgdump left $TMP/x"
}

# send_udp COUNT: COUNT datagrams out of mgt0 to 198.51.100.2 (the test
# NIC takes them and sends nothing back); the system time before and after
# in $TMP/sent_from and sent_to.  (Not from 198.51.100.1: the generator's
# frames would then be this host's, and each answered by an ICMP error.)
send_udp() {
	ip addr replace 198.51.100.3/24 dev mgt0 &&
		ip neigh replace 198.51.100.2 lladdr 02:00:5e:00:53:02 dev mgt0 nud permanent ||
		return 1
	date +%s%N >"$TMP/sent_from"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    s.sendto(i.to_bytes(4, "big"), ("198.51.100.2", 7777))' "$1" || return 1
	date +%s%N >"$TMP/sent_to"
}

# Sent frames have the kernel's stamps, never the NIC's.  With adapter
# stamps (system time) they take their place in time among the received
# frames' converted stamps, each within the span of its send; with
# adapter_unsynced (the NIC's clock, 37 s ahead here) a kernel stamp has
# no place: the capture holds the received frames only, and asking for
# the sent ones fails with a reason.
t_adapter_sent_frames_carry_the_kernels_stamps() {
	phc_setup 2 extended 50000 || return 1
	capture tcpdump -i mgcap:mgt0 -j adapter --time-stamp-precision=nano -Z root -c 1020 \
		-w "$TMP/out.pcap" || return 1
	echo "all 250" >$NICSYS/generate
	send_udp 20 || return 1
	echo "all 250" >$NICSYS/generate
	wait $client || { cat "$TMP/client"; return 1; }
	python3 - "$TMP/out.pcap" "$(cat "$TMP/sent_from")" "$(cat "$TMP/sent_to")" \
		>"$TMP/check" 2>&1 <<-'PY' ||
	import struct, sys
	data = open(sys.argv[1], "rb").read()
	lo, hi = int(sys.argv[2]), int(sys.argv[3])
	at, last, sent, received = 24, 0, [], 0
	while at < len(data):
	    sec, frac, caplen, _ = struct.unpack_from("<IIII", data, at)
	    frame = data[at + 16:at + 16 + caplen]
	    at += 16 + caplen
	    ns = sec * 10**9 + frac
	    assert ns >= last, "stamps out of order: %d after %d" % (ns, last)
	    last = ns
	    if frame[30:34] == bytes([198, 51, 100, 2]):
	        sent.append(ns)
	    else:
	        received += 1
	assert received == 1000 and len(sent) == 20, (received, len(sent))
	bad = [ns for ns in sent if not lo <= ns <= hi]
	assert not bad, "sent frames stamped outside their send (%d to %d): %s" % (lo, hi, bad[:3])
	print("1000 received, 20 sent, in time order; the sent within their %d us" % ((hi - lo) // 1000))
	PY
		{ bad "adapter: $(tail -n 1 "$TMP/check")"; return 1; }
	say "adapter: $(cat "$TMP/check")"

	capture tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -Z root \
		-c 500 -w "$TMP/raw.pcap" || return 1
	send_udp 20 || return 1
	echo "all 250" >$NICSYS/generate
	wait $client || { cat "$TMP/client"; return 1; }
	n=$(tcpdump -r "$TMP/raw.pcap" -n dst host 198.51.100.2 2>/dev/null | wc -l)
	[ "$n" = 0 ] || bad "adapter_unsynced: $n sent frames among the NIC's stamps"
	timeout 60 $RUN tcpdump -i mgcap:mgt0 -j adapter_unsynced -Q out -Z root -c 1 \
		-w "$TMP/out2.pcap" >"$TMP/refused" 2>&1 &&
		bad "adapter_unsynced -Q out: not refused"
	grep -q 'sent frames have no stamps of the NIC.s clock' "$TMP/refused" ||
		bad "adapter_unsynced -Q out: $(cat "$TMP/refused")"
}

run_suite "$@"
