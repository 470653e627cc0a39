#!/bin/sh
# Real NIC drivers: QEMU's emulated NICs, a pair of each model on a QEMU hub
# of its own (run-vm.sh, MGCAP_VM_NICS), driven by their Linux drivers with
# the drivers' defaults (GRO on).  One end sends from a namespace of its
# own, the other is captured.  The first tests run on every pair the VM
# has; those of RSS, queue counts and stamps on the igb (82576) pair, which
# QEMU 8 and later has (install-deps.sh unpacks 10.0 for the VM tests).
#   sh tests/vm/tests-drivers.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_real_drivers_capture_every_frame_as_sent
	t_real_drivers_drop_mode_keeps_frames_from_the_stack
	t_real_drivers_link_mtu_and_rebind_under_a_capture
	t_real_drivers_vlan_tags_the_nic_took_out_are_put_back
	t_igb_rss_each_queue_ring_holds_its_queue
	t_igb_queue_count_changed_under_traffic
	t_igb_stamps_ptp_frames_only_and_mgcap_says_so
"
USER_SPACE_TESTS=""
. "$(dirname "$0")/lib.sh"

# nic_of DRIVER END: the interface of DRIVER's pair whose MAC ends in :0END
# (1: the receiver, 2: the sender)
nic_of() {
	for n_d in /sys/class/net/*; do
		[ "$(basename "$(readlink "$n_d/device/driver" 2>/dev/null)")" = "$1" ] || continue
		case $(cat "$n_d/address") in 52:54:00:12:0?:0$2) echo "${n_d##*/}"; return 0 ;; esac
	done
	return 1
}

# has_nic DRIVER END: DRIVER's pair has that end, named as udev left it
# (a device bound again is eth0 until udev renames it)
has_nic() {
	nic_of "$1" "$2" >/dev/null && udevadm settle -t 30 2>/dev/null
}

# the drivers of run-vm.sh's default pairs: e1000e and virtio_net on every
# QEMU, igb where it has one
DRIVERS="e1000e virtio_net$(nic_of igb 1 >/dev/null && echo " igb")"

# driver_pair DRIVER: $rx (192.0.2.2, here, the driver's defaults) and $tx
# (192.0.2.1, in namespace snd, its segmentation and checksum offloads off), both with
# their links up.  Fails where the VM has no such pair.
driver_pair() {
	rx=$(nic_of "$1" 1) && tx=$(nic_of "$1" 2) ||
		{ bad "no $1 pair in this VM (run-vm.sh, MGCAP_VM_NICS)"; return 1; }
	ip netns add snd && ip link set "$tx" netns snd ||
		{ bad "$1: $tx into namespace snd"; return 1; }
	# (no IPv6 of its own: only the tests' frames on the wire)
	ip netns exec snd sysctl -qw "net.ipv6.conf.$tx.disable_ipv6=1"
	# (and its checksums computed: the hub has no virtio header to carry
	# a partial one to the receiver, which would drop the TCP stream)
	ip netns exec snd ethtool -K "$tx" tso off gso off tx off >/dev/null 2>&1
	ip netns exec snd ethtool -k "$tx" | grep -q "^generic-segmentation-offload: off" ||
		{ bad "$tx: segmentation offloads stay on"; return 1; }
	ip -n snd addr add 192.0.2.1/24 dev "$tx" && ip -n snd link set "$tx" up &&
		ip addr flush dev "$rx" && ip addr add 192.0.2.2/24 dev "$rx" &&
		ip link set "$rx" up || { bad "$1: addresses and links"; return 1; }
	wait_for 20000 "$1's links up" links_up || return 1
	# no ARP in the captures: each end knows the other
	ip -n snd neigh replace 192.0.2.2 lladdr "$(cat "/sys/class/net/$rx/address")" dev "$tx" &&
		ip neigh replace 192.0.2.1 lladdr "$(ip netns exec snd cat "/sys/class/net/$tx/address")" \
			dev "$rx"
}
links_up() {
	[ "$(cat "/sys/class/net/$rx/carrier" 2>/dev/null)" = 1 ] &&
		[ "$(ip netns exec snd cat "/sys/class/net/$tx/carrier" 2>/dev/null)" = 1 ]
}

