# mgcap-extract: mgdump's index read back, a time range and a filter's
# packets out of its files.  All of it but its command line is a library of
# its own (libmgextract.a), which the unit tests link: its packets' order,
# its times, and the files read and written.
MGEXTRACT_PARTS = tools/mgcap-extract/extract_merge.c tools/mgcap-extract/extract_merge.h \
	tools/mgcap-extract/extract_time.c tools/mgcap-extract/extract_time.h \
	tools/mgcap-extract/extract.h tools/mgcap-extract/files.c tools/mgcap-extract/scan.c \
	tools/mgcap-extract/filter.c tools/mgcap-extract/output.c
MGEXTRACT_CPPFLAGS = $(CLI_CPPFLAGS) $(CAPFILE_CPPFLAGS)
noinst_LIBRARIES += tools/mgcap-extract/libmgextract.a
tools_mgcap_extract_libmgextract_a_SOURCES = $(MGEXTRACT_PARTS)
tools_mgcap_extract_libmgextract_a_CPPFLAGS = $(MGEXTRACT_CPPFLAGS)
EXTRA_LIBRARIES += tools/mgcap-extract/libmgextract-san.a
tools_mgcap_extract_libmgextract_san_a_SOURCES = $(MGEXTRACT_PARTS)
tools_mgcap_extract_libmgextract_san_a_CPPFLAGS = $(MGEXTRACT_CPPFLAGS)
tools_mgcap_extract_libmgextract_san_a_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS)
CLEANFILES += tools/mgcap-extract/libmgextract-san.a

bin_PROGRAMS += tools/mgcap-extract/mgcap-extract
tools_mgcap_extract_mgcap_extract_SOURCES = tools/mgcap-extract/main.c
tools_mgcap_extract_mgcap_extract_CPPFLAGS = $(MGEXTRACT_CPPFLAGS)
tools_mgcap_extract_mgcap_extract_LDADD = tools/mgcap-extract/libmgextract.a $(LIBMGCAPFILE) \
	$(LIBMGCAPCLI) -lpcap
