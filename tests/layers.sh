#!/bin/sh
# No target includes a layer above it (scripts/check-layers.sh): the tree
# passes, and a tree where lib reaches up into a tool, or a bench includes
# a .c file, fails.
set -u
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
check=$abs_top_srcdir/scripts/check-layers.sh
status=0
if sh "$check" "$abs_top_srcdir"; then
	echo "ok - the tree keeps its layers"
else
	echo "FAILED: the tree includes across its layers (above)"
	status=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lib" "$tmp/tools/mgdump" "$tmp/bench"
echo '#include "blockring.h"' >"$tmp/lib/reader.c"
: >"$tmp/tools/mgdump/blockring.h"
if out=$(sh "$check" "$tmp") ; then
	echo "FAILED: lib including a tool's header passed the check"
	status=1
elif echo "$out" | grep -q 'lib/reader.c includes "blockring.h" from tools/mgdump/blockring.h'; then
	echo "ok - lib including a tool's header fails: $out"
else
	echo "FAILED: the check failed without naming the include: $out"
	status=1
fi
rm "$tmp/lib/reader.c"
# the libpcap module sees lib, and the preload shim beside the patch nothing
mkdir -p "$tmp/libpcap/module"
: >"$tmp/lib/mgcap_reader.h"
echo '#include "mgcap_reader.h"' >"$tmp/libpcap/module/pcap-mgcap.c"
if out=$(sh "$check" "$tmp"); then
	echo "ok - the libpcap module includes lib"
else
	echo "FAILED: the libpcap module including lib failed the check: $out"
	status=1
fi
echo '#include "blockring.h"' >"$tmp/libpcap/module/pcap-mgcap.c"
if out=$(sh "$check" "$tmp"); then
	echo "FAILED: the libpcap module including a tool's header passed the check"
	status=1
elif echo "$out" | grep -q 'libpcap/module/pcap-mgcap.c includes "blockring.h" from tools/mgdump'; then
	echo "ok - the libpcap module including a tool's header fails: $out"
else
	echo "FAILED: the check failed without naming the include: $out"
	status=1
fi
rm "$tmp/libpcap/module/pcap-mgcap.c"
echo '#include "mgcap_reader.h"' >"$tmp/libpcap/ifflags-shim.c"
if out=$(sh "$check" "$tmp"); then
	echo "FAILED: the preload shim including lib passed the check"
	status=1
elif echo "$out" | grep -q 'libpcap/ifflags-shim.c includes "mgcap_reader.h" from lib'; then
	echo "ok - the preload shim including lib fails: $out"
else
	echo "FAILED: the check failed without naming the include: $out"
	status=1
fi
rm "$tmp/libpcap/ifflags-shim.c"
echo '#include "../libpcap/module/pcap-mgcap.c"' >"$tmp/bench/readpath.c"
if out=$(sh "$check" "$tmp"); then
	echo "FAILED: a bench including a .c file passed the check"
	status=1
else
	echo "ok - including a .c file fails: $out"
fi
exit $status
