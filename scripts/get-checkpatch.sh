#!/bin/sh
# Extracts checkpatch.pl and the data files it reads from Debian's
# linux-source package into DIR (once).
set -eu
dir=$1
[ -x "$dir/checkpatch.pl" ] && exit 0
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
if [ -z "$tarball" ]; then
	echo "get-checkpatch: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)" >&2
	exit 1
fi
top=$(basename "$tarball" .tar.xz)
mkdir -p "$dir"
tar -xJf "$tarball" -C "$dir" --strip-components=2 \
	"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch"
