#!/bin/sh
# The installed packages, used as their users would (run by guest-tests.sh
# when MGCAP_INSTALLED=1: scripts/test-packages.sh installed mgcap,
# mgcap-dkms and libpcap0.8-mgcap on the host, whose files the VM sees; what
# a test installs or changes in the VM stays in the VM).
#   MGCAP_INSTALLED=1 MGCAP_DEBS=DIR sh tests/vm/installed-packages.sh [TEST...]
ALL_TESTS="
	t_installed_module_is_built_and_loads_on_demand
	t_dumpcap_as_a_user_in_the_capture_group
	t_tshark_as_a_user
	t_adapter_stamps_as_a_user_in_the_capture_group
	t_mgdump_service_records
"
. "$(dirname "$0")/lib.sh"

# what dpkg-reconfigure wireshark-common does when members of group
# wireshark may capture: dumpcap with file capabilities (once a boot: the
# VM's changes to the file system last until it ends)
dumpcap_for_wireshark_group() {
	getcap /usr/bin/dumpcap | grep -q cap_net_admin && return 0
	echo "wireshark-common wireshark-common/install-setuid boolean true" |
		debconf-set-selections &&
		DEBIAN_FRONTEND=noninteractive dpkg-reconfigure -f noninteractive wireshark-common \
			>/dev/null 2>&1 &&
		getcap /usr/bin/dumpcap | grep -q cap_net_admin
}

# as_user GROUPS CMD...: CMD as an unprivileged user (nobody's uid) who is
# in GROUPS (comma-separated names), at home in $USERDIR, which it may write
USERDIR=/tmp/mgcap-user
as_user() {
	gids=$(for g in $(echo "$1" | tr , ' '); do getent group "$g" | cut -d: -f3; done |
		paste -sd, -)
	shift
	mkdir -p "$USERDIR" && chmod 0777 "$USERDIR" &&
		(cd "$USERDIR" && HOME=$USERDIR setpriv --reuid=65534 --regid=65534 \
			--groups="$gids" -- "$@")
}

# the opt-in package that gives every program the mgcap libpcap, dumpcap
# too (which ignores LD_LIBRARY_PATH): whether it is in; put in, once a
# boot as above
system_libpcap_is_in() {
	dpkg -s libpcap0.8-mgcap-system 2>/dev/null | grep -q "^Status: install ok installed"
}
system_libpcap_put_in() {
	system_libpcap_is_in && return 0
	dpkg -i "$MGCAP_DEBS"/libpcap0.8-mgcap-system_*.deb >"$TMP/dpkg" 2>&1 ||
		{ cat "$TMP/dpkg"; bad "cannot install libpcap0.8-mgcap-system"; return 1; }
}

# (the VM runs udev, which applies the packages' rule: the queue nodes
# belong to group mgcap)

# wait_node DEV there|gone: until DEV's first queue node is there, or gone
# (45 s at most: more than the 30 s a capture waits for its first reader, and
# a user's tshark under emulation can take long to open its source)
wait_node() {
	wait_for 45000 "/dev/mgcap/$1@0 $2" node_is "$1" "$2"
}
node_is() {
	if [ "$2" = there ]; then [ -e "/dev/mgcap/$1@0" ]; else [ ! -e "/dev/mgcap/$1@0" ]; fi
}

