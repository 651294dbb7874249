/*
 * autosize: where a job may run (plan_work.h): the candidate partitions of
 * a request, one entry per GPU type of each, of the job's GPU type, the
 * preemptible ones only when named; each within the scheduler's own
 * limits, the job's QOS and association caps and the GPUs per node its
 * own CPUs and memory per GPU allow; what those changed, told with the
 * plan.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plan_work.h"
#include "plan_host.h"

/* Note what the scheduler's limits changed (told with the plan), once;
 * size: a cap on the size, told only to plans that reach it. */
static void plan_note(plan_ctx *c, int size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void plan_note(plan_ctx *c, int size, const char *fmt, ...)
{
	char note[AUTOSIZE_WARNING_LEN];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	for (i = 0; i < c->n_notes; i++)
		if (strcmp(c->notes[i], note) == 0)
			return;   /* a partition of several GPU types */
	if (c->n_notes >= (int)(sizeof(c->notes) / sizeof(c->notes[0])))
		return;
	c->note_size[c->n_notes] = size;
	memcpy(c->notes[c->n_notes++], note, sizeof(note));
}

/* The notes about the plan's own partition, as its warnings. */
void plan_tell_notes(const plan_ctx *c, autosize_plan *plan)
{
	size_t n = strlen(plan->part.name);
	int i, at_cap = plan->gpus >= plan->part.max_nodes_per_job *
				      plan->part.gpus_per_node;

	for (i = 0; i < c->n_notes; i++)
		if (strncmp(c->notes[i], "partition ", 10) == 0 &&
		    strncmp(c->notes[i] + 10, plan->part.name, n) == 0 &&
		    c->notes[i][10 + n] == ':' &&
		    (!c->note_size[i] || at_cap))
			autosize_plan_warn(plan, "%s", c->notes[i]);
}

/* A Slurm limit that counts other jobs than this one: told with it. */
static const char *plan_cap_shared(const char *who)
{
	if (strstr(who, "PerUser"))
		return " (it counts your running jobs: while they hold GPUs, "
		       "this job waits)";
	if (strstr(who, "PerAccount") || strstr(who, "GrpTRES"))
		return " (it counts other running jobs: while they hold "
		       "GPUs, this job waits)";
	return "";
}

/* The fewest GPUs the job's own size holds (--gpus, -N with GPUs per
 * node, GPUs per node alone: one node); 0 when it fixes none. */
static long plan_fixed_gpus(const autosize_request *r)
{
	if (r->gpus > 0)
		return r->gpus;
	if (r->gpus_per_node > 0)
		return (long)r->gpus_per_node * (r->nodes > 0 ? r->nodes : 1);
	return 0;
}

/* A cap leaves the job gpn of part's GPUs on each node: part becomes
 * the share of a node the job runs on, its GPUs and their share of the
 * node's network ports (comm_link_net prices a GPU's share of them: a
 * job on 4 of 8 GPUs drives their 4 NICs, not all 8). The NVLink domain
 * keeps its nodes, each with gpn of the job's GPUs (comm_in_domain). */
static void plan_cap_gpn(autosize_partition *part, int gpn)
{
	part->net_gbps_per_node *= (double)gpn / part->gpus_per_node;
	part->gpus_per_node = gpn;
}

/* The QOS and association caps of this job over the partition: its GPUs
 * per node, nodes and time within them, noting each that bites and the
 * first in *capped. Returns 0 when a cap leaves no GPU at all. */
static int plan_caps(plan_ctx *c, autosize_partition *part,
		     const autosize_caps *caps, char *capped, size_t len)
{
	long v;

	v = caps->gpus_per_node.value;
	if (v >= 0 && v < part->gpus_per_node) {
		if (v == 0)
			return 0;
		plan_note(c, 1, "partition %s: %s: planned within %ld GPUs "
			  "per node", part->name, caps->gpus_per_node.who, v);
		snprintf(c->gpn_why, sizeof(c->gpn_why), "%s",
			 caps->gpus_per_node.who);
		plan_cap_gpn(part, (int)v);
		snprintf(capped, len, "%s", caps->gpus_per_node.who);
	}
	v = caps->gpus.value;
	if (v >= 0 && plan_fixed_gpus(c->r) > v)
		snprintf(c->gpus_why, sizeof(c->gpus_why), "%s allows at most "
			 "%ld to this job", caps->gpus.who, v);
	if (v >= 0 && v < (long)part->gpus_per_node * part->max_nodes_per_job) {
		if (v == 0)
			return 0;
		if (v < part->gpus_per_node) {
			plan_cap_gpn(part, (int)v);
			part->max_nodes_per_job = 1;
		} else {
			part->max_nodes_per_job = (int)(v / part->gpus_per_node);
		}
		plan_note(c, 1, "partition %s: %s: planned within %ld GPUs%s",
			  part->name, caps->gpus.who, v,
			  plan_cap_shared(caps->gpus.who));
		if (!capped[0])
			snprintf(capped, len, "%s", caps->gpus.who);
	}
	v = caps->nodes.value;
	if (v >= 0 && v < part->max_nodes_per_job) {
		if (v == 0)
			return 0;
		part->max_nodes_per_job = (int)v;
		plan_note(c, 1, "partition %s: %s: planned within %ld node%s%s",
			  part->name, caps->nodes.who, v, v == 1 ? "" : "s",
			  plan_cap_shared(caps->nodes.who));
		if (!capped[0])
			snprintf(capped, len, "%s", caps->nodes.who);
	}
	v = caps->wall_min.value;
	if (v > 0 && (part->max_time_s <= 0 || v * 60.0 < part->max_time_s)) {
		part->max_time_s = v * 60.0;
		plan_note(c, 0, "partition %s: %s: time limits kept within it",
			  part->name, caps->wall_min.who);
	}
	return 1;
}

/* The job's caps over the partition: Slurm's (l's, when read) and the
 * site rule's cap on its GPUs, the smaller of the two (Slurm's on a
 * tie: it is the one enforced). Returns 0 when they leave no GPU. */
static int plan_rule_cap(plan_ctx *c, autosize_partition *part,
			 const autosize_part_limit *l, char *capped,
			 size_t len)
{
	const autosize_cap *rule = &c->r->rule_gpus;
	autosize_caps caps;

	if (l && l->have_caps)
		/* a limit on the GPU type the job gets (gres/gpu:h100) too:
		 * this entry's, else the one the job asked for, else any
		 * type among the partition's nodes */
		autosize_caps_of_type(c->r->slurm, &l->caps, l->name,
				      part->gres_type[0] ? part->gres_type
				      : c->r->gpu_type, &caps);
	else if (rule->value <= 0)
		return 1;
	else
		autosize_caps_none(&caps);
	if (rule->value > 0 &&
	    (caps.gpus.value < 0 || rule->value < caps.gpus.value))
		caps.gpus = *rule;
	return plan_caps(c, part, &caps, capped, len);
}

/*
 * The scheduler's own limits over a policy partition's (the smaller
 * wins), then this job's QOS and association caps and the GPUs per node
 * its own CPUs and memory per GPU allow, noting in c what changed for
 * the plan's warnings; capped the limit that made it smaller. Returns 0
 * when the scheduler does not let this job use the partition at all.
 */
int plan_live_limits(plan_ctx *c, autosize_partition *part, char *capped,
		     size_t len)
{
	const autosize_part_limits *live = c->r->live;
	const autosize_part_limit *l = NULL;
	char why[AUTOSIZE_WARNING_LEN];
	long nodes;
	int i, gpn;

	capped[0] = '\0';
	c->gpus_why[0] = '\0';
	for (i = 0; live && i < live->n && i < AUTOSIZE_MAX_PARTITIONS; i++)
		if (strcmp(live->at[i].name, part->name) == 0)
			l = &live->at[i];
	if (live && !l)
		return 0;
	gpn = plan_host_gpn_cap(c->r, part, l, why, sizeof(why));
	c->gpn_why[0] = '\0';
	if (gpn < part->gpus_per_node) {
		snprintf(c->gpn_why, sizeof(c->gpn_why), "%s", why);
		if (gpn < 1)
			return 0;
		plan_note(c, 0, "partition %s: %s: planned within %d GPUs per "
			  "node", part->name, why, gpn);
		plan_cap_gpn(part, gpn);
	}
	if (!l)
		return plan_rule_cap(c, part, NULL, capped, len);
	nodes = l->max_nodes;
	if (l->total_nodes > 0 && (nodes <= 0 || l->total_nodes < nodes))
		nodes = l->total_nodes;
	if (nodes > 0 && nodes < part->max_nodes_per_job) {
		plan_note(c, 0, "partition %s: Slurm allows %ld nodes per job, "
			  "the site policy %d: planned within %ld", part->name,
			  nodes, part->max_nodes_per_job, nodes);
		part->max_nodes_per_job = (int)nodes;
	}
	if (l->max_time_s > 0 && (part->max_time_s <= 0 ||
				  l->max_time_s < part->max_time_s)) {
		plan_note(c, 0, "partition %s: Slurm's MaxTime is %.0f h, the "
			  "site policy's %.0f h: time limits kept within "
			  "Slurm's", part->name, l->max_time_s / 3600,
			  part->max_time_s / 3600);
		part->max_time_s = l->max_time_s;
	}
	return plan_rule_cap(c, part, l, capped, len);
}

/* Add one policy entry to the candidates. */
static autosize_err plan_add_entry(plan_ctx *c,
				   const autosize_partition *found,
				   autosize_error *e)
{
	int i = c->n_parts;

	if (c->r->gpus_per_node > found->gpus_per_node)
		return autosize_fail(e, AUTOSIZE_EINVAL, "--gpus-per-node: %d "
				     "is more than partition %s has (%d)",
				     c->r->gpus_per_node, found->name,
				     found->gpus_per_node);
	if (i >= AUTOSIZE_MAX_PARTITIONS)
		return AUTOSIZE_OK;   /* the policy has no more */
	c->parts[i] = *found;
	/* A partition the scheduler does not let this job use is planned
	 * only when the user named it (Slurm then refuses it itself). */
	if (!plan_live_limits(c, &c->parts[i], c->capped[i],
			      sizeof(c->capped[i])) && !c->named)
		return AUTOSIZE_OK;
	/* the job's own GPUs per node past what its CPUs, memory or QOS
	 * allow there: Slurm never places it */
	if (c->r->gpus_per_node > c->parts[i].gpus_per_node &&
	    c->gpn_why[0])
		return autosize_fail(e, AUTOSIZE_EINVAL, "%d GPUs per node "
				     "asked for on partition %s, but %s",
				     c->r->gpus_per_node, found->name,
				     c->gpn_why);
	/* a size the job keeps past its cap: Slurm never starts it (or
	 * refuses it), and the site's rule does not allow it */
	if (c->gpus_why[0])
		return autosize_fail(e, AUTOSIZE_EINVAL, "%ld GPUs asked for "
				     "on partition %s, but %s: ask for fewer, "
				     "or leave the size out and autosize "
				     "sizes the job within it",
				     plan_fixed_gpus(c->r), found->name,
				     c->gpus_why);
	c->n_parts++;
	return AUTOSIZE_OK;
}

/* Add a policy partition to the candidates once (a repeated name in a
 * list is planned once): each of its entries (one per GPU type) of the
 * job's GPU type; a preemptible one only when the job or the site named
 * it. */
static autosize_err plan_add_partition(plan_ctx *c, const char *name,
				       autosize_error *e)
{
	const autosize_partition *found;
	autosize_err rc;
	int i, any = 0;

	for (i = 0; i < c->n_parts; i++)
		if (strcmp(c->parts[i].name, name) == 0)
			return AUTOSIZE_OK;
	for (i = 0; (found = autosize_policy_partition_at(c->p, i)); i++) {
		if (strcmp(found->name, name) != 0)
			continue;
		any = 1;
		if (c->r->gpu_type[0] &&
		    !autosize_partition_has_type(c->p, found,
						 c->r->gpu_type)) {
			c->type_skipped++;
			continue;
		}
		if (found->preemptible && !c->chosen)
			continue;
		if ((rc = plan_add_entry(c, found, e)))
			return rc;
	}
	if (!any)
		return autosize_fail(e, AUTOSIZE_ENOTFOUND, "--partition: '%s' "
				     "is not in the site policy (see autosize "
				     "check-config)", name);
	return AUTOSIZE_OK;
}

/* 1 when the comma list has name as one of its items. */
static int plan_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *at = list;

	while (at && *at) {
		if (strncmp(at, name, n) == 0 && (at[n] == ',' || !at[n]))
			return 1;
		at = strchr(at, ',');
		if (at)
			at++;
	}
	return 0;
}

