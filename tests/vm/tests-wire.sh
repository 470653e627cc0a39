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
"
USER_SPACE_TESTS=""
. "$(dirname "$0")/lib.sh"

# wire_pair: vA (192.0.2.1) in namespace wire, vB (192.0.2.2) here with GRO on
wire_pair() {
	# (a namespace's end takes its veth pair away in a work of its own)
	wait_for 30000 "the last test's vB gone" test ! -e /sys/class/net/vB || return 1
	ip netns add wire && ip link add vA type veth peer name vB &&
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

run_suite "$@"
