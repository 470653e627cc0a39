#!/bin/sh
# The demonstration, inside the VM: see scripts/demo.sh.  The main job, as a
# user runs it: stock tcpdump, dumpcap and mgdump capture a two-queue NIC
# with hardware time stamps, each file is read back with nanosecond stamps,
# every frame present, nothing dropped; then drop mode.
set -eu
B=$1
K=$(uname -r)
PATH=$B/tools:$B/tools/mgcap:$B/tools/mgdump:$PATH
D=$(mktemp -d)
cd "$D"
run() {
	echo
	echo "\$ $*"
	"$@"
}
generate() {	# generate N: N frames on each queue
	echo "\$ echo 'all $1' > /sys/class/net/mgt0/mgtestnic/generate   # $1 frames a queue"
	echo "all $1" >/sys/class/net/mgt0/mgtestnic/generate
}
started() {	# started FILE TEXT: until the capture in the background says TEXT
	until grep -q "$2" "$1" 2>/dev/null; do sleep 0.1; done
}
ip_received() { awk '/^Ip:/ && $2 ~ /^[0-9]/ {print $4}' /proc/net/snmp; }
# what capinfos says of the frames and their stamps
summary() {
	echo
	echo "\$ capinfos $1"
	capinfos "$1" | grep -E "^(Number of packets|File timestamp precision|First packet|Last packet)"
}

insmod "$B/build/$K/mgtestnic/mgtestnic.ko" queues=2
ip link set mgt0 up
ip addr add 198.51.100.1/24 dev mgt0	# its frames are for this host
insmod "$B/build/$K/kmod/mgcap.ko"
echo "Kernel $K; mgt0 is a test NIC with 2 receive queues and a hardware clock of its own"
echo "(it stamps queue q's frame n at 1700000000 s + n us + q ns)."
run mgcap start mgt0 ring-size 16M
run mgcap hwtstamp mgt0 on

echo
echo "--- Debian's tcpdump, hardware stamps to the nanosecond"
echo "\$ mgcap-run tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -c 2000 -w tcpdump.pcap &"
mgcap-run tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -Z root \
	-c 2000 -w tcpdump.pcap >tcpdump.out 2>&1 &
started tcpdump.out "listening on"
generate 1000
wait
cat tcpdump.out
run tshark -r tcpdump.pcap -t ad -c 3 2>/dev/null
summary tcpdump.pcap

echo
echo "--- Wireshark's dumpcap, pcapng"
echo "\$ mgcap-run dumpcap -i mgcap:mgt0 --time-stamp-type adapter_unsynced -c 2000 -w dumpcap.pcapng &"
mgcap-run dumpcap -i mgcap:mgt0 --time-stamp-type adapter_unsynced -c 2000 \
	-w dumpcap.pcapng >dumpcap.out 2>&1 &
started dumpcap.out "^File: "
generate 1000
wait
grep "Packets received/dropped" dumpcap.out
summary dumpcap.pcapng

echo
echo "--- mgdump: a reader thread per queue, one pcapng interface each"
echo "\$ mgdump -i mgt0 -w mgdump.pcapng -c 2000 &"
mgcap-run mgdump -i mgt0 -w mgdump.pcapng -c 2000 >mgdump.out 2>&1 &
# (frames sent before it reads every queue would not be part of its capture)
until mgcap show mgt0 | awk '$NF ~ "^/dev/mgcap/" && $7 < 1 {few = 1} END {exit few}'; do
	sleep 0.1
done
generate 1000
wait
cat mgdump.out
run tshark -r mgdump.pcapng -t ad -c 2 -T fields -e frame.interface_name -e frame.time \
	-e udp.srcport 2>/dev/null
summary mgdump.pcapng

echo
echo "--- drop mode: captured, then consumed before the stack sees it"
before=$(ip_received)
generate 1000
sleep 1
echo "mirror mode: the stack saw $(($(ip_received) - before)) of 2000 frames (IP InReceives)"
run mgcap-setmode mgt0 drop
before=$(ip_received)
generate 1000
sleep 1
echo "drop mode: the stack saw $(($(ip_received) - before)) of 2000 frames"
run mgcap show mgt0
run mgcap stop mgt0
rm -rf "$D"
