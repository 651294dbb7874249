/*
 * autosize: how Megatron-LM splits a model's layers over pipeline stages
 * (stages.h): the one rule the layout search and the launcher arguments
 * share, so no plan is made that Megatron cannot run.
 */
#include "stages.h"

/*
 * Layers on the first, each middle and the last pipeline stage as
 * Megatron-LM accepts them (megatron/core/transformer/transformer_config.py,
 * uneven pipelines): first and last at least one layer each, the middle
 * stages equal, every count a multiple of the virtual stages per rank.
 * No stage past the ceil(layers / pp) the plan was sized for (perf.c,
 * memory.c); the middle ones as full as that allows, the first and last
 * (which also hold the embedding and the loss) share the rest evenly.
 * Returns 0 when the stages are even, 1 uneven, -1 when no split exists.
 */
int stages_megatron_split(int layers, int pp, int vp, int *first,
			   int *middle, int *last)
{
	int most = (layers + pp - 1) / pp, m, f;

	if (layers < 1 || pp < 1 || vp < 1)
		return -1;
	if (layers % pp == 0 && (layers / pp) % vp == 0) {
		*first = *middle = *last = layers / pp;
		return 0;
	}
	if (pp < 2)
		return -1;
	for (m = pp > 2 ? most / vp * vp : 0; pp == 2 || m >= vp; m -= vp) {
		int rest = layers - (pp - 2) * m, best = -1;

		for (f = vp; f <= most && f < rest; f += vp) {
			int l = rest - f;

			if (l % vp || l > most || l < f)
				continue;
			if (best < 0 || l - f < rest - 2 * best)
				best = f;
		}
		if (best > 0) {
			*first = best;
			*middle = m;
			*last = rest - best;
			return 1;
		}
		if (pp == 2)
			break;
	}
	return -1;
}
