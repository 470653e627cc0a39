#!/bin/sh
# mgdump's tests.  Frames are generated only once mgdump reads every queue
# (wait_readers): activation discards what came before.
#   sh tests/vm/tests-mgdump.sh [TEST...]     (in the VM; lib.sh)
ALL_TESTS="
	t_mgdump_every_frame_per_queue
	t_mgdump_per_queue_files_with_one_copy
	t_mgdump_per_queue_rotation_loses_nothing
	t_mgdump_per_queue_waits_out_a_full_disk
	t_mgdump_per_queue_small_ring_counts_every_frame
	t_mgdump_per_queue_keeps_its_files_under_max_disk_and_max_age
	t_mgdump_per_queue_tells_systemd_it_is_ready_and_alive
	t_mgdump_per_queue_killed_leaves_only_complete_files
	t_mgdump_merged_in_stamp_order
	t_mgdump_rotation_loses_nothing
	t_mgdump_rotation_by_time_with_a_command_per_file
	t_mgdump_killed_leaves_only_complete_files
	t_mgdump_keeps_its_files_under_max_disk_and_max_age
	t_mgdump_tells_systemd_it_is_ready_and_alive
	t_mgdump_to_stdout
	t_mgdump_stops_cleanly_on_sigint
	t_mgdump_bad_input
	t_mgdump_s_0_records_whole_frames
	t_mgdump_Z_runs_as_the_user_with_one_capability
	t_mgdump_decapsulates_erspan
	t_mgdump_buffer_absorbs_a_stalled_writer
	t_mgdump_waits_out_a_full_disk
	t_mgdump_on_any_libpcap_device
	t_mgcap_extract_reads_only_what_the_index_points_to
	t_mgcap_extract_reads_per_queue_files_by_their_indexes
"
USER_SPACE_TESTS="
	t_mgdump_per_queue_rotation_loses_nothing t_mgdump_per_queue_waits_out_a_full_disk
	t_mgdump_per_queue_small_ring_counts_every_frame
	t_mgdump_per_queue_keeps_its_files_under_max_disk_and_max_age
	t_mgdump_per_queue_tells_systemd_it_is_ready_and_alive
	t_mgdump_per_queue_killed_leaves_only_complete_files
	t_mgdump_rotation_loses_nothing t_mgdump_rotation_by_time_with_a_command_per_file
	t_mgdump_killed_leaves_only_complete_files t_mgdump_keeps_its_files_under_max_disk_and_max_age
	t_mgdump_tells_systemd_it_is_ready_and_alive t_mgdump_to_stdout t_mgdump_stops_cleanly_on_sigint
	t_mgdump_bad_input t_mgdump_s_0_records_whole_frames
	t_mgdump_Z_runs_as_the_user_with_one_capability
	t_mgdump_decapsulates_erspan t_mgdump_buffer_absorbs_a_stalled_writer
	t_mgdump_waits_out_a_full_disk t_mgdump_on_any_libpcap_device
	t_mgcap_extract_reads_only_what_the_index_points_to
	t_mgcap_extract_reads_per_queue_files_by_their_indexes
"
. "$(dirname "$0")/lib.sh"

t_mgdump_every_frame_per_queue() {
	setup 4 && $MGCAP start mgt0 >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/out.pcapng" -c 8000 -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || { cat "$TMP/d"; return 1; }
	# one interface per queue, nanoseconds, whole frames by default
	capinfos "$TMP/out.pcapng" >"$TMP/ci" || return 1
	grep -q "nanoseconds (9)" "$TMP/ci" || bad "not nanoseconds"
	grep -q "Number of interfaces in file: 4" "$TMP/ci" || bad "not 4 interfaces"
	grep -q "Name = mgt0@3" "$TMP/ci" || bad "no interface mgt0@3"
	$PCAPCHECK "$TMP/out.pcapng" --queues 4 --count 2000 --snaplen 262144 --unmerged
}

# on_disk TEST: TEST run with $TMP/disk an ext4 file system on a loop
# device (O_DIRECT, as on a disk) of $DISK_SIZE (512M), which goes after it
# whatever it did.  A kernel without ext4 (the debug kernel's) gets tmpfs,
# without O_DIRECT before 6.6: $DISK_DIRECT says which
on_disk() {
	modprobe loop 2>/dev/null
	modprobe ext4 2>/dev/null
	mkdir "$TMP/disk" || return 1
	if grep -qw ext4 /proc/filesystems; then
		DISK_DIRECT=1
		truncate -s "${DISK_SIZE:-512M}" "$TMP/disk.img" && mkfs.ext4 -q "$TMP/disk.img" &&
			mount -o loop "$TMP/disk.img" "$TMP/disk" || return 1
	else
		DISK_DIRECT=0
		say "no ext4: tmpfs (written through the page cache where it takes no O_DIRECT)"
		mount -t tmpfs -o size="${DISK_SIZE:-512M}" tmpfs "$TMP/disk" || return 1
	fi
	"$@"
	o_status=$?
	umount "$TMP/disk" || bad "$TMP/disk stays mounted"
	return $o_status
}

# --per-queue: each queue's file written from its pcapng ring with O_DIRECT
# (several writes in flight, through io_uring), on ext4 over a loop device
# (tmpfs takes no O_DIRECT on 6.1), beside today's mgdump reading the same
# frames: the same frames, every byte, each stamp the NIC's converted to
# system time (by the kernel, on mgdump's line) within 10 us of its truth;
# whole pages, fillers between, which libpcap, capinfos, tshark and
# mergecap read through
t_mgdump_per_queue_files_with_one_copy() {
	setup 4 && $MGCAP start mgt0 >/dev/null || return 1
	echo 1 >/sys/class/net/mgt0/mgtestnic/phc_stamps &&
		echo extended >/sys/class/net/mgt0/mgtestnic/phc_best || return 1
	on_disk per_queue_beside_today
}
per_queue_beside_today() {
	calls_counted mgcap_ring_mem_write || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/disk/q.pcapng" --per-queue >"$TMP/d" 2>&1 &
	dump=$!
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/old.pcapng" -c 8000 -q >"$TMP/old" 2>&1 &
	old=$!
	wait_readers mgt0 2 && wait_for 10000 "the last queue's file" has_bytes \
		"$TMP/disk/q.mgt0@3.pcapng" && mgdump_reading "$TMP/old.pcapng" ||
		{ kill $dump $old; return 1; }
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $old || bad "today's mgdump: $(cat "$TMP/old")"
	kill -INT $dump
	wait $dump || bad "mgdump --per-queue: $(cat "$TMP/d")"
	[ "$DISK_DIRECT" = 0 ] || ! grep -q "O_DIRECT" "$TMP/d" || bad "$(grep O_DIRECT "$TMP/d")"
	# (several writes in flight: every guest kernel has io_uring)
	! grep -q "no io_uring" "$TMP/d" || bad "$(grep "no io_uring" "$TMP/d")"
	# the module wrote the ring's pages (each queue's at least once, at its end),
	# not the kernel from the mapping, which it does where the module says no
	writes=$(calls mgcap_ring_mem_write)
	[ "${writes:-0}" -ge 4 ] || bad "the module made ${writes:-no} writes of 4 queues' pages"
	for q in 0 1 2 3; do
		f=$TMP/disk/q.mgt0@$q.pcapng
		[ -f "$f" ] && [ ! -e "$f.part" ] || { bad "no $f: $(cat "$TMP/d")"; continue; }
		[ $(($(stat -c %s "$f") % 4096)) = 0 ] || bad "$f: $(stat -c %s "$f") bytes, not pages"
		grep -q "mgt0@$q: 2000 packets, .* 0 dropped by the ring" "$TMP/d" ||
			bad "queue $q: $(grep "mgt0@$q:" "$TMP/d")"
		check=$($PCAPCHECK "$f" --queues 4 --only-queue $q --count 2000 --truth 10000) ||
			bad "queue $q: $check"
		capinfos -c "$f" | grep -q "Number of packets: *2000" || bad "capinfos $f: $(capinfos -c "$f")"
	done
	say "$(grep "mgt0@0:" "$TMP/d"); queue 0: $(echo "$check" | sed -n 's/.*truth: //p');" \
		"$writes writes by the module"
	mergecap -w "$TMP/merged.pcapng" "$TMP"/disk/q.mgt0@*.pcapng || bad "mergecap failed"
	$PCAPCHECK "$TMP/merged.pcapng" --queues 4 --count 2000 --truth 10000 >/dev/null ||
		bad "mergecap's file: $($PCAPCHECK "$TMP/merged.pcapng" --queues 4 --count 2000 2>&1)"
	# each queue's frames as today's file's interface of it has them, byte for byte
	# (one tshark a file: each one takes seconds to start, emulated)
	for f in merged old; do
		tshark -r "$TMP/$f.pcapng" -T fields -e frame.interface_name -e frame.len \
			-e frame.packet_flags_direction -e data.data -o data.show_as_text:FALSE \
			2>/dev/null | awk -v to="$TMP/$f" '{ print >(to "." $1) }'
	done
	for q in 0 1 2 3; do
		[ "$(wc -l <"$TMP/merged.mgt0@$q")" = 2000 ] &&
			cmp -s "$TMP/merged.mgt0@$q" "$TMP/old.mgt0@$q" ||
			bad "queue $q: not today's frames: $(diff "$TMP/old.mgt0@$q" "$TMP/merged.mgt0@$q" |
				head -n 4)"
	done
	# and mgcap-extract, from the directory of the queues' files, in time order
	$EXTRACT -r "$TMP/disk" -w "$TMP/extracted.pcapng" -q || bad "mgcap-extract failed"
	$PCAPCHECK "$TMP/extracted.pcapng" --queues 4 --count 2000 --truth 10000 >/dev/null ||
		bad "mgcap-extract's file: $($PCAPCHECK "$TMP/extracted.pcapng" --queues 4 --count 2000 2>&1)"
}

