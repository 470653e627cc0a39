#!/bin/sh
# check-layers.sh [TOP]: every #include "..." in the tree resolves within
# the layers its directory may see, and no file includes a .c file.  The
# layers, from the bottom up (Makefile.am gives each target the same include
# paths; this catches what a path list cannot, such as a relative include):
#   include/uapi/linux   nothing
#   kmod                 itself (the uapi header through <linux/mgcap.h>)
#   lib                  itself
#   lib/cli              itself
#   lib/capfile          itself (the files mgdump writes, mgcap-extract reads)
#   libpcap/module       itself, lib (the libpcap capture module)
#   tools/mgcap          itself, lib, lib/cli
#   tools/mgdump         itself, lib, lib/cli, lib/capfile
#   tools/mgcap-extract  itself, lib/cli, lib/capfile
#   libpcap              itself (the preload shim beside the patch)
#   tests/mgtestnic      itself
#   tests/support        itself (what unit tests and benches share)
#   tests/programs       itself, lib, tests (the test NIC's frame layout)
#   tests/unit           itself, lib, lib/cli, lib/capfile, tools/mgcap, tools/mgdump,
#                        tools/mgcap-extract, tests/support, tests
#   tests/fuzz           itself, lib, lib/cli, lib/capfile, tools/mgdump
#   bench                itself, libpcap/module, lib, lib/capfile, tools/mgdump, tests/support, tests
# An include found nowhere in the tree comes from outside it (libpcap's own
# headers, config.h) and is not the tree's to judge.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2

may_see() {
	case $1 in
	include/uapi/linux) echo "" ;;
	kmod|lib|lib/cli|lib/capfile|libpcap|tests/mgtestnic|tests/support) echo "$1" ;;
	libpcap/module) echo "$1 lib" ;;
	tools/mgcap) echo "$1 lib lib/cli" ;;
	tools/mgdump) echo "$1 lib lib/cli lib/capfile" ;;
	tools/mgcap-extract) echo "$1 lib/cli lib/capfile" ;;
	tests/programs) echo "$1 lib tests" ;;
	tests/unit) echo "$1 lib lib/cli lib/capfile tools/mgcap tools/mgdump tools/mgcap-extract" \
		"tests/support tests" ;;
	tests/fuzz) echo "$1 lib lib/cli lib/capfile tools/mgdump" ;;
	bench) echo "$1 libpcap/module lib lib/capfile tools/mgdump tests/support tests" ;;
	*) echo "UNKNOWN" ;;
	esac
}

status=0
for f in $(find . -path ./build -prune -o -path ./libpcap-source -prune -o \
		-path ./autom4te.cache -prune -o \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort); do
	dir=$(dirname "$f")
	layers=$(may_see "$dir")
	if [ "$layers" = UNKNOWN ]; then
		echo "layers: $f: its directory $dir has no place in the layers (scripts/check-layers.sh)"
		status=1
		continue
	fi
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		*.c) echo "layers: $f includes the source file $inc"; status=1; continue ;;
		esac
		found=
		for l in $layers; do
			[ -f "$l/$inc" ] && { found=$l; break; }
		done
		[ -n "$found" ] && continue
		# found elsewhere in the tree: a layer this one may not see
		where=$(find . -path ./build -prune -o -path "*/$inc" -print 2>/dev/null |
			grep -v "^./build" | head -n 1)
		[ -f "./$inc" ] && where=./$inc
		if [ -n "$where" ]; then
			echo "layers: $f includes \"$inc\" from ${where#./}, outside what $dir may see ($layers)"
			status=1
		fi
	done
done
exit $status
