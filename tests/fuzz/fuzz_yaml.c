/*
 * libFuzzer harness: autosize_policy_parse and autosize_catalog_parse on
 * the input (see targets.h, make fuzz).
 */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_yaml_target(data, size);
	return 0;
}
