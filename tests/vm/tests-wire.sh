#!/bin/sh
# Frames as they were on the wire.  A veth pair plays the link: its sender
# (vA, in namespace "wire") has its segmentation offloads off, so that the
# "wire" carries frames of the MTU; its receiver (vB, here) has GRO on, as
# a NIC driver has it, and merges them before any capture sees them.  The
# capture turns that off while it runs and gives it back after.
#   sh tests/vm/tests-wire.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_tcp_stream_captured_frame_by_frame_as_sent
	t_coalescing_given_back_after_the_capture
	t_coalescing_kept_on_request_is_counted
	t_both_directions_as_af_packet_shows_them
	t_both_directions_merged_over_four_queues
	t_sent_frames_go_on_in_drop_mode_and_stay_out_on_request
	t_sent_tap_in_place_only_while_a_reader_takes_sent_frames
	t_argus_two_way_flows_as_on_af_packet
	t_mgdump_records_each_packets_direction
"
USER_SPACE_TESTS="
	t_mgdump_records_each_packets_direction
	t_argus_two_way_flows_as_on_af_packet
"
. "$(dirname "$0")/lib.sh"

# wire_pair [QUEUES]: vA (192.0.2.1) in namespace wire, vB (192.0.2.2) here
# with GRO on, each with QUEUES (1) queues each way
wire_pair() {
	# (a namespace's end takes its veth pair away in a work of its own)
	wait_for 30000 "the last test's vB gone" test ! -e /sys/class/net/vB || return 1
	ip netns add wire &&
		ip link add vA numtxqueues "${1:-1}" numrxqueues "${1:-1}" type veth \
			peer name vB numtxqueues "${1:-1}" numrxqueues "${1:-1}" &&
		ip link set vA netns wire || return 1
	ip -n wire addr add 192.0.2.1/24 dev vA && ip -n wire link set vA up &&
		ip netns exec wire ethtool -K vA tso off gso off >/dev/null || return 1
	ip addr add 192.0.2.2/24 dev vB && ip link set vB up && ethtool -K vB gro on >/dev/null ||
		return 1
	[ "$(gro vB)" = on ] || { bad "ethtool -K vB gro on: gro is '$(gro vB)'"; return 1; }
}

# The issue's stream: 4 MB of TCP.  On the code before, `tcpdump -i
# mgcap:vB` held 141 frames for 2,967 sent, 93 of them longer than 1514
# bytes.  Now the capture holds every frame the sender put on the wire,
# each of its length, as AF_PACKET on the sending side saw it go out; and
# AF_PACKET on vB, beside it, sees the same (GRO is off for every program
# while vB is captured).
t_tcp_stream_captured_frame_by_frame_as_sent() {
	setup 1 && wire_pair || return 1
	$MGCAP start vB >/dev/null || return 1
	[ "$(gro vB)" = off ] || bad "vB captured: gro is '$(gro vB)'"
	$MGCAP show vB | grep -q "^  coalescing: gro off while captured; 0 records of coalesced frames$" ||
		bad "mgcap show: $($MGCAP show vB | grep coalescing)"
	as_sent wire vA vB tcp_stream wire 4000000 || return 1
	[ "$(wc -l <"$TMP/sent.len")" -gt 2500 ] ||
		bad "the sender put $(wc -l <"$TMP/sent.len") frames on the wire, expected about 2,900"
	$MGCAP -j show vB | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
assert d["coalescing_off"] == ["gro"] and not d["keep_coalescing"], d
assert sum(q["coalesced"] for q in d["queues"]) == 0, d["queues"]' ||
		bad "mgcap -j show vB: $($MGCAP -j show vB)"
	$MGCAP stop vB >/dev/null
}