# --per-queue with -C 1 and a SIGHUP: each queue's files, in order, hold
# every frame, whole (a file ends where its ring filled a page), none much
# past -C, each handed to -z once complete
t_mgdump_per_queue_rotation_loses_nothing() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	on_disk per_queue_rotation
}
per_queue_rotation() {
	printf '#!/bin/sh\necho "$1" >>%s\n' "$TMP/done" >"$TMP/z" && chmod +x "$TMP/z" || return 1
	timeout 300 $MGDUMP -i mgt0 -w "$TMP/disk/r.pcapng" --per-queue -C 1 -z "$TMP/z" \
		>"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 && wait_for 10000 "the last queue's file" has_bytes \
		"$TMP/disk/r.mgt0@1.pcapng" || { kill $dump; return 1; }
	echo "all 10000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 || { kill $dump; return 1; }
	hangup $dump
	sleep 1
	echo "all 10000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_for 20000 "mgdump to write every frame" nothing_unread ||
		{ kill $dump; return 1; }
	kill -INT $dump
	wait $dump || bad "mgdump: $(cat "$TMP/d")"
	for q in 0 1; do
		files=$(ls "$TMP"/disk/r.mgt0@$q.pcapng* | sort -V)
		n=$(echo "$files" | wc -l)
		# 1.72 MB before the SIGHUP, as much after: two files each, the SIGHUP's short
		[ "$n" -ge 4 ] || bad "queue $q: $n files, from 20,000 frames of 172 bytes, -C 1 and a SIGHUP"
		short=0
		for f in $files; do
			size=$(stat -c %s "$f")
			[ $((size % 4096)) = 0 ] || bad "$f: $size bytes, not pages"
			[ "$size" -le 1000000 ] || bad "$f: $size bytes, past -C 1"
			[ "$f" = "$(echo "$files" | tail -n 1)" ] || [ "$size" -ge 900000 ] ||
				short=$((short + 1))
			grep -qx "$f" "$TMP/done" || bad "$f was not handed to -z"
		done
		[ "$short" = 1 ] || bad "queue $q: $short files short of -C before the last, not the SIGHUP's one: $(stat -c %s $files | tr '\n' ' ')"
		$PCAPCHECK $files --queues 2 --only-queue $q --count 20000 --snaplen 262144 ||
			bad "queue $q's $n files"
		say "queue $q: $n files; $(grep "mgt0@$q:" "$TMP/d")"
	done
	[ "$(wc -l <"$TMP/done")" = "$(ls "$TMP"/disk/r.mgt0@*.pcapng* | wc -l)" ] ||
		bad "-z ran $(wc -l <"$TMP/done") times for $(ls "$TMP"/disk/r.mgt0@*.pcapng* | wc -l) files"
}

# --per-queue on a disk that fills: the file ends at its last whole block,
# what comes is dropped and counted until there is room, then a new file
# begins; every packet written or counted, every file whole, and read by
# mgcap-extract by its index where it has one
t_mgdump_per_queue_waits_out_a_full_disk() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	DISK_SIZE=8M on_disk per_queue_full_disk
}
per_queue_full_disk() {
	avail=$(df --output=avail -B1 "$TMP/disk" | tail -n 1)
	head -c $((avail - 262144)) /dev/zero >"$TMP/disk/other" || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/disk/out.pcapng" --per-queue --stats "$TMP/stats.json" \
		--index >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 && wait_for 10000 "mgdump's file" has_bytes "$TMP/disk/out.mgt0@0.pcapng" ||
		{ kill $dump; return 1; }
	echo "0 5000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_text "$TMP/d" "No space left on device: dropping packets until there is room" ||
		bad "no word of the full disk"
	wait_idle mgt0 || { kill $dump; return 1; }
	rm "$TMP/disk/other"
	# (a duration: after the next try's second, which shows nowhere until it writes)
	sleep 1.5
	echo "0 5000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_text "$TMP/d" "writing again; [1-9][0-9]* packets dropped while the disk was full" ||
		bad "it did not write again"
	wait_idle mgt0 && wait_drained || { kill $dump; return 1; }
	kill -INT $dump
	wait $dump || bad "mgdump exited $? on a full disk: $(cat "$TMP/d")"
	line=$(grep "^mgdump: mgt0@0: " "$TMP/d")
	written=$(echo "$line" | sed -n 's/.*: \([0-9]*\) packets,.*/\1/p')
	ringdrop=$(echo "$line" | sed -n 's/.* \([0-9]*\) dropped by the ring.*/\1/p')
	diskdrop=$(echo "$line" | sed -n 's/.* \([0-9]*\) for a full disk.*/\1/p')
	n=0
	for f in "$TMP"/disk/out.mgt0@0.pcapng*; do
		case $f in *.part) bad "$f left" ;; *.idx) continue ;; esac
		c=$(capinfos -c "$f" | awk '/Number of packets/ {print $NF}') || bad "$f is not whole"
		tshark -r "$f" >/dev/null 2>&1 || bad "tshark cannot read $f"
		n=$((n + ${c:-0}))
	done
	say "$line; $n packets in $(ls "$TMP"/disk/out.mgt0@0.pcapng* | grep -vc '\.idx$') files"
	[ "$n" = "$written" ] || bad "the files hold $n packets, mgdump says $written"
	# a file the disk cut short has no index (read whole), the others theirs
	$EXTRACT -r "$TMP/disk" -w "$TMP/all.pcapng" 2>"$TMP/x" || bad "mgcap-extract: $(cat "$TMP/x")"
	[ "$(capinfos -c "$TMP/all.pcapng" | awk '/Number of packets/ {print $NF}')" = "$written" ] ||
		bad "mgcap-extract by the indexes: not $written packets: $(cat "$TMP/x")"
	say "indexes: $(ls "$TMP"/disk/*.idx | wc -l); $(cat "$TMP/x")"
	# (the first burst written in part, or not at all: a write of up to a MiB
	# that finds less room keeps what it wrote, which may be nothing)
	[ "${diskdrop:-0}" -gt 0 ] && [ "$written" -ge 5000 ] ||
		bad "nothing dropped for the full disk, or too little written after it: $line"
	[ $((written + diskdrop + ringdrop)) -eq 10000 ] || bad "written + dropped != 10000: $line"
	grep -q "\"name\":\"mgt0@0\",\"received\":10000,\"sent\":0,\"written\":$written,\"dropped_ring\":$ringdrop,\"dropped_buffer\":0,\"dropped_disk_full\":$diskdrop," \
		"$TMP/stats.json" || bad "--stats: $(cat "$TMP/stats.json")"
}

