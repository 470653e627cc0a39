# Each tool's option list is written once, in its source; help2man makes the
# OPTIONS section from its --help, man/*.h2m adds the rest (unless configure
# --disable-man-pages).
dist_man7_MANS = man/mgcap.7
EXTRA_DIST += man/mgcap.h2m man/mgdump.h2m man/mgcap-setmode.h2m man/mgcap-run.h2m \
	man/mgcap-extract.h2m
if MAN_PAGES
nodist_man8_MANS = man/mgcap.8 man/mgdump.8 man/mgcap-setmode.8
nodist_man1_MANS = man/mgcap-run.1 man/mgcap-extract.1
GENERATED_MANS = $(nodist_man8_MANS) $(nodist_man1_MANS)
CLEANFILES += $(GENERATED_MANS)
HELP2MAN_RUN = $(AM_V_GEN)mkdir -p man && $(HELP2MAN) --no-info --no-discard-stderr \
	--source=mgcap --include=$(srcdir)/man/$$(basename $@ | sed 's/\.[0-9]$$//').h2m
man/mgcap.8: tools/mgcap/mgcap man/mgcap.h2m
	$(HELP2MAN_RUN) --section=8 --output=$@ tools/mgcap/mgcap
man/mgdump.8: tools/mgdump/mgdump man/mgdump.h2m
	$(HELP2MAN_RUN) --section=8 --output=$@ tools/mgdump/mgdump
man/mgcap-setmode.8: tools/mgcap/mgcap-setmode man/mgcap-setmode.h2m
	$(HELP2MAN_RUN) --section=8 --output=$@ tools/mgcap/mgcap-setmode
man/mgcap-run.1: tools/mgcap-run man/mgcap-run.h2m
	$(HELP2MAN_RUN) --section=1 --output=$@ tools/mgcap-run
man/mgcap-extract.1: tools/mgcap-extract/mgcap-extract man/mgcap-extract.h2m
	$(HELP2MAN_RUN) --section=1 --output=$@ tools/mgcap-extract/mgcap-extract
endif
