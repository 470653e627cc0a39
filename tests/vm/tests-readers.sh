#!/bin/sh
# Several readers of one capture at once.
#   sh tests/vm/tests-readers.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_readers_mgdump_and_two_tcpdumps_each_get_theirs
	t_readers_a_stalled_one_costs_the_others_nothing
	t_readers_come_and_go_during_traffic
	t_readers_beyond_memory_are_refused
	t_readers_a_member_leaves_root_a_place_and_memory
	t_readers_a_members_rings_are_its_cgroups
	t_readers_kernel_filter_rejects_before_the_ring
	t_readers_details_only_for_cap_net_admin
	t_readers_show_of_64_queues_with_4_readers_each
	t_readers_show_of_a_capture_beyond_64_kib
"
. "$(dirname "$0")/lib.sh"

read_all() { [ "$(reader_field "$1" 4)" = 0 ]; }	# read_all PID: its rings hold nothing unread

# tcpdump_pid NAME: the tcpdump start_tcpdump NAME started (timeout's child:
# mgcap-run execs it), not any other still exiting from the test before
tcpdump_pid() {
	eval "pgrep -x -P \$pid_$1 tcpdump"
}

t_readers_mgdump_and_two_tcpdumps_each_get_theirs() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/all.pcapng" -c 4000 -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	# one queue's frames by filter, cut at 60 bytes; the other queue, cut at 100
	start_tcpdump ta -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano \
		-s 60 -c 2000 -w "$TMP/a.pcap" 'udp src port 10001' || return 1
	start_tcpdump tb -i mgcap:mgt0@0 -j adapter_unsynced --time-stamp-precision=nano \
		-s 100 -c 2000 -w "$TMP/b.pcap" || return 1
	wait_readers mgt0 2 || return 1
	$MGCAP show mgt0
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || { cat "$TMP/d"; return 1; }
	wait_end ta || return 1
	wait_end tb || return 1
	$PCAPCHECK "$TMP/all.pcapng" --queues 2 --count 2000 --snaplen 262144 --unmerged || return 1
	$PCAPCHECK "$TMP/a.pcap" --queues 2 --count 2000 --only-queue 1 --snaplen 60 || return 1
	$PCAPCHECK "$TMP/b.pcap" --queues 2 --count 2000 --only-queue 0 --snaplen 100
}

t_readers_a_stalled_one_costs_the_others_nothing() {
	# a 1 MiB ring holds 6898 records of these frames (152 bytes each,
	# header and 128 bytes): of 8000, the stalled reader loses 1102
	setup 1 && $MGCAP start mgt0 ring-size 1M >/dev/null || return 1
	$MGCAP hwtstamp mgt0 on >/dev/null || return 1
	start_tcpdump stalled -i mgcap:mgt0 -j adapter_unsynced -w "$TMP/stalled.pcap" || return 1
	tpid=$(tcpdump_pid stalled)
	kill -STOP "$tpid"
	# (-s 96: records small enough that its 1 MiB ring holds the whole burst)
	timeout 120 $MGDUMP -i mgt0 -s 96 -w "$TMP/all.pcapng" -c 8000 >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 2 || return 1
	# the third reader: it starts the frames and checks every one of them as they come
	$RINGCHECK --dev mgt0 --count 8000 >"$TMP/rc" || { cat "$TMP/rc"; return 1; }
	wait $dump || { cat "$TMP/d"; return 1; }
	$PCAPCHECK "$TMP/all.pcapng" --queues 1 --count 8000 --snaplen 96 --unmerged || return 1
	dropped=$(reader_field "$tpid" 3)
	say "the stalled reader's ring: $(reader_field "$tpid" 1) captured, $dropped dropped"
	[ "$dropped" = 1102 ] || bad "the stalled reader dropped $dropped frames, not 1102"
	# it wakes up, reads what its ring kept, and counts the rest as dropped
	kill -CONT "$tpid"
	wait_for 30000 "the woken reader to read its ring" read_all "$tpid" || return 1
	kill -INT "$tpid"
	wait_end stalled
	written=$(capinfos -Mc "$TMP/stalled.pcap" | awk '/Number of packets/ {print $NF}')
	kernel=$(awk '/dropped by kernel/ {print $1}' "$TMP/stalled")
	say "tcpdump wrote $written frames and reports $kernel dropped"
	[ "$kernel" = "$dropped" ] || bad "tcpdump reports $kernel dropped, mgcap show $dropped"
	[ $((written + kernel)) = 8000 ] || bad "written + dropped = $((written + kernel)), not 8000"
}

