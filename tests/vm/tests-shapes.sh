#!/bin/sh
# Traffic as real links make it: one flow on one queue with the others
# quiet, both ports of a tap busy at once.  What a merged read loses, it
# loses for the rings, never for the order.
#   sh tests/vm/tests-shapes.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_merged_read_with_three_quiet_queues_loses_no_more_than_one_queue
	t_merged_read_beside_a_trickling_queue_loses_no_more_than_one_queue
	t_merged_read_of_a_busy_and_a_quiet_device_loses_no_more_than_one_queue
	t_paced_stream_mgcap_keeps_what_af_packet_keeps
	t_late_frames_counted_out_of_order_in_mgcap_show
	t_lone_frames_on_a_quiet_device_not_held_for_the_order
	t_mgdump_reads_from_the_moment_its_sources_are_open
	t_mgdump_two_busy_devices_merged_in_true_time_order
"
USER_SPACE_TESTS="
	t_mgdump_two_busy_devices_merged_in_true_time_order
"
. "$(dirname "$0")/lib.sh"

# tcpdump's own count at its end: tcpdump_count NAME captured|dropped
tcpdump_count() {
	# ("1 packet dropped by kernel": tcpdump counts in the singular too)
	case $2 in
	captured) awk '/packets? captured/ {print $1}' "$TMP/$1" ;;
	dropped) awk '/packets? dropped by kernel/ {print $1}' "$TMP/$1" ;;
	esac
}

# merged_against_one NAME SHAPE [DEVICES]: the merged read (mgcap:mgt0, or
# of DEVICES, such as mgt0,mgt1) and queue 0's alone (mgcap:mgt0@0), side
# by side on CPU 1, while SHAPE (a script, run on CPU 0, where NAPI then
# polls) puts 6000 frames of 1514 bytes on queue 0, paced at 1,000 a second,
# and what else it likes on the others.  Each reader has a 64 KiB ring a
# queue (-B 64): 42 records, 42 ms of this stream.  A read that holds
# records back for the order longer than that loses them: with the hold of
# issue 22 (100 ms from when a record was first seen) put back, each of the
# three shapes below lost 79 % of the frames (4,729), against 0-0.5 % for
# queue 0's read.  One that holds them no longer than a frame can lag loses
# what queue 0's read loses, which is next to nothing while the readers
# have the CPU (0-37 frames each; 115 and 161 with the host's other core
# busy).  A burst at full speed would leave both short of CPU instead, where
# which loses more is the scheduler's choice (12 % of the frames apart once
# in CI): the bench measures those shapes.  The allowance, 2 % of the
# frames, is one reader kept from the CPU 120 ms longer than the other.
merged_against_one() {
	devices=${3:-mgt0}
	frames=6000
	setup 4 "$(echo "$devices" | tr ',' '\n' | wc -l)" || return 1
	echo 1514 >/sys/class/net/mgt0/mgtestnic/frame_len
	echo 1000 >/sys/class/net/mgt0/mgtestnic/rate_pps
	# the first reader starts the capture with its -B
	for read in "merged:$devices" one:mgt0@0; do
		start_until "${read%%:*}" "listening on" taskset -c 1 timeout 120 \
			$RUN tcpdump -Z root -i "mgcap:${read#*:}" -B 64 -w "$TMP/${read%%:*}.pcap" ||
			return 1
	done
	taskset -c 0 sh -c "cd /sys/class/net/mgt0/mgtestnic || exit 1
		$2" || bad "$1 failed"
	wait_idle mgt0 && wait_drained || bad "the readers never caught up"
	kill -INT $pid_merged $pid_one
	wait_end merged || bad "tcpdump of mgcap:$devices did not end cleanly"
	wait_end one || bad "tcpdump of mgcap:mgt0@0 did not end cleanly"
	m_cap=$(tcpdump_count merged captured) m_drop=$(tcpdump_count merged dropped)
	o_cap=$(tcpdump_count one captured) o_drop=$(tcpdump_count one dropped)
	others=$(($(cut -d' ' -f2- /sys/class/net/mgt0/mgtestnic/generated | tr ' ' '+')))
	say "$1: of $frames frames on queue 0 and $others on the others: merged $m_cap captured," \
		"$m_drop dropped; queue 0 alone $o_cap captured, $o_drop dropped"
	[ $((m_cap + m_drop)) = $((frames + others)) ] ||
		bad "the merged read accounts for $((m_cap + m_drop)) frames"
	[ $((o_cap + o_drop)) = $frames ] || bad "the one queue's read accounts for $((o_cap + o_drop))"
	[ "$m_drop" -le $((o_drop + frames / 50)) ] ||
		bad "the merged read dropped $m_drop, the one queue's $o_drop: the order cost frames"
}