/* No candidate holds the job's GPU type: name the types there are. */
static autosize_err plan_no_type(const plan_ctx *c, const char *where,
				 autosize_error *e)
{
	const autosize_partition *part;
	char types[160];
	size_t used = 0;
	int i, n;

	types[0] = '\0';
	for (i = 0; (part = autosize_policy_partition_at(c->p, i)); i++) {
		if (where && !plan_in_list(where, part->name))
			continue;
		n = snprintf(types + used, sizeof(types) - used, "%s%s %s",
			     used ? ", " : "", part->name,
			     part->gres_type[0] ? part->gres_type
						: part->gpu->name);
		if (n < 0 || (size_t)n >= sizeof(types) - used)
			break;
		used += (size_t)n;
	}
	return autosize_fail(e, AUTOSIZE_ENOTFOUND, "GPU type '%s': no "
			     "partition %s has it (%s)", c->r->gpu_type,
			     where ? "asked for" : "of the site policy",
			     types);
}

/* The names of a comma list ("gpu,small", as Slurm takes them). */
static autosize_err plan_add_list(plan_ctx *c, const char *list,
				  autosize_error *e)
{
	char name[AUTOSIZE_PART_NAME_MAX];
	const char *p = list, *comma;
	autosize_err rc;
	size_t n;

	while (*p) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n >= sizeof(name))
			return autosize_fail(e, AUTOSIZE_ENOTFOUND,
					     "--partition: '%.*s...' is not in "
					     "the site policy", 32, p);
		if (n > 0) {
			memcpy(name, p, n);
			name[n] = '\0';
			if ((rc = plan_add_partition(c, name, e)))
				return rc;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	if (c->n_parts == 0 && c->type_skipped)
		return plan_no_type(c, list, e);
	if (c->n_parts == 0)
		return autosize_fail(e, AUTOSIZE_EINVAL, "--partition: '%s' "
				     "names no partition", list);
	return AUTOSIZE_OK;
}