# each_driver TEST [DRIVER...]: TEST DRIVER for each driver (default every
# one), each with a pair of its own (the namespace goes between them, and
# the sender with it)
each_driver() {
	e_status=0
	e_test=$1
	shift
	for e_driver in ${*:-$DRIVERS}; do
		say "--- $e_driver"
		rx=
		driver_pair "$e_driver" && "$e_test" "$e_driver" || e_status=1
		# 192.0.2.2 on one receiver only: the next pair's replies go out of its own
		[ -n "$rx" ] && ip addr flush dev "$rx" 2>/dev/null
		# (the namespace's end gives the sender back, in a work of its own)
		ip netns del snd 2>/dev/null
		wait_for 30000 "the sender back from its namespace" has_nic "$e_driver" 2
	done
	return $e_status
}

# TCP bulk and UDP IMIX, the driver's GRO on before the capture: the
# capture holds every frame as the sender put it on the wire, as AF_PACKET
# beside it does; the driver's GRO back on after the stop.
t_real_drivers_capture_every_frame_as_sent() {
	setup 1 && each_driver every_frame_as_sent
}
every_frame_as_sent() {
	[ "$(gro "$rx")" = on ] || bad "$1: the driver's GRO is '$(gro "$rx")' by default"
	$MGCAP start "$rx" >/dev/null || { bad "$1: mgcap start $rx"; return 1; }
	[ "$(gro "$rx")" = off ] || bad "$rx captured: gro is '$(gro "$rx")'"
	as_sent snd "$tx" "$rx" tcp_stream snd 1000000 || return 1
	as_sent snd "$tx" "$rx" udp_imix snd 1200 || return 1
	$TRAFFIC imix-lengths 1200 | sort -n | cmp -s - "$TMP/mgcap.len" ||
		bad "mgcap:$rx does not hold the 1200 IMIX frames sent"
	$MGCAP stop "$rx" >/dev/null || return 1
	[ "$(gro "$rx")" = on ] || bad "$rx after the stop: gro is '$(gro "$rx")'"
}

# Drop mode on a real driver: the driver counts every frame, the capture
# holds every one, the stack gets none.
t_real_drivers_drop_mode_keeps_frames_from_the_stack() {
	setup 1 && each_driver drop_mode
}
drop_mode() {
	$MGCAP start "$rx" mode drop >/dev/null || return 1
	start_tcpdump mgcap -i "mgcap:$rx" -w "$TMP/mgcap.pcap" "udp and src host 192.0.2.1" ||
		return 1
	d_driver=$(cat "/sys/class/net/$rx/statistics/rx_packets")
	d_stack=$(ip_received)
	udp_imix snd 1200 || return 1
	wait_drained || return 1
	stop_tcpdumps mgcap
	d_driver=$(($(cat "/sys/class/net/$rx/statistics/rx_packets") - d_driver))
	d_stack=$(($(ip_received) - d_stack))
	d_held=$($TRAFFIC pcap-lengths "$TMP/mgcap.pcap" | wc -l)
	say "$1: the driver received $d_driver frames, mgcap holds $d_held, the stack got $d_stack"
	[ "$d_driver" -ge 1200 ] || bad "$1: the driver counted $d_driver frames of 1200"
	[ "$d_held" = 1200 ] || bad "$1: mgcap holds $d_held of 1200"
	[ "$d_stack" = 0 ] || bad "$1: the stack received $d_stack IP packets in drop mode"
	$MGCAP stop "$rx" >/dev/null
}

