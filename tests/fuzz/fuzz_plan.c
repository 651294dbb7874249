/*
 * libFuzzer harness: a whole plan from option lines, under the default and
 * the site policy (see targets.h, make fuzz).
 */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_plan_target(data, size);
	return 0;
}
