#!/bin/sh
# check-kmod-calls.sh [KMOD_DIR]: the module's files call each other in one
# direction only.  kmod/mgcap.h lists the files, top to bottom, in lines of
# its first comment of the form " *   FILE.c   what it owns"; a file may use
# what a file below it defines, never what one above it does.  Fails (and
# says which file uses which symbol from where) on any use upwards, and on a
# .c file the list leaves out or a listed file that does not exist.
#
# A definition is a line of a file, comments stripped, that starts at column
# 0 and not with "static" (kernel style: the name's line of a non-static
# function or variable); its first mgcap_ identifier that is not a struct tag
# is the name it defines.  A use is any mgcap_ identifier outside comments.
set -eu
dir=${1:-$(dirname "$0")/../kmod}
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

order=$(sed -n 's/^ \*   \([a-z_][a-z0-9_]*\.c\)  .*/\1/p' "$dir/mgcap.h")
if [ -z "$order" ]; then
	echo "check-kmod-calls: no file order in $dir/mgcap.h" >&2
	exit 1
fi
status=0
for f in "$dir"/*.c; do
	echo "$order" | grep -qx "$(basename "$f")" || {
		echo "check-kmod-calls: $(basename "$f") is not in the order of $dir/mgcap.h" >&2
		status=1
	}
done
rank=0
for f in $order; do
	if [ ! -f "$dir/$f" ]; then
		echo "check-kmod-calls: $dir/mgcap.h lists $f, which does not exist" >&2
		status=1
		continue
	fi
	rank=$((rank + 1))
	# comments out, directives and strings kept (they name no mgcap_ symbol)
	"$CC" -fpreprocessed -dD -E -P -x c "$dir/$f" >"$tmp/src" || exit 1
	# definitions: NAME RANK FILE
	awk -v r=$rank -v f="$f" '/^[A-Za-z_]/ && !/^static/ {
		gsub(/struct mgcap_[A-Za-z0-9_]*/, "")
		if (match($0, /mgcap_[A-Za-z0-9_]*/))
			print substr($0, RSTART, RLENGTH), r, f
	}' "$tmp/src" | sort -u >>"$tmp/defs"
	# uses: NAME RANK FILE
	grep -o '\bmgcap_[A-Za-z0-9_]*' "$tmp/src" | sort -u |
		sed "s/\$/ $rank $f/" >>"$tmp/uses" || true
done
[ $status -eq 0 ] || exit 1
touch "$tmp/defs" "$tmp/uses"

# a name defined in two files would make the check meaningless
dup=$(awk '{print $1}' "$tmp/defs" | sort | uniq -d)
if [ -n "$dup" ]; then
	echo "check-kmod-calls: defined in more than one file: $dup" >&2
	exit 1
fi
awk 'NR == FNR { def[$1] = $2; file[$1] = $3; next }
	($1 in def) && def[$1] < $2 {
		printf "check-kmod-calls: %s uses %s, defined in %s above it\n", $3, $1, file[$1]
		bad = 1
	}
	END { exit bad }' "$tmp/defs" "$tmp/uses" >&2 || {
	echo "check-kmod-calls: a file may use only what files below it in $dir/mgcap.h define" >&2
	exit 1
}
echo "check-kmod-calls: $(echo $order | sed 's/ / -> /g'): no call upwards"
