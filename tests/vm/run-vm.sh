#!/bin/sh
# run-vm.sh KVER OUTDIR COMMAND
# (environment: MGCAP_VM_CPUS, MGCAP_VM_MEMORY, MGCAP_VM_APPEND: kernel
# arguments besides log_buf_len=16M (a run's messages, all of them),
# MGCAP_VM_QEMU: the QEMU (default the 10.0 install-deps.sh unpacks into
# /opt/mgcap-qemu where it did, else the system's), MGCAP_VM_QEMU_OPTS:
# extra QEMU options, MGCAP_VM_TIMEOUT: seconds, 2700 by
# default (the first kernel's run of every suite took 1,800 beside a debug
# kernel's run), MGCAP_VM_NICS: the emulated NICs, see below)
#
# Boots Debian's kernel KVER in a virtme-ng VM (software emulation; the host's
# root file system is visible read-only, OUTDIR writable), runs COMMAND there,
# and fails if it failed or if the kernel logged a warning, a BUG, an Oops,
# a KASAN/UBSAN, lockdep or kmemleak report or a refcount error while it ran
# (tests/vm/splat-patterns; a kernel with kmemleak is scanned at the end).
set -u
kver=$1
out=$2
cmd=$3
vmlinuz=/boot/vmlinuz-$kver

if [ ! -f "$vmlinuz" ]; then
	echo "run-vm: no $vmlinuz (install linux-image-$kver)" >&2
	exit 1
fi
mkdir -p "$out"
rm -f "$out/rc" "$out/dmesg.txt" "$out/guest.log"

# kmemleak, where the kernel has it (automatic scans are off in
# tests/vm/debug.config): what boot left is cleared before the command; once
# it ended, objects are given the 5 s kmemleak waits before it calls one
# lost, then two scans (the second confirms the first), the reports after dmesg
kmemleak=/sys/kernel/debug/kmemleak
kmemleak_clear="mount -t debugfs none /sys/kernel/debug 2>/dev/null; \
if [ -w $kmemleak ]; then echo clear > $kmemleak; fi"
kmemleak_scan="if [ -w $kmemleak ]; then sleep 6; echo scan > $kmemleak; echo scan > $kmemleak; \
cat $kmemleak >> '$out/dmesg.txt'; fi"
if [ -n "${MGCAP_VM_QEMU:-}" ]; then
	qemu=$MGCAP_VM_QEMU
	[ -x "$qemu" ] || { echo "run-vm: MGCAP_VM_QEMU: no program $qemu" >&2; exit 1; }
else
	qemu=/opt/mgcap-qemu/bin/qemu-system-x86_64
	[ -x "$qemu" ] || qemu=$(command -v qemu-system-x86_64)
fi
# Real NIC drivers for tests-drivers.sh: a pair of each QEMU model in
# $MGCAP_VM_NICS (default e1000e, virtio-net-pci and, where the QEMU has
# it, igb), joined by a QEMU hub of
# their own, so that what one sends the other receives.  The pair's Nth
# model has MACs 52:54:00:12:0N:01 (the receiver) and 52:54:00:12:0N:02.
# An igb (QEMU 8 and later) has SR-IOV functions 128 functions after its
# own, more than one bus of the q35 machine has room for besides the rest:
# each igb sits alone behind a PCIe root port of its own.
nics=
n=0
igb=$("$qemu" -device help 2>/dev/null | grep -q '^name "igb"' && echo igb)
for model in ${MGCAP_VM_NICS-e1000e virtio-net-pci $igb}; do
	n=$((n + 1))
	for end in 1 2; do
		place=
		if [ "$model" = igb ]; then
			nics="$nics -device pcie-root-port,id=port$n$end,chassis=$n$end"
			place=",bus=port$n$end"
		fi
		nics="$nics -netdev hubport,id=nic$n$end,hubid=$n"
		nics="$nics -device $model,netdev=nic$n$end,mac=52:54:00:12:0$n:0$end$place"
	done
done
qemu_opts="${nics# } ${MGCAP_VM_QEMU_OPTS:-}"
qemu_opts=${qemu_opts% }
# boot KVER, run COMMAND; 2 where the kernel did not reach COMMAND within
# MGCAP_VM_BOOT_TIMEOUT seconds (600: an emulated boot takes 45 to 150)
boot() {
	rm -f "$out/rc" "$out/dmesg.txt" "$out/guest.log"
	# (--verbose: the kernel's console in OUTDIR/vng.log, where a panic that
	# ends the VM before the command does shows; a session of its own, so
	# that a hung boot's QEMU goes with vng)
	setsid timeout "${MGCAP_VM_TIMEOUT:-2700}" vng --verbose --run "$vmlinuz" --qemu "$qemu" \
		--disable-kvm --force-9p \
		--cpus "${MGCAP_VM_CPUS:-2}" --memory "${MGCAP_VM_MEMORY:-1G}" --rwdir "$out" \
		--append "log_buf_len=16M ${MGCAP_VM_APPEND:-}" \
		${qemu_opts:+--qemu-opts="$qemu_opts"} \
		--exec "$kmemleak_clear; ($cmd) > '$out/guest.log' 2>&1; echo \$? > '$out/rc'; dmesg > '$out/dmesg.txt'; $kmemleak_scan" \
		</dev/null >"$out/vng.log" 2>&1 &
	b_vm=$!
	b_waited=0
	while [ ! -e "$out/guest.log" ] && kill -0 "$b_vm" 2>/dev/null; do
		if [ "$b_waited" -ge "${MGCAP_VM_BOOT_TIMEOUT:-600}" ]; then
			kill -TERM "-$b_vm"
			wait "$b_vm"
			return 2
		fi
		sleep 5
		b_waited=$((b_waited + 5))
	done
	wait "$b_vm"
}
start=$(date +%s)
boot
vng_rc=$?
# A boot that hangs before the command (seen once in a few boots of 6.12
# under QEMU 10 with the NIC pairs, in the i8042 probe) is QEMU's or the
# kernel's, not the tests': booted once more
if [ "$vng_rc" = 2 ] && [ ! -e "$out/guest.log" ]; then
	echo "run-vm: $kver: the kernel did not reach the command in ${MGCAP_VM_BOOT_TIMEOUT:-600} s;" \
		"its console's last line: $(tail -n 1 "$out/vng.log"); booting once more" >&2
	cp "$out/vng.log" "$out/vng-hung.log"
	boot
	vng_rc=$?
fi
end=$(date +%s)
# what COMMAND printed, from a file: the VM's console is not always whole
# when several VMs run at once
cat "$out/guest.log" 2>/dev/null
echo "run-vm: $kver: VM ran $((end - start)) s"

if [ ! -s "$out/rc" ]; then
	echo "run-vm: $kver: the VM did not finish the command (vng exit $vng_rc); from its console:" >&2
	grep -E -A 12 'Kernel panic|rcu: INFO|BUG:|Oops' "$out/vng.log" | head -n 60 >&2
	tail -n 20 "$out/vng.log" >&2
	exit 1
fi
bad=$(grep -Ff "$(dirname "$0")/splat-patterns" "$out/dmesg.txt")
if [ -n "$bad" ]; then
	echo "run-vm: $kver: the kernel complained:" >&2
	echo "$bad" >&2
	exit 1
fi
exit "$(cat "$out/rc")"
