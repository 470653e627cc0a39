#!/bin/sh
# The kernel module's tests.
#   sh tests/vm/tests-kernel.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_every_frame_hw_stamps
	t_imix_every_frame_hw_stamps
	t_software_stamps_without_hw
	t_both_stamps_after_the_frame
	t_vlan_snaplen_nonlinear
	t_driver_kept_stamps_through_a_vlan_device
	t_vlan_devices_frames_captured_and_dropped
	t_one_queue_on_two_cpus
	t_stalled_reader_loses_nothing_unread
	t_ring_pages_lie_in_runs
	t_drop_mode_keeps_frames_from_the_stack
	t_mirror_mode_delivers_every_frame
	t_mode_switch_under_load
	t_wakeups_coalesced_and_trickle_delivered
	t_stop_with_reader_open
	t_device_unregistered_during_capture
	t_device_moved_to_another_namespace
	t_rmmod_with_reader_open
	t_rmmod_as_the_last_reader_of_a_stopped_capture_leaves
	t_rmmod_while_capturing
	t_reader_killed_mid_capture
	t_ifname_parameter
	t_ifname_failed_load_leaves_no_capture
	t_tools_report_errors
	t_hwtstamp_control
	t_hwtstamp_records_planted_by_a_member
	t_bad_chardev_input
	t_queue_node_numbers_not_reused_at_once
	t_bad_netlink_input
	t_start_and_set_succeed_beyond_one_reply
	t_module_loads_on_first_request
"
USER_SPACE_TESTS="
	t_tools_report_errors
"
. "$(dirname "$0")/lib.sh"

# --- capture correctness ----------------------------------------------------------

t_every_frame_hw_stamps() {
	setup 4 && $MGCAP start mgt0 >/dev/null && $MGCAP hwtstamp mgt0 on || return 1
	$RINGCHECK --dev mgt0 --count 20000
}

# a link's mix of sizes (the test NIC's IMIX: 60, 590 and 1514 bytes, 7:4:1)
# through a 1 MiB ring that wraps four times a queue, every byte and stamp;
# then a stalled reader's 64 KiB ring: what it kept is the first frames whole,
# and every frame is counted, kept or dropped, whatever its size
t_imix_every_frame_hw_stamps() {
	setup 4 && $MGCAP start mgt0 ring-size 1M >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null ||
		return 1
	$RINGCHECK --dev mgt0 --count 12000 --frame-len imix || return 1
	$MGCAP stop mgt0 && $MGCAP start mgt0 ring-size 64K >/dev/null || return 1
	$RINGCHECK --dev mgt0 --count 2000 --frame-len imix --stall --expect-drops
}

t_software_stamps_without_hw() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	$RINGCHECK --dev mgt0 --count 5000 --sw
}

# MGCAP_TSTAMP_HW_AND_SW: the kernel's stamp after each frame, for adapter stamps' fallback
t_both_stamps_after_the_frame() {
	setup 2 && $MGCAP start mgt0 >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	$RINGCHECK --dev mgt0 --count 3000 --both-stamps --frame-len 61 || return 1
	$RINGCHECK --dev mgt0 --count 3000 --both-stamps --vlan 10 --snaplen 15 || return 1
	$RINGCHECK --dev mgt0 --count 3000 --both-stamps --nonlinear --frame-len 1000 || return 1
	# a reader that did not ask has no such stamp (ringcheck fails on one)
	$RINGCHECK --dev mgt0 --count 1000 --frame-len 61 || return 1
	# without the NIC's stamps, the record's stamp is 0 and the kernel's follows
	$MGCAP hwtstamp mgt0 off >/dev/null || return 1
	$RINGCHECK --dev mgt0 --count 1000 --both-stamps --sw
}

t_vlan_snaplen_nonlinear() {
	setup 2 && $MGCAP start mgt0 >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	$RINGCHECK --dev mgt0 --count 3000 --vlan 0x2064 --frame-len 1514 || return 1
	$RINGCHECK --dev mgt0 --count 3000 --vlan 10 --snaplen 15 || return 1
	$RINGCHECK --dev mgt0 --count 3000 --nonlinear --frame-len 3000 || return 1
	$RINGCHECK --dev mgt0 --count 3000 --nonlinear --vlan 7 --frame-len 200 --snaplen 96 || return 1
	$RINGCHECK --dev mgt0 --count 3000 --frame-len 60
}

# peek_stamps DEV FIRST WANT: 20 frames of the test NIC's queue 0 (mgt0) read
# through mgcap peek of DEV, from its frame FIRST; each must be the NIC's
# own stamp (WANT hw: mgt_hwtstamp(), 1700000000 s + 1 us a frame) or, with
# WANT sw, a host stamp of this century, never a pointer read as a time
peek_stamps() {
	echo "0 20" >/sys/class/net/mgt0/mgtestnic/generate && wait_idle mgt0 || return 1
	$MGCAP peek "$1" count 20 >"$TMP/peek" || return 1
	awk -v first="$2" -v want="$3" '{
		split($1, t, ".")
		if (want == "hw")
			ok = $1 == sprintf("%d.%09d", 1700000000, (first + NR - 1) * 1000) && $2 == "hw"
		else
			ok = $2 == "sw" && t[1] > 1600000000 && t[1] < 4102444800
		if (!ok) { print "frame " NR ": " $0 " (want " want ")"; bad = 1 }
	} END { exit bad || NR != 20 }' "$TMP/peek" >"$TMP/wrong" ||
		bad "$1: $(head -n 3 "$TMP/wrong") ($(wc -l <"$TMP/peek") frames)"
	say "$1: $(head -n 1 "$TMP/peek" | cut -d' ' -f1-3)"
}