# Under a capture, with a reader: the link down and up and the MTU changed
# (the capture goes on: frames sent after each are captured), then the
# driver unbound (the capture ends, its reader says so) and bound again,
# and its module unloaded and loaded: no splat (run-vm.sh), no capture
# left of a device that is gone.
t_real_drivers_link_mtu_and_rebind_under_a_capture() {
	setup 1 && each_driver rebind_under_a_capture
}
rebind_under_a_capture() {
	$MGCAP start "$rx" >/dev/null || return 1
	start_tcpdump mgcap -i "mgcap:$rx" -w "$TMP/mgcap.pcap" "udp and src host 192.0.2.1" ||
		return 1
	ip link set "$rx" down && ip link set "$rx" up && wait_for 20000 "$rx up again" links_up ||
		return 1
	ip link set "$rx" mtu 1400 && ip link set "$rx" mtu 1500 || return 1
	wait_for 20000 "$rx up after the MTU changes" links_up || return 1
	udp_imix snd 240 || return 1
	wait_drained || return 1
	r_held=$(captured "$rx")
	[ "$r_held" -ge 240 ] || bad "$1: after link down, up and two MTUs, $r_held frames captured of 240"
	# (virtio_net's device is a virtio one, under the PCI device virtio-pci drives)
	r_dev=$(basename "$(readlink "/sys/class/net/$rx/device")")
	r_drv=$(readlink -f "/sys/class/net/$rx/device/driver")
	echo "$r_dev" >"$r_drv/unbind" || return 1
	wait_for 30000 "tcpdump to end with the device" test ! -d "/proc/$pid_mgcap" ||
		bad "$1: tcpdump still reads a device that is gone"
	wait_end mgcap >/dev/null
	say "$1 unbound: tcpdump said: $(grep -v "^tcpdump: listening on" "$TMP/mgcap" | head -n 1)"
	! $MGCAP show | grep -q "^$rx:" || bad "$1: a capture of $rx outlived it"
	echo "$r_dev" >"$r_drv/bind" || { bad "$1: $r_dev bound again to $r_drv"; return 1; }
	# (a debug kernel's bind and udev's rename took more than 10 s)
	wait_for 60000 "$rx back" has_nic "$1" 1 || return 1
	rx=$(nic_of "$1" 1)
	# (a driver built in, as the debug kernel's virtio_net, stays)
	if [ ! -e "/sys/module/$1/initstate" ]; then
		say "$1 is built into this kernel: not unloaded"
		return 0
	fi
	$MGCAP start "$rx" >/dev/null || { bad "$1: mgcap start $rx after the bind"; return 1; }
	modprobe -r "$1" || { bad "$1: modprobe -r"; return 1; }
	! $MGCAP show | grep -q "^$rx:" || bad "$1 unloaded: $($MGCAP show)"
	modprobe "$1" && wait_for 60000 "$1 loaded again" has_nic "$1" 1
}

# A VLAN's frames, its tag taken out by the NIC (e1000e and igb strip tags
# by default; virtio_net does not) and kept beside the frame: the capture
# holds each frame with its tag where it was on the wire, byte for byte
# what AF_PACKET holds.
t_real_drivers_vlan_tags_the_nic_took_out_are_put_back() {
	setup 1 && each_driver vlan_tags
}
vlan_tags() {
	v_strips=$(ethtool -k "$rx" | sed -n 's/^rx-vlan-offload: \([a-z]*\).*/\1/p')
	case $1 in e1000e | igb) [ "$v_strips" = on ] || bad "$1 does not strip tags: $v_strips" ;; esac
	ip -n snd link add link "$tx" name v100 type vlan id 100 &&
		ip netns exec snd sysctl -qw net.ipv6.conf.v100.disable_ipv6=1 &&
		ip -n snd addr add 198.51.100.1/24 dev v100 && ip -n snd link set v100 up &&
		ip -n snd neigh replace 198.51.100.2 lladdr "$(cat "/sys/class/net/$rx/address")" \
			dev v100 || return 1
	$MGCAP start "$rx" >/dev/null || return 1
	start_tcpdump mgcap -i "mgcap:$rx" -w "$TMP/mgcap.pcap" vlan || return 1
	start_until afpacket "listening on" timeout 120 tcpdump -Z root -i "$rx" -B 32768 \
		--immediate-mode -U -w "$TMP/afpacket.pcap" vlan || return 1
	ip netns exec snd python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(50):
    s.sendto(i.to_bytes(4, 'big') + b'v' * (i * 20), ('198.51.100.2', 5003))" || return 1
	wait_drained && wait_for 20000 "AF_PACKET's file to stop growing" \
		files_settled "$TMP/afpacket.pcap" || return 1
	stop_tcpdumps mgcap afpacket
	for v_f in mgcap afpacket; do
		$TRAFFIC pcap-frames "$TMP/$v_f.pcap" | sort >"$TMP/$v_f.hex" || return 1
	done
	# 802.1Q, VLAN 100: bytes 12 to 15 of each frame
	v_tagged=$(cut -c 25-32 "$TMP/mgcap.hex" | grep -c "^81000064$")
	say "$1 (rx-vlan-offload $v_strips): mgcap holds $(wc -l <"$TMP/mgcap.hex") frames," \
		"$v_tagged of them tagged VLAN 100; AF_PACKET $(wc -l <"$TMP/afpacket.hex")"
	[ "$v_tagged" = 50 ] || bad "$1: $v_tagged frames of 50 tagged VLAN 100 in mgcap:$rx"
	cmp -s "$TMP/mgcap.hex" "$TMP/afpacket.hex" ||
		bad "$1: mgcap:$rx and AF_PACKET differ: $(diff "$TMP/mgcap.hex" "$TMP/afpacket.hex" | head -n 3 | cut -c 1-80)"
	$MGCAP stop "$rx" >/dev/null
}

