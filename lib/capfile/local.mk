# libmgcapfile.a: the files mgdump writes and mgcap-extract reads, as both
# see them: pcapng blocks (pcapng.h), the index beside a file (capindex.h,
# the on-disk contract between the two) and the flows it keeps
# (flowkey.h).  libmgcapfile-san.a: the same under ASan and UBSan.
LIBMGCAPFILE_SRCS = lib/capfile/pcapng.c lib/capfile/pcapng.h lib/capfile/capindex.h \
	lib/capfile/capindex_write.c lib/capfile/capindex_flows.c lib/capfile/capindex_flows.h \
	lib/capfile/capindex_read.c lib/capfile/flowkey.c lib/capfile/flowkey.h lib/capfile/grown.h
CAPFILE_CPPFLAGS = $(UAPI_CPPFLAGS) -I$(srcdir)/lib/capfile
noinst_LIBRARIES += lib/capfile/libmgcapfile.a
lib_capfile_libmgcapfile_a_SOURCES = $(LIBMGCAPFILE_SRCS)
lib_capfile_libmgcapfile_a_CPPFLAGS = $(CAPFILE_CPPFLAGS)
LIBMGCAPFILE = lib/capfile/libmgcapfile.a

EXTRA_LIBRARIES += lib/capfile/libmgcapfile-san.a
lib_capfile_libmgcapfile_san_a_SOURCES = $(LIBMGCAPFILE_SRCS)
lib_capfile_libmgcapfile_san_a_CPPFLAGS = $(CAPFILE_CPPFLAGS)
lib_capfile_libmgcapfile_san_a_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS)
CLEANFILES += lib/capfile/libmgcapfile-san.a
