/* libFuzzer harness: see targets.h (fuzz_jobenv_target) and make fuzz. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_jobenv_target(data, size);
	return 0;
}