t_mgdump_merged_in_stamp_order() {
	# Drop mode: a burst makes a NAPI poll of 64 frames on queue 0 before
	# queue 1's first, and the merge holds a queue that has shown nothing
	# 10 ms at most (MGCAP_ORDER_IDLE_LAG_NS, some 50 us on a real NIC).
	# With the stack behind each frame (mirror mode), the KASAN kernel's
	# poll took longer: 27 to 46 frames out of order, 2 runs in 3.
	setup 2 && $MGCAP start mgt0 mode drop >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 --merged -s 262144 -w "$TMP/out.pcapng" -c 4000 -q &
	dump=$!
	wait_readers mgt0 || return 1
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || return 1
	$PCAPCHECK "$TMP/out.pcapng" --queues 2 --count 2000 || return 1
	# what the order was worth, in the interface's statistics: nothing came late
	strings "$TMP/out.pcapng" | grep -q " 0 delivered out of stamp order" ||
		bad "statistics: $(strings "$TMP/out.pcapng" | grep 'buffer drops')"
}

t_mgdump_rotation_loses_nothing() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/rot" -C 1 -c 40000 -q &
	dump=$!
	wait_readers mgt0 || return 1
	echo "all 20000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || return 1
	files="$TMP/rot"
	for i in 1 2 3 4 5 6 7 8 9; do
		[ -f "$TMP/rot$i" ] && files="$files $TMP/rot$i"
	done
	say "files: $(echo $files | wc -w)"
	for f in $files; do
		size=$(stat -c %s "$f")
		[ "$size" -le 1000000 ] || bad "$f has $size bytes, more than -C 1"
	done
	# in order, the files hold every frame: no frame lost at a boundary
	$PCAPCHECK $files --queues 2 --count 20000 --snaplen 262144 --unmerged || return 1
	# a ring of 3 keeps exactly 3, each with its index (an old one goes with its file)
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/ring" -C 1 -W 3 --index -c 40000 -q &
	dump=$!
	wait_readers mgt0 || return 1
	echo "all 20000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || return 1
	n=$(ls "$TMP" | grep -c '^ring[0-9]*$')
	[ "$n" = 3 ] || bad "-W 3 left $n files"
	[ "$(ls "$TMP" | grep -c '^ring[0-9]*\.idx$')" = 3 ] || bad "-W 3 left indexes: $(ls "$TMP")"
	for f in "$TMP"/ring?; do capinfos "$f" >/dev/null || bad "$f unreadable"; done
}

# -G 1 over a paced stream (3.5 s): a file a second of the wall clock, named
# for it; -z ran once for each, after it was complete; every frame once
# across them; SIGHUP starts one more
t_mgdump_rotation_by_time_with_a_command_per_file() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	mkdir "$TMP/rec" || return 1
	printf '#!/bin/sh\ncapinfos "$1" >/dev/null && echo "${1##*/}" >>%s\n' "$TMP/done" \
		>"$TMP/post" && chmod +x "$TMP/post" || return 1
	echo 1000 >/sys/class/net/mgt0/mgtestnic/rate_pps
	timeout 120 $MGDUMP -i mgt0 -G 1 -z "$TMP/post" -w "$TMP/rec/r-%H%M%S.pcapng" -q \
		>"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "all 3500" >/sys/class/net/mgt0/mgtestnic/generate
	wait_for 20000 "a second of the stream" at_least 2000 frames_made mgt0 || return 1
	# in the middle of a second: at its end, the new file would be the next second's
	wait_for 2000 "the middle of a second" mid_second
	hangup $dump
	wait_idle mgt0 && wait_drained || bad "the stream never ended"
	# a duration: the files are a second of the wall clock each, and the
	# last one's second ends
	sleep 1.2
	kill -INT $dump
	wait $dump || { bad "mgdump exited with $?: $(cat "$TMP/d")"; return 1; }
	files=$(ls "$TMP/rec" | grep -v '\.idx$')
	say "$(echo $files | wc -w) files: $(echo $files)"
	! echo "$files" | grep -v '^r-[0-9]\{6\}\.pcapng1\?$' || bad "names: $files"
	[ "$(echo "$files" | grep -c '1$')" = 1 ] || bad "SIGHUP started no second file of its second"
	[ "$(echo "$files" | wc -l)" -ge 5 ] || bad "3.5 s at -G 1 and a SIGHUP made $(echo $files)"
	[ "$(sort "$TMP/done")" = "$(echo "$files" | sort)" ] ||
		bad "-z ran for: $(cat "$TMP/done")"
	$PCAPCHECK $(ls "$TMP"/rec/* | grep -v '\.idx$' | sort) --queues 2 --count 3500 --unmerged ||
		return 1
}

mid_second() { date +%N | grep -q '^[3-6]'; }	# the clock is in the middle of its second

# complete_files_at_least N: $TMP/rec has N files or more that mgdump completed
complete_files_at_least() {
	[ "$(ls "$TMP/rec" | grep -v 'part$' | grep -cv '\.idx$')" -ge "$1" ]
}

# kill -9 in the middle: every file under its name is complete, to its end;
# the one being written is NAME.part; a new run takes new names and leaves
# the earlier files as they were
t_mgdump_killed_leaves_only_complete_files() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	mkdir "$TMP/rec" || return 1
	echo 1000 >/sys/class/net/mgt0/mgtestnic/rate_pps
	timeout 120 $MGDUMP -i mgt0 -G 1 -w "$TMP/rec/k-%s.pcapng" -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "0 5000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_for 20000 "two complete files" complete_files_at_least 2 || return 1
	generators_idle mgt0 && bad "the stream ended before the kill"
	pkill -KILL -x mgdump	# (timeout passes on other signals, not this one)
	wait $dump
	echo 0 >/sys/class/net/mgt0/mgtestnic/rate_pps
	whole=$(ls "$TMP/rec" | grep -v 'part$' | grep -v '\.idx$')
	part=$(ls "$TMP/rec" | grep -v '\.idx\.part$' | grep 'part$')
	say "after kill -9: $(echo $whole) and $part"
	[ "$(echo "$whole" | wc -l)" -ge 2 ] || bad "complete files: $whole"
	[ "$(echo "$part" | wc -l)" = 1 ] || bad "files being written: '$part'"
	for f in $whole; do
		capinfos -M "$TMP/rec/$f" >"$TMP/err" 2>&1 || bad "$f: $(cat "$TMP/err")"
	done
	sums=$(cd "$TMP/rec" && md5sum *)
	wait_idle mgt0 || return 1
	timeout 120 $MGDUMP -i mgt0 -G 1 -w "$TMP/rec/k-%s.pcapng" -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "0 100" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_drained || return 1
	kill -INT $dump
	wait $dump || bad "the second run exited with $?: $(cat "$TMP/d")"
	[ "$(cd "$TMP/rec" && md5sum $(echo "$sums" | awk '{print $2}'))" = "$sums" ] ||
		bad "the second run changed the first one's files"
}

# --per-queue, kill -9 in the middle of a stream: each queue's files under
# their names are complete (written with O_DIRECT, synced before the
# rename), whole pages, their frames in sequence, none missing; the file it
# was writing is NAME.part
t_mgdump_per_queue_killed_leaves_only_complete_files() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	on_disk per_queue_killed
}
per_queue_complete_at_least() {	# per_queue_complete_at_least N: files of each queue
	for q in 0 1; do
		[ "$(ls "$TMP/disk" | grep "^k\.mgt0@$q\.pcapng" | grep -cv 'part$')" -ge "$1" ] ||
			return 1
	done
}
per_queue_killed() {
	echo 1000 >/sys/class/net/mgt0/mgtestnic/rate_pps
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/disk/k.pcapng" --per-queue -C 1 >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || { kill $dump; return 1; }
	# (172-byte frames: a 1 MB file holds some 5,800)
	echo "all 20000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_for 60000 "two complete files of each queue" per_queue_complete_at_least 2 ||
		{ kill $dump; return 1; }
	generators_idle mgt0 && bad "the stream ended before the kill"
	pkill -KILL -P $dump	# (mgdump alone: timeout cannot pass this one on)
	wait $dump
	echo 0 >/sys/class/net/mgt0/mgtestnic/rate_pps
	for q in 0 1; do
		whole=$(ls "$TMP"/disk/k.mgt0@$q.pcapng* | grep -v 'part$' | sort -V)
		part=$(ls "$TMP"/disk/k.mgt0@$q.pcapng* | grep 'part$')
		[ "$(echo "$part" | wc -l)" = 1 ] || bad "queue $q's files being written: '$part'"
		packets=0
		for f in $whole; do
			[ $(($(stat -c %s "$f") % 4096)) = 0 ] || bad "$f: $(stat -c %s "$f") bytes"
			n=$(capinfos -M -c "$f" 2>"$TMP/err" | sed -n 's/^Number of packets: *//p')
			[ -n "$n" ] || bad "$f: $(cat "$TMP/err")"
			packets=$((packets + ${n:-0}))
		done
		# (the queue's frames in sequence, none left out, each byte and stamp)
		$PCAPCHECK $whole --queues 2 --only-queue $q --count $packets --snaplen 262144 \
			>"$TMP/check" 2>&1 ||
			bad "queue $q's complete files: $(cat "$TMP/check")"
		say "queue $q after kill -9: $(echo $whole | wc -w) complete files, $packets" \
			"frames, and ${part##*/}"
	done
}