# queue_packets DEV: each receive queue's packets as the driver counts them,
# "N COUNT" a line
queue_packets() {
	ethtool -S "$1" | sed -n 's/^ *rx_queue_\([0-9]*\)_packets: \([0-9]*\)$/\1 \2/p'
}
# queue_captured DEV: each queue ring's captured records, "N COUNT" a line
queue_captured() {
	$MGCAP show "$1" | awk '$NF ~ "^/dev/mgcap/" {print $1, $2}'
}
# igb_queues N: $rx with N queues, its link up again (each test sets what it
# needs: the NIC keeps what the last one set)
igb_queues() {
	ethtool -L "$rx" combined "$1" || { bad "ethtool -L $rx combined $1"; return 1; }
	wait_for 20000 "$rx up after ethtool -L combined $1" links_up
}
# no_igb: skips the test where the VM has no igb pair (QEMU before 8)
no_igb() {
	nic_of igb 1 >/dev/null && return 1
	skip "no igb pair in this VM: QEMU 8 or later has one (scripts/install-deps.sh unpacks 10.0)"
}

# RSS: 64 UDP flows hashed by the NIC over 4 queues (ports too: ethtool
# -N), each queue ring holds exactly the frames the driver counts on its
# queue, every queue some, and the merged capture every datagram sent.
t_igb_rss_each_queue_ring_holds_its_queue() {
	no_igb && return 0
	setup 1 && each_driver rss_queues igb
}
rss_queues() {
	ethtool -N "$rx" rx-flow-hash udp4 sdfn || { bad "$1: UDP hashed by ports (ethtool -N)"; return 1; }
	igb_queues 4 || return 1
	$MGCAP start "$rx" >/dev/null || return 1
	queue_packets "$rx" >"$TMP/before"
	start_tcpdump mgcap -i "mgcap:$rx" -w "$TMP/mgcap.pcap" "udp port 5002" || return 1
	ip netns exec snd timeout 300 $TRAFFIC udp-flows 1600 64 || return 1
	wait_for 30000 "1600 frames captured" at_least 1600 captured "$rx" && wait_drained || return 1
	stop_tcpdumps mgcap
	queue_packets "$rx" | paste -d ' ' "$TMP/before" - | awk '{print $1, $4 - $2}' >"$TMP/driver"
	queue_captured "$rx" >"$TMP/rings"
	say "$1: per queue, the driver counted $(tr '\n' ' ' <"$TMP/driver")and the rings hold $(tr '\n' ' ' <"$TMP/rings")"
	[ "$(wc -l <"$TMP/rings")" = 4 ] || bad "$1: $(wc -l <"$TMP/rings") queue rings, not 4"
	cmp -s "$TMP/driver" "$TMP/rings" || bad "$1: the queue rings do not hold what the driver's queues received"
	awk '$2 == 0 {exit 1}' "$TMP/rings" || bad "$1: RSS left a queue without frames"
	r_ids=$($TRAFFIC pcap-udp-ids "$TMP/mgcap.pcap" | sort -un | wc -l)
	[ "$r_ids" = 1600 ] || bad "$1: mgcap:$rx holds $r_ids datagrams of 1600"
	$MGCAP stop "$rx" >/dev/null
}