# A driver that keeps its own data in the stamp's place (tsnep; the test
# NIC's netdev_tstamp): captured on the driver's device, each frame has the
# driver's stamp.  Through a VLAN device above it, which has no
# ndo_get_tstamp, the driver is the one the frame's NAPI instance belongs
# to; a kernel without NAPI ids (no busy polling: PREEMPT_RT before 6.10)
# gives host stamps.  Never the pointer in the stamp's place.
t_driver_kept_stamps_through_a_vlan_device() {
	setup 1 && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	echo 1 >/sys/class/net/mgt0/mgtestnic/netdev_tstamp || return 1
	$MGCAP start mgt0 >/dev/null || return 1
	peek_stamps mgt0 "$(cat /sys/class/net/mgt0/mgtestnic/generated)" hw
	$MGCAP stop mgt0 >/dev/null || return 1
	echo 100 >/sys/class/net/mgt0/mgtestnic/vlan_tci || return 1
	ip link add link mgt0 name mgtv100 type vlan id 100 && ip link set mgtv100 up || return 1
	$MGCAP start mgtv100 >/dev/null || return 1
	want=hw
	# (its sysctls exist only with busy polling, CONFIG_NET_RX_BUSY_POLL)
	[ -e /proc/sys/net/core/busy_poll ] || want=sw
	peek_stamps mgtv100 "$(cat /sys/class/net/mgt0/mgtestnic/generated)" $want
	ip link del mgtv100
}

# vlan_pings NAME COUNT: COUNT pings (busybox's) from the peer namespace to
# vB's VLAN device, while tcpdump captures mgcap:vB (NAME, through
# mgcap-run) and AF_PACKET on vB (NAME_af, Debian's own, -Q in); the echo
# requests each holds, with their tag, in $mgcap_got and $af_got
vlan_pings() {
	start_tcpdump "$1" -i mgcap:vB -w "$TMP/$1.pcap" || return 1
	start_until "$1_af" "listening on" timeout 60 tcpdump -Z root -i vB -Q in \
		-w "$TMP/$1_af.pcap" || return 1
	ip netns exec vlanpeer busybox ping -c "$2" -i 0.2 -w 5 192.0.2.2 >"$TMP/$1_ping" 2>&1
	wait_drained || return 1
	# a duration, not a state: AF_PACKET hands its last block over at
	# libpcap's timeout (1 s), which nothing outside tcpdump shows
	sleep 1
	pkill -INT -x tcpdump
	wait_end "$1" >/dev/null
	wait_end "$1_af" >/dev/null
	mgcap_got=$(tcpdump -nn -r "$TMP/$1.pcap" 'vlan 100 and icmp[icmptype] = icmp-echo' 2>/dev/null |
		wc -l)
	af_got=$(tcpdump -nn -r "$TMP/$1_af.pcap" 'vlan 100 and icmp[icmptype] = icmp-echo' \
		2>/dev/null | wc -l)
}

# A VLAN that has a device of its own on the captured device (vB.100): the
# stack hands its frames to that device before any receive handler of vB
# runs.  They are captured all the same, tag and all, as AF_PACKET on vB
# sees them, and drop mode keeps them from the VLAN device too: a VLAN
# device made during the capture, and one there at its start.
t_vlan_devices_frames_captured_and_dropped() {
	setup 1 || return 1
	ip netns add vlanpeer && ip link add vA type veth peer name vB &&
		ip link set vA netns vlanpeer || return 1
	ip -n vlanpeer link set vA up && ip -n vlanpeer link add link vA name vA.100 type vlan id 100 &&
		ip -n vlanpeer addr add 192.0.2.1/24 dev vA.100 && ip -n vlanpeer link set vA.100 up ||
		return 1
	ip link set vB up && $MGCAP start vB >/dev/null || return 1
	ip link add link vB name vB.100 type vlan id 100 && ip addr add 192.0.2.2/24 dev vB.100 &&
		ip link set vB.100 up || return 1
	if dmesg | grep -q "vB: mgcap: its VLAN devices' frames bypass the capture (no netfilter ingress hook: -95)"; then
		skip "this kernel has no netfilter ingress hook (CONFIG_NETFILTER_INGRESS), and mgcap says so"
		return 0
	fi
	# no ARP: the frames on the wire are the pings alone, whatever drop mode keeps
	ip -n vlanpeer neigh add 192.0.2.2 lladdr "$(cat /sys/class/net/vB/address)" dev vA.100 &&
		ip neigh add 192.0.2.1 lladdr "$(ip netns exec vlanpeer cat /sys/class/net/vA/address)" \
			dev vB.100 || return 1
	vlan_pings mirror 5
	grep -q " 0% packet loss" "$TMP/mirror_ping" ||
		bad "mirror mode: the VLAN device lost pings: $(tail -n 2 "$TMP/mirror_ping")"
	[ "$mgcap_got" = 5 ] && [ "$af_got" = 5 ] ||
		bad "mirror mode, VLAN device made during the capture: mgcap holds $mgcap_got echo requests, AF_PACKET $af_got, of 5"
	say "mirror: mgcap $mgcap_got, AF_PACKET $af_got of 5 echo requests to vB.100"

	$MGCAP stop vB >/dev/null && $MGCAP start vB mode drop >/dev/null || return 1
	before=$(cat /sys/class/net/vB.100/statistics/rx_packets)
	vlan_pings drop 3
	after=$(cat /sys/class/net/vB.100/statistics/rx_packets)
	[ "$after" = "$before" ] || bad "drop mode: vB.100 received $((after - before)) frames"
	[ "$mgcap_got" = 3 ] && [ "$af_got" = 3 ] ||
		bad "drop mode, VLAN device there at the start: mgcap holds $mgcap_got echo requests, AF_PACKET $af_got, of 3"
	say "drop: mgcap $mgcap_got, AF_PACKET $af_got of 3, vB.100 received $((after - before))"
	$MGCAP stop vB >/dev/null
	ip link del vB.100
}

