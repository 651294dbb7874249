/*
 * libFuzzer harness: autosize_model_from_json_text on the input as a
 * config.json (see targets.h, make fuzz).
 */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_json_target(data, size);
	return 0;
}
