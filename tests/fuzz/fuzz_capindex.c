// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer: mgdump's index as mgcap-extract reads it
 * (lib/capfile/capindex_read.c), and the flow code it leans on (flowkey.c).
 * The input is an index file: one that loads must hold together (every
 * span's flows numbered before it, its end read back by capindex_load_end()
 * the same).  The same bytes are also a frame for flowkey_of() (whose key
 * must be valid), a key of any bytes, and a classic BPF program for
 * flowkey_filter() run on those keys and the index's, which must answer 0,
 * 1 or -1 and read nothing out of its bounds, whatever the program.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capindex.h"
#include "flowkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* classic BPF from @data (64 instructions at most): the count */
static size_t program(const uint8_t *data, size_t size, struct bpf_insn *prog)
{
	size_t n = size / sizeof(prog[0]) < 64 ? size / sizeof(prog[0]) : 64;

	memcpy(prog, data, n * sizeof(prog[0]));
	return n;
}

static void check_answer(const struct bpf_insn *prog, size_t n, const struct flowkey *k)
{
	int answer = flowkey_filter(prog, n, k);

	if (answer < -1 || answer > 1)
		abort();
}

static void check_index(const uint8_t *data, size_t size)
{
	struct bpf_insn prog[64];
	size_t nprog = program(data, size, prog);
	char path[] = "/tmp/fuzz-capindex-XXXXXX", err[512];
	struct capindex idx;
	struct capindex_end end;
	size_t i, j;
	int fd = mkstemp(path), rc;

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	rc = capindex_load(path, &idx, err, sizeof(err));
	if (rc == 0) {
		/* (keys read back: each one a frame could have, run as any other) */
		for (i = 0; i < idx.nflows; i++)
			check_answer(prog, nprog, idx.flows[i]);
		for (i = 0; i < idx.nspans; i++)
			for (j = 0; j < idx.spans[i]->nflows; j++)
				if (capindex_span_flows(idx.spans[i])[j] >= idx.nflows)
					abort();
		if (capindex_load_end(path, &end, err, sizeof(err)) ||
		    memcmp(&end, &idx.end, sizeof(end)))
			abort();
		capindex_release(&idx);
	} else if (rc != -1 || !err[0]) {
		abort();
	}
	unlink(path);
}

static void check_filter(const uint8_t *data, size_t size)
{
	struct bpf_insn prog[64];
	size_t n = program(data, size, prog);
	struct flowkey k;

	flowkey_of(data, (uint32_t)size, &k);
	if (!flowkey_valid(&k))
		abort();
	check_answer(prog, n, &k);
	/* (and a key of any bytes, which no frame may have) */
	if (size >= sizeof(k)) {
		memcpy(&k, data, sizeof(k));
		check_answer(prog, n, &k);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_index(data, size);
	check_filter(data, size);
	return 0;
}
