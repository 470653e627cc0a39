/* SPDX-License-Identifier: BSD-2-Clause */
/* Host unit tests: each file registers one CUnit suite. */
#ifndef MGCAP_UNIT_H
#define MGCAP_UNIT_H

#include <CUnit/CUnit.h>

void register_parse_tests(void);
void register_ring_tests(void);
void register_show_tests(void);
void register_frame_tests(void);
void register_peek_tests(void);
void register_merge_tests(void);
void register_order_tests(void);
void register_pages_tests(void);
void register_paged_writes_tests(void);
void register_source_tests(void);
void register_pcapng_tests(void);
void register_blockring_tests(void);
void register_erspan_tests(void);
void register_dump_output_tests(void);
void register_retention_tests(void);
void register_options_tests(void);
void register_clock_tests(void);
void register_adapter_tests(void);
void register_capindex_tests(void);
void register_extract_merge_tests(void);
void register_extract_tests(void);
void register_hwts_record_tests(void);

/* A test's temporary directory removed, with what is in it. */
void unit_remove_dir(const char *dir);

#define ADD_SUITE(suite_name, list) do {				\
	CU_pSuite s_ = CU_add_suite(suite_name, NULL, NULL);		\
	size_t i_;							\
	for (i_ = 0; i_ < sizeof(list) / sizeof(list[0]); i_++)		\
		CU_add_test(s_, list[i_].name, list[i_].fn);		\
} while (0)

struct unit_test {
	const char *name;
	CU_TestFunc fn;
};

#endif /* MGCAP_UNIT_H */
