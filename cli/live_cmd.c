/*
 * autosize check-config --live: the site policy against the running
 * cluster (live.c reads it from slurmctld).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "live.h"

/* Counts of what the comparison found, printed as it goes. */
typedef struct live_tally {
	int errors, warnings;
} live_tally;

static void live_say(live_tally *t, int error, const char *part,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void live_say(live_tally *t, int error, const char *part,
		     const char *fmt, ...)
{
	va_list ap;

	printf("  %s: partition %s: ", error ? "error" : "warning", part);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (error)
		t->errors++;
	else
		t->warnings++;
}

static void live_time_and_size(const autosize_partition *pt,
			       const live_part *lp, live_tally *t)
{
	char a[32], b[32], m[16];
	int job_nodes = live_job_nodes(lp);

	if (!lp->up)
		live_say(t, 0, pt->name, "Slurm's State is not UP: jobs "
			 "there wait or are refused");
	if (lp->max_time_s > 0 &&
	    (pt->max_time_s <= 0 || pt->max_time_s > lp->max_time_s))
		live_say(t, 1, pt->name, "max_time %s in the policy, Slurm's "
			 "MaxTime is %s: jobs sized past it are refused "
			 "(\"Requested time limit is invalid\"); set max_time: "
			 "%s", live_time(pt->max_time_s, a, sizeof(a)),
			 live_time(lp->max_time_s, b, sizeof(b)),
			 live_time(lp->max_time_s, b, sizeof(b)));
	if (pt->max_nodes_per_job > job_nodes)
		live_say(t, 1, pt->name, "max_nodes_per_job %d, Slurm allows "
			 "%d nodes per job (MaxNodes %s, %d nodes): larger "
			 "jobs are refused; set max_nodes_per_job: %d",
			 pt->max_nodes_per_job, job_nodes,
			 live_max_nodes(lp, m, sizeof(m)), lp->nodes,
			 job_nodes);
	if (!pt->gres_type[0] && pt->nodes != lp->nodes)
		live_say(t, 0, pt->name, "nodes %d in the policy, Slurm has %d",
			 pt->nodes, lp->nodes);
}

/* "h100, a100" of a partition's GPU types. */
static const char *live_types(const live_part *lp, char *buf, size_t len)
{
	size_t used = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < lp->n_types && i < LIVE_MAX_TYPES; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
			     lp->types[i]);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf[0] ? buf : "none";
}

/* An entry of a GPU type (gres_type): its type among Slurm's there, its
 * nodes and GPUs per node those of that type. */
static void live_typed(const autosize_policy *p, const autosize_partition *pt,
		       const live_part *lp, live_tally *t)
{
	int i = live_type_index(lp, pt->gres_type);
	char types[200];

	if (i < 0) {
		live_say(t, 1, pt->name, "gres_type %s, Slurm's nodes there "
			 "have GPU types %s: jobs written as gres/gpu:%s:N "
			 "never start", pt->gres_type,
			 live_types(lp, types, sizeof(types)), pt->gres_type);
		return;
	}
	if (pt->gpus_per_node > lp->type_gpus[i])
		live_say(t, 1, pt->name, "gpus_per_node %d, Slurm's %s nodes "
			 "have %d: set gpus_per_node: %d", pt->gpus_per_node,
			 pt->gres_type, lp->type_gpus[i], lp->type_gpus[i]);
	if (pt->nodes != lp->type_nodes[i])
		live_say(t, 0, pt->name, "nodes %d of type %s in the policy, "
			 "Slurm has %d", pt->nodes, pt->gres_type,
			 lp->type_nodes[i]);
	if (!autosize_partition_has_type(p, pt, lp->types[i]))
		live_say(t, 1, pt->name, "gres_type %s names no GPU type "
			 "of %s", pt->gres_type, pt->gpu->name);
}