# --max-disk 3M over 1 MB files (-C 1) and 20,000 frames of 1514 bytes
# (30 MB): mgdump's files stay within the limit and the one being written,
# the oldest go first (with their indexes), a file not mgdump's is left
# alone; a restart with --max-age 1s removes what the first run left, once
# a second has passed
t_mgdump_keeps_its_files_under_max_disk_and_max_age() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	mkdir "$TMP/rec" && echo "someone else's" >"$TMP/rec/other" || return 1
	echo 1514 >/sys/class/net/mgt0/mgtestnic/frame_len
	timeout 120 $MGDUMP -i mgt0 -C 1 --max-disk 3M --index -w "$TMP/rec/cap" -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "0 20000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_drained || bad "mgdump never caught up"
	kill -INT $dump
	wait $dump || { bad "mgdump exited with $?: $(cat "$TMP/d")"; return 1; }
	files=$(cd "$TMP/rec" && ls cap* | grep -v '\.idx$')
	bytes=$(cd "$TMP/rec" && cat cap* | wc -c)
	say "left: $(echo $files) ($bytes bytes)"
	[ "$bytes" -le $((3 * 1048576 + 1000000)) ] || bad "$bytes bytes kept under --max-disk 3M"
	[ -f "$TMP/rec/other" ] || bad "mgdump removed a file it did not write"
	[ -f "$TMP/rec/cap" ] && bad "the oldest file is still there"
	for f in $files; do
		capinfos "$TMP/rec/$f" >/dev/null 2>&1 || bad "$f is unreadable"
		[ -f "$TMP/rec/$f.idx" ] || bad "$f has no index"
	done
	[ "$(cd "$TMP/rec" && ls cap*.idx | wc -l)" = "$(echo "$files" | wc -l)" ] ||
		bad "indexes without their files: $(cd "$TMP/rec" && echo cap*.idx)"
	sleep 1.1	# a duration: the files' age is what --max-age 1s goes by
	timeout 60 $MGDUMP -i mgt0 -C 1 --max-age 1s --index -w "$TMP/rec/cap" -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	kill -INT $dump
	wait $dump || bad "the second run exited with $?: $(cat "$TMP/d")"
	left=$(cd "$TMP/rec" && ls)
	[ "$left" = "$(printf 'cap\ncap.idx\nother')" ] || bad "after --max-age 1s: $(echo $left)"
}

# --per-queue through the smallest ring (64 KiB: writes of 16 KiB, several
# in flight) and bursts of whole frames faster than the disk, a SIGHUP and
# the stop each in the middle of one (the ring too full to fill a page):
# every frame written or counted as the ring's drop, each queue's files
# whole, within -C, and in time order end to end
t_mgdump_per_queue_small_ring_counts_every_frame() {
	setup 2 && $MGCAP start mgt0 ring-size 64K >/dev/null || return 1
	echo 1514 >/sys/class/net/mgt0/mgtestnic/frame_len || return 1
	on_disk per_queue_small_ring
}
per_queue_small_ring() {
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/disk/s.pcapng" --per-queue -C 1 >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 && wait_for 10000 "the last queue's file" has_bytes \
		"$TMP/disk/s.mgt0@1.pcapng" || { kill $dump; return 1; }
	# a SIGHUP in the middle of the second burst: a file ends with the ring full
	for burst in 1 2 3; do
		echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
		[ $burst = 2 ] && hangup $dump
		wait_idle mgt0 || { kill $dump; return 1; }
	done
	wait_drained || { kill $dump; return 1; }
	# and the stop in the middle of the fourth: the last file ends at a whole block
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	kill -INT $dump
	wait $dump || { bad "mgdump exited with $?: $(cat "$TMP/d")"; return 1; }
	for q in 0 1; do
		line=$(grep "^mgdump: mgt0@$q: " "$TMP/d")
		written=$(echo "$line" | sed -n 's/.*: \([0-9]*\) packets,.*/\1/p')
		ringdrop=$(echo "$line" | sed -n 's/.* \([0-9]*\) dropped by the ring.*/\1/p')
		say "$line"
		sum=$((${written:-0} + ${ringdrop:-0}))
		# (the first three bursts every frame; of the fourth, what came before the stop)
		[ "$sum" -ge 6000 ] && [ "$sum" -le 8000 ] ||
			bad "queue $q: written + dropped by the ring, $sum, not 6000 to 8000: $line"
		files=$(ls "$TMP"/disk/s.mgt0@$q.pcapng* | sort -V)
		for f in $files; do
			[ "$(stat -c %s "$f")" -le 1000000 ] || bad "$f: $(stat -c %s "$f") bytes, past -C 1"
		done
		mergecap -a -w "$TMP/q$q.pcapng" $files || bad "queue $q's files are not whole"
		capinfos -c -o "$TMP/q$q.pcapng" >"$TMP/ci" || bad "capinfos: $(cat "$TMP/ci")"
		grep -q "Number of packets: *$written\$" "$TMP/ci" ||
			bad "queue $q: mgdump wrote $written, its files hold $(grep packets "$TMP/ci")"
		grep -q "Strict time order: *True" "$TMP/ci" || bad "queue $q's files: not in time order"
	done
}

