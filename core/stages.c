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
static int stages_classic(int layers, int pp, int vp, int *first,
			  int *middle, int *last)
{
	int most = (layers + pp - 1) / pp, m, f;
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

/* Layers on pipeline rank r of pp for a custom layout: ceil(layers / pp)
 * each, the ranks short of that taken from both ends inwards (the first
 * and last also hold the embedding and the loss). */
static int stages_rank_layers(int layers, int pp, int r)
{
	int most = (layers + pp - 1) / pp, short_ranks = most * pp - layers;
	int from_end = r < pp - 1 - r ? r : pp - 1 - r;
	/* ranks 0, pp-1, 1, pp-2, ... in that order */
	int order = 2 * from_end + (r > pp - 1 - r);

	return order < short_ranks ? most - 1 : most;
}

/* Bytes of the custom layout string, its NUL included: the layers, E,
 * L and a '|' between the pp x vp virtual stages. */
static size_t stages_layout_len(int layers, int pp, int vp)
{
	return (size_t)layers + (size_t)pp * vp + 2;
}

/* 1 when a custom layout splits layers over pp x vp: a pipeline, at
 * least one layer per virtual stage, within STAGES_LAYOUT_MAX. */
static int stages_layout_ok(int layers, int pp, int vp)
{
	return pp >= 2 && vp >= 1 && layers / pp >= vp &&
	       stages_layout_len(layers, pp, vp) <= STAGES_LAYOUT_MAX;
}

int stages_megatron_split(int layers, int pp, int vp, int *first,
			  int *middle, int *last)
{
	if (layers < 1 || pp < 1 || vp < 1)
		return -1;
	if (stages_classic(layers, pp, vp, first, middle, last) >= 0)
		return *first == *middle && *last == *middle ? 0 : 1;
	/* Megatron-Core 0.13+ --pipeline-model-parallel-layout: any split
	 * with at least one layer per virtual stage */
	if (!stages_layout_ok(layers, pp, vp))
		return -1;
	*first = stages_rank_layers(layers, pp, 0);
	*middle = (layers + pp - 1) / pp;
	*last = stages_rank_layers(layers, pp, pp - 1);
	return 2;
}

/* The busiest stage of a split, the head on the last. */
static double stages_busiest(int first, int middle, int last, double head)
{
	double b = first > middle ? first : middle;

	return last + head > b ? last + head : b;
}

int stages_megatron_split_head(int layers, int pp, int vp, double head,
			       int cap, int *first, int *middle, int *last)
{
	int split = stages_megatron_split(layers, pp, vp, first, middle, last);
	int most = (layers + pp - 1) / pp, f, x, m;
	double best;

	if (split < 0 || pp < 3 || head <= 0 || cap <= most)
		return split;
	best = stages_busiest(*first, *middle, *last, head);
	/* for each last count x, the fewest middle layers m (a multiple
	 * of vp) that leave the first stage no more than most, and one
	 * step more (a lighter first); f's remainder by vp is (layers -
	 * x)'s whatever m */
	for (x = vp; x < most; x += vp) {
		int lo = layers - x - most, k;

		if ((layers - x) % vp)
			continue;
		lo = lo > 0 ? (lo + pp - 3) / (pp - 2) : vp;
		lo = (lo + vp - 1) / vp * vp;
		for (k = 0, m = lo; k < 2; k++, m += vp) {
			double b;

			f = layers - x - (pp - 2) * m;
			if (f < vp || f > most || m > cap)
				continue;
			b = stages_busiest(f, m, x, head);
			if (b < best - 1e-9) {
				best = b;
				*first = f;
				*middle = m;
				*last = x;
				split = 1;
			}
		}
	}
	return split;
}

/* Layers of virtual stage c of rank r: the rank's share split evenly,
 * the lighter chunks where the embedding (rank 0, chunk 0) and the loss
 * (last rank, last chunk) sit. */
static int stages_chunk_layers(int layers, int pp, int vp, int r, int c)
{
	int n = stages_rank_layers(layers, pp, r), extra = n % vp;
	int k = r == 0 ? vp - 1 - c : c;

	return n / vp + (k < extra);
}

int stages_megatron_layout(int layers, int pp, int vp, char *buf,
			   size_t len)
{
	size_t at = 0;
	int i, k;

	if (!buf || !stages_layout_ok(layers, pp, vp) ||
	    stages_layout_len(layers, pp, vp) > len)
		return -1;
	/* segments in Megatron's order, virtual stage major (chunk c of
	 * rank r is segment c * pp + r), written out in full: only E, t,
	 * L and '|', nothing a shell expands */
	for (i = 0; i < pp * vp; i++) {
		int r = i % pp, c = i / pp;

		if (i > 0)
			buf[at++] = '|';
		if (i == 0)
			buf[at++] = 'E';
		for (k = stages_chunk_layers(layers, pp, vp, r, c); k > 0; k--)
			buf[at++] = 't';
		if (i == pp * vp - 1)
			buf[at++] = 'L';
	}
	buf[at] = '\0';
	return 0;
}
