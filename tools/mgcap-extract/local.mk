# mgcap-extract: mgdump's index read back, a time range and a filter's
# packets out of its files.  Its packets' order and its times are a library
# of their own (libmgextract.a), which the unit tests link.
MGEXTRACT_PARTS = tools/mgcap-extract/extract_merge.c tools/mgcap-extract/extract_merge.h \
	tools/mgcap-extract/extract_time.c tools/mgcap-extract/extract_time.h
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
tools_mgcap_extract_mgcap_extract_SOURCES = tools/mgcap-extract/extract.h \
	tools/mgcap-extract/main.c tools/mgcap-extract/files.c tools/mgcap-extract/scan.c \
	tools/mgcap-extract/filter.c tools/mgcap-extract/output.c
tools_mgcap_extract_mgcap_extract_CPPFLAGS = $(MGEXTRACT_CPPFLAGS)
tools_mgcap_extract_mgcap_extract_LDADD = tools/mgcap-extract/libmgextract.a $(LIBMGCAPFILE) \
	$(LIBMGCAPCLI) -lpcap