# the shape RSS makes of one big flow: every frame on queue 0, the other
# three quiet
t_merged_read_with_three_quiet_queues_loses_no_more_than_one_queue() {
	merged_against_one "three quiet queues" 'echo "0 6000" >generate'
}

# one port of a tap busy, the other quiet: a merged read of both devices
t_merged_read_of_a_busy_and_a_quiet_device_loses_no_more_than_one_queue() {
	merged_against_one "a quiet device beside" 'echo "0 6000" >generate' mgt0,mgt1
}

# a busy queue beside one that trickles (a frame every 20 ms or so, longer
# than the stream, from CPU 1: ARP, a keepalive), whose every frame starts its
# quiet time again
t_merged_read_beside_a_trickling_queue_loses_no_more_than_one_queue() {
	merged_against_one "a trickle on queue 1" '
		taskset -c 1 sh -c "for i in \$(seq 200); do echo 1 1 >generate; sleep 0.02; done" &
		# (its first frames made; the 0.02 s are its pace)
		i=0
		until [ "$(cut -d" " -f2 generated)" -gt 0 ]; do
			[ $i -lt 1000 ] || exit 1
			sleep 0.02
			i=$((i + 1))
		done
		echo "0 6000" >generate
		wait'
}

# a paced stream (1,000 frames of 1514 bytes a second on queue 0, 4 s):
# AF_PACKET (mgt0), the merged read and queue 0's read, side by side on
# CPU 1, each with -B 1024 and the test NIC's frames alone (AF_PACKET sees
# what the stack sends too); what AF_PACKET keeps, mgcap keeps too (the
# readers sleep between the kernel's wakeups, about 170 ms apart, and the
# rings must carry what comes meanwhile).  The rate leaves CPU 1 room on a
# slow host: at 3,000 a second, with the host's other core busy, the three
# readers were short of CPU and lost 4-14 % each, which of them the most
# as the scheduler had it (what the shapes above measure, with allowances)
t_paced_stream_mgcap_keeps_what_af_packet_keeps() {
	setup 4 || return 1
	echo 1514 >/sys/class/net/mgt0/mgtestnic/frame_len
	echo 1000 >/sys/class/net/mgt0/mgtestnic/rate_pps
	for read in merged:mgcap:mgt0 one:mgcap:mgt0@0 afp:mgt0; do
		start_until "${read%%:*}" "listening on" taskset -c 1 timeout 120 \
			$RUN tcpdump -Z root -i "${read#*:}" -Q in -B 1024 -w "$TMP/${read%%:*}.pcap" \
			"udp dst port 5555" ||
			return 1
	done
	t0=$(date +%s%N)
	taskset -c 0 sh -c 'echo "0 4000" >/sys/class/net/mgt0/mgtestnic/generate'
	wait_idle mgt0 || bad "the generator never finished"
	took_ms=$((($(date +%s%N) - t0) / 1000000))
	wait_drained || bad "the readers never caught up"
	sleep 1.2	# AF_PACKET hands its last block over at libpcap's timeout
	kill -INT $pid_merged $pid_one $pid_afp
	line=""
	for r in merged one afp; do
		wait_end $r || bad "tcpdump ($r) did not end cleanly"
		eval "${r}_cap=\$(tcpdump_count $r captured)"
		line="$line $r $(tcpdump_count $r captured)"
	done
	say "4000 frames paced at 1000/s took ${took_ms} ms; captured:$line"
	[ "$took_ms" -ge 3900 ] || bad "4000 frames at 1000/s took $took_ms ms"
	[ "$afp_cap" -gt 0 ] || bad "AF_PACKET captured nothing"
	[ "$merged_cap" -ge "$afp_cap" ] || bad "the merged read kept $merged_cap, AF_PACKET $afp_cap"
	[ "$one_cap" -ge "$afp_cap" ] || bad "queue 0's read kept $one_cap, AF_PACKET $afp_cap"
}

