# Benchmarks: make bench runs them all and writes the raw results, the plots
# and the report to the build tree (build/bench/results, build/bench/plots,
# build/bench/BENCHMARKS.md), never to the source tree; make bench-publish
# copies a run's report to BENCHMARKS.md and the files it links to into
# bench/published/ (check-local builds the programs, so that they keep
# compiling).
BENCH_BIN = build/bench/readpath build/bench/writer build/bench/index build/bench/latency
BENCH_FILES = bench/agree.py bench/analysis.md bench/bench.h bench/guest-bench.sh \
	bench/index.c bench/latency.c bench/publish.py bench/readpath.c bench/report.py bench/run.sh \
	bench/writer.c
# the run make bench-publish publishes: make bench-publish BENCH_RUN=DIR for another
BENCH_RUN = $(abs_builddir)/build/bench
EXTRA_DIST += $(BENCH_FILES)
build/libpcap/libpcap.a: build/libpcap/libpcap.so.0.8
	$(MAKE) -s -C build/libpcap libpcap.a >/dev/null
# the module's read op as the patched libpcap's static archive has it, its
# private state set up through pcap-mgcap-int.h
build/bench/readpath: bench/readpath.c bench/bench.h libpcap/module/pcap-mgcap-int.h tests/support/synthetic_ring.c \
		build/libpcap/libpcap.a lib/libmgcap.a
	@mkdir -p build/bench
	$(AM_V_CC)$(CC) $(GNU_CFLAGS) -O2 -g -DHAVE_CONFIG_H -Ibuild/libpcap \
		-Ibuild/libpcap/mgcap-uapi -Ibuild/libpcap/mgcap-lib -I$(srcdir)/libpcap/module \
		-I$(srcdir)/tests/support -I$(srcdir)/tests -o $@ \
		$(srcdir)/bench/readpath.c $(srcdir)/tests/support/synthetic_ring.c \
		build/libpcap/libpcap.a lib/libmgcap.a $(LIBNL_LIBS) $(LIBS)
build/bench/writer: bench/writer.c bench/bench.h tools/mgdump/libmgdump.a $(LIBMGCAPFILE) \
		lib/libmgcap.a
	@mkdir -p build/bench
	$(AM_V_CC)$(CC) $(DEFS) $(MGDUMP_CPPFLAGS) -I$(srcdir)/tools/mgdump -I$(srcdir)/tests \
		$(AM_CFLAGS) -O2 -o $@ $(srcdir)/bench/writer.c tools/mgdump/libmgdump.a \
		$(LIBMGCAPFILE) lib/libmgcap.a -lpcap $(URING_LIBS)
build/bench/index: bench/index.c bench/bench.h tools/mgdump/libmgdump.a $(LIBMGCAPFILE) \
		lib/libmgcap.a
	@mkdir -p build/bench
	$(AM_V_CC)$(CC) $(DEFS) $(MGDUMP_CPPFLAGS) -I$(srcdir)/tools/mgdump -I$(srcdir)/tests \
		$(AM_CFLAGS) -O2 -g -o $@ $(srcdir)/bench/index.c tools/mgdump/libmgdump.a \
		$(LIBMGCAPFILE) lib/libmgcap.a -lpcap $(URING_LIBS)
# libpcap's API alone, run in the VM under mgcap-run as tcpdump is
build/bench/latency: bench/latency.c tests/mgtestnic/mgtestnic_frame.h
	@mkdir -p build/bench
	$(AM_V_CC)$(CC) $(DEFS) -I$(srcdir)/tests $(AM_CFLAGS) -O2 -o $@ $(srcdir)/bench/latency.c \
		-lpcap
bench: all testnic $(BENCH_BIN)
	sh $(srcdir)/bench/run.sh $(abs_srcdir) $(abs_builddir)
# where each contender's instructions go (in-guest perf under icount), printed
bench-profile: all testnic
	sh $(srcdir)/bench/run.sh $(abs_srcdir) $(abs_builddir) --profile
# the recorders alone (whole frames into files on a disk, icount), printed
bench-record: all testnic
	sh $(srcdir)/bench/run.sh $(abs_srcdir) $(abs_builddir) --record
# the run in BENCH_RUN to BENCHMARKS.md and bench/published/, for review and commit
bench-publish:
	python3 $(srcdir)/bench/publish.py $(BENCH_RUN) $(abs_srcdir)
PHONY += bench bench-profile bench-record bench-publish