t_one_queue_on_two_cpus() {
	# PREEMPT_RT before 6.10 raises RPS's softirq in the IPI, which it warns
	# of itself (do_softirq_post_smp_call_flush, kernel/softirq.c); 6.10 gave
	# RT threads for the backlog.  The kernel's warning, not a test of mgcap.
	if [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ] && kernel_older_than 6 10; then
		skip "RPS on PREEMPT_RT before 6.10 warns in the kernel's own IPI path"
		return 0
	fi
	# one queue: its NAPI runs on one CPU, so any frame the other receives came by RPS
	setup 1 && $MGCAP start mgt0 >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	echo 3 >/sys/class/net/mgt0/queues/rx-0/rps_cpus || return 1
	# RPS backlogs must not drop frames before mgcap sees them
	sysctl -qw net.core.netdev_max_backlog=1000000 || return 1
	processed_per_cpu >"$TMP/before"
	$RINGCHECK --dev mgt0 --count 30000 --flows 16 --unordered || return 1
	# both CPUs really received frames: RPS hands them over by IPI, or on
	# PREEMPT_RT (6.10 on) by waking the other CPU's backlog thread
	least=$(processed_per_cpu | paste -d' ' - "$TMP/before" |
		awk '{ d = $1 - $2; if (NR == 1 || d < m) m = d } END { print m + 0 }')
	say "the CPU that received the fewest frames received $least"
	[ "$least" -ge 1000 ] || bad "RPS did not spread the queue over both CPUs"
}

processed_per_cpu() {	# softnet_stat's first column (frames received), a line per CPU
	while read -r processed rest; do echo $((0x$processed)); done </proc/net/softnet_stat
}

kernel_older_than() {	# kernel_older_than MAJOR MINOR: the running kernel is older
	major=$(uname -r | cut -d. -f1)
	minor=$(uname -r | cut -d. -f2)
	[ "$major" -lt "$1" ] || { [ "$major" -eq "$1" ] && [ "$minor" -lt "$2" ]; }
}

t_stalled_reader_loses_nothing_unread() {
	setup 2 && $MGCAP start mgt0 ring-size 64K >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null ||
		return 1
	$RINGCHECK --dev mgt0 --count 3000 --stall --expect-drops >"$TMP/stall" || return 1
	kept=$(awk '/^queue 0/ {print $6}' "$TMP/stall")
	say "a 64 KiB ring kept $kept of 3000 frames (152-byte records: 65536 / 152 = 431)"
	[ "$kept" = 431 ] || bad "the ring held $kept records, not 431"
	# and the ring takes a burst it can hold (400 of 431 records) afterwards
	$RINGCHECK --dev mgt0 --count 400 --stall
}

