/*
 * autosize: the running cluster as slurmctld sees it, read through
 * libslurm: each partition's limits and node count, and the GPUs of its
 * nodes from their GRES ("gpu:h100:8(S:0-1)"). Built without libslurm's
 * headers, live_load says so and fails.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "autosize/decide.h"
#include "live.h"
#ifdef AUTOSIZE_HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#endif

/* A GPU type seen on a node: the first, or mixed when another. */
static void live_gres_type(live_gpus *g, const char *type, size_t n)
{
	char t[LIVE_TYPE_MAX];

	if (n >= sizeof(t))
		n = sizeof(t) - 1;
	memcpy(t, type, n);
	t[n] = '\0';
	if (!g->typed) {
		snprintf(g->type, sizeof(g->type), "%s", t);
		g->typed = 1;
	} else if (strcmp(g->type, t) != 0) {
		g->mixed = 1;
	}
}

/* More GPUs than this on one node: its Gres is not believed. */
#define LIVE_NODE_GPUS_MAX 999999L

/* One GRES entry "gpu[:type][:count][(...)]" of n bytes into *g
 * (core/gres.c reads it). */
static void live_gres_entry(const char *s, size_t n, live_gpus *g)
{
	const char *type;
	size_t type_len;
	long count = autosize_gres_entry_gpus(s, n, &type, &type_len);

	if (count == AUTOSIZE_JOB_UNSET)
		return;
	if (type)
		live_gres_type(g, type, type_len);
	if (count < 0 || count > LIVE_NODE_GPUS_MAX ||
	    count > INT_MAX - g->count)
		g->unreadable = 1;
	else
		g->count += (int)count;
}

void live_parse_gres(const char *gres, live_gpus *g)
{
	const char *s = gres, *start;
	int depth = 0;

	memset(g, 0, sizeof(*g));
	if (!s)
		return;
	for (start = s;; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth > 0)
			depth--;
		if (*s == '\0' || (*s == ',' && depth == 0)) {
			live_gres_entry(start, (size_t)(s - start), g);
			if (!*s)
				break;
			start = s + 1;
		}
	}
}

int live_type_index(const live_part *lp, const char *type)
{
	int i;

	for (i = 0; i < lp->n_types && i < LIVE_MAX_TYPES; i++)
		if (strcasecmp(lp->types[i], type) == 0)
			return i;
	return -1;
}

/* A node of one GPU type, counted under its type. */
static void live_add_type(live_part *p, const live_gpus *g)
{
	int i = live_type_index(p, g->type);

	if (i < 0) {
		if (p->n_types >= LIVE_MAX_TYPES) {
			p->n_types = LIVE_MAX_TYPES + 1;
			return;
		}
		i = p->n_types++;
		snprintf(p->types[i], LIVE_TYPE_MAX, "%s", g->type);
		p->type_gpus[i] = g->count;
	}
	p->type_nodes[i]++;
	if (g->count < p->type_gpus[i])
		p->type_gpus[i] = g->count;
}

/* Fold one node's GPUs into partition p. */
static void live_add_node(live_part *p, const live_gpus *g)
{
	if (p->nodes_seen == 0 || g->count < p->gpus_min)
		p->gpus_min = g->count;
	if (p->nodes_seen == 0 || g->count > p->gpus_max)
		p->gpus_max = g->count;
	if (g->unreadable)
		p->gres_unreadable = 1;
	if (g->count > 0) {
		if (g->mixed || (p->typed_nodes + p->untyped_nodes > 0 &&
				 (g->typed != (p->typed_nodes > 0) ||
				  strcmp(g->type, p->gpu_type) != 0)))
			p->gpu_mixed = 1;
		if (g->typed) {
			snprintf(p->gpu_type, sizeof(p->gpu_type), "%s",
				 g->type);
			p->typed_nodes++;
			if (!g->mixed)
				live_add_type(p, g);
		} else {
			p->untyped_nodes++;
		}
	}
	p->nodes_seen++;
}