t_readers_come_and_go_during_traffic() {
	# In drop mode: the stack would take each of these frames for another
	# host and give it a route of its own, freed after an RCU grace period.
	# On PREEMPT_RT, the NET_RX work ran in a virtio interrupt thread
	# (SCHED_FIFO 50) that starved the RCU callback threads (FIFO 1): the
	# routes piled up until the 1 GiB guest ran out of memory and panicked
	# (6.1 RT, twice in two runs on a fast host).
	setup 2 && $MGCAP start mgt0 ring-size 256K mode drop >/dev/null || return 1
	# more than the rounds take, the rest stopped after them
	echo "all 10000000" >/sys/class/net/mgt0/mgtestnic/generate
	for round in 1 2 3 4 5; do
		for q in 0 1; do
			wait_start r$q $WAIT /dev/mgcap/mgt0@$q records 100000000 60 || return 1
		done
		start_tcpdump t$round -i mgcap:mgt0 -w /dev/null || return 1
		wait_for 30000 "reader 0 of round $round to read" reader_reading "$pid_r0" ||
			return 1
		# killed, interrupted, and one left to close at exit
		kill -9 $pid_r0
		eval "kill -INT \$pid_t$round"
		wait_end r0
		wait_end "t$round" || bad "tcpdump $round did not end cleanly"
		kill -TERM $pid_r1
		wait_end r1
	done
	$MGCAP -j show mgt0 | grep -q '"readers":\[\]' || bad "readers still listed after they left"
	# the traffic lasted the rounds (then the rest of it goes)
	grep -q '[1-9]' /sys/class/net/mgt0/mgtestnic/pending || bad "the traffic ended before the rounds"
	echo stop >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 || return 1
	# stop with several readers on each queue: every one of them sees the end
	for n in 1 2 3; do
		for q in 0 1; do wait_start h$n$q $WAIT /dev/mgcap/mgt0@$q hup 30 || return 1; done
	done
	echo "all 100000" >/sys/class/net/mgt0/mgtestnic/generate
	$MGCAP stop mgt0 || return 1
	for n in 1 2 3; do
		for q in 0 1; do wait_end h$n$q || bad "reader $n of queue $q missed the stop"; done
	done
	# a move to another namespace and an unregister, each with several readers open
	$MGCAP start mgt0 >/dev/null || return 1
	for n in 1 2 3; do wait_start m$n $WAIT /dev/mgcap/mgt0@1 hup 30 || return 1; done
	ip netns add t1 && ip link set mgt0 netns t1 || return 1
	for n in 1 2 3; do wait_end m$n || bad "reader $n missed the move"; done
	ip netns del t1
	wait_for 10000 "mgt0 back home" test -e /sys/class/net/mgt0 || return 1
	ip link set mgt0 up && $MGCAP start mgt0 >/dev/null || return 1
	for n in 1 2 3; do wait_start u$n $WAIT /dev/mgcap/mgt0@0 hup 30 || return 1; done
	echo "all 100000" >/sys/class/net/mgt0/mgtestnic/generate
	rmmod mgtestnic || return 1
	for n in 1 2 3; do wait_end u$n || bad "reader $n missed the unregister"; done
	rmmod mgcap || bad "rmmod after every reader left"
}