# A ring's data pages lie in physically contiguous runs of 64 KiB (16
# pages), the queue's own ring and a further reader's alike: a direct I/O
# write of the mapping (mgdump --per-queue) is then a segment a run, not a
# page.  (A VM's memory is hardly fragmented: a run of 16 is found at once,
# mostly; at most 32 runs, for the few that fall back to 8.  With single
# pages: 75 to 205 runs.)
t_ring_pages_lie_in_runs() {
	setup 1 && $MGCAP start mgt0 ring-size 1M >/dev/null || return 1
	wait_start first $WAIT /dev/mgcap/mgt0@0 hup 60 || return 1
	# (the first reader holds the queue's ring: this one gets its own)
	$PAGERUNS /dev/mgcap/mgt0@0 >"$TMP/further" || return 1
	$MGCAP stop mgt0 >/dev/null
	wait_end first || return 1
	$MGCAP start mgt0 ring-size 1M >/dev/null || return 1
	$PAGERUNS /dev/mgcap/mgt0@0 >"$TMP/own" || return 1
	for r_which in own further; do
		say "$r_which ring: $(cat "$TMP/$r_which")"
		read -r r_pages _ _ r_runs r_rest <"$TMP/$r_which"
		r_longest=${r_rest##* the longest }
		r_longest=${r_longest% pages}
		[ "$r_pages" = 256 ] || bad "$r_which ring: $r_pages data pages, not 256"
		[ "$r_runs" -le 32 ] && [ "$r_longest" -ge 16 ] ||
			bad "$r_which ring: $r_runs runs, the longest $r_longest pages (at most 32, at least 16)"
	done
}

# stack_gets MODE EXPECTED: capture 4 x 5000 frames in MODE, all of them exactly,
# while a UDP socket counts what the stack delivered
stack_gets() {
	setup 4 && $MGCAP start mgt0 mode "$1" >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null ||
		return 1
	ip addr add 198.51.100.1/24 dev mgt0 || return 1
	wait_start udp $UDPCOUNT 5555 3 || return 1
	$RINGCHECK --dev mgt0 --count 5000 || return 1
	wait_end udp || return 1
	got=$(tail -n 1 "$TMP/udp")
	[ "$got" = "$2" ] || bad "$1 mode: the socket got $got frames, not $2"
}

t_drop_mode_keeps_frames_from_the_stack() {
	stack_gets drop 0
}

t_mirror_mode_delivers_every_frame() {
	stack_gets mirror 20000
}

# a switch takes effect at the next frame: while frames come on both queues
# (paced, so that they outlast the switches; the rest at full speed after
# them), each of six switches shows in the mode the capture reports and in
# the fate of the frames after it; the capture takes every frame exactly
# once throughout, and the stack got some of them, not all
t_mode_switch_under_load() {
	setup 2 && $MGCAP start mgt0 >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	ip addr add 198.51.100.1/24 dev mgt0 || return 1
	# (quiet for the length of a drop phase at most)
	wait_start udp $UDPCOUNT 5555 10 || return 1
	# (250 a second: four minutes of them, which the switches of a KASAN
	# kernel under emulation took more than one of)
	echo 250 >/sys/class/net/mgt0/mgtestnic/rate_pps || return 1
	read -r before </sys/class/net/mgt0/mgtestnic/generated
	$RINGCHECK --dev mgt0 --count 60000 --timeout 400 >"$TMP/rc" 2>&1 &
	rcpid=$!
	wait_for 30000 "the frames on every queue" generated_past 1 "$before" || return 1
	switches=0
	for mode in drop mirror drop mirror drop mirror; do
		switch_shown $mode || break
		switches=$((switches + 1))
	done
	# (asked before the pace is lifted: at full speed the rest may be made
	# before a second look)
	generators_idle mgt0 && bad "the frames ended before the switches did"
	echo 0 >/sys/class/net/mgt0/mgtestnic/rate_pps
	wait $rcpid || { cat "$TMP/rc"; return 1; }
	wait_end udp || return 1
	got=$(tail -n 1 "$TMP/udp")
	say "$switches mode switches, each seen in the frames' fate; the stack got $got of 120000"
	[ "$switches" = 6 ] || bad "$switches of 6 switches shown"
	[ "$got" -gt 0 ] && [ "$got" -lt 120000 ] || bad "the switches did not take effect"
}

# generated_past N COUNTS: every queue of mgt0 made N frames more than COUNTS
# ("A B", its generated then)
generated_past() {
	read -r now </sys/class/net/mgt0/mgtestnic/generated
	echo "$now" | awk -v n="$1" -v was="$2" '{ split(was, w)
		for (i = 1; i <= NF; i++) if ($i < w[i] + n) exit 1 }'
}

# switch_shown MODE: mgt0 switched to MODE under load, as the capture reports
# it, and as the frames made after the switch fare: the stack receives none
# of them in drop mode, every one in mirror mode.  A queue makes its frames
# one by one, each handed on before the next is made: once a queue made one
# more, none it made before is still on its way.
switch_shown() {
	$SETMODE mgt0 "$1" >/dev/null || return 1
	$MGCAP show mgt0 | grep -q "^mgt0: mode $1," ||
		{ bad "switched to $1, the capture says: $($MGCAP show mgt0 | head -n 1)"; return 1; }
	read -r was </sys/class/net/mgt0/mgtestnic/generated
	wait_for 20000 "a frame on every queue after the switch to $1" generated_past 1 "$was" ||
		return 1
	stack=$(ip_received)
	read -r was </sys/class/net/mgt0/mgtestnic/generated
	# 51 made: the first 50 of them handed on
	wait_for 20000 "50 frames on every queue in $1 mode" generated_past 51 "$was" || return 1
	got=$(($(ip_received) - stack))
	least=$((50 * $(echo $was | wc -w)))
	case $1 in
	drop) [ "$got" = 0 ] || { bad "drop mode: the stack received $got frames"; return 1; } ;;
	*) [ "$got" -ge "$least" ] ||
		{ bad "mirror mode: the stack received $got of $least frames or more"; return 1; } ;;
	esac
}

