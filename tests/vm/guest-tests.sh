#!/bin/sh
# The mgcap tests that need a kernel; run inside the VM by tests/vm/vm-tests.sh.
#   guest-tests.sh [TEST...]     (default: every t_* function of tests-*.sh)
# Each test loads the modules fresh and unloads them after; any check that
# does not hold fails it (harness.sh).
set -u
B=$MGCAP_BUILD
K=$(uname -r)
KO=$B/build/$K/kmod/mgcap.ko
NIC=$B/build/$K/mgtestnic/mgtestnic.ko
MGCAP=$B/tools/mgcap/mgcap
SETMODE=$B/tools/mgcap/mgcap-setmode
RINGCHECK=$B/tests/programs/mgcap-ringcheck
BADINPUT=$B/tests/programs/mgcap-badinput
WAIT=$B/tests/programs/mgcap-wait
UDPCOUNT=$B/tests/programs/mgcap-udpcount
PCAPCHECK=$B/tests/programs/mgcap-pcapcheck
PCAPTEST=$B/tests/programs/mgcap-pcaptest
RUN=$B/tools/mgcap-run
# through the patched libpcap, as mgcap-run does for any program
MGDUMP="$RUN $B/tools/mgdump/mgdump"
SUITES=$(ls "$(dirname "$0")"/tests-*.sh)
if [ "${MGCAP_INSTALLED:-0}" = 1 ]; then
	# what the packages installed (scripts/test-packages.sh); the test
	# programs and the test NIC still come from the build tree
	KO=$(modinfo -n mgcap) || exit 1
	MGCAP=/usr/sbin/mgcap
	SETMODE=/usr/sbin/mgcap-setmode
	RUN=/usr/bin/mgcap-run
	MGDUMP=/usr/sbin/mgdump		# its RUNPATH finds the mgcap libpcap
	SUITES="$SUITES $(ls "$(dirname "$0")"/installed-*.sh)"
	# what the packages put in place, each used at least once: the module
	# DKMS built, the tools, the libpcap (its module, its conversion, its
	# report to mgdump); then the package tests.  The logic under them ran
	# on the build tree just before (scripts/test.sh).
	INSTALLED_TESTS="t_every_frame_hw_stamps t_both_stamps_after_the_frame
		t_device_unregistered_during_capture t_tools_report_errors t_hwtstamp_control
		t_tcpdump_every_frame_with_adapter_stamps t_dumpcap_pcapng_nanoseconds t_libpcap_api
		t_argus_through_the_ifflags_shim t_mgdump_every_frame_per_queue
		t_mgdump_merged_in_stamp_order t_mgdump_bad_input
		t_readers_mgdump_and_two_tcpdumps_each_get_theirs
		t_adapter_stamps_are_system_time_by_every_method
		t_mgdump_adapter_stamps_where_the_nic_has_a_clock
		t_adapter_two_devices_merge_in_true_time_order t_mgcap_show_reports_the_clock
		$(cat "$(dirname "$0")"/installed-*.sh | grep -o '^t_[a-z0-9_]*')"
fi
TMP=$(mktemp -d)

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/harness.sh"

setup() {	# setup [QUEUES [DEVICES]]
	insmod "$NIC" queues="${1:-4}" devices="${2:-1}" || return 1
	for d in $(ls /sys/class/net | grep '^mgt'); do ip link set "$d" up || return 1; done
	insmod "$KO" || return 1
}

teardown() {
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do ip netns del "$ns"; done
	ip link del br0 2>/dev/null
	rmmod mgcap 2>/dev/null
	rmmod mgtestnic 2>/dev/null
	rm -rf "$TMP"/*
	return 0
}

# background reader: wait_start NAME ARGS...; its output in $TMP/NAME
wait_start() {
	name=$1
	shift
	start_until "$name" ready "$@"
}

# start_until NAME TEXT ARGS...: ARGS in the background, output in $TMP/NAME,
# pid in $pid_NAME; returns once the output shows TEXT (wait_text)
start_until() {
	name=$1
	text=$2
	shift 2
	"$@" >"$TMP/$name" 2>&1 &
	eval "pid_$name=\$!"
	wait_text "$TMP/$name" "$text"
}

wait_idle() {	# wait_idle DEV: until its generators have nothing pending
	i=0
	while grep -q '[1-9]' "/sys/class/net/$1/mgtestnic/pending"; do
		i=$((i + 1))
		[ $i -gt 600 ] && return 1
		sleep 0.1
	done
}

wait_readers() {	# wait_readers DEV [N]: until every queue of DEV has N readers (1; 10 s at most)
	i=0
	# queue lines of the table end in the node; their 7th column counts readers
	while out=$($MGCAP show "$1") &&
		echo "$out" | awk -v n="${2:-1}" '$NF ~ "^/dev/mgcap/" && $7 < n {few = 1}
			END {exit !few}'; do
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "$out"; return 1; }
		sleep 0.1
	done
	[ -n "$out" ]
}

# wait_text FILE TEXT: until FILE shows TEXT; 30 s at most, as wait_node (a
# user's tshark under emulation has taken more than 10 s to start capturing),
# then it says what it waited for and what FILE shows
wait_text() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			say "no '$2' in $1 after 30 s:"
			sed 's/^/      /' "$1"
			return 1
		fi
		sleep 0.1
	done
}

wait_end() {	# wait_end NAME: its exit status
	eval "wait \$pid_$1"
	st=$?
	sed 's/^/      /' "$TMP/$1"
	return $st
}

# --- runner -------------------------------------------------------------------------

for f in $SUITES; do
	. "$f"
done
run_tests ${*:-${INSTALLED_TESTS:-$(cat $SUITES | grep -o '^t_[a-z0-9_]*')}}
status=$?
echo "kernel $K: $R_passed passed, $R_failed failed, $R_skipped skipped"
rm -rf "$TMP"
exit $status