# open_readers NAME MAX [WHO...]: readers of mgt0's queue 0 (mgcap-wait,
# run by WHO, such as setpriv as nobody), opened one after another until
# one is refused or MAX are open; their count in $opened, the refused one's
# words in $TMP/NAME$opened
open_readers() {
	name=$1
	max=$2
	shift 2
	opened=0
	while [ $opened -lt "$max" ]; do
		"$@" $WAIT /dev/mgcap/mgt0@0 hup 60 >"$TMP/$name$opened" 2>&1 &
		wait_for 30000 "reader $opened ready or refused" \
			shows "$TMP/$name$opened" "ready\|mgcap-wait:" || return 1
		grep -q ready "$TMP/$name$opened" || break
		opened=$((opened + 1))
	done
}

t_readers_beyond_memory_are_refused() {
	# 128 MiB rings in a 1 GiB guest: a reader whose ring would take more than
	# half of the memory still available is refused, never the OOM killer
	setup 1 && $MGCAP start mgt0 ring-size 128M >/dev/null || return 1
	open_readers g 8
	say "$opened readers with 128 MiB rings; then: $(cat "$TMP/g$opened")"
	[ $opened -ge 2 ] || bad "fewer than 2 readers of 128 MiB fit in 1 GiB"
	[ $opened -lt 8 ] || bad "8 readers of 128 MiB in 1 GiB: nothing was refused"
	grep -q "no memory for another reader's ring" "$TMP/g$opened" || bad "no clear error"
	dmesg | grep -qi "out of memory\|oom-killer" && bad "the OOM killer ran"
	$MGCAP stop mgt0 || return 1
	wait
}

# What members of the group mgcap (nobody here, with the node's group
# permission as the packages' udev rule gives it) can take: every reader
# place of a queue but the last, which root still gets; and a quarter of
# the ring memory mgcap may use (half of the RAM), which leaves root's
# START and readers theirs.
t_readers_a_member_leaves_root_a_place_and_memory() {
	setup 1 2 && $MGCAP start mgt0 ring-size 1M >/dev/null || return 1
	# (after udev: a rule of installed packages would make it the group's)
	udevadm settle -t 10 2>/dev/null
	chmod 0666 /dev/mgcap/mgt0@0 || return 1
	member="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	max=$(cat /sys/module/mgcap/parameters/max_readers)
	open_readers place "$max" $member
	[ "$opened" = $((max - 1)) ] ||
		bad "a member opened $opened of the $max places (want all but the last)"
	grep -q "the last place is kept for CAP_NET_ADMIN" "$TMP/place$opened" ||
		bad "the refusal does not say why: $(cat "$TMP/place$opened")"
	$WAIT /dev/mgcap/mgt0@0 first 0 >"$TMP/root" 2>&1
	grep -q ready "$TMP/root" || bad "root did not get the last place: $(cat "$TMP/root")"
	say "a member: $opened of $max places; root the last"
	$MGCAP stop mgt0 >/dev/null && wait

	# rings of 64 MiB: the member's first reader reads the capture's ring,
	# each further one makes its own, while their share lasts
	$MGCAP start mgt0 ring-size 64M >/dev/null || return 1
	# (after udev: a rule of installed packages would make it the group's)
	udevadm settle -t 10 2>/dev/null
	chmod 0666 /dev/mgcap/mgt0@0 || return 1
	share=$(awk '/^MemTotal:/ { print int($2 * 1024 / 8) }' /proc/meminfo)
	want=$((1 + share / (64 * 1048576 + 4096)))
	[ $want -gt $((max - 1)) ] && want=$((max - 1))
	open_readers mem "$max" $member
	[ "$opened" = "$want" ] ||
		bad "a member opened $opened readers of 64 MiB rings (want $want: a quarter of half of the RAM)"
	grep -q "no memory for another reader's ring" "$TMP/mem$opened" ||
		bad "the member's refusal: $(cat "$TMP/mem$opened")"
	$MGCAP start mgt1 ring-size 64M >/dev/null || bad "root's START failed beside the member's rings"
	$WAIT /dev/mgcap/mgt0@0 first 0 >"$TMP/root" 2>&1
	grep -q ready "$TMP/root" || bad "root's reader had no ring: $(cat "$TMP/root")"
	say "a member: $opened readers of 64 MiB rings (1 + $((want - 1)) of its own); root's START and reader theirs"
	$MGCAP stop mgt0 >/dev/null && $MGCAP stop mgt1 >/dev/null
	wait
}

