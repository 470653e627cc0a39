#!/bin/sh
# build-deb.sh SRCDIR BUILDDIR: the Debian packages (debian/), built with
# dpkg-buildpackage from a clean copy of the distributed files, into
# BUILDDIR/deb.  The libpcap source the build patches is fetched once, into
# BUILDDIR/libpcap-source, and handed to the package build.
set -eu
src=$1
build=$2
out=$build/deb
version=$(sed -n 's/^mgcap (\([^)]*\)).*/\1/p;q' "$src/debian/changelog")
tree=$out/mgcap-$version

rm -rf "$out"
mkdir -p "$out"
make -s distdir distdir="$tree" >/dev/null
if [ ! -d "$build/libpcap-source" ]; then
	sh "$src/scripts/build-libpcap.sh" "$src" "$build" /usr /usr/lib/mgcap --fetch-only
fi
mkdir -p "$tree/build"
cp -a "$build/libpcap-source" "$tree/build/"
(cd "$tree" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log"
	echo "build-deb: dpkg-buildpackage failed (the whole log: $out/build.log)" >&2
	exit 1
}
ls "$out"/*.deb