t_installed_module_is_built_and_loads_on_demand() {
	ko=$(modinfo -n mgcap)
	magic=$(modinfo -F vermagic mgcap | cut -d' ' -f1)
	say "$ko, vermagic $magic"
	[ "$magic" = "$K" ] || bad "DKMS built mgcap for $magic, not $K"
	case $ko in /lib/modules/$K/updates/dkms/*) ;; *) bad "not DKMS's module: $ko" ;; esac
	insmod "$NIC" queues=2 && ip link set mgt0 up || return 1
	! grep -q '^mgcap ' /proc/modules || bad "mgcap loaded before anything asked for it"
	$MGCAP start mgt0 >/dev/null || bad "mgcap start did not load the module"
	grep -q '^mgcap ' /proc/modules || bad "mgcap is not loaded after mgcap start"
	$MGCAP stop mgt0
}

t_dumpcap_as_a_user_in_the_capture_group() {
	dumpcap_for_wireshark_group || { bad "dumpcap has no file capabilities"; return 1; }
	insmod "$NIC" queues=4 && ip link set mgt0 up || return 1
	# dumpcap ignores LD_LIBRARY_PATH: without the switch (which a test
	# before may have left in) it cannot see mgcap
	! system_libpcap_is_in || dpkg -r libpcap0.8-mgcap-system >/dev/null 2>&1 || return 1
	as_user wireshark,mgcap dumpcap -D >"$TMP/plain" 2>&1
	grep -q "^[0-9]*\. mgt0$" "$TMP/plain" || bad "dumpcap -D: $(cat "$TMP/plain")"
	! grep -q "mgcap:" "$TMP/plain" || bad "dumpcap saw mgcap without the switch"
	dpkg -i "$MGCAP_DEBS"/libpcap0.8-mgcap-system_*.deb >"$TMP/dpkg" 2>&1 ||
		{ cat "$TMP/dpkg"; bad "cannot install libpcap0.8-mgcap-system"; return 1; }
	ldd /usr/bin/dumpcap | grep -q "/mgcap/libpcap.so.0.8" || bad "dumpcap loads another libpcap"

	# the module is loaded by the first open of mgcap:mgt0, and starts its capture
	as_user wireshark,mgcap dumpcap -D >"$TMP/list" 2>&1
	grep -q "^[0-9]*\. mgcap:mgt0$" "$TMP/list" || bad "dumpcap -D: $(cat "$TMP/list")"
	grep -q "^[0-9]*\. mgt0$" "$TMP/list" || bad "dumpcap -D lost the plain device"
	# (dumpcap shows no descriptions; tcpdump does)
	tcpdump -D >"$TMP/tcpdump-list" 2>&1
	grep -q "mgcap:mgt0 (mgcap: mgt0 not captured yet; opening it starts a capture)" \
		"$TMP/tcpdump-list" || bad "tcpdump -D: $(cat "$TMP/tcpdump-list")"
	start_until dumpcap "^File: " as_user wireshark,mgcap dumpcap -i mgcap:mgt0 \
		--time-stamp-type adapter_unsynced -c 4000 -w "$USERDIR/out.pcapng" || return 1
	wait_readers mgt0 || return 1
	# dumpcap's default buffer is 2 MiB: the ring of each queue is that
	$MGCAP show mgt0 | grep -q "ring 2048 KiB, snaplen [0-9]*, stops with its last reader" ||
		bad "not a capture for its reader: $($MGCAP show mgt0 | head -n 1)"
	out=$($MGCAP start mgt0 2>&1) && bad "mgcap start took over a capture for a reader"
	echo "$out" | grep -q "already captured, for its readers" || bad "mgcap start: '$out'"
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end dumpcap || bad "dumpcap failed"
	capinfos "$USERDIR/out.pcapng" >"$TMP/capinfos" || return 1
	grep -q "nanoseconds (9)" "$TMP/capinfos" || { cat "$TMP/capinfos"; bad "not nanoseconds"; }
	$PCAPCHECK "$USERDIR/out.pcapng" --queues 4 --count 1000 || bad "frames"
	wait_node mgt0 gone || bad "the capture outlived its last reader"

	# outside group mgcap: refused, saying why, and the capture it started goes
	as_user wireshark dumpcap -i mgcap:mgt0 -c 1 -w "$USERDIR/no.pcapng" >"$TMP/refused" 2>&1 &&
		bad "dumpcap outside group mgcap captured"
	say "outside the group: $(grep -m1 "permission denied" "$TMP/refused")"
	grep -q "permission denied: only root and group mgcap may read it" "$TMP/refused" ||
		bad "refusal: $(cat "$TMP/refused")"
	wait_node mgt0 gone || bad "the capture started for a refused reader stayed"

	# a capture started with mgcap start stays as configured
	$MGCAP start mgt0 mode drop >/dev/null || return 1
	as_user wireshark,mgcap dumpcap -i mgcap:mgt0 -a duration:1 -w "$USERDIR/d.pcapng" \
		>/dev/null 2>&1 || bad "dumpcap on a started capture"
	sleep 1	# a duration: the second after which a capture for its readers stops
	$MGCAP show mgt0 | grep -q "mode drop" || bad "mgcap start's capture went with its reader"

	# taking the switch away gives the stock libpcap back
	dpkg -r libpcap0.8-mgcap-system >"$TMP/dpkg" 2>&1 || { cat "$TMP/dpkg"; bad "dpkg -r"; }
	ldd /usr/bin/dumpcap | grep -q "/mgcap/" && bad "dumpcap still loads the mgcap libpcap"
	rm -rf "$USERDIR"
}

t_tshark_as_a_user() {
	dumpcap_for_wireshark_group || { bad "dumpcap has no file capabilities"; return 1; }
	system_libpcap_put_in && setup 2 || return 1
	start_until tshark "Capturing on" as_user wireshark,mgcap tshark -n -i mgcap:mgt0 -c 600 \
		-T fields -e frame.time_epoch -e udp.srcport || return 1
	wait_node mgt0 there && wait_readers mgt0 || return 1
	echo "all 300" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end tshark >/dev/null || bad "tshark failed"
	n=$(grep -c "	1000[01]$" "$TMP/tshark")
	say "tshark as a user printed $n frames"
	[ "$n" = 600 ] || bad "tshark printed $n of 600 frames"
	rm -rf "$USERDIR"
}

# The NIC's clock is the capture group's to read, not to set: dumpcap run
# by a member takes adapter stamps, and the same user cannot step the clock
# or switch on its pulse output through the node.
t_adapter_stamps_as_a_user_in_the_capture_group() {
	dumpcap_for_wireshark_group || { bad "dumpcap has no file capabilities"; return 1; }
	system_libpcap_put_in && setup 2 || return 1
	echo 1 >/sys/class/net/mgt0/mgtestnic/phc_stamps &&
		echo precise >/sys/class/net/mgt0/mgtestnic/phc_best || return 1
	ptp=$(nic_clock)
	[ -n "$ptp" ] || { bad "no clock of the test NIC: $(ls /sys/class/ptp)"; return 1; }
	udevadm settle
	[ "$(stat -c '%U:%G %a' "$ptp")" = "root:mgcap 640" ] ||
		bad "$ptp: $(stat -c '%U:%G %a' "$ptp")"

	start_until dumpcap "^File: " as_user wireshark,mgcap dumpcap -i mgcap:mgt0 \
		--time-stamp-type adapter -c 2000 -w "$USERDIR/a.pcapng" || return 1
	wait_readers mgt0 || return 1
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end dumpcap >/dev/null || bad "dumpcap failed: $(cat "$TMP/dumpcap")"
	# within 1 us of the truth: converted (a host stamp is taken microseconds
	# after the NIC's under emulation)
	check=$($PCAPCHECK "$USERDIR/a.pcapng" --queues 2 --count 1000 --truth 1000) ||
		bad "$check: $(cat "$TMP/dumpcap")"
	say "dumpcap as a user: $(echo "$check" | sed -n 's/.*truth: //p')"

	# Two of the group's captures at once, the first ending first: the NIC's
	# stamping stays on for the second.  dumpcap gives up its capabilities
	# once its source is open, so neither can put the setting back at its
	# end; what it was stays recorded, in a directory the packages made the
	# group's, sticky (systemd-tmpfiles makes it at boot, which the VM has
	# without systemd).  Root's "mgcap hwtstamp DEV restore" shows what a
	# member's record says and acts on it no more than on any a member
	# could have written by hand.
	systemd-tmpfiles --create mgcap.conf || bad "systemd-tmpfiles --create mgcap.conf"
	[ "$(stat -c '%a %G' /run/mgcap/hwtstamp)" = "3770 mgcap" ] ||
		bad "/run/mgcap/hwtstamp: $(stat -c '%a %G' /run/mgcap/hwtstamp)"
	$MGCAP hwtstamp mgt0 off >/dev/null || return 1
	for c in first:200 second:2000; do
		start_until "${c%:*}" "^File: " as_user wireshark,mgcap dumpcap -i mgcap:mgt0 \
			--time-stamp-type adapter -c "${c#*:}" -w "$USERDIR/${c%:*}.pcapng" || return 1
	done
	wait_readers mgt0 2 || return 1
	echo "all 100" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end first >/dev/null || bad "the first dumpcap failed: $(cat "$TMP/first")"
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: all" ||
		bad "the first capture took the second's stamping: $($MGCAP hwtstamp mgt0 show)"
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait_end second >/dev/null || bad "the second dumpcap failed: $(cat "$TMP/second")"
	out=$($MGCAP hwtstamp mgt0 restore 2>&1) && bad "root acted on a member's record: $out"
	echo "$out" | grep -q "written by nobody, not by root or you: not restored (it says receive filter none" ||
		bad "no word of the setting the group's captures found: $out"
	$MGCAP hwtstamp mgt0 show | grep -q "current receive filter: all" ||
		bad "restore changed the setting: $($MGCAP hwtstamp mgt0 show)"
	# a member cannot take root's record away, nor write in root's place
	$MGCAP hwtstamp mgt0 off >/dev/null && $MGCAP hwtstamp mgt0 on >/dev/null || return 1
	as_user mgcap sh -c 'rm -f /run/mgcap/hwtstamp/mgt0; echo 0 0 9 0 0 1 1 >/run/mgcap/hwtstamp/mgt0' \
		2>/dev/null && bad "a member replaced root's record"
	$MGCAP hwtstamp mgt0 restore | grep -q "receive filter none restored" ||
		bad "root's record lost: $($MGCAP hwtstamp mgt0 show)"

	# what the node lets the group do: read, never set (EACCES from the kernel)
	as_user wireshark,mgcap python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
clock = (~fd << 3) | 3			# the dynamic POSIX clock of the descriptor
time.clock_gettime(clock)
for what, change in (("set", lambda: time.clock_settime(clock, time.clock_gettime(clock))),
		     ("enable its pulses", lambda: fcntl.ioctl(fd, 0x40043d04, 1))):  # PTP_ENABLE_PPS
	try:
		change()
		sys.exit("a member of the group could " + what + " the clock")
	except PermissionError:
		pass
' "$ptp" >"$TMP/py" 2>&1 || bad "$(cat "$TMP/py")"
	rm -rf "$USERDIR"
}

# unit_setting NAME: the value of the unit's NAME= (the last one)
unit_setting() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }

# The unit as systemd would run it (the VM has no systemd as PID 1): checked
# by systemd-analyze (verify, and its exposure at most 2.0), then its
# ExecStart with its environment, %I expanded, as its User= and Group=, with
# its capabilities (ambient and bounding), no new privileges and its UMask=.
# It records as its own user, keeping CAP_NET_ADMIN alone once the capture
# is open; its -z command runs as that user; its files and their index are
# readable by the group mgcap alone.
t_mgdump_service_records() {
	unit=/lib/systemd/system/mgdump@.service
	systemd-analyze verify "mgdump@mgt0.service" >"$TMP/verify" 2>&1 ||
		bad "systemd-analyze verify: $(cat "$TMP/verify")"
	systemd-analyze security --offline=yes --no-pager "$unit" >"$TMP/security" 2>&1
	exposure=$(sed -n 's/^.*Overall exposure level for [^ ]*: \([0-9.]*\) .*$/\1/p' "$TMP/security")
	say "exposure: ${exposure:-none}"
	awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 2.0) }' ||
		bad "exposure '$exposure' above 2.0: $(grep '^✗' "$TMP/security")"
	user=$(unit_setting User)
	group=$(unit_setting Group)
	# as setpriv takes them: +net_admin,+net_raw
	caps=$(unit_setting AmbientCapabilities | tr 'A-Z ' 'a-z,' | sed 's/cap_/+/g')
	bounding=$(unit_setting CapabilityBoundingSet | tr 'A-Z ' 'a-z,' | sed 's/cap_/+/g')
	umask=$(unit_setting UMask)
	[ "$user" = mgdump ] && [ "$group" = mgcap ] && [ "$umask" = 0027 ] ||
		bad "the unit runs as '$user:$group', umask '$umask'"
	getent passwd mgdump | grep -q ':/nonexistent:' || bad "user mgdump: $(getent passwd mgdump)"
	id -nG mgdump | grep -qw mgcap || bad "mgdump is not in group mgcap: $(id mgdump)"
	setup 2 || return 1
	[ "$(stat -c '%U:%G %a' /var/lib/mgcap)" = "mgdump:mgcap 750" ] ||
		bad "/var/lib/mgcap: $(stat -c '%U:%G %a' /var/lib/mgcap 2>&1)"
	# -z: who it runs as, with which capabilities
	chmod 0711 "$TMP" || return 1
	printf '#!/bin/sh\n{ id -u; grep "^Cap\\|^NoNewPrivs" /proc/self/status; } >"$1.who"\n' \
		>"$TMP/post" &&
		chmod 0755 "$TMP/post" || return 1
	echo "MGDUMP_OPTIONS=\"-c 2000 --index -z $TMP/post\"" >/etc/default/mgdump-mgt0
	cmd=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's/%I/mgt0/g')
	env=$(sed -n 's/^Environment=//p' "$unit")
	( eval "export $env"
	  for f in $(sed -n 's/^EnvironmentFile=-//p' "$unit" | sed 's/%I/mgt0/g'); do
		[ -f "$f" ] && { set -a; . "$f"; set +a; }
	  done
	  umask "$umask"
	  eval "exec timeout 120 setpriv --reuid=$user --regid=$group --init-groups \
		--inh-caps=-all,$caps --ambient-caps=-all,$caps --bounding-set=-all,$bounding \
		--no-new-privs $cmd" ) >"$TMP/service" 2>&1 &
	service=$!
	wait_node mgt0 there && wait_readers mgt0 || { cat "$TMP/service"; return 1; }
	pid=$(pgrep -x mgdump | head -n 1)
	[ -n "$pid" ] && [ "$(stat -c %U "/proc/$pid")" = mgdump ] ||
		bad "the service's mgdump runs as $(stat -c %U "/proc/$pid" 2>&1)"
	# CAP_NET_ADMIN alone (bit 12), to give the NIC's stamping back at the end
	grep -q "^CapEff:[[:space:]]*0000000000001000$" "/proc/$pid/status" ||
		bad "the service's mgdump keeps: $(grep '^Cap' "/proc/$pid/status" | tr '\n' ' ')"
	echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
	wait $service || { cat "$TMP/service"; bad "the service's mgdump failed"; }
	files=$(ls /var/lib/mgcap/mgt0.pcapng* | grep -v '\.\(idx\|who\)$')
	say "the unit wrote $(echo $files)"
	# one interface per queue, each in order (the file is not merged)
	$PCAPCHECK $files --queues 2 --count 1000 --unmerged || bad "frames"
	for f in $files $(echo "$files" | sed 's/$/.idx/'); do
		[ "$(stat -c '%U:%G %a' "$f")" = "mgdump:mgcap 640" ] ||
			bad "$f: $(stat -c '%U:%G %a' "$f" 2>&1), not mgdump:mgcap 640"
	done
	# the group may read them, nobody else
	as_user mgcap capinfos $files >/dev/null 2>&1 || bad "the group mgcap cannot read $files"
	as_user nogroup capinfos $files >/dev/null 2>&1 && bad "a user outside group mgcap read $files"
	for f in $files; do
		[ "$(head -n 1 "$f.who" 2>/dev/null)" = "$(id -u mgdump)" ] ||
			bad "-z ran as uid '$(head -n 1 "$f.who" 2>&1)', not mgdump's"
		# none it holds or can pass on; the bounding set stays the unit's
		# (emptying it takes CAP_SETPCAP), which no new privileges makes moot
		! grep "^Cap\(Inh\|Prm\|Eff\|Amb\)" "$f.who" | grep -qv '0000000000000000$' &&
			grep -q "^NoNewPrivs:[[:space:]]*1" "$f.who" ||
			bad "-z had capabilities: $(grep '^Cap\|^NoNewPrivs' "$f.who" | tr '\n' ' ')"
	done
	rm -f /etc/default/mgdump-mgt0 /var/lib/mgcap/mgt0.pcapng*
	rm -rf "$USERDIR"
}

run_suite "$@"
