#!/bin/sh
# Real NIC drivers: QEMU's emulated NICs, a pair of each model on a QEMU hub
# of its own (run-vm.sh, MGCAP_VM_NICS), driven by their Linux drivers with
# the drivers' defaults (GRO on).  One end sends from a namespace of its
# own, the other is captured.  Each test runs on every pair the VM has.
#   sh tests/vm/tests-drivers.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_real_drivers_capture_every_frame_as_sent
	t_real_drivers_drop_mode_keeps_frames_from_the_stack
	t_real_drivers_link_mtu_and_rebind_under_a_capture
"
USER_SPACE_TESTS=""
. "$(dirname "$0")/lib.sh"

# the drivers of run-vm.sh's default pairs
DRIVERS="e1000e virtio_net"

# nic_of DRIVER END: the interface of DRIVER's pair whose MAC ends in :0END
# (1: the receiver, 2: the sender)
nic_of() {
	for n_d in /sys/class/net/*; do
		[ "$(basename "$(readlink "$n_d/device/driver" 2>/dev/null)")" = "$1" ] || continue
		case $(cat "$n_d/address") in 52:54:00:12:0?:0$2) echo "${n_d##*/}"; return 0 ;; esac
	done
	return 1
}

# driver_pair DRIVER: $rx (192.0.2.2, here, the driver's defaults) and $tx
# (192.0.2.1, in namespace snd, its segmentation and checksum offloads off), both with
# their links up.  Fails where the VM has no such pair.
driver_pair() {
	rx=$(nic_of "$1" 1) && tx=$(nic_of "$1" 2) ||
		{ bad "no $1 pair in this VM (run-vm.sh, MGCAP_VM_NICS)"; return 1; }
	ip netns add snd && ip link set "$tx" netns snd ||
		{ bad "$1: $tx into namespace snd"; return 1; }
	# (and its checksums computed: the hub has no virtio header to carry
	# a partial one to the receiver, which would drop the TCP stream)
	ip netns exec snd ethtool -K "$tx" tso off gso off tx off 2>/dev/null
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

# each_driver TEST: TEST DRIVER for each driver, each with a pair of its own
# (the namespace goes between them, and the sender with it)
each_driver() {
	e_status=0
	for e_driver in $DRIVERS; do
		say "--- $e_driver"
		rx=
		driver_pair "$e_driver" && "$1" "$e_driver" || e_status=1
		# 192.0.2.2 on one receiver only: the next pair's replies go out of its own
		[ -n "$rx" ] && ip addr flush dev "$rx" 2>/dev/null
		# (the namespace's end gives the sender back, in a work of its own)
		ip netns del snd 2>/dev/null
		wait_for 30000 "the sender back from its namespace" nic_of "$e_driver" 2 >/dev/null
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
	r_held=$($MGCAP show "$rx" | awk '$NF ~ "^/dev/mgcap/" {s += $2} END {print s + 0}')
	[ "$r_held" -ge 240 ] || bad "$1: after link down, up and two MTUs, $r_held frames captured of 240"
	# (virtio_net's device is a virtio one, under the PCI device virtio-pci drives)
	r_dev=$(basename "$(readlink "/sys/class/net/$rx/device")")
	r_drv=$(readlink -f "/sys/class/net/$rx/device/driver")
	echo "$r_dev" >"$r_drv/unbind" || return 1
	wait_for 10000 "tcpdump to end with the device" test ! -d "/proc/$pid_mgcap" ||
		bad "$1: tcpdump still reads a device that is gone"
	wait_end mgcap >/dev/null
	say "$1 unbound: tcpdump said: $(grep -v "^tcpdump: listening on" "$TMP/mgcap" | head -n 1)"
	! $MGCAP show | grep -q "^$rx:" || bad "$1: a capture of $rx outlived it"
	echo "$r_dev" >"$r_drv/bind" || return 1
	wait_for 10000 "$rx back" nic_of "$1" 1 >/dev/null || return 1
	rx=$(nic_of "$1" 1)
	$MGCAP start "$rx" >/dev/null || return 1
	modprobe -r "$1" || return 1
	! $MGCAP show | grep -q "^$rx:" || bad "$1 unloaded: $($MGCAP show)"
	modprobe "$1" && wait_for 10000 "$1 loaded again" nic_of "$1" 1 >/dev/null
}

run_suite "$@"