# --per-queue, --max-disk 3M over 1 MB files (-C 1) and 2 x 10,000 frames
# of 1514 bytes (31 MB): at the end every queue's files together are within
# the limit, each queue keeps its newest files (its last one too), none
# named so that -C's number runs into the queue's, a file not mgdump's is
# left alone; a restart with --max-age 1s removes what the first run left
t_mgdump_per_queue_keeps_its_files_under_max_disk_and_max_age() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	on_disk per_queue_retention
}
per_queue_retention() {
	echo "someone else's" >"$TMP/disk/other" || return 1
	echo 1514 >/sys/class/net/mgt0/mgtestnic/frame_len
	timeout 120 $MGDUMP -i mgt0 --per-queue -C 1 --max-disk 3M -w "$TMP/disk/cap" \
		>"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || { kill $dump; return 1; }
	echo "all 10000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 && wait_drained || { kill $dump; return 1; }
	kill -INT $dump
	wait $dump || { bad "mgdump exited with $?: $(cat "$TMP/d")"; return 1; }
	bytes=$(cat "$TMP"/disk/cap* | wc -c)
	say "left: $(cd "$TMP/disk" && echo cap*) ($bytes bytes)"
	[ "$bytes" -le $((3 * 1048576)) ] || bad "$bytes bytes kept under --max-disk 3M"
	[ -f "$TMP/disk/other" ] || bad "mgdump removed a file it did not write"
	for f in "$TMP"/disk/cap*; do
		case ${f##*/} in
		cap.mgt0@[01].pcapng|cap.mgt0@[01].pcapng[1-9]*) ;;
		*) bad "$f: not a name of a queue's files" ;;
		esac
	done
	for q in 0 1; do
		# the series' numbers written, from its summary's files, and those kept
		made=$(sed -n "s/^mgdump: mgt0@$q: .* in \([0-9]*\) files;.*/\1/p" "$TMP/d")
		kept=$(cd "$TMP/disk" && ls cap.mgt0@$q.pcapng* | sed "s/^cap.mgt0@$q.pcapng//" |
			sed 's/^$/0/' | sort -n | tr '\n' ' ')
		[ "${made:-0}" -ge 8 ] || bad "queue $q: ${made:-no} files made of 15 MB under -C 1"
		want=$(seq $((made - $(echo $kept | wc -w))) $((made - 1)) | tr '\n' ' ')
		[ "$kept" = "$want" ] || bad "queue $q kept files $kept of $made, not the newest"
		for n in $kept; do
			f=$TMP/disk/cap.mgt0@$q.pcapng$([ "$n" = 0 ] || echo "$n")
			capinfos "$f" >/dev/null 2>&1 || bad "$f is unreadable"
		done
	done
	sleep 1.1	# a duration: the files' age is what --max-age 1s goes by
	timeout 60 $MGDUMP -i mgt0 --per-queue -C 1 --max-age 1s -w "$TMP/disk/cap" -q \
		>"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || { kill $dump; return 1; }
	kill -INT $dump
	wait $dump || bad "the second run exited with $?: $(cat "$TMP/d")"
	left=$(cd "$TMP/disk" && ls | grep -v '^lost+found$')
	[ "$left" = "$(printf 'cap.mgt0@0.pcapng\ncap.mgt0@1.pcapng\nother')" ] ||
		bad "after --max-age 1s: $(echo $left)"
}

# as systemd runs mgdump@.service (Type=notify, WatchdogSec=): READY=1 once
# it reads every queue, WATCHDOG=1 twice a watchdog period from its writer,
# STOPPING=1 at the end
t_mgdump_tells_systemd_it_is_ready_and_alive() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	ready_and_alive
}
t_mgdump_per_queue_tells_systemd_it_is_ready_and_alive() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	ready_and_alive --per-queue
}
# ready_and_alive [ARG]: mgdump -i mgt0 [ARG] as its service runs it
ready_and_alive() {
	python3 - "$TMP/notify" >"$TMP/said" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(10)
try:
    while True:
        msg = s.recv(4096).decode()
        print(msg.replace("\n", " "), flush=True)
        if "STOPPING=1" in msg:
            break
except socket.timeout:
    print("timed out")
EOF
	listener=$!
	wait_for 10000 "the notify socket" test -S "$TMP/notify" || return 1
	NOTIFY_SOCKET=$TMP/notify WATCHDOG_USEC=400000 timeout 60 $MGDUMP -i mgt0 \
		-w "$TMP/out.pcapng" -q "$@" >"$TMP/d" 2>&1 &
	dump=$!
	wait_text "$TMP/said" "READY=1" || { bad "never ready: $(cat "$TMP/d")"; return 1; }
	sleep 2	# a duration: the keepalives in it are counted
	kill -INT $dump
	wait $dump || bad "mgdump exited with $?: $(cat "$TMP/d")"
	wait $listener
	said=$(cat "$TMP/said")
	alive=$(grep -c '^WATCHDOG=1' "$TMP/said")
	say "READY=1, $alive x WATCHDOG=1 in 2 s at WATCHDOG_USEC=400000, $(tail -n 1 "$TMP/said")"
	[ "$(head -n 1 "$TMP/said")" = "READY=1" ] || bad "first: $said"
	[ "$alive" -ge 6 ] || bad "$alive keepalives in 2 s: $(echo $said)"
	[ "$(tail -n 1 "$TMP/said")" = "STOPPING=1" ] || bad "last: $said"
}

t_mgdump_to_stdout() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	# a stock reader at the pipe's other end: tcpdump, which writes out what it read
	(timeout 120 $MGDUMP -i mgt0 -w - -c 2000 -q |
		tcpdump -r - --time-stamp-precision=nano -w "$TMP/piped.pcap" 2>"$TMP/tcpdump") &
	pipe=$!
	wait_readers mgt0 || return 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $pipe || bad "mgdump -w - | tcpdump -r -: $(cat "$TMP/tcpdump")"
	$PCAPCHECK "$TMP/piped.pcap" --queues 2 --count 1000 --frame-len 128 --unmerged ||
		bad "tcpdump did not read 2000 frames of 128 bytes from the pipe"
}

# sigint_mgdump FILE FRAMES WHEN: mgdump -i mgt0 -w FILE, FRAMES on every
# queue, SIGINT once it read them all (WHEN all), or in the middle of the
# stream (mid: once 10,000 were captured); what it said in $TMP/d
sigint_mgdump() {
	timeout 120 $MGDUMP -i mgt0 -w "$1" --stats "$TMP/stats.json" --prometheus "$TMP/prom" \
		>"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || { bad "mgdump never read every queue: $(cat "$TMP/d")"; return 1; }
	echo "all $2" >/sys/class/net/mgt0/mgtestnic/generate
	if [ "$3" = all ]; then
		wait_idle mgt0 && wait_drained || return 1
	else
		wait_for 30000 "10000 frames captured" at_least 10000 captured mgt0 || return 1
		generators_idle mgt0 && bad "the stream ended before the SIGINT"
	fi
	kill -INT $dump
	wait $dump || { bad "mgdump exited with $?: $(cat "$TMP/d")"; return 1; }
}

t_mgdump_stops_cleanly_on_sigint() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	sigint_mgdump "$TMP/out.pcapng" 3000 all || return 1
	grep -q "6000 packets written" "$TMP/d" || bad "summary: $(cat "$TMP/d")"
	$PCAPCHECK "$TMP/out.pcapng" --queues 2 --count 3000 --snaplen 262144 --unmerged || return 1
	# stopped in the middle of a stream: every packet its readers read is
	# in the file, those of a batch still going when the signal came too,
	# and those the rings held then: the summary accounts for every frame
	# received until the stop
	sigint_mgdump "$TMP/mid.pcapng" 1000000 mid || return 1
	! grep -q "not written" "$TMP/d" || bad "$(cat "$TMP/d")"
	mgdump_summary "$TMP/d"
	in_file=$(capinfos -M -c "$TMP/mid.pcapng" | awk '/Number of packets/ { print $NF }')
	say "stopped mid-stream: $written packets written ($in_file in the file) of $received" \
		"received, dropped $ringdrop in the rings and $bufdrop in the buffer"
	[ -n "$written" ] && [ "$written" -gt 0 ] && [ "$in_file" = "$written" ] ||
		bad "$written packets written, $in_file in the file"
	[ -n "$received" ] && [ $((written + ringdrop + bufdrop)) = "$received" ] ||
		bad "not every frame received is accounted for: $summary"
	# the counters for a monitoring system, at the end: the same, per queue
	python3 - "$TMP/stats.json" "$TMP/prom" "$written" "$received" <<'EOF' ||
import json, re, sys
s = json.load(open(sys.argv[1]))
prom = open(sys.argv[2]).read()
q = s["interfaces"]
assert [i["name"] for i in q] == ["mgt0@0", "mgt0@1"], q
assert all(i["received"] == i["written"] + i["dropped_ring"] + i["dropped_buffer"]
           + i["dropped_disk_full"] for i in q), q