t_wakeups_coalesced_and_trickle_delivered() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	wait_start w $WAIT /dev/mgcap/mgt0@0 first 20 || return 1
	# (the frame is to wake it, not to be there at its first look)
	wait_for 10000 "the reader asleep in poll" asleep "$pid_w" || return 1
	echo "0 1" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end w || bad "a single frame did not wake the reader"
	wait_start w2 $WAIT /dev/mgcap/mgt0@0 records 40000 120 || return 1
	start=$(date +%s%N)
	echo "0 40000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end w2 || return 1
	ms=$((($(date +%s%N) - start) / 1000000))
	wakeups=$(awk '/records/ {print $3}' "$TMP/w2")
	# coalesced: fewer than one poll return for each 8 frames, unless the
	# frames came too slowly to share one: then a return a millisecond (the
	# wake timer's) and one each 64 KiB of records (the wake mark: 40000 of
	# 152 bytes fill it 93 times) at most.  (A poll also returns at once
	# when records came while the last were read: at full speed they do.)
	most=$((ms * 11 / 10 + 93 + 10))
	[ "$most" -lt 4999 ] && most=4999
	say "$wakeups poll wakeups for 40000 frames in $ms ms (at most $most)"
	[ -n "$wakeups" ] && [ "$wakeups" -le "$most" ] ||
		bad "$wakeups wakeups for 40000 frames in $ms ms"
	# (a kernel that slow cannot tell a wakeup a frame from coalesced ones)
	[ "$most" -lt 40000 ] || skip "40000 frames in $ms ms: too slow to show coalescing"
}

# --- lifecycle ----------------------------------------------------------------------

t_stop_with_reader_open() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	wait_start w $WAIT /dev/mgcap/mgt0@1 hup 30 || return 1
	echo "all 500" >/sys/class/net/mgt0/mgtestnic/generate
	$MGCAP stop mgt0 || return 1
	wait_end w || return 1
	[ ! -e /dev/mgcap/mgt0@1 ] || bad "node still there after stop"
	# capture again at once, same names
	$MGCAP start mgt0 >/dev/null && $RINGCHECK --dev mgt0 --count 500 --sw
}

t_device_unregistered_during_capture() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	wait_start w $WAIT /dev/mgcap/mgt0@0 hup 30 || return 1
	echo "all 100000" >/sys/class/net/mgt0/mgtestnic/generate
	rmmod mgtestnic || return 1
	wait_end w || return 1
	[ "$($MGCAP -j show)" = "[]" ] || bad "capture still listed"
	[ ! -e /dev/mgcap/mgt0@0 ] || bad "node still there"
}

t_device_moved_to_another_namespace() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	wait_start w $WAIT /dev/mgcap/mgt0@0 hup 30 || return 1
	ip netns add t1 && ip link set mgt0 netns t1 || return 1
	wait_end w || return 1
	ip netns exec t1 ip link set mgt0 up || return 1
	ip netns exec t1 $MGCAP start mgt0 >/dev/null || return 1
	inum=$(ip netns exec t1 readlink /proc/self/ns/net | tr -dc 0-9)
	[ -c "/dev/mgcap/ns$inum/mgt0@0" ] || bad "no /dev/mgcap/ns$inum/mgt0@0"
	[ "$($MGCAP -j show)" = "[]" ] || bad "the initial namespace sees the other's capture"
	ip netns exec t1 $MGCAP -j show | grep -q '"dev":"mgt0"' || bad "its namespace does not see it"
	ip netns exec t1 $RINGCHECK --dev mgt0 --count 1000 --sw --nodes "/dev/mgcap/ns$inum" ||
		return 1
	wait_start w2 $WAIT "/dev/mgcap/ns$inum/mgt0@1" hup 30 || return 1
	# deleting the namespace sends the device home: the capture ends
	ip netns del t1
	wait_end w2 || return 1
	wait_for 10000 "mgt0 back home" test -e /sys/class/net/mgt0
	[ ! -e "/dev/mgcap/ns$inum/mgt0@0" ] || bad "node left behind"
}

t_rmmod_with_reader_open() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	wait_start w $WAIT /dev/mgcap/mgt0@0 hup 30 || return 1
	if rmmod mgcap 2>"$TMP/rmmod"; then
		bad "rmmod succeeded under an open reader"
		return 1
	fi
	say "rmmod refused: $(cat "$TMP/rmmod")"
	echo "0 100" >/sys/class/net/mgt0/mgtestnic/generate
	$MGCAP stop mgt0 || return 1
	wait_end w || return 1
	rmmod mgcap || bad "rmmod after the reader left"
}

t_rmmod_as_the_last_reader_of_a_stopped_capture_leaves() {
	# a capture started for its readers stops a second after the last one
	# closed; stopped before that, it must leave no such stop pending
	setup 1 || return 1
	capture tcpdump -i mgcap:mgt0 -w "$TMP/out.pcap" || return 1
	$MGCAP stop mgt0 >/dev/null || return 1
	wait $client
	rmmod mgcap || { bad "rmmod after the reader left"; return 1; }
	# past the second: a stop left pending would run in a module gone, and
	# the kernel's log (which the run checks) would say so (a duration: the
	# test is that nothing happens in it)
	sleep 2
}

t_rmmod_while_capturing() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	echo "all 200000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_for 20000 "frames captured" at_least 1000 captured mgt0 || return 1
	generators_idle mgt0 && bad "the frames ended before the rmmod"
	rmmod mgcap || return 1
	[ ! -d /dev/mgcap ] || [ -z "$(ls /dev/mgcap)" ] || bad "nodes left behind"
}

