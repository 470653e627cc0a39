#!/bin/sh
# No target includes a layer above it (scripts/check-layers.sh): the tree
# passes, and trees where a layer reaches up (lib into a tool, the file
# format into the recorder, one tool into another, the libpcap module into
# a tool, the preload shim into lib) or a bench includes a .c file fail,
# naming the include.
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
mkdir -p "$tmp/lib/capfile" "$tmp/libpcap/module" "$tmp/tools/mgdump" \
	"$tmp/tools/mgcap-extract" "$tmp/bench"
# headers for the includes below to find, each in its layer
: >"$tmp/tools/mgdump/blockring.h"
: >"$tmp/lib/mgcap_reader.h"

# refused WHAT FILE LINE SAYS: a tree where FILE holds LINE fails the check,
# with a line that contains SAYS
refused() {
	echo "$3" >"$tmp/$2"
	if out=$(sh "$check" "$tmp"); then
		echo "FAILED: $1 passed the check"
		status=1
	elif echo "$out" | grep -qF "$4"; then
		echo "ok - $1 fails: $out"
	else
		echo "FAILED: $1 failed the check without saying \"$4\": $out"
		status=1
	fi
	rm "$tmp/$2"
}

refused "lib including a tool's header" lib/reader.c '#include "blockring.h"' \
	'lib/reader.c includes "blockring.h" from tools/mgdump/blockring.h'
refused "the file format including the recorder's header" lib/capfile/pcapng.c \
	'#include "blockring.h"' 'lib/capfile/pcapng.c includes "blockring.h" from tools/mgdump'
refused "mgcap-extract including the recorder's header" tools/mgcap-extract/scan.c \
	'#include "blockring.h"' 'tools/mgcap-extract/scan.c includes "blockring.h" from tools/mgdump'
refused "the libpcap module including a tool's header" libpcap/module/pcap-mgcap.c \
	'#include "blockring.h"' 'libpcap/module/pcap-mgcap.c includes "blockring.h" from tools/mgdump'
refused "the preload shim including lib" libpcap/ifflags-shim.c '#include "mgcap_reader.h"' \
	'libpcap/ifflags-shim.c includes "mgcap_reader.h" from lib'
refused "a bench including a .c file" bench/readpath.c \
	'#include "../libpcap/module/pcap-mgcap.c"' 'includes the source file'

# and what a layer may see passes: the libpcap module includes lib
echo '#include "mgcap_reader.h"' >"$tmp/libpcap/module/pcap-mgcap.c"
if out=$(sh "$check" "$tmp"); then
	echo "ok - the libpcap module includes lib"
else
	echo "FAILED: the libpcap module including lib failed the check: $out"
	status=1
fi
exit $status
