/*
 * autosize: the jobs the calibrator keeps
 * (calibration_learn_private.h). Each user's jobs on a partition and
 * GPU go to one slot holding a uniform sample
 * of at most CAL_SLOT_SAMPLES of them (reservoir sampling, Vitter's
 * algorithm R): a user flooding a million reports keeps as many as one
 * with 32, and a user whose jobs come last in the input keeps as many
 * as one whose jobs come first. Slots are CAL_MAX_SLOTS at most.
 */
#include <stdlib.h>
#include <string.h>
#include "calibration_learn_private.h"

/* Hash table size: a power of two, twice the slots (open addressing
 * stays short). */
#define CAL_TABLE_SIZE (2 * CAL_MAX_SLOTS)

/* FNV-1a over the three names (with a separator each). */
static uint64_t cal_sample_hash(const char *user, const char *partition,
				const char *gpu)
{
	const char *parts[3] = { user, partition, gpu };
	uint64_t h = 14695981039346656037ULL;
	const char *s;
	int i;

	for (i = 0; i < 3; i++) {
		for (s = parts[i]; *s; s++) {
			h ^= (unsigned char)*s;
			h *= 1099511628211ULL;
		}
		h ^= 0xff;
		h *= 1099511628211ULL;
	}
	return h;
}

/* splitmix64: the reservoir's draws, seeded per slot by its key, so a
 * run over the same input keeps the same jobs. */
static uint64_t cal_sample_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The slot of user x partition/gpu, created when new; NULL when the
 * table is full (*oom set when memory ran out). */
static cal_slot *cal_sample_slot(autosize_calibrator *k, const char *user,
				 const char *partition, const char *gpu,
				 int *oom)
{
	uint64_t h = cal_sample_hash(user, partition, gpu);
	size_t i = (size_t)h & (CAL_TABLE_SIZE - 1);
	cal_slot *slot;

	if (!k->table) {
		k->table = malloc(CAL_TABLE_SIZE * sizeof(*k->table));
		if (!k->table) {
			*oom = 1;
			return NULL;
		}
		memset(k->table, 0xff, CAL_TABLE_SIZE * sizeof(*k->table));
	}
	for (;; i = (i + 1) & (CAL_TABLE_SIZE - 1)) {
		if (k->table[i] < 0)
			break;
		slot = k->slots[k->table[i]];
		if (strcmp(slot->user, user) == 0 &&
		    strcmp(slot->partition, partition) == 0 &&
		    strcmp(slot->gpu, gpu) == 0)
			return slot;
	}
	if (k->n_slots >= CAL_MAX_SLOTS)
		return NULL;
	if (k->n_slots == k->cap_slots) {
		int cap = k->cap_slots ? 2 * k->cap_slots : 64;
		cal_slot **grown = realloc(k->slots,
					   (size_t)cap * sizeof(*grown));

		if (!grown) {
			*oom = 1;
			return NULL;
		}
		k->slots = grown;
		k->cap_slots = cap;
	}
	slot = calloc(1, sizeof(*slot));
	if (!slot) {
		*oom = 1;
		return NULL;
	}
	snprintf(slot->user, sizeof(slot->user), "%s", user);
	snprintf(slot->partition, sizeof(slot->partition), "%s", partition);
	snprintf(slot->gpu, sizeof(slot->gpu), "%s", gpu);
	slot->rng = h;
	k->table[i] = k->n_slots;
	k->slots[k->n_slots++] = slot;
	return slot;
}

int cal_sample_offer(autosize_calibrator *k, const char *user,
		     const char *partition, const char *gpu,
		     const cal_sample *s)
{
	int oom = 0;
	cal_slot *slot = cal_sample_slot(k, user, partition, gpu, &oom);
	uint64_t j;

	if (!slot)
		return oom ? -1 : 0;
	slot->seen++;
	if (slot->n < CAL_SLOT_SAMPLES) {
		slot->s[slot->n++] = *s;
		return 1;
	}
	/* algorithm R: the seen-th job replaces a kept one with
	 * probability CAL_SLOT_SAMPLES / seen */
	j = cal_sample_next(&slot->rng) % (uint64_t)slot->seen;
	if (j < CAL_SLOT_SAMPLES)
		slot->s[j] = *s;
	k->dropped++;
	return 1;
}

void cal_sample_free(autosize_calibrator *k)
{
	int i;

	for (i = 0; i < k->n_slots; i++)
		free(k->slots[i]);
	free(k->slots);
	free(k->table);
	k->slots = NULL;
	k->table = NULL;
	k->n_slots = k->cap_slots = 0;
}