# a reader killed while it reads, frames still coming into its ring: the
# queue is free again and works.  Before the kill, the reader has mapped its
# ring and has read from it (its counters), and the frames have not ended.
t_reader_killed_mid_capture() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	wait_start w $WAIT /dev/mgcap/mgt0@0 records 100000000 60 || return 1
	reader=$pid_w
	grep -q " /dev/mgcap/mgt0@0$" "/proc/$reader/maps" ||
		{ bad "the reader has not mapped its ring"; return 1; }
	echo "0 200000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_for 30000 "the reader to read from its ring" reader_reading "$reader" || return 1
	generators_idle mgt0 && bad "the frames ended before the reader was killed"
	kill -9 "$reader"
	wait_end w
	wait_idle mgt0 || return 1
	# the queue is free again and works
	$RINGCHECK --dev mgt0 --count 1000 --sw --timeout 120
}

t_ifname_parameter() {
	insmod "$NIC" queues=2 devices=2 || return 1
	insmod "$KO" ifname=mgt0,mgt1 || return 1
	n=$($MGCAP -j show | grep -o '"dev":' | wc -l)
	[ "$n" = 2 ] || bad "ifname=mgt0,mgt1 captured $n devices"
	rmmod mgcap || return 1
	if insmod "$KO" ifname=mgt0,nosuch0 2>/dev/null; then
		bad "ifname with a missing device loaded"
		return 1
	fi
	[ ! -e /dev/mgcap/mgt0@0 ] || bad "a failed load left nodes"
	insmod "$KO" || return 1
}

t_ifname_failed_load_leaves_no_capture() {
	# START requests keep coming, and a watcher looks for queue nodes,
	# while a load whose ifname= names no device fails.  A node that
	# existed in a failed load could be opened, and closed after the
	# module's code was gone: the load fails before its family or any
	# node exists (16 queues of 8 MiB for mgt0 used to make them for a
	# while first), so no START gets in and no node is ever seen.
	insmod "$NIC" queues=16 devices=2 || return 1
	for d in mgt0 mgt1; do ip link set $d up || return 1; done
	modprobe_was=$(cat /proc/sys/kernel/modprobe)
	echo /bin/false >/proc/sys/kernel/modprobe	# no loading on demand
	raced=0
	for try in 1 2; do
		before=$(dmesg | grep -c "mgt1: mgcap: capturing")
		rm -f "$TMP/stop" "$TMP/seen"
		rm -f "$TMP/requesting" "$TMP/watching"
		(while [ ! -e "$TMP/stop" ]; do
			$MGCAP start mgt1 ring-size 64K >/dev/null 2>&1
			: >"$TMP/requesting"
		done) &
		loop=$!
		(while [ ! -e "$TMP/stop" ]; do
			ls /sys/class/mgcap 2>/dev/null | grep -q . && : >"$TMP/seen"
			: >"$TMP/watching"
		done) &
		watcher=$!
		wait_for 10000 "the START requests and the watcher under way" \
			test -e "$TMP/requesting" -a -e "$TMP/watching" || return 1
		insmod "$KO" ifname=mgt0,nosuch0 2>/dev/null && bad "ifname=mgt0,nosuch0 loaded"
		: >"$TMP/stop"
		wait $loop $watcher
		[ -e "$TMP/seen" ] && bad "a queue node existed during a failed load"
		[ "$(dmesg | grep -c "mgt1: mgcap: capturing")" -gt "$before" ] && raced=$((raced + 1))
		if grep -q '^mgcap ' /proc/modules; then
			bad "a failed load left the module loaded"
			rmmod mgcap
		fi
	done
	echo "$modprobe_was" >/proc/sys/kernel/modprobe
	[ "$raced" = 0 ] || bad "a START got in during $raced of 2 failed loads"
	[ -z "$(ls /dev/mgcap 2>/dev/null)" ] || bad "failed loads left nodes: $(ls /dev/mgcap)"
	# no receive handler left on either device, and frames go to the stack
	ip link add br0 type bridge || return 1
	for d in mgt0 mgt1; do
		ip link set $d master br0 || bad "$d kept a receive handler"
		ip link set $d nomaster
	done
	echo "all 100" >/sys/class/net/mgt1/mgtestnic/generate && wait_idle mgt1
}

# --- control and bad input -----------------------------------------------------------