assert sum(i["written"] for i in q) == int(sys.argv[3]), (q, sys.argv[3])
assert sum(i["received"] for i in q) == int(sys.argv[4]), (q, sys.argv[4])
assert s["files"] == 1 and s["file"].endswith("mid.pcapng") and s["disk_free_bytes"] > 0, s
for i in q:
    m = re.search(r'^mgdump_written_packets_total\{interface="%s"\} (\d+)$' % i["name"], prom, re.M)
    assert m and int(m.group(1)) == i["written"], prom
EOF
		bad "--stats or --prometheus: $(cat "$TMP/stats.json"; cat "$TMP/prom")"
}

t_mgdump_bad_input() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	refused() {	# refused TEXT ARGS...: one line naming TEXT, non-zero exit, no file
		text=$1
		shift
		out=$($MGDUMP "$@" 2>&1)
		st=$?
		lines=$(printf '%s\n' "$out" | wc -l)
		if [ $st -eq 0 ] || [ "$lines" -ne 1 ] || ! echo "$out" | grep -qF -- "$text"; then
			bad "mgdump $*: status $st, '$out' (want one line with '$text')"
		fi
	}
	refused "no device" -w "$TMP/x"
	refused "no output" -i mgt0
	refused "'0' for -C" -i mgt0 -w "$TMP/x" -C 0
	refused "-W needs -C" -i mgt0 -w "$TMP/x" -W 3
	refused "'x' for -s" -i mgt0 -w "$TMP/x" -s x
	refused "-Z nosuchuser0: no such user" -i mgt0 -w "$TMP/x" -Z nosuchuser0
	# tcpdump's and dumpcap's options that mean something else: what to type instead
	refused "-F is not mgdump's: mgdump writes pcapng; give the filter after" -i mgt0 -w "$TMP/x" -F f
	refused "-b is not mgdump's: for dumpcap's ring buffer: -C MB" -i mgt0 -w "$TMP/x" -b filesize:1000
	refused "-r is not mgdump's" -r "$TMP/x"
	refused "'a' for --cpus" -i mgt0 -w "$TMP/x" --cpus a
	refused "CPU 1000 (--cpus)" -i mgt0 -w "$TMP/x" --cpus 0,1000
	refused "CPU 999 (--writer-cpu)" -i mgt0 -w "$TMP/x" --writer-cpu 999
	refused "nosuch0" -i nosuch0 -w "$TMP/x"
	refused "/nonexistent/dir/x" -i mgt0 -w /nonexistent/dir/x
	refused "bad filter" -i mgt0 -w "$TMP/x" "not-a-filter(("
	refused "--index writes files, not standard output" -i mgt0 -w - --index
	# what one copy cannot do, and why
	refused "-w -: --per-queue writes a file for each queue" -i mgt0 -w - --per-queue
	refused "--merged makes one file" -i mgt0 -w "$TMP/x" --per-queue --merged
	refused "-d takes frames apart, which one copy cannot" -i mgt0 -w "$TMP/x" --per-queue -d
	refused "-c counts in one order" -i mgt0 -w "$TMP/x" --per-queue -c 10
	refused "--writer-cpu: --per-queue's writers" -i mgt0 -w "$TMP/x" --per-queue --writer-cpu 0
	refused "-B: --per-queue writes from the rings" -i mgt0 -w "$TMP/x" --per-queue -B 256
	refused "a filter expression does not go with --per-queue" -i mgt0 -w "$TMP/x" --per-queue udp
	[ ! -e "$TMP/x" ] || bad "a refused mgdump left $TMP/x"
}

# -s 0 is the whole frame, as to tcpdump and dumpcap (262144 bytes, the
# default); -n, tcpdump's habit, is accepted and changes nothing
t_mgdump_s_0_records_whole_frames() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	echo 1500 >/sys/class/net/mgt0/mgtestnic/frame_len || return 1
	timeout 120 $MGDUMP -n -i mgt0 -s 0 -w "$TMP/out.pcapng" -c 2000 -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || { cat "$TMP/d"; return 1; }
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || { bad "mgdump -s 0: $(cat "$TMP/d")"; return 1; }
	# every frame whole: 1500 bytes captured of 1500, the interfaces' snaplen 262144
	$PCAPCHECK "$TMP/out.pcapng" --queues 2 --count 1000 --frame-len 1500 --snaplen 262144 --unmerged || return 1
	capinfos -z "$TMP/out.pcapng" | grep -q "Average packet size: *1500\.00 bytes" ||
		bad "frames of $(capinfos -z "$TMP/out.pcapng" | grep 'Average packet size'), not 1500"
}

# capset_of PID SET: the hexadecimal capability set (CapEff, CapBnd...) of PID
capset_of() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }

# As root with -Z nobody, as tcpdump: the capture opened (started, the
# NIC's stamping taken for adapter stamps) as root, then nobody, its files
# nobody's, with CAP_NET_ADMIN alone (bit 12), which gives the stamping
# back at the end; its -z commands run as nobody with no capability at all.
t_mgdump_Z_runs_as_the_user_with_one_capability() {
	setup 2 || return 1
	before=$($MGCAP hwtstamp mgt0 show | grep "current receive filter")
	# nobody's: the recording directory, and a way through $TMP to it and the command
	chmod 0711 "$TMP" && mkdir "$TMP/rec" && chown nobody "$TMP/rec" || return 1
	printf '#!/bin/sh
{ id -u; grep "^Cap" /proc/self/status; } >"$1.who"
' >"$TMP/post" &&
		chmod 0755 "$TMP/post" || return 1
	timeout 120 $MGDUMP -i mgcap:mgt0 -Z nobody -C 1 -z "$TMP/post" -w "$TMP/rec/z.pcapng" \
		--index -c 8000 -q >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || { cat "$TMP/d"; return 1; }
	pid=$(pgrep -x mgdump | head -n 1)
	[ -n "$pid" ] || { bad "no mgdump process: $(cat "$TMP/d")"; return 1; }
	[ "$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "/proc/$pid/status")" = 65534655346553465534 ] ||
		bad "mgdump runs as $(grep '^Uid:' "/proc/$pid/status")"
	[ "$(capset_of "$pid" CapEff)" = 0000000000001000 ] &&
		[ "$(capset_of "$pid" CapPrm)" = 0000000000001000 ] ||
		bad "mgdump's capabilities: $(grep '^Cap' "/proc/$pid/status" | tr '\n' ' ')"
	[ "$(capset_of "$pid" CapBnd)" = 0000000000000000 ] &&
		[ "$(capset_of "$pid" CapAmb)" = 0000000000000000 ] ||
		bad "mgdump's bounding or ambient set: $(grep '^Cap' "/proc/$pid/status" | tr '\n' ' ')"
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: all" ||
		bad "no adapter stamps taken: $($MGCAP hwtstamp mgt0 show)"
	echo "all 4000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || { bad "mgdump -Z nobody: $(cat "$TMP/d")"; return 1; }
	files=$(ls "$TMP"/rec/z.pcapng* | grep -v '\.\(idx\|who\)$')
	say "files: $(echo $files)"
	$PCAPCHECK $files --queues 2 --count 4000 --unmerged || return 1
	for f in $files; do
		[ "$(stat -c %U "$f")" = nobody ] && [ "$(stat -c %U "$f.idx")" = nobody ] ||
			bad "$f: $(stat -c %U "$f" "$f.idx" | tr '\n' ' ')"
		[ -f "$f.who" ] || { bad "-z did not run for $f"; continue; }
		[ "$(head -n 1 "$f.who")" = 65534 ] || bad "-z ran as uid $(head -n 1 "$f.who")"
		! grep "^Cap" "$f.who" | grep -qv '0000000000000000$' ||
			bad "-z had capabilities: $(grep '^Cap' "$f.who" | tr '\n' ' ')"
	done
	# CAP_NET_ADMIN did its one job: the stamping given back as it was found
	[ "$($MGCAP hwtstamp mgt0 show | grep "current receive filter")" = "$before" ] ||
		bad "stamping not given back: $($MGCAP hwtstamp mgt0 show) (before: $before)"
}

