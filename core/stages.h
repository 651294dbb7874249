/*
 * autosize internal: Megatron-LM's pipeline stage split (core/stages.c).
 */
#ifndef AUTOSIZE_STAGES_H
#define AUTOSIZE_STAGES_H

/*
 * Layers on the first, each middle and the last pipeline stage as
 * Megatron-LM accepts them (transformer_config.py, uneven pipelines), none
 * past ceil(layers / pp). 0 when the stages are even, 1 uneven, -1 when
 * no split exists (e.g. 19 layers on PP 8; interleaving vp that no stage
 * count is a multiple of).
 */
int stages_megatron_split(int layers, int pp, int vp, int *first,
			  int *middle, int *last);

#endif
