#!/bin/sh
# debug-kernel.sh: the debug kernel of `make check-debug`, Debian's 6.1
# source (linux-source-6.1) with tests/vm/debug.config on virtme-ng's VM
# defconfig: KASAN, lockdep, kmemleak, UBSAN and the rest.  Built once per
# (source version, fragment, compiler) and kept outside the checkout, in
# $MGCAP_KERNEL_CACHE (default /var/cache/mgcap/kernels); about 28 minutes
# on 2 cores with other work beside it, 2.3 GB.  Installed where module
# builds and the VM look for a kernel (/lib/modules/RELEASE: its modules and build,
# /boot/vmlinuz-RELEASE, links into the cache); prints RELEASE.
# "debug-kernel.sh --uninstall" takes the links away again (DKMS would build
# for a kernel it finds there), and configure leaves it out of the kernels a
# plain build and make check cover.
set -eu
if [ "${1:-}" = --uninstall ]; then	# whatever fragment or compiler built it
	rm -rf /lib/modules/*-mgcap-debug /boot/vmlinuz-*-mgcap-debug
	exit 0
fi
top=$(cd "$(dirname "$0")/.." && pwd)
src=/usr/src/linux-source-6.1.tar.xz
fragment=$top/tests/vm/debug.config
[ -f "$src" ] || { echo "debug-kernel: no $src (apt-get install linux-source-6.1)" >&2; exit 1; }
cache=${MGCAP_KERNEL_CACHE:-/var/cache/mgcap/kernels}
key=$({ dpkg-query -W -f '${Version}\n' linux-source-6.1; cat "$fragment"; gcc --version | head -n 1; } |
	sha256sum | cut -c1-16)
tree=$cache/debug-$key
if [ ! -f "$tree/.built" ]; then
	echo "debug-kernel: building $tree" >&2
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xf "$src" -C "$tree" --strip-components=1
	# virtme-ng's options come after a custom fragment, so the fragment
	# goes on top once more (its DEBUG_INFO_NONE, say, over virtme's choice)
	(cd "$tree" &&
		virtme-configkernel --defconfig \
			--configitem CONFIG_LOCALVERSION='"-mgcap-debug"' >/dev/null 2>&1 &&
		scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null &&
		make -s olddefconfig) >&2
	# every option the fragment sets must have survived its dependencies
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment" | while read -r line; do
		grep -qxF "$line" "$tree/.config" || echo "$line"; done)
	[ -z "$missing" ] || { echo "debug-kernel: not in the config: $missing" >&2; exit 1; }
	make -s -C "$tree" -j"$(nproc)" bzImage modules >&2
	touch "$tree/.built"
fi
release=$(make -s -C "$tree" kernelrelease)
# its own modules (the NIC drivers the tests unload) where modprobe looks
make -s -C "$tree" modules_install >&2
ln -sfn "$tree" "/lib/modules/$release/build"
ln -sf "$tree/arch/x86/boot/bzImage" "/boot/vmlinuz-$release"
echo "$release"