/* Resolve where the job may run: the named partitions (a comma list), the
 * GPU's reference server, the policy's default, or every partition of the
 * policy but the preemptible ones. */
autosize_err plan_partitions(plan_ctx *c, autosize_error *e)
{
	const autosize_request *r = c->r;
	const char *site = autosize_policy_partition_for(c->p, r->rule);
	autosize_err rc;
	int i;

	c->n_parts = 0;
	c->named = r->partition[0] != '\0';
	c->chosen = c->named || (!r->gpu[0] && site[0]);
	if (r->partition[0]) {
		if ((rc = plan_add_list(c, r->partition, e)))
			return rc;
	} else if (r->gpu[0]) {
		const autosize_gpu *gpu = autosize_catalog_find(
			autosize_policy_catalog(c->p), r->gpu);
		int gpn = 0;

		if (!gpu)
			return autosize_fail(e, AUTOSIZE_ENOTFOUND,
					     "--gpu: '%s' is not in the GPU "
					     "catalog (e.g. a100-80gb, h100, "
					     "h200, mi300x)", r->gpu);
		gpn = r->gpus_per_node > 0 ? r->gpus_per_node
					   : gpu->gpus_per_node;
		autosize_partition_reference(&c->parts[0], gpu, gpn);
		c->n_parts = 1;
	} else if (site[0]) {
		if ((rc = plan_add_list(c, site, e)))
			return rc;
	} else {
		for (i = 0; i < autosize_policy_partition_count(c->p); i++)
			if ((rc = plan_add_partition(
				     c, autosize_policy_partition_at(c->p, i)
					     ->name, e)))
				return rc;
		if (c->n_parts == 0 && c->type_skipped)
			return plan_no_type(c, NULL, e);
		if (c->n_parts == 0)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     r->live ? "no partition of the site "
					     "policy is open to this job in "
					     "Slurm: give --partition"
					     : "no partition: give --partition, "
					     "or --gpu TYPE (e.g. --gpu h100)");
	}
	for (i = 0; r->net_set && i < c->n_parts; i++) {
		c->parts[i].net = r->net;
		c->parts[i].net_gbps_per_node = r->net_gbps_per_node;
	}
	return AUTOSIZE_OK;
}

/* The Slurm limits of partition name for this job, or NULL. */
const autosize_part_limit *plan_live_of(const plan_ctx *c,
					       const char *name)
{
	const autosize_part_limits *live = c->r->live;
	int i;

	for (i = 0; live && i < live->n && i < AUTOSIZE_MAX_PARTITIONS; i++)
		if (strcmp(live->at[i].name, name) == 0)
			return &live->at[i];
	return NULL;
}

