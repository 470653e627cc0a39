# mgcap-run: runs a program with the mgcap libpcap
bin_SCRIPTS += tools/mgcap-run
CLEANFILES += tools/mgcap-run
EXTRA_DIST += tools/mgcap-run.in
tools/mgcap-run: tools/mgcap-run.in Makefile
	$(AM_V_GEN)sed -e 's|@pcapdir[@]|$(pcapdir)|g' -e 's|@VERSION[@]|$(VERSION)|g' \
		$(srcdir)/tools/mgcap-run.in >$@ && chmod +x $@
