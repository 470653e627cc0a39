# Host unit tests (CUnit) of lib and the tools' pure logic, plain and under
# ASan + UBSan.  Each sees the layers it tests.
UNIT_SRCS = tests/unit/unit_main.c tests/unit/unit.h tests/unit/test_parse.c \
	tests/unit/test_ring.c tests/unit/test_show.c tests/unit/test_frame.c \
	tests/unit/test_peek.c tests/unit/test_merge.c tests/unit/test_order.c tests/unit/test_pages.c \
	tests/unit/test_source.c \
	tests/unit/test_pcapng.c tests/unit/test_blockring.c tests/unit/test_erspan.c \
	tests/unit/test_dump_output.c tests/unit/test_paged_writes.c tests/unit/test_retention.c \
	tests/unit/test_options.c \
	tests/unit/test_clock.c tests/unit/test_capindex.c tests/unit/test_extract_merge.c \
	tests/unit/test_extract.c \
	tests/unit/test_adapter.c tests/unit/test_hwts_record.c tests/support/synthetic_ring.c \
	tests/support/synthetic_ring.h
UNIT_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS) $(CAPFILE_CPPFLAGS) -I$(srcdir)/tools/mgcap \
	-I$(srcdir)/tools/mgdump -I$(srcdir)/tools/mgcap-extract \
	-I$(srcdir)/tests/support -I$(srcdir)/tests
check_PROGRAMS += tests/unit/unit tests/unit/unit-san
tests_unit_unit_SOURCES = $(UNIT_SRCS)
tests_unit_unit_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_unit_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(LIBNL_CFLAGS)
# (test_dump_output.c fills the disk on demand through these)
UNIT_WRAPS = -Wl,--wrap=write -Wl,--wrap=open -Wl,--wrap=unlink
tests_unit_unit_LDFLAGS = $(UNIT_WRAPS)
tests_unit_unit_LDADD = tools/mgcap/libmgcapcmd.a tools/mgdump/libmgdump.a \
	tools/mgcap-extract/libmgextract.a $(LIBMGCAPFILE) $(LIBMGCAPCLI) $(LIBMGCAP) $(CUNIT_LIBS) -lpcap \
	$(URING_LIBS)
tests_unit_unit_san_SOURCES = $(UNIT_SRCS)
tests_unit_unit_san_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_unit_san_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS) $(CUNIT_CFLAGS) $(LIBNL_CFLAGS)
tests_unit_unit_san_LDFLAGS = $(SAN_CFLAGS) $(UNIT_WRAPS)
tests_unit_unit_san_LDADD = tools/mgcap/libmgcapcmd-san.a tools/mgdump/libmgdump-san.a \
	tools/mgcap-extract/libmgextract-san.a lib/capfile/libmgcapfile-san.a \
	lib/cli/libmgcapcli-san.a lib/libmgcap-san.a $(LIBNL_LIBS) $(CUNIT_LIBS) -lpcap $(URING_LIBS)
TESTS += tests/unit/unit tests/unit/unit-san
