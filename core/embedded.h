/* Internal: the shipped YAML files compiled into the library, and the
 * published runs' scores (etc/published-runs.tsv, core/published.c). */
#ifndef AUTOSIZE_EMBEDDED_H
#define AUTOSIZE_EMBEDDED_H
#include <stddef.h>
extern const char autosize_embedded_gpus_yaml[];
extern const size_t autosize_embedded_gpus_yaml_len;
extern const char autosize_embedded_models_yaml[];
extern const size_t autosize_embedded_models_yaml_len;
extern const char autosize_embedded_perf_yaml[];
extern const size_t autosize_embedded_perf_yaml_len;
extern const char autosize_embedded_published_runs_tsv[];
extern const size_t autosize_embedded_published_runs_tsv_len;
#endif
