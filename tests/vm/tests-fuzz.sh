#!/bin/sh
# The control plane under random programs (tests/programs/mgcap-ctlfuzz.c):
# netlink, the queue nodes' ioctls, filters, mappings, from two threads,
# with traffic, and between rounds a link bounce, a move to another
# namespace and back, and the module unloaded and loaded again.
#   sh tests/vm/tests-fuzz.sh [TEST...]     (in the VM; lib.sh)
# MGCAP_FUZZ_SEED: the first program's seed (default: the clock's seconds,
# printed; a failing program's seed replays it alone, as the failure says);
# MGCAP_FUZZ_SECONDS: each round's time (default 12).
ALL_TESTS="
	t_control_plane_under_random_programs
"
. "$(dirname "$0")/lib.sh"

FUZZ=$B/tests/programs/mgcap-ctlfuzz

# what the kernel logs when something is wrong, as run-vm.sh reads it
SPLATS=$(dirname "$0")/splat-patterns

t_control_plane_under_random_programs() {
	setup 4 || return 1
	first=${MGCAP_FUZZ_SEED:-$(date +%s)}
	seed=$first
	secs=${MGCAP_FUZZ_SECONDS:-12}
	taint=$(cat /proc/sys/kernel/tainted)
	# what the kernel logs from here on (a count of lines would not survive
	# the log wrapping)
	mark="mgcap-ctlfuzz: seeds from $first"
	echo "$mark" >/dev/kmsg
	programs=0
	calls=0
	for round in 1 2 3; do
		$FUZZ mgt0 --seed "$seed" --programs 100000 --seconds "$secs" >"$TMP/round" 2>&1 ||
			bad "round $round: $(grep -v '^[0-9]* programs' "$TMP/round" | head -n 5)"
		tally=$(tail -n 1 "$TMP/round")
		n=$(echo "$tally" | awk '{print $1}')
		[ -n "$n" ] && [ "$n" -gt 0 ] || { bad "round $round ran no program: $tally"; return 1; }
		say "round $round: $tally"
		programs=$((programs + n))
		calls=$((calls + $(echo "$tally" | sed -E 's/.* ([0-9]+) calls.*/\1/')))
		seed=$((seed + n))
		# what the rounds have between them
		case $round in
		1)	ip link set mgt0 down && ip link set mgt0 up || bad "link bounce" ;;
		2)	ip netns add fuzz && ip link set mgt0 netns fuzz &&
				ip -n fuzz link set mgt0 netns 1 && ip link set mgt0 up ||
				bad "a move to another namespace and back"
			# unloaded with whatever the programs left captured
			rmmod mgcap && insmod "$KO" || bad "mgcap unloaded and loaded again" ;;
		esac
	done
	$MGCAP stop mgt0 >/dev/null 2>&1
	rmmod mgcap || bad "mgcap does not unload after the programs"
	insmod "$KO" || bad "mgcap does not load again"
	dmesg | sed -n "/$mark/,\$p" >"$TMP/dmesg"
	grep -q "$mark" "$TMP/dmesg" || bad "the kernel's log lost the start of the run"
	splats=$(grep -cFf "$SPLATS" "$TMP/dmesg")
	now=$(cat /proc/sys/kernel/tainted)
	say "$programs programs (seeds $first..$((seed - 1))), $calls calls, $splats splats, taint $taint -> $now"
	[ "$splats" = 0 ] || bad "the kernel complained: $(grep -Ff "$SPLATS" "$TMP/dmesg" | head -n 3)"
	[ "$now" = "$taint" ] || bad "the kernel's taint went from $taint to $now"
}

run_suite "$@"
