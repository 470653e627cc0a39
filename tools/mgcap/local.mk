# mgcap (start, stop, set, show, hwtstamp, peek) and mgcap-setmode
noinst_LIBRARIES += tools/mgcap/libmgcapcmd.a
tools_mgcap_libmgcapcmd_a_SOURCES = tools/mgcap/commands.c tools/mgcap/commands.h \
	tools/mgcap/show.c tools/mgcap/show.h tools/mgcap/hwtstamp.c tools/mgcap/hwtstamp.h \
	tools/mgcap/peek.c tools/mgcap/peek.h
tools_mgcap_libmgcapcmd_a_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS)
tools_mgcap_libmgcapcmd_a_CFLAGS = $(AM_CFLAGS) $(LIBNL_CFLAGS)
EXTRA_LIBRARIES += tools/mgcap/libmgcapcmd-san.a
tools_mgcap_libmgcapcmd_san_a_SOURCES = $(tools_mgcap_libmgcapcmd_a_SOURCES)
tools_mgcap_libmgcapcmd_san_a_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS)
tools_mgcap_libmgcapcmd_san_a_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS) $(LIBNL_CFLAGS)
CLEANFILES += tools/mgcap/libmgcapcmd-san.a

sbin_PROGRAMS += tools/mgcap/mgcap tools/mgcap/mgcap-setmode
tools_mgcap_mgcap_SOURCES = tools/mgcap/mgcap.c
tools_mgcap_mgcap_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS)
tools_mgcap_mgcap_LDADD = tools/mgcap/libmgcapcmd.a $(LIBMGCAPCLI) $(LIBMGCAP)
tools_mgcap_mgcap_setmode_SOURCES = tools/mgcap/mgcap-setmode.c
tools_mgcap_mgcap_setmode_CPPFLAGS = $(LIB_CPPFLAGS) $(CLI_CPPFLAGS)
tools_mgcap_mgcap_setmode_LDADD = tools/mgcap/libmgcapcmd.a $(LIBMGCAPCLI) $(LIBMGCAP)
