// SPDX-License-Identifier: BSD-2-Clause
/* libFuzzer target: clang -g -fsanitize=fuzzer,address tests/unit/fuzz_erspan.c tools/mgdump/erspan.c -Itools/mgdump */
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