# The queue count changed under a capture with traffic going (4 queues, 1,
# then 2 again; each change resets the NIC, which loses what it held): the
# capture goes on, a queue the capture started without shares a ring
# (README.mgcap), and mgcap:DEV holds every datagram AF_PACKET holds;
# after the changes, every one sent.
t_igb_queue_count_changed_under_traffic() {
	no_igb && return 0
	setup 1 && each_driver queue_count_changed igb
}
queue_count_changed() {
	igb_queues 2 || return 1
	$MGCAP start "$rx" >/dev/null || return 1
	start_tcpdump mgcap -i "mgcap:$rx" -w "$TMP/mgcap.pcap" "udp port 5002" || return 1
	start_until afpacket "listening on" timeout 300 tcpdump -Z root -i "$rx" -B 32768 \
		--immediate-mode -U -w "$TMP/afpacket.pcap" "udp port 5002" || return 1
	# (sends until stopped)
	ip netns exec snd timeout 600 $TRAFFIC udp-flows 100000000 64 >"$TMP/sender" 2>&1 &
	q_sender=$!
	for q_n in 4 1 2; do
		wait_for_counter 20000 "frames captured before ethtool -L combined $q_n" 100 \
			captured "$rx" && igb_queues "$q_n" || break
	done
	wait_for_counter 20000 "frames captured after the changes" 100 captured "$rx"
	kill "$q_sender"
	wait "$q_sender"
	q_before=$(captured "$rx")
	ip netns exec snd timeout 300 $TRAFFIC udp-flows 400 64 1000000000 || return 1
	wait_for 30000 "the 400 frames captured" at_least $((q_before + 400)) captured "$rx" &&
		wait_drained && wait_for 20000 "AF_PACKET's file to stop growing" \
		files_settled "$TMP/afpacket.pcap" || return 1
	stop_tcpdumps mgcap afpacket
	grep -q "^0 packets dropped by kernel" "$TMP/mgcap" ||
		bad "mgcap:$rx: $(grep "dropped by kernel" "$TMP/mgcap")"
	for q_f in mgcap afpacket; do
		$TRAFFIC pcap-udp-ids "$TMP/$q_f.pcap" | sort >"$TMP/$q_f.ids" || return 1
	done
	q_after=$(grep -c "^1[0-9]\{9\}$" "$TMP/mgcap.ids")
	say "$1: across the changes and 400 after them: mgcap:$rx holds $(wc -l <"$TMP/mgcap.ids")" \
		"datagrams, 400 after $q_after; AF_PACKET $(wc -l <"$TMP/afpacket.ids"), $(grep "dropped by kernel" "$TMP/afpacket")"
	[ "$q_after" = 400 ] || bad "$1: of the 400 sent after the changes, mgcap holds $q_after"
	q_afpacket=$(grep -c "^1[0-9]\{9\}$" "$TMP/afpacket.ids")
	[ "$q_afpacket" = 400 ] || bad "$1: of the 400 sent after the changes, AF_PACKET holds $q_afpacket"
	# (what AF_PACKET holds, mgcap holds; if AF_PACKET lost none, no more)
	[ -z "$(comm -13 "$TMP/mgcap.ids" "$TMP/afpacket.ids")" ] ||
		bad "$1: AF_PACKET holds $(comm -13 "$TMP/mgcap.ids" "$TMP/afpacket.ids" | wc -l) datagrams mgcap:$rx does not"
	! grep -q "^0 packets dropped by kernel" "$TMP/afpacket" ||
		cmp -s "$TMP/mgcap.ids" "$TMP/afpacket.ids" ||
		bad "$1: mgcap:$rx holds $(comm -23 "$TMP/mgcap.ids" "$TMP/afpacket.ids" | wc -l) datagrams AF_PACKET, dropping none, does not"
	[ "$($MGCAP show "$rx" | grep -c '/dev/mgcap/')" = 2 ] || bad "$1: $($MGCAP show "$rx")"
	$MGCAP stop "$rx" >/dev/null
}