int live_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *s = list;

	while (s && *s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (len == n && strncmp(s, name, n) == 0)
			return 1;
		s = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* "2-00:00:00", or "UNLIMITED" for 0. */
const char *live_time(double s, char *buf, size_t len)
{
	if (s <= 0)
		return "UNLIMITED";
	return autosize_format_duration(s, buf, len);
}

/* Slurm's MaxNodes as scontrol prints it. */
const char *live_max_nodes(const live_part *lp, char *buf, size_t len)
{
	if (lp->max_nodes <= 0)
		return "UNLIMITED";
	snprintf(buf, len, "%d", lp->max_nodes);
	return buf;
}

/* Nodes one job may have in Slurm: MaxNodes, at most the nodes there. */
int live_job_nodes(const live_part *lp)
{
	return lp->max_nodes > 0 && lp->max_nodes < lp->nodes ? lp->max_nodes
							       : lp->nodes;
}

const live_part *live_find(const live_cluster *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->parts[i].name, name) == 0)
			return &c->parts[i];
	return NULL;
}

#ifdef AUTOSIZE_HAVE_SLURM
static void live_slurm_end(void)
{
	slurm_fini();
}

void live_slurm_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	slurm_init(NULL);
	atexit(live_slurm_end);
}

/* Slurm's minutes (INFINITE, NO_VAL) as seconds, 0 = unlimited. */
static double live_minutes(uint32_t m)
{
	return m == INFINITE || m == NO_VAL ? 0 : m * 60.0;
}

int live_load(live_cluster *c, char *err, size_t len)
{
	partition_info_msg_t *pm = NULL;
	node_info_msg_t *nm = NULL;
	uint32_t i, j;
	int k;

	memset(c, 0, sizeof(*c));
	live_slurm_init();
	/* libslurm leaves its error code in errno: slurm_get_errno() only
	 * returned errno and is gone from 26.05's slurm.h. */
	if (slurm_load_partitions((time_t)0, &pm, SHOW_ALL) != 0 ||
	    slurm_load_node((time_t)0, &nm, SHOW_ALL) != 0) {
		int e = errno;

		snprintf(err, len, "cannot read the cluster from slurmctld: "
			 "%s (is slurmctld up, SLURM_CONF right?)",
			 slurm_strerror(e));
		if (pm)
			slurm_free_partition_info_msg(pm);
		return -1;
	}
	for (i = 0; i < pm->record_count; i++) {
		const partition_info_t *pi = &pm->partition_array[i];
		live_part *p;

		if (!pi->name)
			continue;
		if (c->n >= LIVE_MAX_PARTS) {
			c->truncated = 1;
			break;
		}
		p = &c->parts[c->n++];
		snprintf(p->name, sizeof(p->name), "%s", pi->name);
		p->nodes = (int)pi->total_nodes;
		p->max_nodes = pi->max_nodes == INFINITE ||
			       pi->max_nodes == NO_VAL ? 0 :
			       (int)pi->max_nodes;
		p->max_time_s = live_minutes(pi->max_time);
		p->default_time_s = live_minutes(pi->default_time);
		p->up = (pi->state_up & PARTITION_UP) == PARTITION_UP;
		p->preempted = pi->preempt_mode != NO_VAL16 &&
			       (pi->preempt_mode & (PREEMPT_MODE_SUSPEND |
						    PREEMPT_MODE_REQUEUE |
						    PREEMPT_MODE_CANCEL));
		p->priority_tier = pi->priority_tier;
	}
	/* node_info_t.partitions is filled in here, not by slurmctld */
	slurm_populate_node_partitions(nm, pm);
	for (j = 0; j < nm->record_count; j++) {
		const node_info_t *ni = &nm->node_array[j];
		live_gpus g;

		if (!ni->name || !ni->partitions)
			continue;
		live_parse_gres(ni->gres, &g);
		for (k = 0; k < c->n; k++)
			if (live_in_list(ni->partitions, c->parts[k].name))
				live_add_node(&c->parts[k], &g);
	}
	slurm_free_partition_info_msg(pm);
	slurm_free_node_info_msg(nm);
	return 0;
}
#else
void live_slurm_init(void)
{
}

int live_load(live_cluster *c, char *err, size_t len)
{
	memset(c, 0, sizeof(*c));
	snprintf(err, len, "this autosize was built without libslurm "
		 "(apt-get install libslurm-dev, then make)");
	return -1;
}
#endif