# A member's rings are its memory cgroup's: 8 MiB allow no 16 MiB ring (and
# no OOM killer runs for it).
t_readers_a_members_rings_are_its_cgroups() {
	cg=/sys/fs/cgroup
	[ -e $cg/cgroup.controllers ] || mount -t cgroup2 none $cg || return 1
	if ! grep -qw memory $cg/cgroup.controllers; then
		skip "this kernel has no memory cgroup controller (CONFIG_MEMCG)"
		return 0
	fi
	setup 1 && $MGCAP start mgt0 ring-size 16M >/dev/null || return 1
	# (after udev: a rule of installed packages would make it the group's)
	udevadm settle -t 10 2>/dev/null
	chmod 0666 /dev/mgcap/mgt0@0 || return 1
	member="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	max=$(cat /sys/module/mgcap/parameters/max_readers)
	echo +memory >$cg/cgroup.subtree_control && mkdir -p $cg/mgcap-member &&
		echo 8M >$cg/mgcap-member/memory.max || return 1
	open_readers cg "$max" sh -c "echo \$\$ >$cg/mgcap-member/cgroup.procs && exec $member \"\$@\"" sh
	[ "$opened" = 1 ] || bad "a member limited to 8 MiB opened $opened readers of 16 MiB rings (want 1)"
	grep -q "no memory for another reader's ring" "$TMP/cg$opened" ||
		bad "the cgroup's refusal: $(cat "$TMP/cg$opened")"
	dmesg | grep -qi "out of memory\|oom-killer\|oom_kill" && bad "the OOM killer ran"
	say "a member in a cgroup of 8 MiB: $opened reader (the capture's ring), then refused"
	$MGCAP stop mgt0 >/dev/null
	wait
	rmdir $cg/mgcap-member
}

# reader_filtered PID: frames the kernel filter of reader PID rejected, over its queues
reader_filtered() {
	$MGCAP show | awk -v pid="$1" '$6 == "pid" && $7 == pid {
		for (i = 8; i < NF; i++) if ($i == "filtered") s += $(i + 2)
	} END {print s + 0}'
}

# reader_filter_len PID: instructions of the kernel filter of reader PID (queue 0)
reader_filter_len() {
	$MGCAP show | awk -v pid="$1" '$6 == "pid" && $7 == pid {
		for (i = 8; i < NF; i++) if ($i == "filter") {print $(i + 1); exit}
	}'
}

# filtered_capture NAME FILTER: tcpdump with FILTER over 2 x 2000 frames; sets
# $captured and $filtered as the kernel counted them for it, before it exits
filtered_capture() {
	start_tcpdump "$1" -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano \
		-w "$TMP/$1.pcap" "$2" || return 1
	tpid=$(tcpdump_pid "$1")
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_for 30000 "tcpdump to read its ring" read_all "$tpid" || return 1
	captured=$(reader_field "$tpid" 1)
	filtered=$(reader_filtered "$tpid")
	filter_len=$(reader_filter_len "$tpid")
	say "'$2': $captured frames into the ring, $filtered rejected by a kernel filter" \
		"of $filter_len instructions"
	kill -INT "$tpid"
	wait_end "$1"
}