# the reader line under queue Q's in mgcap show DEV (run as root: its details shown)
reader_line() {
	$MGCAP show "$1" | awk -v q="$2" '$1 == q && $NF ~ /^\/dev\/mgcap\// {getline; print; exit}'
}

# a quiet queue that speaks late: queue 0's 3,000 frames went out (queue 1
# quiet, nothing to wait for past the hold), then queue 1's 5, stamped before
# all but the first 5 of them (the test NIC stamps frame S at S us; its stamps
# are the order's, with -j adapter_unsynced): each goes
# as it comes, counted out of order under queue 1's reader in mgcap show
# while tcpdump reads, and in its close report; the next reader of the same
# rings counts from 0
t_late_frames_counted_out_of_order_in_mgcap_show() {
	# started apart, so that its rings outlive the reader: the next starts from 0
	setup 2 && $MGCAP start mgt0 >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	start_until merged "listening on" timeout 120 $RUN tcpdump -Z root -i mgcap:mgt0 \
		-j adapter_unsynced -w "$TMP/merged.pcap" || return 1
	echo "0 3000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_drained || bad "queue 0's frames never went out"
	echo "1 5" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_drained || bad "queue 1's frames never went out"
	q0=$(reader_line mgt0 0) q1=$(reader_line mgt0 1)
	say "queue 0's reader: $q0"
	say "queue 1's reader: $q1"
	case $q1 in *" tcpdump, "*", out of order 5") ;; *) bad "queue 1's reader: $q1" ;; esac
	case $q0 in *", out of order 0") ;; *) bad "queue 0's reader: $q0" ;; esac
	kill -INT $pid_merged
	wait_end merged || bad "tcpdump did not end cleanly"
	grep -q "^mgcap: mgcap:mgt0: 5 frames delivered out of stamp order$" "$TMP/merged" ||
		bad "no close report of the 5"
	start_until next "listening on" timeout 120 $RUN tcpdump -Z root -i mgcap:mgt0 \
		-w "$TMP/next.pcap" || return 1
	q1=$(reader_line mgt0 1)
	case $q1 in *" tcpdump, "*", out of order 0") ;; *) bad "the next reader: $q1" ;; esac
	kill -INT $pid_next
	wait_end next || bad "the next tcpdump did not end cleanly"
}

# A live viewer of a quiet link: lone frames on queue 1 of four, the first
# right after the open, tcpdump in immediate mode writing each at once.  The
# other queues have shown nothing since the open: idle, they hold a frame for
# an idle queue's lag (10 ms), not for the hold, here as long as tcpdump's
# read timeout lets it be (1 s).  Each frame's way, from its kernel stamp
# (host stamps: the system time at which it reached the capture) to the
# file's modification time after tcpdump wrote it (the kernel's coarse
# clock: a tick early or so), takes under 300 ms.
t_lone_frames_on_a_quiet_device_not_held_for_the_order() {
	setup 4 && $MGCAP start mgt0 >/dev/null || return 1
	capture env MGCAP_MERGE_HOLD_MS=60000 tcpdump -i mgcap:mgt0 --immediate-mode -U \
		--time-stamp-precision=nano -Z root -c 3 -w "$TMP/out.pcap" || return 1
	: >"$TMP/written"
	for i in 1 2 3; do
		size=$(stat -c %s "$TMP/out.pcap")
		echo "1 1" >/sys/class/net/mgt0/mgtestnic/generate
		wait_for 5000 "lone frame $i written" size_not "$TMP/out.pcap" "$size" || return 1
		stat -c %.9Y "$TMP/out.pcap" >>"$TMP/written"
		sleep 0.3	# a duration: the frames lone, apart
	done
	wait $client || { cat "$TMP/client"; return 1; }
	tcpdump -r "$TMP/out.pcap" -tt --nano -n 2>/dev/null | cut -d' ' -f1 >"$TMP/stamped"
	[ "$(wc -l <"$TMP/stamped")" = 3 ] || bad "$(wc -l <"$TMP/stamped") frames, not 3"
	paste "$TMP/stamped" "$TMP/written" | awk '{
		ms = ($2 - $1) * 1000
		printf "    lone frame %d: written %.1f ms after its stamp\n", NR, ms
		if (ms >= 300 || ms < -20)
			late = 1
	} END { exit late }' || bad "a lone frame waited 300 ms or more (held for the order)," \
		"or was written before its stamp"
}

