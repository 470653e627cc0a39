# mgdump: reader threads, a block buffer, one writer (tools/mgdump/mgdump.h).
# Its block buffer, ERSPAN decapsulation, output (with its writes in flight
# through io_uring), -z and retention are a library of their own
# (libmgdump.a), which the unit tests and the bench link; the files' format
# is lib/capfile's.
MGDUMP_PARTS = tools/mgdump/blockring.c tools/mgdump/blockring.h \
	tools/mgdump/dump_output.c tools/mgdump/dump_output.h \
	tools/mgdump/erspan.c tools/mgdump/erspan.h \
	tools/mgdump/paged_writes.c tools/mgdump/paged_writes.h \
	tools/mgdump/postrotate.c tools/mgdump/postrotate.h tools/mgdump/retention.c \
	tools/mgdump/retention.h
MGDUMP_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS) $(CAPFILE_CPPFLAGS)
noinst_LIBRARIES += tools/mgdump/libmgdump.a
tools_mgdump_libmgdump_a_SOURCES = $(MGDUMP_PARTS)
tools_mgdump_libmgdump_a_CPPFLAGS = $(MGDUMP_CPPFLAGS)
EXTRA_LIBRARIES += tools/mgdump/libmgdump-san.a
tools_mgdump_libmgdump_san_a_SOURCES = $(MGDUMP_PARTS)
tools_mgdump_libmgdump_san_a_CPPFLAGS = $(MGDUMP_CPPFLAGS)
tools_mgdump_libmgdump_san_a_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS)
CLEANFILES += tools/mgdump/libmgdump-san.a

sbin_PROGRAMS += tools/mgdump/mgdump
tools_mgdump_mgdump_SOURCES = tools/mgdump/mgdump.h tools/mgdump/main.c tools/mgdump/options.c \
	tools/mgdump/sources.c tools/mgdump/readers.c tools/mgdump/writer.c tools/mgdump/stats.c \
	tools/mgdump/counters.c tools/mgdump/run.c tools/mgdump/run.h tools/mgdump/service.c \
	tools/mgdump/service.h tools/mgdump/privileges.c tools/mgdump/privileges.h \
	tools/mgdump/queue_files.c
tools_mgdump_mgdump_CPPFLAGS = $(MGDUMP_CPPFLAGS)
tools_mgdump_mgdump_CFLAGS = $(AM_CFLAGS) $(SYSTEMD_CFLAGS) $(CAPNG_CFLAGS)
tools_mgdump_mgdump_LDADD = tools/mgdump/libmgdump.a $(LIBMGCAPFILE) $(LIBMGCAPCLI) $(LIBMGCAP) \
	-lpcap -lpthread -ldl $(SYSTEMD_LIBS) $(CAPNG_LIBS) $(URING_LIBS)
# installed, it finds the mgcap libpcap by itself; in the build tree, use mgcap-run
tools_mgdump_mgdump_LDFLAGS = -Wl,-rpath,$(pcapdir)