t_tools_report_errors() {
	insmod "$NIC" queues=2 devices=2 || return 1
	for d in mgt0 mgt1; do ip link set $d up; done
	# as if it were not installed: the kernel's modprobe finds nothing to load
	modprobe_was=$(cat /proc/sys/kernel/modprobe)
	echo /bin/false >/proc/sys/kernel/modprobe
	out=$($MGCAP show 2>&1) && bad "show without the module succeeded"
	echo "$modprobe_was" >/proc/sys/kernel/modprobe
	echo "$out" | grep -q "not loaded" || bad "without the module: '$out'"
	insmod "$KO" || return 1
	expect() {	# expect STATUS TEXT COMMAND...
		want=$1 text=$2
		shift 2
		out=$("$@" 2>&1)
		st=$?
		lines=$(printf '%s\n' "$out" | wc -l)
		if [ $st -ne "$want" ] || ! echo "$out" | grep -q "$text" || [ "$lines" -ne 1 ]; then
			bad "'$*': status $st, output '$out' (want $want, '$text', one line)"
			return 1
		fi
	}
	expect 1 "no such device" $MGCAP start nosuch0 || return 1
	expect 2 "invalid device name" $MGCAP start abcdefghijklmnopqrst || return 1
	expect 2 "bad ring size" $MGCAP start mgt0 ring-size 12 || return 1
	expect 2 "bad ring size" $MGCAP start mgt0 ring-size 2G || return 1
	expect 2 "bad ring size" $MGCAP start mgt0 ring-size lots || return 1
	expect 2 "bad snaplen" $MGCAP start mgt0 snaplen 0 || return 1
	expect 2 "bad mode" $MGCAP start mgt0 mode fast || return 1
	expect 2 "unexpected" $MGCAP start mgt0 colour blue || return 1
	expect 1 "not captured" $MGCAP stop mgt0 || return 1
	expect 1 "not captured" $SETMODE mgt0 drop || return 1
	expect 2 "bad mode" $SETMODE mgt0 fast || return 1
	expect 1 "only Ethernet" $MGCAP start lo || return 1
	# its node would be /dev/x/y@0: devtmpfs takes a '!' for a '/'
	ip link add 'x!y' type dummy || return 1
	expect 1 "with a '!' cannot be captured" $MGCAP start 'x!y' || return 1
	ip link del 'x!y'
	expect 1 "snaplen too large" $MGCAP start mgt0 ring-size 64K snaplen 65535 || return 1
	$MGCAP start dev mgt0 ring-size 100M snaplen 96 >/dev/null || return 1
	expect 1 "already captured" $MGCAP start mgt0 || return 1
	$MGCAP -j show mgt0 | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
assert d["dev"] == "mgt0" and d["mode"] == "mirror", d
assert d["ring_size"] == 128 << 20 and d["snaplen"] == 96, d
assert [q["queue"] for q in d["queues"]] == [0, 1], d
assert all(k in q for q in d["queues"] for k in ("captured", "bytes", "dropped")), d
' || bad "show -j"
	expect 0 "mode drop" $SETMODE mgt0 drop || return 1
	expect 0 "mode mirror" $MGCAP set dev mgt0 mode mirror || return 1
	# a bridge port already has a receive handler
	ip link add br0 type bridge && ip link set mgt1 master br0 || return 1
	expect 1 "receive handler" $MGCAP start mgt1 || return 1
	ip link set mgt1 nomaster
	# unprivileged users may look, not touch
	expect 1 "not permitted" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all $MGCAP stop mgt0 || return 1
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		$MGCAP show mgt0 >/dev/null || bad "unprivileged show"
	# the module makes the nodes root's; the packages' udev rule (when
	# installed, and udev runs in the VM) gives them to group mgcap
	want="600 root"
	[ -f /lib/udev/rules.d/60-mgcap.rules ] && want="660 mgcap"
	udevadm settle 2>/dev/null
	[ "$(stat -c '%a %G' /dev/mgcap/mgt0@0)" = "$want" ] ||
		bad "queue node: $(stat -c '%a %G' /dev/mgcap/mgt0@0), want $want"
}

t_hwtstamp_control() {
	setup 1 || return 1
	$MGCAP hwtstamp mgt0 show | grep -q "hardware receive stamps: supported" ||
		bad "show: no hardware support reported"
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: none" || bad "not off at start"
	$MGCAP hwtstamp mgt0 on | grep -q "receive filter all (was none)" || bad "on"
	$MGCAP hwtstamp mgt0 on >/dev/null || bad "on twice"
	$MGCAP start mgt0 >/dev/null && $RINGCHECK --dev mgt0 --count 500 || return 1
	$MGCAP hwtstamp mgt0 restore | grep -q "receive filter none restored" || bad "restore"
	$RINGCHECK --dev mgt0 --count 500 --sw || return 1
	$MGCAP hwtstamp mgt0 restore 2>/dev/null && bad "restore without a saved setting"
	ip link add nostamp0 type dummy || return 1
	out=$($MGCAP hwtstamp nostamp0 on 2>&1) && bad "on for a NIC without stamping"
	say "$out"
	ip link del nostamp0
	return 0
}

