/*
 * libFuzzer harness: autosize_parse_count/int/fraction/duration/choice on
 * each line of the input (see targets.h, make fuzz).
 */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parse_target(data, size);
	return 0;
}
