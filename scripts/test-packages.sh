#!/bin/sh
# test-packages.sh: the Debian packages as a new user gets them.  CI runs it
# after make check, as root on the Debian 12 machine install-deps.sh set up
# (the build tree configured and built).  Each step fails the run:
#   1. make deb, and lintian finds no errors (its warnings are printed);
#   2. apt installs the packages, and DKMS builds mgcap.ko for every kernel
#      that has headers, each with that kernel's vermagic;
#   3. headers installed after the packages get a module of their own;
#   4. the VM tests run against the installed files (MGCAP_INSTALLED=1),
#      with the tests of a user in the capture group (tests/vm/installed-*.sh),
#      on the first kernel (Debian 12's own); on each kernel make check did
#      not boot (the RT kernels after the first), its DKMS module loaded on
#      demand and used by tcpdump and mgdump (on the others, what differs by
#      kernel ran on the build tree just before, and DKMS's module for each
#      is checked by its vermagic in step 2);
#   5. purge keeps the recordings (with their user and group), and leaves
#      nothing else of the packages behind; where none are left, not even
#      those (the postrm again, on an empty directory).
set -eu
cd "$(dirname "$0")/.."
top=$PWD
debs=$top/build/deb
pkgs="mgcap mgcap-dkms libpcap0.8-mgcap"
kernels=$(for d in /lib/modules/*/build; do [ -f "$d/Makefile" ] && basename "$(dirname "$d")"; done)
version=$(sed -n 's/^mgcap (\([^)]*\)).*/\1/p;q' debian/changelog)
export DEBIAN_FRONTEND=noninteractive

step() { echo "=== test-packages: $*"; }
fail() { echo "test-packages: FAILED: $*" >&2; exit 1; }

# vermagic KVER: that of the module DKMS installed for KVER
vermagic() {
	ko=$(ls /lib/modules/"$1"/updates/dkms/mgcap.ko* 2>/dev/null) || return 1
	modinfo -F vermagic "$ko" | cut -d' ' -f1
}

step "1. build and lintian"
make -s deb testnic
lintian --tag-display-limit 0 "$debs"/*.deb >"$debs/lintian.txt" 2>&1 || true
cat "$debs/lintian.txt"
! grep -q '^E: ' "$debs/lintian.txt" || fail "lintian reports errors"

step "2. install: DKMS builds for $(echo $kernels)"
apt-get install -y -q --reinstall $(for p in $pkgs; do echo "$debs/${p}_${version}_"*.deb; done) \
	>"$debs/install.log" 2>&1 || { cat "$debs/install.log"; fail "apt install"; }
for k in $kernels; do
	[ "$(vermagic "$k")" = "$k" ] || fail "no module with vermagic $k: '$(vermagic "$k")'"
	echo "mgcap.ko for $k: vermagic $(vermagic "$k")"
done
getent group mgcap >/dev/null || fail "no group mgcap"

step "3. a kernel's headers installed after the packages"
k=$(echo "$kernels" | tail -n 1)
headers=$(dpkg -S "/lib/modules/$k/build" | cut -d: -f1)
dkms remove -m mgcap -v "$version" -k "$k" >/dev/null
[ -z "$(vermagic "$k")" ] || fail "dkms remove left the module for $k"
apt-get install -y -q --reinstall "$headers" >"$debs/headers.log" 2>&1 ||
	{ cat "$debs/headers.log"; fail "reinstalling $headers"; }
[ "$(vermagic "$k")" = "$k" ] || fail "installing $headers built no module for $k"
echo "installing $headers built mgcap.ko for $k"

step "4. the VM tests against the installed files"
installed_vm_tests() {
	MGCAP_INSTALLED=1 MGCAP_DEBS=$debs abs_top_builddir=$top abs_top_srcdir=$top \
		sh tests/vm/vm-tests.sh
}
KERNELS=$(echo "$kernels" | head -n 1) installed_vm_tests
# (make check's rule, tests/vm/vm-tests.sh: every generic kernel, the first RT one)
others=$(echo "$kernels" | tail -n +2 | grep -- '-rt-' | tail -n +2)
per_kernel="t_installed_module_is_built_and_loads_on_demand"
per_kernel="$per_kernel t_tcpdump_every_frame_with_adapter_stamps t_mgdump_every_frame_per_queue"
[ -z "$others" ] || KERNELS=$others MGCAP_VM_TESTS=$per_kernel installed_vm_tests

step "5. purge"
# a recording, as mgdump@.service leaves them: purge must keep it
kept=/var/lib/mgcap/purge-keeps-this.pcapng
echo recording >"$kept" && chown mgdump:mgcap "$kept" && chmod 0640 "$kept" ||
	fail "cannot put a recording in /var/lib/mgcap"
# (dpkg: apt knows no package it never installed, such as the opt-in one)
dpkg --purge $pkgs libpcap0.8-mgcap-system >"$debs/purge.log" 2>&1 ||
	{ cat "$debs/purge.log"; fail "purge"; }
left=$(dpkg -l $pkgs libpcap0.8-mgcap-system 2>/dev/null | grep '^[a-z][a-z] ' | grep -v '^un ' || true)
[ -z "$left" ] || fail "dpkg still knows: $left"
[ "$(cat "$kept" 2>/dev/null)" = recording ] || fail "purge removed the recordings ($kept)"
grep -q "purge keeps the recordings in /var/lib/mgcap" "$debs/purge.log" ||
	fail "purge did not say it kept the recordings: $(cat "$debs/purge.log")"
getent passwd mgdump >/dev/null && getent group mgcap >/dev/null ||
	fail "purge removed the user or group the recordings belong to"
# the recordings gone, the postrm again: the directory, the user and the group go
rm -f "$kept"
sh debian/mgcap.postrm purge || fail "mgcap.postrm purge on an empty /var/lib/mgcap"
for f in /usr/src/mgcap-"$version" /var/lib/dkms/mgcap /var/lib/mgcap /etc/default/mgdump \
	/lib/udev/rules.d/60-mgcap.rules /etc/ld.so.conf.d/00-mgcap-libpcap.conf \
	/usr/lib/x86_64-linux-gnu/mgcap $(ls -d /lib/modules/*/updates/dkms/mgcap.ko* 2>/dev/null); do
	[ ! -e "$f" ] || fail "purge left $f"
done
! getent group mgcap >/dev/null || fail "purge left the group mgcap"
! getent passwd mgdump >/dev/null || fail "purge left the user mgdump"
echo "test-packages: all passed"