# What a member of group mgcap (here nobody, uid 65534) can leave in the
# records' directory, which the packages make the group's: links where root
# writes, and a record saying a receive filter the member chose was there.
# Root follows none of it and acts on no record but its own.
t_hwtstamp_records_planted_by_a_member() {
	setup 1 || return 1
	dir=/run/mgcap/hwtstamp
	$MGCAP hwtstamp mgt0 show >/dev/null || return 1
	mkdir -p $dir && rm -f $dir/mgt0 $dir/mgt0.tmp $dir/.lock || return 1
	echo "root's file" >"$TMP/victim"
	# the names root's tools used to write and lock, and the record's own
	for name in mgt0.tmp .lock mgt0; do
		ln -s "$TMP/victim" $dir/$name && chown -h 65534 $dir/$name || return 1
	done
	ln -s "$TMP/created" $dir/.mgcap-new || return 1
	$MGCAP hwtstamp mgt0 on | grep -q "receive filter all (was none)" || bad "on"
	[ "$(cat "$TMP/victim")" = "root's file" ] || bad "a planted link was followed: $(cat "$TMP/victim")"
	[ -e "$TMP/created" ] && bad "root created a file where a planted link pointed"
	[ -f $dir/mgt0 ] && [ ! -L $dir/mgt0 ] && [ "$(stat -c %u $dir/mgt0)" = 0 ] ||
		bad "root's record: $(ls -l $dir)"
	# the NIC stamps every frame for someone else (a PTP daemon on a driver
	# that grants ALL); the member claims mgcap found it off
	rm -f $dir/mgt0
	printf '0 0 0 0 0 1 0\n' >$dir/mgt0 && chown 65534 $dir/mgt0 || return 1
	out=$($MGCAP hwtstamp mgt0 restore 2>&1) && bad "a member's record restored: $out"
	echo "$out" | grep -q "written by nobody, not by root or you: not restored (it says receive filter none" ||
		bad "restore of a member's record: $out"
	say "$out"
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: all" ||
		bad "a member's record was acted on: $($MGCAP hwtstamp mgt0 show)"
	# a reader that takes the stamping finds it taken by someone else: it
	# leaves it as it is when it goes, whatever the record says
	start_tcpdump adapter -i mgcap:mgt0 -j adapter -c 100 -w "$TMP/a.pcap" || return 1
	echo "all 100" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end adapter >/dev/null || bad "tcpdump -j adapter failed: $(cat "$TMP/adapter")"
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: all" ||
		bad "a reader gave back what a member's record said"
	[ "$(stat -c %u $dir/mgt0)" = 65534 ] || bad "the member's record was taken away"
	rm -f $dir/mgt0 $dir/mgt0.tmp $dir/.lock $dir/.mgcap-new
	return 0
}

t_bad_chardev_input() {
	setup 1 && $MGCAP start mgt0 ring-size 64K >/dev/null || return 1
	$BADINPUT chardev mgt0
}

# A node's number, handed to a container by major:minor, must not open the
# next capture's queue at once: each capture's nodes get numbers not used
# since the module loaded, until they wrap at 65536.
t_queue_node_numbers_not_reused_at_once() {
	setup 2 || return 1
	seen=""
	for try in 1 2 3; do
		$MGCAP start mgt0 >/dev/null || return 1
		for q in 0 1; do
			n=$(stat -c %T /dev/mgcap/mgt0@$q) || return 1
			case " $seen " in *" $n "*) bad "minor 0x$n used again (try $try)" ;; esac
			seen="$seen $n"
		done
		$MGCAP stop mgt0 >/dev/null || return 1
	done
	say "minors (hex) of 3 captures of 2 queues:$seen"
}

t_bad_netlink_input() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	$BADINPUT netlink mgt0
}

t_start_and_set_succeed_beyond_one_reply() {
	# 700 queues: a listing of some 70 KiB, more than the queues' nest of
	# one reply holds.  START and SET make their change and say so; the
	# tool lists the queues from GET (the dump) instead.
	insmod "$NIC" queues=700 && ip link set mgt0 up && insmod "$KO" || return 1
	$MGCAP start mgt0 ring-size 64K >"$TMP/start" 2>&1 ||
		bad "start: $(head -3 "$TMP/start")"
	[ -e /dev/mgcap/mgt0@699 ] || bad "no node of queue 699: the capture did not start"
	n=$(grep -c " /dev/mgcap/mgt0@" "$TMP/start")
	[ "$n" = 700 ] || bad "start listed $n queues, not 700"
	out=$($MGCAP set mgt0 mode drop 2>&1)
	[ "$out" = "mgt0: mode drop" ] || bad "set mode drop: '$out'"
	$MGCAP show mgt0 | grep -q "^mgt0: mode drop, 700 queues" || bad "not in drop mode"
	out=$($SETMODE mgt0 mirror 2>&1) || bad "mgcap-setmode mirror: '$out'"
	$MGCAP show mgt0 | grep -q "^mgt0: mode mirror, 700 queues" || bad "not in mirror mode"
	# the capture runs: every queue's frames arrive
	echo "all 1" >/sys/class/net/mgt0/mgtestnic/generate && wait_idle mgt0 || return 1
	n=$($MGCAP -j show mgt0 | grep -o '"captured":1,' | wc -l)
	[ "$n" -ge 700 ] || bad "$n of 700 queues captured their frame"
}


t_module_loads_on_first_request() {
	# installed where modprobe finds it, it loads for the first netlink request
	insmod "$NIC" queues=1 && ip link set mgt0 up || return 1
	mods=/lib/modules/$K
	dir=$mods/updates/mgcap-test
	# an index of this module alone (a whole depmod takes minutes under
	# emulation); the guest's own index is put back after
	mkdir -p "$TMP/index" "$dir" && cp "$mods"/modules.* "$TMP/index/" &&
		cp "$KO" "$dir/" && depmod "$K" "$dir/${KO##*/}" || return 1
	! grep -q '^mgcap ' /proc/modules || bad "mgcap loaded before anything asked for it"
	$MGCAP start mgt0 >/dev/null || bad "mgcap start did not load the module"
	grep -q '^mgcap ' /proc/modules || bad "mgcap is not loaded after mgcap start"
	$MGCAP stop mgt0
	cp "$TMP"/index/* "$mods/" && rm -r "$dir"
}

run_suite "$@"
