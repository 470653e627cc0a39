# libmgcapcli.a: the tools' command line (the option table behind --help
# and the man pages, the values users type).  The tools and the tests link
# it; the patched libpcap does not.  libmgcapcli-san.a: the same under ASan
# and UBSan, for the sanitized unit tests.
LIBMGCAPCLI_SRCS = lib/cli/options.c lib/cli/options.h lib/cli/parse.c lib/cli/parse.h
CLI_CPPFLAGS = $(UAPI_CPPFLAGS) -I$(srcdir)/lib/cli
noinst_LIBRARIES += lib/cli/libmgcapcli.a
lib_cli_libmgcapcli_a_SOURCES = $(LIBMGCAPCLI_SRCS)
lib_cli_libmgcapcli_a_CPPFLAGS = $(CLI_CPPFLAGS)
LIBMGCAPCLI = lib/cli/libmgcapcli.a

EXTRA_LIBRARIES += lib/cli/libmgcapcli-san.a
lib_cli_libmgcapcli_san_a_SOURCES = $(LIBMGCAPCLI_SRCS)
lib_cli_libmgcapcli_san_a_CPPFLAGS = $(CLI_CPPFLAGS)
lib_cli_libmgcapcli_san_a_CFLAGS = $(AM_CFLAGS) $(SAN_CFLAGS)
CLEANFILES += lib/cli/libmgcapcli-san.a
