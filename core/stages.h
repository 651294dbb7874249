/*
 * autosize internal: Megatron-LM's pipeline stage split (core/stages.c).
 */
#ifndef AUTOSIZE_STAGES_H
#define AUTOSIZE_STAGES_H

#include <stddef.h>

/* Longest custom layout string, its NUL included: the layers, E, L and
 * a '|' between virtual stages. The Megatron arguments hold 1024 and
 * every other flag together takes up to ~560. */
#define STAGES_LAYOUT_MAX 400

/*
 * Layers on the first, each middle and the last pipeline stage as
 * Megatron-LM accepts them (transformer_config.py, uneven pipelines), none
 * past ceil(layers / pp). 0 when the stages are even, 1 uneven with
 * first/last counts, 2 when only a custom layout
 * (stages_megatron_layout) splits them, -1 when no split exists (e.g. 19
 * layers on PP 8 with vp 4: a rank with fewer layers than virtual
 * stages).
 */
int stages_megatron_split(int layers, int pp, int vp, int *first,
			  int *middle, int *last);

/*
 * As stages_megatron_split, but where the last stage also runs an output
 * head of head layers' work (the vocabulary projection and the loss), the
 * first/last split (Megatron's --decoder-first/last-pipeline-num-layers)
 * that makes the busiest stage, max(first, middle, last + head), the
 * lightest: layers moved off the last stage onto the middle ones, each
 * count a multiple of vp, the first stage never past ceil(layers / pp)
 * and a middle one past cap layers (what the plan's memory allows:
 * sizing_middle_stage_cap; the caller keeps the plain split where a
 * longer stage would keep more than it: a block recomputation of part of
 * each stage). The plain split where nothing beats it, or cap is no more
 * than ceil(layers / pp). Returns as stages_megatron_split.
 */
int stages_megatron_split_head(int layers, int pp, int vp, double head,
			       int cap, int *first, int *middle, int *last);

/*
 * Megatron-Core's --pipeline-model-parallel-layout (0.13+; docs
 * api-guide/pipeline_parallel_layout.md) for layers over pp ranks of vp
 * virtual stages: ranks as stages_megatron_split sizes them, each rank's
 * layers split evenly over its virtual stages, the embedding (E) first,
 * the loss (L) last, segments split by '|' in virtual-stage-major order.
 * 0, or -1 when there is no such split, it is longer than
 * STAGES_LAYOUT_MAX or buf (len) is too short.
 */
int stages_megatron_layout(int layers, int pp, int vp, char *buf,
			   size_t len);

#endif
