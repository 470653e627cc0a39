#!/bin/sh
# Each generated man page says what its tool's --help says: every line of
# the help, words and order, is in the rendered page.  (help2man makes the
# pages from the help at build time; this catches a page built from another
# binary, a stale page, or help text help2man does not carry over.)
set -u
top=${abs_top_builddir:-.}
status=0
for page in ${MANPAGES:?}; do
	name=$(basename "$page" | sed 's/\.[0-9]$//')
	case $name in
	mgcap|mgcap-setmode) tool=$top/tools/mgcap/$name ;;
	mgdump) tool=$top/tools/mgdump/$name ;;
	mgcap-extract) tool=$top/tools/mgcap-extract/$name ;;
	*) tool=$top/tools/$name ;;
	esac
	[ -x "$tool" ] || { echo "FAILED: $name: no $tool"; status=1; continue; }
	help=$("$tool" --help) || { echo "FAILED: $name --help exits non-zero"; status=1; continue; }
	# rendered in ASCII on one long line per paragraph, words one space apart, none
	# broken across lines (HY=0: a hyphen would split a word the help has whole)
	text=$(LC_ALL=C groff -man -Tascii -rLL=400n -rHY=0 -P-cbou "$top/$page" 2>&1 | tr -s ' \n' '  ')
	missing=0
	echo "$help" | sed -e 's/^Usage: //' -e '/^[A-Za-z ]*:$/d' -e '/^ *$/d' | tr -s ' ' ' ' |
		sed 's/^ //' | while IFS= read -r line; do
			case "$text" in
			*"$line"*) ;;
			*) echo "FAILED: $page does not say: $line"; exit 1 ;;
			esac
		done || missing=1
	n=$(echo "$help" | grep -c -- '^ *-')
	if [ $missing -eq 0 ]; then
		echo "ok - $page: all of $name --help ($n options)"
	else
		status=1
	fi
done
exit $status
