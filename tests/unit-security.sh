#!/bin/sh
# mgdump@.service as shipped (debian/mgcap.mgdump@.service) is exposed at
# most MAX_EXPOSURE by systemd's own measure, systemd-analyze security
# (0 safe .. 10 unsafe; the unit as first shipped: 9.6), and names the
# least privilege the recorder runs with: its own user, the capabilities
# opening a capture takes and no more, no new privileges.  (Skipped where
# systemd-analyze cannot read a unit file alone: before systemd 250.)
set -u
MAX_EXPOSURE=2.0
unit=${abs_top_srcdir:-.}/debian/mgcap.mgdump@.service
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# (the unit's name, as installed, makes it a template; the analysis takes an instance)
cp "$unit" "$dir/mgdump@.service" || exit 1
out=$(systemd-analyze security --offline=yes --no-pager "$dir/mgdump@.service" 2>&1)
case $out in
*"Unknown option"*|*"unrecognized option"*) echo "SKIP: systemd-analyze without --offline"; exit 77 ;;
esac
exposure=$(echo "$out" | sed -n 's/^.*Overall exposure level for [^ ]*: \([0-9.]*\) .*$/\1/p')
[ -n "$exposure" ] || { echo "FAILED: no exposure level in:"; echo "$out"; exit 1; }
echo "mgdump@.service: exposure $exposure (at most $MAX_EXPOSURE)"
status=0
awk -v e="$exposure" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(e <= m) }' || {
	echo "FAILED: exposure $exposure above $MAX_EXPOSURE:"
	echo "$out" | grep '^✗'
	status=1
}
for setting in User=mgdump Group=mgcap NoNewPrivileges=yes UMask=0027 ProtectSystem=strict \
	"CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW" ReadWritePaths=/var/lib/mgcap; do
	grep -q "^$setting" "$unit" || { echo "FAILED: the unit does not say $setting"; status=1; }
done
exit $status
