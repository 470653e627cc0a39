# libmgcap.a: what the libpcap module and more than one tool use.  Built
# position-independent: the patched libpcap.so links it in.  libmgcap-san.a
# is the same under ASan and UBSan, for the sanitized unit tests.
LIBMGCAP_SRCS = lib/mgcap_reader.c lib/mgcap_reader.h lib/mgcap_source.c lib/mgcap_source.h \
	lib/mgcap_merge.c lib/mgcap_merge.h lib/mgcap_hwtstamp.c lib/mgcap_hwtstamp.h \
	lib/mgcap_hwts_record.c lib/mgcap_hwts_record.h \
	lib/mgcap_nl.c lib/mgcap_nl_reply.c lib/mgcap_nl.h \
	lib/mgcap_clock.c lib/mgcap_clock.h lib/mgcap_phc.c lib/mgcap_phc.h \
	lib/mgcap_adapter.c lib/mgcap_adapter.h lib/mgcap_open.c lib/mgcap_open.h \
	lib/mgcap_netdev.c lib/mgcap_netdev.h lib/mgcap_error.h lib/mgcap_time.h lib/mgcap_order.c lib/mgcap_order.h \
	lib/mgcap_pages.c lib/mgcap_pages.h
noinst_LIBRARIES += lib/libmgcap.a
lib_libmgcap_a_SOURCES = $(LIBMGCAP_SRCS)
lib_libmgcap_a_CPPFLAGS = $(LIB_CPPFLAGS)
lib_libmgcap_a_CFLAGS = $(AM_CFLAGS) -fPIC $(LIBNL_CFLAGS)
# what linking libmgcap.a takes
LIBMGCAP = lib/libmgcap.a $(LIBNL_LIBS)

EXTRA_LIBRARIES = lib/libmgcap-san.a
lib_libmgcap_san_a_SOURCES = $(LIBMGCAP_SRCS)
lib_libmgcap_san_a_CPPFLAGS = $(LIB_CPPFLAGS)
lib_libmgcap_san_a_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS) $(LIBNL_CFLAGS)
CLEANFILES += lib/libmgcap-san.a
