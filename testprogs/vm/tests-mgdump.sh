# mgdump's tests (sourced by guest-tests.sh).

# through the patched libpcap, as mgcap-run does for any program
MGDUMP="$RUN $B/tools/mgdump"

t_mgdump_every_frame_per_queue() {
	setup 4 && $MGCAP start mgt0 >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/out.pcapng" -c 8000 -q >"$TMP/d" 2>&1 &
	dump=$!
	sleep 1
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || { cat "$TMP/d"; return 1; }
	# one interface per queue, nanoseconds, the default snaplen of 96
	capinfos "$TMP/out.pcapng" >"$TMP/ci" || return 1
	grep -q "nanoseconds (9)" "$TMP/ci" || bad "not nanoseconds"
	grep -q "Number of interfaces in file: 4" "$TMP/ci" || bad "not 4 interfaces"
	grep -q "Name = mgt0@3" "$TMP/ci" || bad "no interface mgt0@3"
	$PCAPCHECK "$TMP/out.pcapng" --queues 4 --count 2000 --snaplen 96 --unmerged
}

t_mgdump_merged_in_stamp_order() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 --merged -s 262144 -w "$TMP/out.pcapng" -c 4000 -q &
	dump=$!
	sleep 1
	echo "all 2000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || return 1
	$PCAPCHECK "$TMP/out.pcapng" --queues 2 --count 2000
}

t_mgdump_rotation_loses_nothing() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/rot" -C 1 -c 40000 -q &
	dump=$!
	sleep 1
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
	$PCAPCHECK $files --queues 2 --count 20000 --snaplen 96 --unmerged || return 1
	# a ring of 3 keeps exactly 3
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/ring" -C 1 -W 3 -c 40000 -q &
	dump=$!
	sleep 1
	echo "all 20000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $dump || return 1
	n=$(ls "$TMP" | grep -c '^ring')
	[ "$n" = 3 ] || bad "-W 3 left $n files"
	for f in "$TMP"/ring*; do capinfos "$f" >/dev/null || bad "$f unreadable"; done
}

t_mgdump_to_stdout() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	(timeout 120 $MGDUMP -i mgt0 -w - -c 2000 -q | tshark -r - -T fields -e frame.len \
		2>/dev/null | sort | uniq -c >"$TMP/lens") &
	pipe=$!
	sleep 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $pipe
	cat "$TMP/lens"
	grep -q "^ *2000 128$" "$TMP/lens" || bad "tshark did not read 2000 frames of 128 bytes"
}

t_mgdump_stops_cleanly_on_sigint() {
	setup 2 && $MGCAP start mgt0 >/dev/null || return 1
	timeout 120 $MGDUMP -i mgt0 -w "$TMP/out.pcapng" >"$TMP/d" 2>&1 &
	dump=$!
	sleep 1
	echo "all 3000" >/sys/class/net/mgt0/mgtestnic/generate
	sleep 2
	kill -INT $dump
	wait $dump || { cat "$TMP/d"; return 1; }
	grep -q "6000 packets written" "$TMP/d" || bad "summary: $(cat "$TMP/d")"
	$PCAPCHECK "$TMP/out.pcapng" --queues 2 --count 3000 --snaplen 96 --unmerged
}

t_mgdump_bad_input() {
	setup 1 && $MGCAP start mgt0 >/dev/null || return 1
	for args in "-w x" "-i mgt0" "-i mgt0 -w x -C 0" "-i mgt0 -w x -W 3" \
		"-i mgt0 -w x -s 0" "-i mgt0 -w x --cpus a" "-i nosuch0 -w $TMP/x" \
		"-i mgt0 -w /nonexistent/dir/x" "-i mgt0 -w $TMP/x not-a-filter(("; do
		out=$($MGDUMP $args 2>&1)
		st=$?
		lines=$(printf '%s\n' "$out" | wc -l)
		if [ $st -eq 0 ] || [ "$lines" -ne 1 ]; then
			bad "mgdump $args: status $st, '$out'"
			return 1
		fi
	done
}