# The 82576 stamps PTP event frames only, never every frame (its driver
# offers no HWTSTAMP_FILTER_ALL): `mgcap hwtstamp on` says so and changes
# nothing; libpcap lists for mgcap:DEV the time stamp types it lists for
# DEV (host only), and -j adapter_unsynced gets AF_PACKET's warning and
# host stamps; the capture's clock line reads the driver's PHC, which
# runs in QEMU 10 as the system clock does.
t_igb_stamps_ptp_frames_only_and_mgcap_says_so() {
	no_igb && return 0
	setup 1 && each_driver stamps_refused igb
}
stamps_refused() {
	$MGCAP hwtstamp "$rx" on >"$TMP/on" 2>&1 && bad "$1: mgcap hwtstamp on succeeded: $(cat "$TMP/on")"
	say "$1: mgcap hwtstamp on: $(cat "$TMP/on")"
	grep -q "^mgcap: $rx: the NIC stamps only some received frames, not every one (its receive filters: .*ptpv2-event)$" \
		"$TMP/on" || bad "$1: mgcap hwtstamp on said: $(cat "$TMP/on")"
	$MGCAP hwtstamp "$rx" show | grep -q "current receive filter: none$" ||
		bad "$1: the receive filter changed: $($MGCAP hwtstamp "$rx" show)"
	# (tcpdump prints the list on stderr)
	$RUN tcpdump -J -i "mgcap:$rx" 2>&1 | sed 1d >"$TMP/j-mgcap"
	tcpdump -J -i "$rx" 2>&1 | sed 1d >"$TMP/j-afpacket"
	grep -q "^  host (" "$TMP/j-afpacket" || bad "$1: tcpdump -J -i $rx: $(cat "$TMP/j-afpacket")"
	cmp -s "$TMP/j-mgcap" "$TMP/j-afpacket" ||
		bad "$1: mgcap:$rx lists $(tr -s '\n ' ' ' <"$TMP/j-mgcap"), AF_PACKET $(tr -s '\n ' ' ' <"$TMP/j-afpacket")"
	$MGCAP start "$rx" >/dev/null || return 1
	start_tcpdump mgcap -i "mgcap:$rx" -j adapter_unsynced -w "$TMP/mgcap.pcap" "udp port 5002" ||
		return 1
	ip netns exec snd timeout 300 $TRAFFIC udp-flows 20 4 || return 1
	wait_for 30000 "20 frames captured" at_least 20 captured "$rx" && wait_drained || return 1
	stop_tcpdumps mgcap
	grep -q "WARNING: When trying to set timestamp type 'adapter_unsynced' on mgcap:$rx: That type of time stamp is not supported by that device" \
		"$TMP/mgcap" || bad "$1: tcpdump -j adapter_unsynced said: $(head -n 2 "$TMP/mgcap")"
	[ "$($TRAFFIC pcap-udp-ids "$TMP/mgcap.pcap" | wc -l)" = 20 ] ||
		bad "$1: with host stamps, $($TRAFFIC pcap-udp-ids "$TMP/mgcap.pcap" | wc -l) datagrams of 20"
	s_phc=$(ethtool -T "$rx" | sed -n 's/^PTP Hardware Clock: //p')
	$MGCAP show "$rx" >"$TMP/show"
	say "$1: $(grep "clock:" "$TMP/show")"
	# The driver sets its clock to system time when it resets the NIC, and
	# QEMU 10's clock runs at the host's rate: within 1 s and 100 ppm of
	# system time (QEMU 10's e1000e clock runs 2.5 times too fast).
	grep -q "^  clock: /dev/ptp$s_phc, " "$TMP/show" ||
		bad "$1: not the driver's PHC /dev/ptp$s_phc: $(cat "$TMP/show")"
	awk '$1 == "clock:" { off = $3 < 0 ? -$3 : $3; ppm = $8 < 0 ? -$8 : $8
		found = $4 == "s" && $9 == "ppm" && off < 1 && ppm < 100 } END { exit !found }' \
		"$TMP/show" || bad "$1: the clock is not near system time: $(grep "clock:" "$TMP/show")"
	$MGCAP stop "$rx" >/dev/null
}

run_suite "$@"