size_not() { [ "$(stat -c %s "$1")" != "$2" ]; }	# size_not FILE BYTES: FILE's size is not BYTES

# mgdump's buffer (256 MiB by default) takes a while to fault in (about a
# second here): done after its source was open, it left the ring unread for
# that long.  A stream of about 5,000 frames a second runs from before
# mgdump starts until 2 s after its open: with a 1 MiB ring (692 full
# frames, 138 ms), none of what it received may be dropped (before the fix,
# 4,831 of 5,000 were, with a 256 KiB ring and the stream started at the
# open).  The stream is fed in steps until then, however long mgdump takes
# to start.
t_mgdump_reads_from_the_moment_its_sources_are_open() {
	setup 1 && $MGCAP start mgt0 ring-size 1M >/dev/null || return 1
	echo 1514 >/sys/class/net/mgt0/mgtestnic/frame_len
	echo 5000 >/sys/class/net/mgt0/mgtestnic/rate_pps
	(while [ ! -e "$TMP/stream-end" ]; do
		echo "0 500" >/sys/class/net/mgt0/mgtestnic/generate
		sleep 0.1	# a duration: the feeder's steps
	done) &
	feeder=$!
	wait_for 10000 "the stream under way" at_least 500 frames_made mgt0 || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/out.pcapng" >"$TMP/mgdump" 2>&1 &
	pid_mgdump=$!
	wait_readers mgt0 && sleep 2	# a duration: the stream on for 2 s after the open
	: >"$TMP/stream-end"
	wait $feeder
	wait_idle mgt0 && wait_drained || bad "mgdump never caught up"
	kill -INT $pid_mgdump
	wait_end mgdump || bad "mgdump did not end cleanly"
	mgdump_summary "$TMP/mgdump"
	say "mgdump started into the stream: $written written of $received received"
	[ "${received:-0}" -ge 2000 ] || bad "mgdump read only ${received:-no} frames of the stream"
	[ "$written" = "$received" ] && [ "$ringdrop" = 0 ] && [ "$bufdrop" = 0 ] ||
		bad "mgdump lost frames at its start: $summary"
}

# both ports of a tap busy at once, their clocks 1 s apart: mgdump --merged
# writes every frame of both in true time order (its devices ordered by the
# library's merge, as mgcap:mgt0,mgt1 is)
t_mgdump_two_busy_devices_merged_in_true_time_order() {
	tap_setup || return 1
	timeout 120 $MGDUMP -i mgt0 -i mgt1 --merged --tstamp adapter -w "$TMP/out.pcapng" \
		-c 12000 -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt1 && mgdump_reading "$TMP/out.pcapng" ||
		{ bad "mgdump never read every queue: $(cat "$TMP/d")"; return 1; }
	echo "all 3000" >/sys/class/net/mgt0/mgtestnic/generate
	echo "all 3000" >/sys/class/net/mgt1/mgtestnic/generate
	wait $dump || { bad "mgdump exited with $?: $(cat "$TMP/d"); $($MGCAP show)"; return 1; }
	check=$($PCAPCHECK "$TMP/out.pcapng" --queues 2 --devices 2 --count 3000 --truth 10000) ||
		bad "$check"
	say "$(echo "$check" | sed -n 's/.*truth: //p')"
}

run_suite "$@"
