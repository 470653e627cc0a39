// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer: the ERSPAN decapsulator (tools/mgdump/erspan.c) on any bytes:
 * the inner frame it finds, if any, lies within the packet.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "erspan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int off = erspan_inner_offset(data, (uint32_t)size);

	if (off != -1 && (off < 0 || (size_t)off + 14 > size))
		abort();
	return 0;
}
