# Host unit tests (CUnit) of lib and the tools' pure logic, plain and under
# ASan + UBSan.  Each sees the layers it tests.
UNIT_SRCS = tests/unit/unit_main.c tests/unit/unit.h tests/unit/test_parse.c \
	tests/unit/test_ring.c tests/unit/test_show.c tests/unit/test_frame.c \
	tests/unit/test_peek.c tests/unit/test_merge.c tests/unit/test_source.c \
	tests/unit/test_pcapng.c tests/unit/test_blockring.c tests/unit/test_erspan.c \
	tests/unit/test_dump_output.c tests/unit/test_retention.c tests/unit/test_options.c \
	tests/unit/test_clock.c \
	tests/unit/test_adapter.c tests/unit/synthetic_ring.c tests/unit/synthetic_ring.h
UNIT_CPPFLAGS = $(LIB_CPPFLAGS) -I$(srcdir)/tools/mgcap -I$(srcdir)/tools/mgdump \
	-I$(srcdir)/tests
check_PROGRAMS += tests/unit/unit tests/unit/unit-san
tests_unit_unit_SOURCES = $(UNIT_SRCS)
tests_unit_unit_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_unit_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(LIBNL_CFLAGS)
tests_unit_unit_LDADD = tools/mgcap/libmgcapcmd.a tools/mgdump/libmgdump.a $(LIBMGCAP) $(CUNIT_LIBS) -lpcap
tests_unit_unit_san_SOURCES = $(UNIT_SRCS)
tests_unit_unit_san_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_unit_san_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS) $(CUNIT_CFLAGS) $(LIBNL_CFLAGS)
tests_unit_unit_san_LDFLAGS = $(SAN_CFLAGS)
tests_unit_unit_san_LDADD = tools/mgcap/libmgcapcmd-san.a tools/mgdump/libmgdump-san.a \
	lib/libmgcap-san.a $(LIBNL_LIBS) \
	$(CUNIT_LIBS) -lpcap
TESTS += tests/unit/unit tests/unit/unit-san
EXTRA_DIST += tests/unit/fuzz_erspan.c

# the decapsulator under libFuzzer (needs clang): make fuzz FUZZ_SECONDS=60
FUZZ_SECONDS = 30
fuzz:
	@mkdir -p build
	clang -g -O1 -fsanitize=fuzzer,address,undefined -I$(srcdir)/tools/mgdump \
		$(srcdir)/tests/unit/fuzz_erspan.c $(srcdir)/tools/mgdump/erspan.c -o build/fuzz_erspan
	build/fuzz_erspan -max_total_time=$(FUZZ_SECONDS) -max_len=512
PHONY += fuzz