# What the capture turned off goes back on at its stop, and after the last
# reader of a capture a reader opened; what someone turned on meanwhile is
# theirs, even turned off again.
t_coalescing_given_back_after_the_capture() {
	setup 1 && wire_pair || return 1
	$MGCAP start vB >/dev/null && $MGCAP stop vB >/dev/null || return 1
	[ "$(gro vB)" = on ] || bad "after mgcap stop: gro is '$(gro vB)'"

	# a capture that tcpdump's open started, stopped after it
	start_tcpdump reader -i mgcap:vB -w "$TMP/reader.pcap" || return 1
	[ "$(gro vB)" = off ] || bad "captured for tcpdump: gro is '$(gro vB)'"
	stop_tcpdumps reader
	wait_for 10000 "the capture tcpdump started to stop" not_captured vB &&
		[ "$(gro vB)" = on ] || bad "after its last reader: gro is '$(gro vB)'"

	# turned on and off again by the user meanwhile: the user's
	$MGCAP start vB >/dev/null || return 1
	ethtool -K vB gro on && ethtool -K vB gro off || return 1
	$MGCAP show vB | grep -q "^  coalescing: none turned off by mgcap;" ||
		bad "after the user's own gro on: $($MGCAP show vB | grep coalescing)"
	$MGCAP stop vB >/dev/null || return 1
	[ "$(gro vB)" = off ] || bad "the user turned gro off during the capture; after it: '$(gro vB)'"

	# nothing turned off where nothing was on, nothing turned on after
	$MGCAP start vB >/dev/null || return 1
	$MGCAP show vB | grep -q "^  coalescing: none turned off by mgcap;" ||
		bad "gro off before the start: $($MGCAP show vB | grep coalescing)"
	$MGCAP stop vB >/dev/null || return 1
	[ "$(gro vB)" = off ] || bad "gro off before the capture; after it: '$(gro vB)'"
}
not_captured() { ! $MGCAP show "$1" >/dev/null 2>&1; }

