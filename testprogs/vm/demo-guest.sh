#!/bin/sh
# The demonstration, inside the VM: see scripts/demo.sh.
set -eu
B=$1
K=$(uname -r)
PATH=$B/tools:$PATH
run() {
	echo
	echo "\$ $*"
	"$@"
}

insmod "$B/build/$K/mgtestnic/mgtestnic.ko" queues=2
ip link set mgt0 up
insmod "$B/build/$K/kmod/mgcap.ko"
echo "Kernel $K, test NIC mgt0 with 2 receive queues and a synthetic hardware clock."
run mgcap start mgt0 ring-size 16M
run mgcap hwtstamp mgt0 on
echo
echo "\$ echo 'all 1000' > /sys/class/net/mgt0/mgtestnic/generate   # 1000 frames per queue"
echo "all 1000" >/sys/class/net/mgt0/mgtestnic/generate
sleep 1
run mgcap show mgt0
run mgcap peek mgt0@0 count 5
run mgcap peek mgt0@1 count 5
run mgcap-setmode mgt0 drop
echo "all 500" >/sys/class/net/mgt0/mgtestnic/generate
sleep 1
run mgcap -j show mgt0
run mgcap stop mgt0
