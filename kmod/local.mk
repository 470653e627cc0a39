# mgcap.ko, built with Kbuild for every kernel in $(KERNELS), and for the
# tests the test NIC beside it (tests/mgtestnic/local.mk)
KERNELS = @KERNELS@
KMOD_FILES = kmod/Kbuild kmod/compat.h kmod/mgcap.h kmod/main.c kmod/capture.c \
	kmod/coalescing.c kmod/ring.c kmod/ring_mem.c kmod/pcapng.c kmod/queue.c kmod/tap.c kmod/reader.c kmod/filter.c kmod/chardev.c kmod/netlink.c
EXTRA_DIST += $(KMOD_FILES)
# Each (kernel, module) pair builds in build/KERNEL/MODULE from links to the
# sources; Kbuild sees the uapi header only (MGCAP_UAPI).  The recipe names
# the modules' folders in $$dirs.
KBUILD = set -e; for k in $(KERNELS); do \
	  for m in $$dirs; do \
	    d=$(abs_builddir)/build/$$k/$${m\#\#*/}; mkdir -p $$d; \
	    for f in $(abs_srcdir)/$$m/*.[ch] $(abs_srcdir)/$$m/Kbuild; do ln -sf $$f $$d/; done; \
	    $(MAKE) -C /lib/modules/$$k/build M=$$d MGCAP_UAPI=$(abs_srcdir)/include/uapi

modules: $(KMOD_FILES) include/uapi/linux/mgcap.h
	+@dirs=kmod; $(KBUILD) W=1 modules; done; done
testnic: $(TESTNIC_FILES) include/uapi/linux/mgcap.h
	+@dirs=tests/mgtestnic; $(KBUILD) W=1 modules; done; done

# sparse on every kernel (C=2: check every file, built or not)
sparse:
	+@dirs="kmod tests/mgtestnic"; $(KBUILD) C=2 CF="-D__CHECK_ENDIAN__" modules 2>&1 | tee build/sparse-$$k-$${m##*/}.log; \
	    ! grep -E "(warning|error):" build/sparse-$$k-$${m##*/}.log; done; done

# checkpatch --strict on every kernel source.  The compat.h files exist to
# compare LINUX_VERSION_CODE, the one thing checkpatch objects to there.
CHECKPATCH = $(abs_builddir)/build/checkpatch/checkpatch.pl --strict --no-tree --terse \
	--show-types --ignore FILE_PATH_CHANGES
KERNEL_C = $(filter %.c %.h,$(KMOD_FILES) $(TESTNIC_FILES)) include/uapi/linux/mgcap.h
checkpatch:
	$(srcdir)/scripts/get-checkpatch.sh $(abs_builddir)/build/checkpatch
	$(CHECKPATCH) -f $(addprefix $(srcdir)/,$(filter-out %/compat.h,$(KERNEL_C)))
	$(CHECKPATCH) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f $(addprefix $(srcdir)/,$(filter %/compat.h,$(KERNEL_C)))

modules_install: modules
	@set -e; for k in $(KERNELS); do \
	  install -D -m 0644 build/$$k/kmod/mgcap.ko $(DESTDIR)/lib/modules/$$k/updates/mgcap.ko; \
	done

PHONY += modules testnic sparse checkpatch modules_install

# the module's files call one way only, in the order kmod/mgcap.h lists them
kmod-calls:
	sh $(srcdir)/scripts/check-kmod-calls.sh $(srcdir)/kmod
PHONY += kmod-calls
