// SPDX-License-Identifier: BSD-2-Clause
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

void unit_remove_dir(const char *dir)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
}

int main(void)
{
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	register_parse_tests();
	register_ring_tests();
	register_show_tests();
	register_frame_tests();
	register_peek_tests();
	register_merge_tests();
	register_order_tests();
	register_pages_tests();
	register_source_tests();
	register_pcapng_tests();
	register_blockring_tests();
	register_erspan_tests();
	register_capindex_tests();
	register_extract_merge_tests();
	register_extract_tests();
	register_dump_output_tests();
	register_paged_writes_tests();
	register_retention_tests();
	register_options_tests();
	register_clock_tests();
	register_adapter_tests();
	register_hwts_record_tests();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