t_mgdump_decapsulates_erspan() {
	insmod "$KO" || return 1
	# the kernel's own ERSPAN tunnels (types I, II, III) over a veth pair
	ip netns add src && ip link add veth0 type veth peer name veth1 &&
		ip link set veth0 netns src || return 1
	# no IPv6 chatter from the tunnels: only our frames go through them
	ip netns exec src sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 || return 1
	ip netns exec src ip addr add 192.0.2.1/24 dev veth0
	ip netns exec src ip link set veth0 up
	ip addr add 192.0.2.2/24 dev veth1 && ip link set veth1 up || return 1
	ip netns exec src ip link add era type erspan seq key 1 local 192.0.2.1 remote 192.0.2.2 \
		erspan_ver 1 erspan 100 || return 1
	ip netns exec src ip link add erb type erspan seq key 2 local 192.0.2.1 remote 192.0.2.2 \
		erspan_ver 2 erspan_dir ingress erspan_hwid 7 || return 1
	ip netns exec src ip link set era up && ip netns exec src ip link set erb up || return 1
	$MGCAP start veth1 >/dev/null || return 1
	timeout 60 $MGDUMP -i veth1 -d -s 262144 -w "$TMP/out.pcapng" -c 40 -q 'ip proto gre' &
	dump=$!
	wait_readers veth1 || return 1
	# 20 frames into each tunnel: an inner Ethernet frame with a marker payload
	for t in era erb; do
		ip netns exec src python3 -c "
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('$t', 0))
frame = bytes.fromhex('020000000001020000000002') + b'\x88\xb5' + b'mgcap-erspan-$t'.ljust(50, b'.')
for i in range(20):
    s.send(frame)
" || return 1
	done
	wait $dump || return 1
	tshark -r "$TMP/out.pcapng" -T fields -e eth.type -e frame.len 2>/dev/null | sort | uniq -c >"$TMP/inner"
	cat "$TMP/inner"
	# the file holds the inner frames: ethertype 0x88b5, 64 bytes
	grep -q "^ *40 0x88b5	64$" "$TMP/inner" || bad "not 40 inner frames"
	strings "$TMP/out.pcapng" | grep -c "mgcap-erspan-erb" | grep -q '^20$' || bad "type II frames"
}

t_mgdump_buffer_absorbs_a_stalled_writer() {
	setup 1 && $MGCAP start mgt0 ring-size 64M >/dev/null || return 1
	# stdout into a pipe nobody reads for a while (a duration: the stall is
	# the test): the writer stalls
	(timeout 120 $MGDUMP -i mgt0 -B 1 -w - 2>"$TMP/d" | (sleep 8; cat >"$TMP/out.pcapng")) &
	pipeline=$!
	wait_readers mgt0 || return 1
	echo "0 20000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_idle mgt0 || return 1
	# the pipe's reader is there (it made its file), and mgdump read every ring
	wait_for 30000 "the pipe's reader after its stall" test -e "$TMP/out.pcapng" &&
		wait_drained || return 1
	pkill -INT -f tools/mgdump
	wait $pipeline
	cat "$TMP/d"
	mgdump_summary "$TMP/d"
	infile=$(capinfos -c "$TMP/out.pcapng" | awk '/Number of packets/ {print $NF}')
	say "written $written (file $infile), buffer drops $bufdrop, ring drops $ringdrop"
	[ "$infile" = "$written" ] || bad "the file holds $infile, mgdump says $written"
	[ "$bufdrop" -gt 0 ] || bad "a 1 MiB buffer absorbed 20000 frames?"
	[ $((written + bufdrop + ringdrop)) -eq 20000 ] || bad "written + dropped != 20000"
	# what was kept is the first frames, unbroken
	$PCAPCHECK "$TMP/out.pcapng" --queues 1 --count "$written" --snaplen 262144 --unmerged
}

# A disk another writer filled: mgdump drops what has no room and counts it,
# tries again each second, and writes again once there is room; its file
# stays whole, and every frame is written or counted.
t_mgdump_waits_out_a_full_disk() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	mkdir "$TMP/small" && mount -t tmpfs -o size=256k tmpfs "$TMP/small" || return 1
	head -c 131072 /dev/zero >"$TMP/small/other" || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/small/out.pcapng" --stats "$TMP/stats.json" \
		>"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	echo "0 5000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_text "$TMP/d" "No space left on device: dropping packets until there is room" ||
		bad "no word of the full disk"
	wait_idle mgt0 && wait_drained || return 1
	full=$(stat -c %s "$TMP/small/out.pcapng.part")
	rm "$TMP/small/other"
	# (a duration: after the next try's second; mgdump tries once a second,
	# which shows nowhere until it writes)
	sleep 1.5
	echo "0 5000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_text "$TMP/d" "writing again; [1-9][0-9]* packets dropped while the disk was full" ||
		bad "it did not write again"
	wait_idle mgt0 && wait_drained || return 1
	kill -INT $dump
	wait $dump || bad "mgdump exited $? on a full disk"
	cat "$TMP/d"
	mgdump_summary "$TMP/d"
	capinfos "$TMP/small/out.pcapng" >/dev/null || bad "the file is not valid"
	n=$(capinfos -c "$TMP/small/out.pcapng" | awk '/Number of packets/ {print $NF}')
	size=$(stat -c %s "$TMP/small/out.pcapng")
	say "$n packets, $size bytes (full at $full); $diskdrop dropped for the full disk"
	[ "$n" = "$written" ] || bad "the file holds $n, mgdump says $written"
	[ "$size" -gt $((full + 65536)) ] || bad "it wrote $((size - full)) bytes after the room came"
	[ "${diskdrop:-0}" -gt 0 ] || bad "no drops counted for the full disk"
	[ $((written + diskdrop + ringdrop + bufdrop)) -eq 10000 ] ||
		bad "written + dropped != 10000: $summary"
	grep -q "\"dropped_disk_full\":$diskdrop," "$TMP/stats.json" ||
		bad "--stats: $(cat "$TMP/stats.json")"
	umount "$TMP/small"
}

t_mgdump_on_any_libpcap_device() {
	ip link set lo up
	# (its summary, on stderr, is in the log of a failure)
	timeout 60 $MGDUMP -i lo -w "$TMP/lo.pcapng" -c 100 'udp dst port 9' &
	dump=$!
	# numbered datagrams, one a millisecond, until mgdump has its 100,
	# however long it takes to open lo: a fixed burst after a fixed sleep
	# raced a slow guest's start.  (Its filter goes on while they come, and
	# libpcap loses what comes meanwhile: a hole after the first packets, in
	# 4 runs of 6, until mgdump started its recording after the filter)
	python3 -c "
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(1000000):
    try:
        os.kill($dump, 0)
    except ProcessLookupError:
        sys.exit(0)
    s.sendto(b'mgdump-lo-%07d.' % i, ('127.0.0.1', 9))
    time.sleep(0.001)  # a duration: the datagrams' pace
sys.exit(1)
" || bad "mgdump never took its 100 datagrams"
	wait $dump || return 1
	# from the first it saw, every datagram, in order: 100 consecutive numbers
	got=$(tcpdump -r "$TMP/lo.pcapng" -nn -A 'udp dst port 9' 2>/dev/null |
		sed -n 's/.*mgdump-lo-0*\([0-9][0-9]*\)\..*/\1/p')
	first=${got%%[!0-9]*}
	say "$(echo $got | wc -w) datagrams, numbers ${first:--}..${got##*[!0-9]}"
	[ -n "$got" ] && [ "$got" = "$(seq "$first" "$((first + 99))")" ] ||
		bad "not 100 consecutive datagrams on lo:$(echo "$got" |
			awk 'NR > 1 && $1 != last + 1 { printf " %s after %s;", $1, last } { last = $1 }')"
	capinfos "$TMP/lo.pcapng" | grep -q "Name = lo" || bad "interface not named lo"
}

