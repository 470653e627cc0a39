#!/bin/sh
# The demonstration, inside the VM: see scripts/demo.sh.  The main job, as a
# user runs it: the NIC's own stamps in today's system time (-j adapter, with
# their error bound) beside its raw clock (-j adapter_unsynced); both ports
# of a tap read as one stream in time order; stock tcpdump, dumpcap and
# mgdump capture a two-queue NIC, each file read back with nanosecond stamps,
# every frame present, nothing dropped; then drop mode.
set -eu
B=$1
K=$(uname -r)
PATH=$B/tools:$B/tools/mgcap:$B/tools/mgdump:$B/tools/mgcap-extract:$PATH
D=$(mktemp -d)
cd "$D"
run() {
	echo
	echo "\$ $*"
	"$@"
}
generate() {	# generate N [DEV]: N frames on each queue of DEV (mgt0)
	echo "\$ echo 'all $1' > /sys/class/net/${2:-mgt0}/mgtestnic/generate   # $1 frames a queue"
	echo "all $1" >/sys/class/net/"${2:-mgt0}"/mgtestnic/generate
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

insmod "$B/build/$K/mgtestnic/mgtestnic.ko" queues=2 devices=2
ip link set mgt0 up
ip link set mgt1 up
ip addr add 198.51.100.1/24 dev mgt0	# its frames are for this host
insmod "$B/build/$K/kmod/mgcap.ko"
echo "Kernel $K; mgt0 and mgt1 are test NICs with 2 receive queues each and a"
echo "hardware clock (PHC) of their own, 37 s ahead of system time."
run mgcap start mgt0 ring-size 16M
run mgcap start mgt1 ring-size 16M
run mgcap hwtstamp mgt0 on

echo
echo "--- The NIC's stamps: its own clock (adapter_unsynced), and in system time (adapter)"
echo 1 >/sys/class/net/mgt0/mgtestnic/phc_stamps	# stamp from the PHC, as a real NIC does
echo 1 >/sys/class/net/mgt1/mgtestnic/phc_stamps
echo "\$ mgcap-run tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -c 200 -w raw.pcap &"
mgcap-run tcpdump -i mgcap:mgt0 -j adapter_unsynced --time-stamp-precision=nano -Z root \
	-c 200 -w raw.pcap >raw.out 2>&1 &
started raw.out "listening on"
echo "\$ MGCAP_ADAPTER_STATS=1 mgcap-run tcpdump -i mgcap:mgt0 -j adapter --time-stamp-precision=nano -c 200 -w sys.pcap &"
MGCAP_ADAPTER_STATS=1 mgcap-run tcpdump -i mgcap:mgt0 -j adapter --time-stamp-precision=nano \
	-Z root -c 200 -w sys.pcap >sys.out 2>&1 &
started sys.out "listening on"
generate 100
wait
echo "\$ date +%s.%N   # system time now"
date +%s.%N
echo "first frame, adapter_unsynced (the NIC's clock): $(tcpdump -r raw.pcap -tt -n -c 1 \
	--time-stamp-precision=nano 2>/dev/null | cut -d' ' -f1)"
echo "first frame, adapter (in system time):           $(tcpdump -r sys.pcap -tt -n -c 1 \
	--time-stamp-precision=nano 2>/dev/null | cut -d' ' -f1)"
echo "the conversion, as the adapter capture reported it at its end:"
grep "adapter stamps" sys.out

echo
echo "--- Both ports of a tap, one stream in time order (mgt1's frames come first)"
echo 38000000000 >/sys/class/net/mgt1/mgtestnic/phc_offset_ns	# its clock 1 s further ahead
echo "\$ mgcap-run tcpdump -i mgcap:mgt0,mgt1 -j adapter --time-stamp-precision=nano -c 8 -w tap.pcap &"
mgcap-run tcpdump -i mgcap:mgt0,mgt1 -j adapter --time-stamp-precision=nano -Z root \
	-c 8 -w tap.pcap >tap.out 2>&1 &
started tap.out "listening on"
generate 2 mgt1
sleep 0.5
generate 2 mgt0
wait
run tcpdump -r tap.pcap -tt -n -e --time-stamp-precision=nano 2>/dev/null | cut -c1-80
echo 0 >/sys/class/net/mgt0/mgtestnic/phc_stamps	# the synthetic stamps again, for what follows

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
run mgcap stop mgt1
rm -rf "$D"
