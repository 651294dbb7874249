/* Internal: the shipped YAML files compiled into the library. */
#ifndef AUTOSIZE_EMBEDDED_H
#define AUTOSIZE_EMBEDDED_H
#include <stddef.h>
extern const char autosize_embedded_gpus_yaml[];
extern const size_t autosize_embedded_gpus_yaml_len;
extern const char autosize_embedded_models_yaml[];
extern const size_t autosize_embedded_models_yaml_len;
extern const char autosize_embedded_perf_yaml[];
extern const size_t autosize_embedded_perf_yaml_len;
#endif