# coalescing keep: GRO stays on, and each record of merged frames says so,
# counted where users look: mgcap show, tcpdump's close, mgdump's counters.
t_coalescing_kept_on_request_is_counted() {
	setup 1 && wire_pair || return 1
	$MGCAP start vB coalescing keep >/dev/null || return 1
	[ "$(gro vB)" = on ] || bad "coalescing keep: gro is '$(gro vB)'"
	$MGCAP show vB | grep -q "^  coalescing: left as it was (coalescing keep);" ||
		bad "mgcap show: $($MGCAP show vB | grep coalescing)"
	start_tcpdump mgcap -i mgcap:vB -s 262144 -w "$TMP/mgcap.pcap" "tcp and src host 192.0.2.1" ||
		return 1
	timeout 120 $MGDUMP -i vB -s 0 -w "$TMP/out.pcapng" --stats "$TMP/stats.json" \
		>"$TMP/mgdump" 2>&1 &
	mgdump=$!
	wait_readers vB 2 || return 1
	tcp_stream wire 4000000 || return 1
	wait_drained || return 1
	stop_tcpdumps mgcap
	kill -INT $mgdump && wait $mgdump || { cat "$TMP/mgdump"; bad "mgdump failed"; }
	$TRAFFIC pcap-lengths "$TMP/mgcap.pcap" >"$TMP/mgcap.len" || return 1
	long=$(awk '$1 > 1514' "$TMP/mgcap.len" | wc -l)
	shown=$($MGCAP -j show vB | python3 -c '
import json, sys
print(sum(q["coalesced"] for q in json.load(sys.stdin)[0]["queues"]))')
	said=$(sed -n 's/^mgcap: mgcap:vB: \([0-9]*\) records of coalesced frames.*/\1/p' "$TMP/mgcap")
	recorded=$(python3 -c 'import json, sys
print(sum(i["coalesced"] for i in json.load(open(sys.argv[1]))["interfaces"]))' "$TMP/stats.json")
	say "$(wc -l <"$TMP/mgcap.len") records, $long longer than 1514 bytes; coalesced:" \
		"mgcap show $shown, tcpdump $said, mgdump $recorded"
	[ "$long" -gt 0 ] || bad "GRO kept on, yet no record is longer than a frame"
	# every record longer than a frame is a coalesced one, and each program counted its own
	[ "${said:-0}" -ge "$long" ] || bad "tcpdump said '$said' records of coalesced frames, $long are longer than 1514"
	[ "$shown" -ge "$long" ] || bad "mgcap show counts $shown coalesced, $long are longer than 1514"
	[ "${recorded:-0}" -ge "$long" ] || bad "mgdump's counters say $recorded coalesced: $(cat "$TMP/stats.json")"
	$MGCAP stop vB >/dev/null
	[ "$(gro vB)" = on ] || bad "coalescing keep, after the stop: gro is '$(gro vB)'"
}

# --- both directions: vB here sends as well as receives ---------------------------
# (sender, receiver and ping on one CPU: each frame then reaches every tap
# in one order, that of the one CPU, which both captures must keep; the
# link's IPv6 is off, so that nothing else sends at a time of its own)
on_cpu0() { taskset -c 0 "$@"; }
two_way_pair() {	# two_way_pair [QUEUES]
	wire_pair "$@" || return 1
	sysctl -qw net.ipv6.conf.vB.disable_ipv6=1 &&
		ip netns exec wire sysctl -qw net.ipv6.conf.vA.disable_ipv6=1
}

# two_way_traffic: a ping from here and a TCP stream to here: frames
# received and sent on vB in turn, each direction's depending on the
# other's; and three broadcasts from here, which the stack also loops back
# to itself on vB (a copy never on the wire, which AF_PACKET leaves out)
two_way_traffic() {
	on_cpu0 busybox ping -c 5 -i 0.2 -w 10 192.0.2.1 >"$TMP/ping" 2>&1 ||
		{ bad "ping: $(tail -n 2 "$TMP/ping")"; return 1; }
	on_cpu0 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.bind(("192.0.2.2", 0))
for i in range(3):
    s.sendto(b"broadcast %d" % i, ("192.0.2.255", 9))' || { bad "the broadcasts"; return 1; }
	start_until receiver ready on_cpu0 timeout 300 $TRAFFIC tcp-recv || return 1
	ip netns exec wire taskset -c 0 timeout 300 $TRAFFIC tcp-send 300000 >"$TMP/sender" 2>&1 ||
		{ bad "the sender: $(tail -n 3 "$TMP/sender")"; return 1; }
	wait_end receiver >/dev/null && grep -q "^received 300000\$" "$TMP/receiver" ||
		{ bad "the receiver got: $(cat "$TMP/receiver")"; return 1; }
}

# frames_of NAME: the frames of $TMP/NAME.pcap in hex, one a line, in its order
frames_of() { $TRAFFIC pcap-frames "$TMP/$1.pcap" >"$TMP/$1.hex" && wc -l <"$TMP/$1.hex"; }

# same_frames A B: A's frames are B's, byte for byte, in the same order
same_frames() {
	cmp -s "$TMP/$1.hex" "$TMP/$2.hex" && return 0
	bad "$1 holds $(wc -l <"$TMP/$1.hex") frames, $2 $(wc -l <"$TMP/$2.hex"); the first that differ:" \
		"$(diff "$TMP/$1.hex" "$TMP/$2.hex" | grep '^[<>]' | head -n 2 | cut -c 1-120 | tr '\n' ' ')"
	return 1
}

# What tcpdump -i vB shows, tcpdump -i mgcap:vB shows: the frames vB sent
# among those it received, in their order, byte for byte what AF_PACKET's
# -Q inout holds; -Q in and -Q out each their half, and so does a filter
# that asks the direction (outbound: run by the kernel as AF_PACKET's is).
# Before sent frames were captured, mgcap:vB held the received ones only.
t_both_directions_as_af_packet_shows_them() {
	both_directions 1
}

# The same over four queues each way: the sent frames in the rings of
# their transmit queues, the received in those of their receive queues,
# one stream in the merge's order.
t_both_directions_merged_over_four_queues() {
	both_directions 4
}

both_directions() {	# both_directions QUEUES
	setup 1 && two_way_pair "$1" || return 1
	$MGCAP start vB >/dev/null || return 1
	$MGCAP show vB | grep -q "^  directions: received and sent; 0 records of sent frames$" ||
		bad "mgcap show: $($MGCAP show vB | grep directions)"
	for d in inout in out; do
		start_tcpdump "mgcap_$d" -i mgcap:vB -Q $d -s 262144 -w "$TMP/mgcap_$d.pcap" \
			"ip or arp" || return 1
		start_tcpdump "afpacket_$d" -i vB -Q $d -s 262144 -B 32768 --immediate-mode -U \
			-w "$TMP/afpacket_$d.pcap" "ip or arp" || return 1
	done
	start_tcpdump mgcap_outbound -i mgcap:vB -s 262144 -w "$TMP/mgcap_outbound.pcap" \
		"outbound and (ip or arp)" || return 1
	two_way_traffic || return 1
	wait_drained && wait_for 20000 "AF_PACKET's files to stop growing" files_settled \
		"$TMP/afpacket_inout.pcap" "$TMP/afpacket_in.pcap" "$TMP/afpacket_out.pcap" || return 1
	# (the other readers' filters reject nothing: every frame is IPv4 or ARP)
	rejected=$(filtered_for vB)
	stop_tcpdumps mgcap_inout mgcap_in mgcap_out mgcap_outbound afpacket_inout afpacket_in \
		afpacket_out
	for f in mgcap_inout mgcap_in mgcap_out mgcap_outbound afpacket_inout afpacket_in \
		afpacket_out; do
		grep -q "^0 packets dropped by kernel" "$TMP/$f" ||
			{ bad "$f: $(grep "dropped by kernel" "$TMP/$f")"; return 1; }
		eval "n_$f=\$(frames_of $f)" || return 1
	done
	say "AF_PACKET on vB: $n_afpacket_inout frames, $n_afpacket_in in, $n_afpacket_out out;" \
		"mgcap:vB $n_mgcap_inout, $n_mgcap_in, $n_mgcap_out; outbound $n_mgcap_outbound," \
		"$rejected received ones rejected in the kernel"
	[ "$n_afpacket_in" -gt 200 ] && [ "$n_afpacket_out" -gt 20 ] ||
		bad "the traffic: $n_afpacket_in frames in, $n_afpacket_out out (expected more than 200 and 20)"
	same_frames mgcap_inout afpacket_inout
	same_frames mgcap_in afpacket_in
	same_frames mgcap_out afpacket_out
	same_frames mgcap_outbound afpacket_out
	[ "$rejected" -ge "$n_afpacket_in" ] ||
		bad "the kernel's filter rejected $rejected frames, fewer than the $n_afpacket_in received"
	sent=$($MGCAP -j show vB | python3 -c '
import json, sys
print(sum(q["sent"] for q in json.load(sys.stdin)[0]["queues"]))')
	rings=$($MGCAP -j show vB | python3 -c '
import json, sys
print(sum(q["captured"] > 0 for q in json.load(sys.stdin)[0]["queues"]))')
	say "the frames in $rings of $1 rings"
	[ "$1" = 1 ] || [ "$rings" -ge 2 ] || bad "the frames filled $rings of $1 rings: nothing to merge"
	[ "$sent" -ge "$n_afpacket_out" ] ||
		bad "mgcap show counts $sent records of sent frames, AF_PACKET $n_afpacket_out"
	$MGCAP stop vB >/dev/null
}

# filtered_for DEV: the frames the kernel filters of DEV's readers rejected
filtered_for() {
	$MGCAP -j show "$1" | python3 -c '
import json, sys
print(sum(r["filtered"] for q in json.load(sys.stdin)[0]["queues"] for r in q["readers"]))'
}

# Drop mode consumes what vB receives, never what it sends: a ping's
# requests reach vA, its replies are captured and go no further.  A
# capture started with sent off holds the received frames only.
t_sent_frames_go_on_in_drop_mode_and_stay_out_on_request() {
	setup 1 && two_way_pair || return 1
	# (drop mode would consume the ARP request and reply too)
	ip neigh replace 192.0.2.1 lladdr "$(ip netns exec wire cat /sys/class/net/vA/address)" \
		dev vB nud permanent &&
		ip -n wire neigh replace 192.0.2.2 lladdr "$(cat /sys/class/net/vB/address)" \
			dev vA nud permanent || return 1
	$MGCAP start vB mode drop >/dev/null || return 1
	start_tcpdump mgcap -i mgcap:vB -s 262144 -w "$TMP/mgcap.pcap" icmp || return 1
	start_until peer "listening on" ip netns exec wire timeout 120 tcpdump -Z root -i vA \
		-Q in --immediate-mode -U -w "$TMP/peer.pcap" icmp || return 1
	on_cpu0 busybox ping -c 5 -i 0.2 -w 3 192.0.2.1 >"$TMP/ping" 2>&1 &&
		bad "drop mode: ping got its replies: $(tail -n 2 "$TMP/ping")"
	wait_drained && wait_for 20000 "the peer's file to stop growing" files_settled \
		"$TMP/peer.pcap" || return 1
	stop_tcpdumps mgcap peer
	tcpdump -r "$TMP/mgcap.pcap" -n 2>/dev/null >"$TMP/mgcap.txt"
	requests=$(grep -c "ICMP echo request" "$TMP/mgcap.txt")
	replies=$(grep -c "ICMP echo reply" "$TMP/mgcap.txt")
	arrived=$(tcpdump -r "$TMP/peer.pcap" -n 2>/dev/null | grep -c "ICMP echo request")
	say "drop mode: mgcap:vB holds $requests requests and $replies replies; vA received" \
		"$arrived requests"
	[ "$requests" = 5 ] && [ "$replies" = 5 ] ||
		bad "mgcap:vB holds $requests requests and $replies replies of 5 each"
	[ "$arrived" = 5 ] || bad "drop mode: vA received $arrived of the 5 requests"
	$MGCAP stop vB >/dev/null || return 1

	$MGCAP start vB sent off >/dev/null || return 1
	$MGCAP show vB | grep -q "^  directions: received frames only (sent off)$" ||
		bad "sent off: mgcap show: $($MGCAP show vB | grep directions)"
	start_tcpdump off -i mgcap:vB -s 262144 -w "$TMP/off.pcap" icmp || return 1
	on_cpu0 busybox ping -c 3 -i 0.2 -w 10 192.0.2.1 >"$TMP/ping" 2>&1 ||
		{ bad "ping: $(tail -n 2 "$TMP/ping")"; return 1; }
	wait_drained || return 1
	stop_tcpdumps off
	tcpdump -r "$TMP/off.pcap" -n 2>/dev/null >"$TMP/off.txt"
	requests=$(grep -c "ICMP echo request" "$TMP/off.txt")
	replies=$(grep -c "ICMP echo reply" "$TMP/off.txt")
	[ "$requests" = 0 ] && [ "$replies" = 3 ] ||
		bad "sent off: mgcap:vB holds $requests requests and $replies replies (0 and 3)"
	$MGCAP stop vB >/dev/null
}

# taps_are DEV N WHEN: mgcap's taps of DEV in /proc/net/ptype (whatever its
# function's name) come to N within 5 s (a closing reader's close may end
# after its process)
taps_are() {
	n=-1 tries=0
	while [ $tries -lt 50 ]; do
		n=$(awk -v d="$1" '$1 == "ALL" && $2 == d && $4 == "[mgcap]"' /proc/net/ptype | wc -l)
		[ "$n" = "$2" ] && return 0
		tries=$((tries + 1))
		sleep 0.1
	done
	bad "$3: $n of mgcap's taps on $1 in /proc/net/ptype, not $2"
}

# icmp_in FILE: "REQUESTS REPLIES", the ICMP echoes a capture file holds
icmp_in() {
	tcpdump -r "$1" -n 2>/dev/null | awk '/ICMP echo request/ { q++ }
		/ICMP echo reply/ { r++ } END { print q + 0, r + 0 }'
}

# The tap of sent frames costs every frame the device receives and sends
# (the stack calls it for each, and clones each sent one for it): it is in
# place only while a reader takes sent frames (tcpdump's default, -Q
# inout, or -Q out), once for all of them, and goes with the last of them
# or with the capture.  On the code before, it was there from the start
# to the stop, readers or not.
t_sent_tap_in_place_only_while_a_reader_takes_sent_frames() {
	setup 1 && two_way_pair || return 1
	$MGCAP start vB >/dev/null || return 1
	taps_are vB 0 "a capture without readers" || return 1
	start_tcpdump in -i mgcap:vB -Q in -s 262144 -w "$TMP/in.pcap" icmp || return 1
	taps_are vB 0 "a reader of received frames only" || return 1
	start_tcpdump inout -i mgcap:vB -s 262144 -w "$TMP/inout.pcap" icmp &&
		start_tcpdump out -i mgcap:vB -Q out -s 262144 -w "$TMP/out.pcap" icmp || return 1
	taps_are vB 1 "two readers of sent frames" || return 1
	on_cpu0 busybox ping -c 3 -i 0.2 -w 10 192.0.2.1 >"$TMP/ping" 2>&1 ||
		{ bad "ping: $(tail -n 2 "$TMP/ping")"; return 1; }
	wait_drained || return 1
	stop_tcpdumps inout
	taps_are vB 1 "one reader of sent frames left" || return 1
	stop_tcpdumps out
	taps_are vB 0 "the last reader of sent frames gone" || return 1
	on_cpu0 busybox ping -c 3 -i 0.2 -w 10 192.0.2.1 >"$TMP/ping" 2>&1 ||
		{ bad "ping: $(tail -n 2 "$TMP/ping")"; return 1; }
	wait_drained || return 1
	stop_tcpdumps in
	say "requests and replies: -Q inout $(icmp_in "$TMP/inout.pcap"), -Q out" \
		"$(icmp_in "$TMP/out.pcap"), -Q in (both pings) $(icmp_in "$TMP/in.pcap")"
	[ "$(icmp_in "$TMP/inout.pcap")" = "3 3" ] && [ "$(icmp_in "$TMP/out.pcap")" = "3 0" ] &&
		[ "$(icmp_in "$TMP/in.pcap")" = "0 6" ] || bad "the echoes above: 3 3, 3 0 and 0 6"

	# the capture stops under a reader of sent frames: the tap goes with it
	start_tcpdump last -i mgcap:vB -Q out -s 262144 -w "$TMP/last.pcap" icmp || return 1
	taps_are vB 1 "a reader of sent frames again" || return 1
	$MGCAP stop vB >/dev/null || return 1
	taps_are vB 0 "the capture stopped under a reader of sent frames"
	# (the reader learns of the stop, and ends; its close brings no tap back)
	wait_end last >/dev/null
	taps_are vB 0 "the last reader closed after the stop"
	! dmesg | grep "dev_remove_pack" || bad "the kernel removed a tap it did not have"
}

# Argus as users run it on a host, nothing preloaded (as with the
# system-wide libpcap), one on vB:mgcap and one on vB itself (AF_PACKET)
# at once: both report the same flows, each with its packets and bytes in
# both directions.
t_argus_two_way_flows_as_on_af_packet() {
	setup 1 && two_way_pair || return 1
	$MGCAP start vB >/dev/null || return 1
	for src in vB:mgcap vB; do
		(cd "$TMP" && MGCAP_ARGUS_IFFLAGS=0 timeout 120 $RUN argus -X -i $src \
			-w "$TMP/$src.argus" >"$TMP/argus-$src" 2>&1) &
		wait_text "$TMP/argus-$src" "interface $src is up" || return 1
	done
	two_way_traffic || return 1
	wait_drained || return 1
	sleep 1	# (AF_PACKET's reader: what its block still holds)
	pkill -TERM -x argus
	wait
	for src in vB:mgcap vB; do
		racluster -n -r "$TMP/$src.argus" -s spkts dpkts sbytes dbytes proto saddr sport \
			daddr dport 2>&1 | sort >"$TMP/flows-$src" || return 1
	done
	say "argus on vB:mgcap, racluster (spkts dpkts sbytes dbytes proto saddr sport daddr dport):" \
		"$(tr -s ' \n' ' ;' <"$TMP/flows-vB:mgcap")"
	tcp=$(awk '$5 == "tcp" {print $1 + $2}' "$TMP/flows-vB:mgcap")
	[ "${tcp:-0}" -gt 200 ] && awk '$5 == "icmp" && $1 == 5 && $2 == 5 {f = 1} END {exit !f}' \
		"$TMP/flows-vB:mgcap" ||
		bad "argus on vB:mgcap: no TCP stream of 200 packets or more, or no ping of 5 and 5"
	cmp -s "$TMP/flows-vB:mgcap" "$TMP/flows-vB" ||
		bad "argus on vB:mgcap and on vB differ: $(diff "$TMP/flows-vB:mgcap" "$TMP/flows-vB" |
			grep '^[<>]' | head -n 4 | tr '\n' ' ')"
}

# mgdump on a host's device: each packet's block says its direction
# (epb_flags), as many each way as AF_PACKET's -Q in and -Q out hold, and
# its counters count the sent ones apart.
t_mgdump_records_each_packets_direction() {
	setup 1 && two_way_pair || return 1
	$MGCAP start vB >/dev/null || return 1
	for d in in out; do
		start_tcpdump "afpacket_$d" -i vB -Q $d -s 262144 -B 32768 --immediate-mode -U \
			-w "$TMP/afpacket_$d.pcap" "ip or arp" || return 1
	done
	timeout 120 $MGDUMP -i vB -s 0 -w "$TMP/out.pcapng" --stats "$TMP/stats.json" "ip or arp" \
		>"$TMP/mgdump" 2>&1 &
	mgdump=$!
	wait_readers vB 1 || return 1
	two_way_traffic || return 1
	wait_drained && wait_for 20000 "AF_PACKET's files to stop growing" files_settled \
		"$TMP/afpacket_in.pcap" "$TMP/afpacket_out.pcap" || return 1
	stop_tcpdumps afpacket_in afpacket_out
	kill -INT $mgdump && wait $mgdump || { bad "mgdump: $(cat "$TMP/mgdump")"; return 1; }
	for d in in out; do eval "n_$d=\$(frames_of afpacket_$d)"; done
	# tshark's direction: 0x00000001 inbound, 0x00000002 outbound, nothing
	# where a block has no flags
	tshark -r "$TMP/out.pcapng" -T fields -e frame.packet_flags_direction >"$TMP/dirs" \
		2>"$TMP/tshark" || { bad "tshark: $(tail -n 2 "$TMP/tshark")"; return 1; }
	inbound=$(grep -cx 0x00000001 "$TMP/dirs")
	outbound=$(grep -cx 0x00000002 "$TMP/dirs")
	sent=$(python3 -c 'import json, sys
print(sum(i["sent"] for i in json.load(open(sys.argv[1]))["interfaces"]))' "$TMP/stats.json")
	say "mgdump: $(wc -l <"$TMP/dirs") blocks, $inbound inbound, $outbound outbound, counted" \
		"$sent sent; AF_PACKET -Q in $n_in, -Q out $n_out"
	[ "$inbound" = "$n_in" ] && [ "$outbound" = "$n_out" ] &&
		[ "$(wc -l <"$TMP/dirs")" = $((n_in + n_out)) ] ||
		bad "mgdump's blocks: $inbound inbound and $outbound outbound of $(wc -l <"$TMP/dirs")"
	[ "$sent" = "$n_out" ] || bad "mgdump counted $sent sent, AF_PACKET holds $n_out"
}

run_suite "$@"
