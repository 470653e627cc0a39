# mgdump: reader threads, a block buffer, one writer (tools/mgdump/mgdump.h).
# Its block buffer, pcapng blocks, ERSPAN decapsulation, output, its index, -z and retention are a
# library of their own (libmgdump.a), which the unit tests and the bench link.
MGDUMP_PARTS = tools/mgdump/blockring.c tools/mgdump/blockring.h \
	tools/mgdump/dump_output.c tools/mgdump/dump_output.h tools/mgdump/pcapng.c \
	tools/mgdump/pcapng.h tools/mgdump/erspan.c tools/mgdump/erspan.h \
	tools/mgdump/postrotate.c tools/mgdump/postrotate.h tools/mgdump/retention.c \
	tools/mgdump/retention.h tools/mgdump/flowkey.c tools/mgdump/flowkey.h \
	tools/mgdump/capindex.c tools/mgdump/capindex.h tools/mgdump/extract_time.c \
	tools/mgdump/extract_time.h tools/mgdump/extract_merge.c tools/mgdump/extract_merge.h \
	tools/mgdump/grown.h
noinst_LIBRARIES += tools/mgdump/libmgdump.a
tools_mgdump_libmgdump_a_SOURCES = $(MGDUMP_PARTS)
tools_mgdump_libmgdump_a_CPPFLAGS = $(LIB_CPPFLAGS)
EXTRA_LIBRARIES += tools/mgdump/libmgdump-san.a
tools_mgdump_libmgdump_san_a_SOURCES = $(MGDUMP_PARTS)
tools_mgdump_libmgdump_san_a_CPPFLAGS = $(LIB_CPPFLAGS)
tools_mgdump_libmgdump_san_a_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS)
CLEANFILES += tools/mgdump/libmgdump-san.a

sbin_PROGRAMS += tools/mgdump/mgdump
tools_mgdump_mgdump_SOURCES = tools/mgdump/mgdump.h tools/mgdump/main.c tools/mgdump/options.c \
	tools/mgdump/sources.c tools/mgdump/readers.c tools/mgdump/writer.c tools/mgdump/stats.c \
	tools/mgdump/counters.c
tools_mgdump_mgdump_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS)
tools_mgdump_mgdump_CFLAGS = $(AM_CFLAGS) $(SYSTEMD_CFLAGS)
tools_mgdump_mgdump_LDADD = tools/mgdump/libmgdump.a $(LIBMGCAPCLI) $(LIBMGCAP) -lpcap -lpthread -ldl \
	$(SYSTEMD_LIBS)
# installed, it finds the mgcap libpcap by itself; in the build tree, use mgcap-run
tools_mgdump_mgdump_LDFLAGS = -Wl,-rpath,$(pcapdir)

# its index read back: a time range and a filter's packets out of mgdump's files
bin_PROGRAMS += tools/mgdump/mgcap-extract
tools_mgdump_mgcap_extract_SOURCES = tools/mgdump/extract.c
tools_mgdump_mgcap_extract_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS)
tools_mgdump_mgcap_extract_LDADD = tools/mgdump/libmgdump.a $(LIBMGCAPCLI) $(LIBMGCAP) -lpcap