static void live_gpus_of(const autosize_policy *p,
			 const autosize_partition *pt, const live_part *lp,
			 live_tally *t)
{
	const autosize_gpu *g;
	char warn[160];

	char types[200];

	if (lp->nodes_seen == 0 || lp->gpus_max == 0) {
		live_say(t, 1, pt->name, "its nodes have no GPUs in Slurm (no "
			 "gpu GRES): GPU jobs there never start");
		return;
	}
	if (pt->gres_type[0]) {
		live_typed(p, pt, lp, t);
		return;
	}
	if (lp->gpu_mixed && lp->n_types > 1) {
		live_say(t, 0, pt->name, "its nodes have GPU types %s: give "
			 "the policy one entry of this name per type, each "
			 "with its gres_type, so a job is written for the type "
			 "it was planned for", live_types(lp, types,
							  sizeof(types)));
		return;
	}
	if (pt->gpus_per_node > lp->gpus_min)
		live_say(t, 1, pt->name, "gpus_per_node %d, Slurm's nodes "
			 "have %d: jobs asking for %d per node never start; "
			 "set gpus_per_node: %d", pt->gpus_per_node,
			 lp->gpus_min, pt->gpus_per_node, lp->gpus_min);
	else if (pt->gpus_per_node < lp->gpus_min)
		live_say(t, 0, pt->name, "gpus_per_node %d, Slurm's nodes "
			 "have %d: plans leave GPUs idle", pt->gpus_per_node,
			 lp->gpus_min);
	if (lp->gpus_min != lp->gpus_max)
		live_say(t, 0, pt->name, "its nodes have %d to %d GPUs; "
			 "plans assume %d", lp->gpus_min, lp->gpus_max,
			 pt->gpus_per_node);
	if (lp->gres_unreadable)
		live_say(t, 0, pt->name, "a node's gpu GRES count could not "
			 "be read");
	if (lp->gpu_mixed || lp->typed_nodes == 0) {
		live_say(t, 0, pt->name, "%s: the GPU model (%s) is not "
			 "checked against Slurm", lp->gpu_mixed ?
			 "its nodes have different GPU types" :
			 "Slurm's gpu GRES has no type (gres.conf Type=)",
			 pt->gpu->name);
		return;
	}
	g = autosize_catalog_resolve(autosize_policy_catalog(p), lp->gpu_type,
				     warn, sizeof(warn));
	if (!g)
		live_say(t, 0, pt->name, "Slurm's GRES type '%s' is not a "
			 "catalog name or alias (autosize gpus): the model "
			 "(%s) is not checked", lp->gpu_type, pt->gpu->name);
	else if (g != pt->gpu)
		live_say(t, 1, pt->name, "gpu %s in the policy, Slurm's GRES "
			 "type is %s (%s)", pt->gpu->name, lp->gpu_type,
			 g->name);
	else if (warn[0])
		live_say(t, 0, pt->name, "Slurm's GRES type: %s", warn);
}

/* A partition's CPUs and memory per GPU against its nodes. */
static void live_per_gpu(const autosize_partition *pt,
			 const autosize_slurm_part *sp, live_tally *t)
{
	double mb = pt->mem_per_gpu_bytes / (1024.0 * 1024);

	if (pt->cpus_per_gpu > 0 && sp->node_cpus > 0 &&
	    (long)pt->cpus_per_gpu * pt->gpus_per_node > sp->node_cpus)
		live_say(t, 1, pt->name, "cpus_per_gpu %d x %d GPUs, its "
			 "nodes have %ld CPUs: a whole node's job never "
			 "starts", pt->cpus_per_gpu, pt->gpus_per_node,
			 sp->node_cpus);
	if (mb > 0 && sp->node_mem_mb > 0 &&
	    mb * pt->gpus_per_node > sp->node_mem_mb)
		live_say(t, 1, pt->name, "mem_per_gpu %.0fM x %d GPUs, its "
			 "nodes have %ldM (RealMemory): a whole node's job "
			 "never starts", mb, pt->gpus_per_node,
			 sp->node_mem_mb);
}

/* One name of a rule that Slurm does not know: it never matches. */
static void live_rule_name(const autosize_rule *r, const char *what,
			   const char *name, live_tally *t)
{
	printf("  warning: rule at line %d: %s %s is not among Slurm's "
	       "(as slurmctld enforces them): it never matches\n", r->line,
	       what, name);
	t->warnings++;
}

/* The rules' accounts, QOS and users against Slurm's: a name Slurm
 * lacks is a typo or a leftover; without enforced associations a job
 * may name any account, so a rule on accounts or QOS guards nothing. */
