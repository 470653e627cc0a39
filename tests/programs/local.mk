# Programs the VM tests run: each sees lib, or only libpcap's API
noinst_PROGRAMS += tests/programs/mgcap-ringcheck tests/programs/mgcap-badinput \
	tests/programs/mgcap-wait tests/programs/mgcap-udpcount tests/programs/mgcap-pcapcheck \
	tests/programs/mgcap-pcaptest tests/programs/mgcap-ctlfuzz tests/programs/mgcap-pageruns
# the test NIC's frame layout, which the checkers verify byte by byte
PROGRAMS_CPPFLAGS = $(LIB_CPPFLAGS) -I$(srcdir)/tests
tests_programs_mgcap_ringcheck_SOURCES = tests/programs/mgcap-ringcheck.c
tests_programs_mgcap_ringcheck_CPPFLAGS = $(PROGRAMS_CPPFLAGS)
tests_programs_mgcap_ringcheck_LDADD = $(LIBMGCAP)
tests_programs_mgcap_badinput_SOURCES = tests/programs/mgcap-badinput.c
tests_programs_mgcap_badinput_CPPFLAGS = $(PROGRAMS_CPPFLAGS)
tests_programs_mgcap_badinput_CFLAGS = $(AM_CFLAGS) $(LIBNL_CFLAGS) $(URING_CFLAGS)
tests_programs_mgcap_badinput_LDADD = $(LIBMGCAP) $(URING_LIBS)
tests_programs_mgcap_wait_SOURCES = tests/programs/mgcap-wait.c
tests_programs_mgcap_wait_CPPFLAGS = $(PROGRAMS_CPPFLAGS)
tests_programs_mgcap_wait_LDADD = $(LIBMGCAP)
tests_programs_mgcap_udpcount_SOURCES = tests/programs/mgcap-udpcount.c
tests_programs_mgcap_pcapcheck_SOURCES = tests/programs/mgcap-pcapcheck.c
tests_programs_mgcap_pcapcheck_CPPFLAGS = -I$(srcdir)/tests
tests_programs_mgcap_pcapcheck_LDADD = -lpcap
tests_programs_mgcap_pcaptest_SOURCES = tests/programs/mgcap-pcaptest.c
# libpcap's API, and the ring's layout to overwrite a read index as a stray writer would
tests_programs_mgcap_pcaptest_CPPFLAGS = $(UAPI_CPPFLAGS)
tests_programs_mgcap_pcaptest_LDADD = -lpcap -lpthread
tests_programs_mgcap_ctlfuzz_SOURCES = tests/programs/mgcap-ctlfuzz.c
tests_programs_mgcap_ctlfuzz_CPPFLAGS = $(PROGRAMS_CPPFLAGS)
tests_programs_mgcap_ctlfuzz_CFLAGS = $(AM_CFLAGS) $(LIBNL_CFLAGS)
tests_programs_mgcap_ctlfuzz_LDADD = $(LIBMGCAP) -lpthread
tests_programs_mgcap_pageruns_SOURCES = tests/programs/mgcap-pageruns.c
tests_programs_mgcap_pageruns_CPPFLAGS = $(PROGRAMS_CPPFLAGS)
tests_programs_mgcap_pageruns_LDADD = $(LIBMGCAP)
