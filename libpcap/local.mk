# The patched libpcap (libpcap.so.0.8 with the mgcap module): the module
# (libpcap/module/pcap-mgcap*.c) compiled in, libmgcap.a linked in.
PCAP_MODULE_SRC = libpcap/module/pcap-mgcap.c libpcap/module/pcap-mgcap-queues.c \
	libpcap/module/pcap-mgcap-read.c libpcap/module/pcap-mgcap-wait.c \
	libpcap/module/pcap-mgcap-tstamp.c libpcap/module/pcap-mgcap-filter.c
PCAP_MODULE_H = libpcap/module/pcap-mgcap.h libpcap/module/pcap-mgcap-int.h
LIBPCAP_INPUTS = $(PCAP_MODULE_SRC) $(PCAP_MODULE_H) libpcap/libpcap-mgcap.patch \
	scripts/build-libpcap.sh include/uapi/linux/mgcap.h
EXTRA_DIST += $(LIBPCAP_INPUTS) libpcap/ifflags-shim.c
pcapdir = $(libdir)/mgcap
build/libpcap/libpcap.so.0.8: $(LIBPCAP_INPUTS) lib/libmgcap.a
	$(AM_V_GEN)sh $(srcdir)/scripts/build-libpcap.sh $(abs_srcdir) $(abs_builddir)/build \
		$(prefix) $(pcapdir) $(abs_builddir)/lib/libmgcap.a
	@# the module, held to this project's warning flags
	$(AM_V_CC)$(CC) $(GNU_CFLAGS) -DHAVE_CONFIG_H -Ibuild/libpcap \
		-Ibuild/libpcap/mgcap-uapi -Ibuild/libpcap/mgcap-lib -fsyntax-only \
		$(addprefix $(srcdir)/,$(PCAP_MODULE_SRC))
# Argus asks SIOCGIFFLAGS about its source's name; this preload answers it
build/libmgcap-ifflags.so: libpcap/ifflags-shim.c
	@mkdir -p build
	$(AM_V_CC)$(CC) $(GNU_CFLAGS) -O2 -g -fPIC -shared -o $@ \
		$(srcdir)/libpcap/ifflags-shim.c -ldl
libpcap: build/libpcap/libpcap.so.0.8 build/libmgcap-ifflags.so
PHONY += libpcap

# The patched libpcap goes to $(pcapdir) (headers to $(includedir)/mgcap),
# beside the system's, never over it: mgcap-run points programs at it.
install-exec-local:
	$(MAKE) -C build/libpcap DESTDIR=$(DESTDIR) install >/dev/null
	$(INSTALL_DATA) build/libmgcap-ifflags.so $(DESTDIR)$(pcapdir)/
uninstall-local:
	rm -rf $(DESTDIR)$(pcapdir) $(DESTDIR)$(includedir)/mgcap $(DESTDIR)$(datadir)/mgcap