t_readers_kernel_filter_rejects_before_the_ring() {
	# Drop mode: the merged read of a burst holds a quiet queue 100 ms at
	# most, and on the KASAN kernel, beside two other VMs, a NAPI poll of
	# frames through the stack (mirror mode) took longer: 86 frames out of
	# stamp order in the unfiltered capture (make check-debug, stop 47)
	setup 2 && $MGCAP start mgt0 mode drop >/dev/null || return 1
	filtered_capture port 'udp src port 10001' || return 1
	[ "$captured" = 2000 ] && [ "$filtered" = 2000 ] ||
		bad "the kernel let $captured through and rejected $filtered, not 2000 and 2000"
	[ "$filter_len" -gt 1 ] || bad "a filter of $filter_len instructions in the kernel"
	$PCAPCHECK "$TMP/port.pcap" --queues 2 --count 2000 --only-queue 1 || return 1
	# no expression: tcpdump's program keeps every frame, not worth running in
	# the kernel (a new capture each time: the first reader's counters are the
	# capture ring's)
	$MGCAP stop mgt0 && $MGCAP start mgt0 mode drop >/dev/null || return 1
	filtered_capture all '' || return 1
	[ "$captured" = 4000 ] && [ "$filtered" = 0 ] && [ "$filter_len" = 0 ] ||
		bad "no expression: $captured through, $filtered rejected, a kernel filter of" \
			"$filter_len instructions; not 4000, 0 and 0"
	$PCAPCHECK "$TMP/all.pcap" --queues 2 --count 2000 || return 1
	# tags the NIC stripped: the program cannot see them, so the kernel lets
	# every frame through and tcpdump's own copy of the filter decides
	$MGCAP stop mgt0 && $MGCAP start mgt0 mode drop >/dev/null || return 1
	echo 10 >/sys/class/net/mgt0/mgtestnic/vlan_tci
	filtered_capture vlan 'vlan 10 and udp src port 10001' || return 1
	[ "$captured" = 4000 ] && [ "$filtered" = 0 ] ||
		bad "tagged frames: $captured through, $filtered rejected, not 4000 and 0"
	$PCAPCHECK "$TMP/vlan.pcap" --queues 2 --count 2000 --only-queue 1 --vlan 10
}

