#!/bin/sh
# build-libpcap.sh SRCDIR BUILDDIR PREFIX LIBDIR LIBMGCAP|--fetch-only
#
# Builds Debian's libpcap 1.10.3 (its own patches applied, so the soname
# stays libpcap.so.0.8 with Debian's symbol versions) with the mgcap capture
# module added, in BUILDDIR/libpcap: libpcap/module/pcap-mgcap*.c compiled in, LIBMGCAP
# (lib/libmgcap.a, position-independent) linked in.  The stock tcpdump, dumpcap and argus
# load the result through LD_LIBRARY_PATH (see mgcap-run).
set -eu
src=$1
build=$2
prefix=$3
libdir=$4
version=1.10.3-1

dl=$build/libpcap-source
tree=$build/libpcap
if [ ! -f "$dl/libpcap-1.10.3/debian/changelog" ]; then
	rm -rf "$dl"
	mkdir -p "$dl"
	# dpkg-source applies Debian's patches while unpacking
	(cd "$dl" && apt-get source -qq "libpcap=$version" >/dev/null 2>&1) || {
		echo "build-libpcap: cannot get the libpcap $version source (deb-src in apt sources?)" >&2
		exit 1
	}
fi

[ "${5:-}" = --fetch-only ] && exit 0

rm -rf "$tree"
cp -a "$dl/libpcap-1.10.3" "$tree"
# the module beside libpcap's own pcap-*.c, as the patch's configure.ac names them
cp "$src"/libpcap/module/pcap-mgcap*.[ch] "$tree/"
# the layers below the module, each in a directory of its own
mkdir -p "$tree/mgcap-uapi/linux" "$tree/mgcap-lib"
cp "$src/include/uapi/linux/mgcap.h" "$tree/mgcap-uapi/linux/"
cp "$src"/lib/*.h "$tree/mgcap-lib/"
(cd "$tree" && patch -s -p1 <"$src/libpcap/libpcap-mgcap.patch")

cd "$tree"
autoreconf -fi >/dev/null 2>&1
MGCAP_LIB=$5 ./configure -q --prefix="$prefix" --libdir="$libdir" --bindir="$libdir/bin" \
	--includedir="$prefix/include/mgcap" --mandir="$prefix/share/mgcap/man" \
	--enable-mgcap --without-libnl --disable-dbus --disable-rdma --disable-bluetooth \
	--disable-universal
make -s -j2 shared >/dev/null
ls "$tree"/libpcap.so.0.8* >/dev/null