# extracted NAME [EXTRACT-ARGS...] -- FILTER...: mgcap-extract's output of
# the recording as $TMP/NAME.pcapng, its summary in $TMP/NAME.err and the
# percentage of the bytes it read in $read_pct (of a whole scan's)
extracted() {
	name=$1
	shift
	$EXTRACT -r "$TMP/rec" -w "$TMP/$name.pcapng" "$@" 2>"$TMP/$name.err" ||
		{ bad "mgcap-extract $*: $(cat "$TMP/$name.err")"; return 1; }
	read_pct=$(sed -n 's/.*read [0-9]* bytes of [0-9]* (\([0-9]*\)\..*/\1/p' "$TMP/$name.err")
	say "$name: $(sed 's/^mgcap-extract: //' "$TMP/$name.err")"
}

# packets FILE [FILTER]: as tcpdump prints them, to the ns, with their bytes
packets() {
	tcpdump -r "$1" -nn -tt -x --time-stamp-precision=nano ${2:+"$2"} 2>/dev/null
}

# mgdump's index beside each file (--index, -C 1: 7 files) and mgcap-extract over
# them: a flow that came only near the end, and a sixth of the time of
# another one, read from the parts the index points to, equal what tcpdump
# finds in the whole recording, and what a whole scan extracts
t_mgcap_extract_reads_only_what_the_index_points_to() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	extract_by_index || return 1
	# bad input: one line naming what, status 2 (1 for what cannot be read), no output
	for bad_args in "2 -r is needed|-w $TMP/x" "2 bad value 'noon' for --from|-r $TMP/rec -w $TMP/x --from noon" \
		"2 --from is not before --to|-r $TMP/rec -w $TMP/x --from 2 --to 1" \
		"2 bad filter 'udp port'|-r $TMP/rec -w $TMP/x udp port" \
		"1 /nonexistent: No such file|-r /nonexistent -w $TMP/x"; do
		want=${bad_args%%|*} args=${bad_args#*|}
		out=$($EXTRACT $args 2>&1)
		st=$?
		[ "$st" = "${want%% *}" ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
			echo "$out" | grep -qF -- "${want#* }" ||
			bad "mgcap-extract $args: status $st, '$out' (want ${want%% *} and '${want#* }')"
	done
	[ ! -e "$TMP/x" ] || bad "a refused mgcap-extract left $TMP/x"
}

# the same of mgdump --per-queue's files (one copy: their index made from
# the ring's blocks, where they lie), a queue's files holding each of its
# flows, and -C's cuts inside a ring page
t_mgcap_extract_reads_per_queue_files_by_their_indexes() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	extract_by_index --per-queue
}

# extract_by_index [ARG]: the recording by mgdump -C 1 --index [ARG], and
# what mgcap-extract finds in it by its indexes
extract_by_index() {
	mkdir "$TMP/rec" || return 1
	cd /sys/class/net/mgt0/mgtestnic || return 1
	echo 1000 >frame_len && echo 4 >flows && echo 2000 >rate_pps
	timeout 120 $MGDUMP -i mgt0 -C 1 --index -w "$TMP/rec/cap" -q "$@" >"$TMP/d" 2>&1 &
	dump=$!
	wait_readers mgt0 || return 1
	# 6,000 frames of 4 flows a queue, then 400 on queue 0 of 8 flows, 4 of them new
	echo "all 3000" >generate && wait_idle mgt0 || return 1
	echo 8 >flows && echo "0 400" >generate && wait_idle mgt0 && wait_drained ||
		bad "mgdump never caught up"
	cd / && kill -INT $dump
	wait $dump || { bad "mgdump exited with $?: $(cat "$TMP/d")"; return 1; }
	files=$(ls "$TMP/rec" | grep -v '\.idx$')
	[ "$(ls "$TMP/rec" | grep -c '\.idx$')" = "$(echo "$files" | wc -l)" ] ||
		bad "not an index beside each file: $(ls "$TMP/rec")"
	# all of it in time order (mgdump's files are not: each queue's packets
	# go in as they are read; mergecap keeps each file's order)
	mergecap -F pcapng -w "$TMP/merged.pcapng" $(echo "$files" | sed "s|^|$TMP/rec/|") &&
		reordercap "$TMP/merged.pcapng" "$TMP/all.pcapng" >/dev/null || return 1
	# a flow of the last 400 frames: the spans that hold it
	extracted late -- udp src port 10500 || return 1
	packets "$TMP/all.pcapng" "udp src port 10500" >"$TMP/want"
	[ "$(grep -c '^[0-9]' "$TMP/want")" = 50 ] || bad "the recording has $(grep -c '^[0-9]' "$TMP/want") of 50"
	packets "$TMP/late.pcapng" | cmp -s - "$TMP/want" || bad "not tcpdump's packets of the late flow"
	[ "$read_pct" -lt 25 ] || bad "read $read_pct % for a flow of the last 400 frames of 6400"
	# a sixth of the recording's time (the test NIC's stamps: 3.4 ms) of a
	# flow that runs throughout.  (Stamps compared as strings, all of 10.9
	# digits: as awk's numbers, doubles, one within 256 ns of a bound could
	# fall on the wrong side of it.)
	first=$(packets "$TMP/all.pcapng" | awk '/^[0-9]/ { print $1 }' | sed -n '1p;$p' |
		tr -d . | tr '\n' ' ')
	last=${first#* } first=${first%% *}
	from=$((first + (last - first) / 3)) to=$((first + (last - first) / 2))
	from=$((from / 1000000000)).$(printf %09d $((from % 1000000000)))
	to=$((to / 1000000000)).$(printf %09d $((to % 1000000000)))
	extracted sixth --from "$from" --to "$to" -- udp src port 10101 || return 1
	packets "$TMP/all.pcapng" "udp src port 10101" |
		awk -v from="$from" -v to="$to" '/^[0-9]/ { on = ($1 "" >= from "") && ($1 "" < to "") } on' \
		>"$TMP/want"
	n=$(grep -c '^[0-9]' "$TMP/want")
	[ "$n" -ge 50 ] || bad "tcpdump found $n packets from $from to $to"
	packets "$TMP/sixth.pcapng" >"$TMP/got"
	cmp -s "$TMP/got" "$TMP/want" ||
		bad "not tcpdump's packets of that time: $(diff "$TMP/got" "$TMP/want" | head -n 6)"
	[ "$read_pct" -lt 60 ] || bad "read $read_pct % for a sixth of the time (1 MiB spans of 6.6)"
	# a whole scan finds the same, byte for byte; a flow that never came reads the indexes alone
	extracted whole --no-index --from "$from" --to "$to" -- udp src port 10101 || return 1
	cmp -s "$TMP/whole.pcapng" "$TMP/sixth.pcapng" || bad "a whole scan extracted other bytes"
	# all 6,400, put in order through runs in a temporary file (more than
	# are merged at once with 1 MiB): tcpdump's packets in time order, and
	# what the order in memory gives
	extracted everything || return 1
	extracted runs --memory 1M || return 1
	grep -Eq "in ([4-9]|[1-9][0-9]+) runs through a temporary file" "$TMP/runs.err" ||
		bad "6.6 MB in 1 MiB of memory, and not 4 runs or more"
	cmp -s "$TMP/runs.pcapng" "$TMP/everything.pcapng" ||
		bad "put in order through runs, other bytes than in memory"
	packets "$TMP/all.pcapng" >"$TMP/want"
	packets "$TMP/runs.pcapng" | cmp -s - "$TMP/want" ||
		bad "not tcpdump's packets of the whole recording, in time order"
	extracted none -- udp src port 4242 || return 1
	[ "$(packets "$TMP/none.pcapng" | wc -l)" = 0 ] || bad "packets of a flow that never came"
	[ "$read_pct" = 0 ] || bad "read $read_pct % for a flow no file holds"
}

run_suite "$@"
