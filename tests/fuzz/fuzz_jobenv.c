/*
 * libFuzzer harness: autosize_request_from_env on NUL/newline-separated
 * NAME=value entries, autosize_model_decode on the first ones (see
 * targets.h, make fuzz).
 */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_jobenv_target(data, size);
	return 0;
}