t_readers_details_only_for_cap_net_admin() {
	# like ls -l /dev/mgcap, anyone may see the captures, queues and
	# counters; who reads and how (pid, comm, snaplen, filter) only
	# CAP_NET_ADMIN in the device's namespace
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	start_tcpdump td -i mgcap:mgt0 -s 80 -w /dev/null 'udp src port 10001' || return 1
	tpid=$(tcpdump_pid td)
	wait_readers mgt0 || return 1
	echo "all 10" >/sys/class/net/mgt0/mgtestnic/generate && wait_idle mgt0 || return 1
	# read, so that both looks see the same counters (tcpdump reads at its timeout)
	wait_drained || return 1
	for who in root user; do
		as=
		[ $who = user ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups
			--inh-caps=-all --bounding-set=-all"
		$as $MGCAP show mgt0 >"$TMP/$who" 2>&1 || bad "$who: mgcap show: $(cat "$TMP/$who")"
		$as $MGCAP -j show >"$TMP/$who.json" 2>&1 || bad "$who: mgcap -j show failed"
	done
	# root: each queue's reader, who it is and how it reads
	n=$(grep -c " pid $tpid tcpdump, snaplen 80, filter [1-9][0-9]* insns" "$TMP/root")
	[ "$n" = 2 ] || { cat "$TMP/root"; bad "root sees $n of 2 readers in full"; }
	grep -q '"comm":"tcpdump","snaplen":80,' "$TMP/root.json" || bad "root: no comm in JSON"
	# an administrator in a pid namespace of its own (a container's): how,
	# but not which process of the host reads
	unshare --pid --fork --mount-proc $MGCAP show mgt0 >"$TMP/pidns" 2>&1 ||
		bad "mgcap show in a pid namespace: $(cat "$TMP/pidns")"
	n=$(grep -c " a process outside this pid namespace, snaplen 80, filter [1-9]" "$TMP/pidns")
	[ "$n" = 2 ] && ! grep -q tcpdump "$TMP/pidns" ||
		bad "in another pid namespace: $(cat "$TMP/pidns")"
	# the user: the queues, their counters and each reader's, nothing of who or how
	sed 's/^/      /' "$TMP/user"
	grep -q "^mgt0: mode mirror, 2 queues" "$TMP/user" || bad "the user sees no capture"
	[ "$(grep -c " /dev/mgcap/mgt0@[01]$" "$TMP/user")" = 2 ] || bad "the user sees no queues"
	n=$(awk 'NF == 9 && $6 " " $7 " " $8 == "out of order" {n++} END {print n + 0}' "$TMP/user")
	[ "$n" = 2 ] || bad "the user sees $n of 2 readers' counters"
	! grep -q "tcpdump\| pid \|insns\|filtered" "$TMP/user" || bad "the user sees reader details"
	! grep -q '"pid"\|"comm"\|"filter_len"\|"filtered"\|"snaplen":80' "$TMP/user.json" ||
		bad "the user sees reader details in JSON"
	python3 -c '
import json, sys
readers = [[r for q in json.load(open(f))[0]["queues"] for r in q["readers"]]
           for f in sys.argv[1:]]
user, root = readers
counters = {"captured", "bytes", "dropped", "fill", "high_water", "coalesced", "sent",
            "out_of_order"}
assert len(user) == 2 and all(set(r) == counters for r in user), user
assert [[r[k] for k in counters] for r in user] == [[r[k] for k in counters] for r in root]
' "$TMP/user.json" "$TMP/root.json" || bad "the user's JSON: $(cat "$TMP/user.json")"
	kill -INT "$tpid"
	wait_end td
}

# show_lists_readers N: with N tcpdumps reading every queue of mgt0 (64
# queues), every form of mgcap show lists each queue and reader
show_lists_readers() {
	n=1
	while [ $n -le "$1" ]; do
		start_tcpdump s$n -i mgcap:mgt0 -w /dev/null || return 1
		n=$((n + 1))
	done
	wait_readers mgt0 "$1" || return 1
	for how in "show" "show mgt0"; do
		$MGCAP $how >"$TMP/show" 2>&1 || { cat "$TMP/show"; bad "mgcap $how failed"; continue; }
		queues=$(grep -c " /dev/mgcap/mgt0@" "$TMP/show")
		readers=$(grep -c " pid [0-9]* tcpdump, " "$TMP/show")
		say "mgcap $how: $queues queues, $readers readers listed"
		[ "$queues" = 64 ] && [ "$readers" = $((64 * $1)) ] || {
			head -5 "$TMP/show"
			bad "mgcap $how listed $queues queues and $readers readers, not 64 and $((64 * $1))"
		}
	done
	$MGCAP -j show >"$TMP/json" || return 1
	[ "$(grep -o '"pid":' "$TMP/json" | wc -l)" = $((64 * $1)) ] || bad "mgcap -j show lost readers"
	pkill -INT -x tcpdump
	n=1
	while [ $n -le "$1" ]; do
		wait_end s$n || bad "tcpdump $n did not end cleanly"
		n=$((n + 1))
	done
}

t_readers_show_of_64_queues_with_4_readers_each() {
	# about 37 KiB of netlink attributes: more than one dump message holds
	setup 64 && $MGCAP start mgt0 ring-size 64K >/dev/null || return 1
	show_lists_readers 4
}

t_readers_show_of_a_capture_beyond_64_kib() {
	# 64 queues with 10 readers each, some 78 KiB: more than one attribute's
	# 16-bit length can hold, so more than one device's reply can
	insmod "$NIC" queues=64 && ip link set mgt0 up && insmod "$KO" max_readers=10 || return 1
	$MGCAP start mgt0 ring-size 64K >/dev/null || return 1
	show_lists_readers 10
}

run_suite "$@"