static void live_rules_check(const autosize_policy *p,
			     const autosize_limits *l, live_tally *t)
{
	const autosize_rule *r;
	int i, k, keyed = 0;

	for (i = 0; (r = autosize_policy_rule_at(p, i)); i++)
		keyed |= r->n_accounts || r->n_qos;
	if (!autosize_limits_enforced(l)) {
		if (keyed) {
			printf("  warning: rules match on accounts or QOS, "
			       "but Slurm enforces no association limits "
			       "(AccountingStorageEnforce without limits): "
			       "their names are not checked, and unless it "
			       "enforces associations a job may name any "
			       "account\n");
			t->warnings++;
		}
		return;
	}
	for (i = 0; (r = autosize_policy_rule_at(p, i)); i++) {
		for (k = 0; k < r->n_accounts; k++)
			if (!autosize_limits_has_account(l, r->accounts[k]))
				live_rule_name(r, "account", r->accounts[k],
					       t);
		for (k = 0; k < r->n_qos; k++)
			if (!autosize_limits_has_qos(l, r->qos[k]))
				live_rule_name(r, "QOS", r->qos[k], t);
		for (k = 0; k < r->n_users; k++)
			if (!autosize_limits_has_user(l, r->users[k]))
				live_rule_name(r, "user", r->users[k], t);
	}
}

/* Slurm's QOS and association limits, which slurmctld's module plans
 * within, and what each partition gives a GPU. */
static void live_limits_check(const autosize_policy *p, live_tally *t)
{
	const autosize_partition *pt;
	const autosize_slurm_part *sp;
	autosize_limits *l;
	char err[AUTOSIZE_MSG_LEN];
	int i;

	l = live_limits_load(err, sizeof(err));
	if (!l) {
		printf("  warning: Slurm's QOS and association limits cannot "
		       "be read: %s (slurmctld's module leaves autosize jobs "
		       "as submitted while it cannot)\n", err);
		t->warnings++;
		return;
	}
	if (!autosize_policy_defaults(p)->slurm_limits)
		printf("  slurm_limits: off: jobs are planned without Slurm's "
		       "QOS and association limits\n");
	else
		live_limits_print(stdout, l, "  ");
	for (i = 0; (pt = autosize_policy_partition_at(p, i)); i++) {
		sp = autosize_limits_partition(l, pt->name, pt->gres_type);
		if (sp)
			live_per_gpu(pt, sp, t);
	}
	live_rules_check(p, l, t);
	autosize_limits_destroy(l);
}

int cli_live_compare(const autosize_policy *p, const live_cluster *c,
		     int limits)
{
	live_tally t = { 0, 0 };
	char names[256];
	size_t used = 0;
	int i;

	names[0] = '\0';
	/* the names that fit whole, then how many more */
	for (i = 0; i < c->n; i++) {
		size_t need = strlen(c->parts[i].name) + (i ? 2 : 0);

		if (used + need + 1 > sizeof(names) - 24)
			break;
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 "%s%s", i ? ", " : "",
					 c->parts[i].name);
	}
	if (i < c->n)
		snprintf(names + used, sizeof(names) - used, " and %d more%s",
			 c->n - i, c->truncated ? "+" : "");
	printf("autosize: against the running cluster (%d Slurm partition%s: "
	       "%s)\n", c->n, c->n == 1 ? "" : "s", c->n ? names : "none");
	for (i = 0; i < autosize_policy_partition_count(p); i++) {
		const autosize_partition *pt =
			autosize_policy_partition_at(p, i);
		const live_part *lp = live_find(c, pt->name);

		if (!lp && c->truncated) {
			live_say(&t, 0, pt->name, "not among the %d Slurm "
				 "partitions read (slurmctld has more): not "
				 "compared", LIVE_MAX_PARTS);
			continue;
		}
		if (!lp) {
			live_say(&t, 1, pt->name, "not a Slurm partition: jobs "
				 "sized for it are refused (\"invalid "
				 "partition specified\")");
			continue;
		}
		live_time_and_size(pt, lp, &t);
		live_gpus_of(p, pt, lp, &t);
	}
	for (i = 0; i < c->n; i++)
		if (c->parts[i].gpus_max > 0 &&
		    !autosize_policy_find_partition(p, c->parts[i].name))
			live_say(&t, 0, c->parts[i].name, "has GPUs in Slurm "
				 "but is not in the policy: jobs there are "
				 "not sized (autosize inventory writes it)");
	if (c->truncated) {
		printf("  warning: more than %d Slurm partitions: the rest "
		       "were not compared\n", LIVE_MAX_PARTS);
		t.warnings++;
	}
	if (limits)
		live_limits_check(p, &t);
	printf("autosize: live check: %d error%s, %d warning%s\n", t.errors,
	       t.errors == 1 ? "" : "s", t.warnings,
	       t.warnings == 1 ? "" : "s");
	return t.errors ? CLI_EXIT_NOFIT : CLI_EXIT_OK;
}
