/*
 * libFuzzer harness: autosize_decide on Slurm-shaped job requests
 * (partition lists, sizes, tres strings, het offsets, environment
 * entries) under the site policy and a policy with every partition slot
 * used; asserts the decision's invariants and its work budget (see
 * targets.h, make fuzz).
 */
#include "targets.h"
#include "../bench/hostile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char wide[16384];
	static size_t wide_len;

	if (!wide_len)
		wide_len = hostile_policy_text(wide, sizeof(wide));
	fuzz_decide_target(data, size, wide, wide_len);
	return 0;
}
