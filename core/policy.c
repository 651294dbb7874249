/*
 * autosize: site policy (etc/autosize.yaml): defaults and partitions.
 * A loaded policy is never changed: a daemon reloads by building a new one
 * and swapping the pointer.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "autosize/calibration.h"
#include "autosize/parse.h"
#include "autosize/policy.h"
#include "perfdata.h"
#include "names.h"
#include "readfile.h"
#include "policy_read.h"

#define POL_EXCERPT 48
/* A plan a person would accept: a job with no deadline finishes within
 * a month; one predicted past half a year is no plan (a cluster is
 * rented, hardware and code change); GPUs that add less than 60% of
 * the best size's speed per GPU are not added for a deadline. */
#define POL_HORIZON_S (30 * 86400.0)
#define POL_MAX_TRAIN_S (180 * 86400.0)
#define POL_MIN_SCALING 0.60
/* Interruptions of a long run: Llama 3 405B pre-training saw 466 job
 * interruptions (419 unexpected, 47 planned) in a 54-day snapshot on
 * 16,384 H100 and kept over 90% effective training time ("The Llama 3
 * Herd of Models", arXiv:2407.21783, section 3.3.4): one per 16,384 x
 * 54 x 24 / 466 = 45,560 GPU-hours, each costing about 10% of 54 days
 * / 466 = 16.7 minutes of the run (restart, reload, lost steps). */
#define POL_GPU_MTBF_H (16384.0 * 54 * 24 / 466)
#define POL_RESTART_MIN (0.10 * 54 * 24 * 60 / 466)
#define POL_TEXT_MAX 128
/* Bandwidths above this are typos (1 PB/s). */
#define POL_MAX_GBS 1e6
#define POL_MAX_PRICE 1e6
/* When a partition says pcie for a GPU that has a faster link:
 * PCIe Gen4 x16, both directions together, GB/s. */
#define POL_PCIE_GBS 64.0

struct autosize_policy {
	autosize_defaults defaults;
	autosize_catalog *catalog;
	int n_parts;
	autosize_partition parts[AUTOSIZE_MAX_PARTITIONS];
	/* What is accepted but worth a look (an ambiguous GPU alias). */
	int n_warnings;
	char warnings[AUTOSIZE_MAX_PARTITIONS][AUTOSIZE_POLICY_WARNING_LEN];
	autosize_calibration *calibration; /* `calibration:`, or NULL */
	char calibration_path[PATH_MAX];
	perfdata_table *perf;              /* `perf:`, or NULL */
	/* The files `catalog:` and `perf:` name ("" none): a new version
	 * of either is a new version of the policy. */
	char catalog_path[PATH_MAX];
	char perf_path[PATH_MAX];
	/* `exempt:` users and accounts */
	int n_exempt_users, n_exempt_accounts;
	char exempt_users[AUTOSIZE_EXEMPT_MAX][AUTOSIZE_EXEMPT_NAME_MAX];
	char exempt_accounts[AUTOSIZE_EXEMPT_MAX][AUTOSIZE_EXEMPT_NAME_MAX];
	/* `rules:` (policy_rules.c), in order; one allocation */
	int n_rules;
	autosize_rule *rules;
};

static const char *const pol_top_keys[] = {
	"catalog", "defaults", "partitions", "calibration", "checkpoint",
	"perf", "exempt", "rules", NULL
};

static const char *const pol_exempt_keys[] = { "users", "accounts", NULL };

static const char *const pol_default_keys[] = {
	"mode", "memory_reserve", "time_reserve", "objective", "deadline",
	"horizon", "max_train_time", "min_scaling_efficiency",
	"partition", "explicit_size", "on_unfit", "on_error", "gpu_check",
	"framework", "other_partitions", "stack", "gpu_mtbf_hours",
	"restart_minutes", "slurm_limits", "chain", NULL
};

static const char *const pol_part_keys[] = {
	"name", "gpu", "gpus_per_node", "nodes", "max_nodes_per_job",
	"max_time", "intra_node_link", "intra_node_gbs", "nvlink_domain_gpus",
	"network", "network_gbps_per_node", "price_per_gpu_hour", "currency",
	"pricing", "storage_write_gbs", "storage_tb", "mode", "nvlink_sharp",
	"ib_sharp", "gres_type", "cpus_per_gpu", "mem_per_gpu", "preemptible",
	"preempted_every", NULL
};

static void pol_defaults_init(autosize_defaults *d)
{
	memset(d, 0, sizeof(*d));
	d->mode = AUTOSIZE_MODE_REWRITE;
	d->memory_reserve = 0.20;
	d->time_reserve = 0.15;
	d->objective = AUTOSIZE_OBJECTIVE_COST;
	d->deadline_s = 0;
	d->horizon_s = POL_HORIZON_S;
	d->max_train_s = POL_MAX_TRAIN_S;
	d->min_scaling = POL_MIN_SCALING;
	d->gpu_mtbf_hours = POL_GPU_MTBF_H;
	d->restart_minutes = POL_RESTART_MIN;
	d->framework = AUTOSIZE_FRAMEWORK_BUILTIN;
	d->slurm_limits = 1;
	d->chain = 1;
	autosize_checkpoint_policy_init(&d->checkpoint);
}

/* `network`: ib, roce or ethernet; Slurm's and vendors' "infiniband"
 * (any case) is ib. */
static autosize_err pol_network(const autosize_ytree *t,
				const autosize_ynode *m, int *net,
				autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(m, "network");

	if (n && n->kind == AUTOSIZE_YNODE_SCALAR &&
	    strcasecmp(n->value, "infiniband") == 0) {
		*net = AUTOSIZE_NET_IB;
		return AUTOSIZE_OK;
	}
	return autosize_ytree_choice(t, m, "network", AUTOSIZE_Y_REQUIRED,
				     names_net, net, NULL, e);
}

/* The deadline and horizon a site sets are within its maximum training
 * time (a plan for them would be refused). */
static autosize_err pol_horizon_check(const autosize_ytree *t,
				      const autosize_ynode *m,
				      const autosize_defaults *d,
				      autosize_error *e)
{
	static const char *const keys[] = { "deadline", "horizon" };
	double v[2] = { d->deadline_s, d->horizon_s };
	int i;

	for (i = 0; i < 2; i++)
		if (d->max_train_s > 0 && v[i] > d->max_train_s &&
		    autosize_ynode_get(m, keys[i]))
			return autosize_ytree_fail(
				t, autosize_ynode_get(m, keys[i])->line, e,
				AUTOSIZE_EINVAL, "key '%s': %.3g days is longer "
				"than max_train_time, %.3g days (raise "
				"max_train_time or shorten %s)", keys[i],
				v[i] / 86400, d->max_train_s / 86400, keys[i]);
	return AUTOSIZE_OK;
}

static autosize_err pol_defaults(const autosize_ytree *t,
				 const autosize_ynode *root,
				 autosize_defaults *d, autosize_error *e)
{
	const autosize_ynode *m;
	int mode = d->mode, objective = d->objective;
	int expl = d->explicit_size, unfit = d->on_unfit;
	int on_error = d->on_error, gpu_check = d->gpu_check;
	int framework = d->framework - AUTOSIZE_FRAMEWORK_MEGATRON;
	int others = d->other_partitions;
	autosize_err rc;

	rc = autosize_ytree_map(t, root, "defaults", AUTOSIZE_Y_OPTIONAL, &m,
				e);
	if (rc || !m)
		return rc;
	rc = autosize_ytree_check_keys(t, m, "defaults", pol_default_keys,
				       e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "mode", AUTOSIZE_Y_OPTIONAL,
					   names_mode, &mode, NULL, e);
	if (!rc)
		rc = policy_fraction(t, m, "memory_reserve", 0.9,
				     &d->memory_reserve, e);
	if (!rc)
		rc = policy_fraction(t, m, "time_reserve", 10,
				     &d->time_reserve, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "objective",
					   AUTOSIZE_Y_OPTIONAL,
					   names_objective,
					   &objective, NULL, e);
	if (!rc)
		rc = policy_duration(t, m, "deadline", 0, &d->deadline_s, e);
	if (!rc)
		rc = policy_duration(t, m, "horizon", 1, &d->horizon_s, e);
	if (!rc)
		rc = policy_duration(t, m, "max_train_time", 1,
				     &d->max_train_s, e);
	if (!rc)
		rc = pol_horizon_check(t, m, d, e);
	if (!rc)
		rc = policy_fraction(t, m, "min_scaling_efficiency", 1,
				     &d->min_scaling, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "gpu_mtbf_hours", 0, 0, 1e9,
					   &d->gpu_mtbf_hours, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "restart_minutes", 0, 0,
					   100000, &d->restart_minutes, NULL,
					   e);
	if (!rc)
		rc = autosize_ytree_str(t, m, "partition", AUTOSIZE_Y_OPTIONAL,
					d->partition, sizeof(d->partition),
					NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "explicit_size",
					   AUTOSIZE_Y_OPTIONAL,
					   names_explicit,
					   &expl, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "on_unfit",
					   AUTOSIZE_Y_OPTIONAL,
					   names_unfit,
					   &unfit, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "on_error",
					   AUTOSIZE_Y_OPTIONAL,
					   names_on_error,
					   &on_error, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "gpu_check",
					   AUTOSIZE_Y_OPTIONAL,
					   names_gpu_check,
					   &gpu_check, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "framework",
					   AUTOSIZE_Y_OPTIONAL,
					   autosize_framework_names,
					   &framework, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "other_partitions",
					   AUTOSIZE_Y_OPTIONAL,
					   names_other,
					   &others, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "slurm_limits",
					   AUTOSIZE_Y_OPTIONAL,
					   names_slurm_limits,
					   &d->slurm_limits,
					   NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "chain", AUTOSIZE_Y_OPTIONAL,
					   names_chain,
					   &d->chain, NULL, e);
	d->other_partitions = (autosize_other_partitions)others;
	d->mode = (autosize_mode)mode;
	d->objective = (autosize_objective)objective;
	d->explicit_size = (autosize_explicit)expl;
	d->on_unfit = (autosize_unfit)unfit;
	d->on_error = (autosize_on_error)on_error;
	d->gpu_check = (autosize_gpu_check)gpu_check;
	d->framework = (autosize_framework)(framework +
					    AUTOSIZE_FRAMEWORK_MEGATRON);
	if (!rc)
		rc = autosize_ytree_str(t, m, "stack", AUTOSIZE_Y_OPTIONAL,
					d->stack, sizeof(d->stack), NULL, e);
	if (!rc && d->stack[0] &&
	    !perfdata_stack_find(perfdata_default(), d->stack))
		rc = autosize_ytree_fail(t, m->line, e, AUTOSIZE_EINVAL,
					 "defaults: unknown stack '%s' (see "
					 "etc/perf.yaml stacks:)", d->stack);
	return rc;
}

/* "a, b, c" of the catalog's GPU names, as many as fit. */
static const char *pol_gpu_list(const autosize_catalog *c, char *buf,
				size_t size)
{
	size_t used = 0;
	int i, n = autosize_catalog_count(c);

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *name = autosize_catalog_at(c, i)->name;
		size_t need = strlen(name) + 2;

		if (used + need + 5 >= size) {
			snprintf(buf + used, size - used, "%s...",
				 i ? ", " : "");
			break;
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? ", " : "", name);
	}
	return buf;
}

static autosize_err pol_check_name(const autosize_ytree *t,
				   const autosize_ynode *m, const char *name,
				   autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(m, "name");
	size_t len = strlen(name);
	char ex[POL_EXCERPT];

	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789_.-") != len)
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
			"key 'name': '%s' is not a partition name (expected letters, digits, '_', '.' and '-')",
			autosize_ytree_excerpt(name, len, ex, sizeof(ex)));
	return AUTOSIZE_OK;
}

/* `gpu`: a catalog name or alias; an ambiguous alias is taken with a
 * warning kept in the policy (check-config shows it). */
static autosize_err pol_gpu(const autosize_ytree *t, autosize_policy *p,
			    const autosize_ynode *m, autosize_partition *part,
			    autosize_error *e)
{
	char name[POL_TEXT_MAX], ex[POL_EXCERPT], list[200];
	char warn[160];
	const autosize_catalog *c = p->catalog;
	autosize_err rc;

	rc = autosize_ytree_str(t, m, "gpu", AUTOSIZE_Y_REQUIRED, name,
				sizeof(name), NULL, e);
	if (rc)
		return rc;
	part->gpu = autosize_catalog_resolve(c, name, warn, sizeof(warn));
	if (warn[0] && p->n_warnings < AUTOSIZE_MAX_PARTITIONS)
		snprintf(p->warnings[p->n_warnings++],
			 AUTOSIZE_POLICY_WARNING_LEN,
			 "%.100s:%d: key 'gpu': %s (name the part to be sure)",
			 autosize_ytree_what(t),
			 autosize_ynode_get(m, "gpu")->line, warn);
	if (!part->gpu)
		return autosize_ytree_fail(t, autosize_ynode_get(m, "gpu")->line,
			e, AUTOSIZE_ENOTFOUND,
			"key 'gpu': unknown GPU '%s' (expected a catalog name or alias: %s)",
			autosize_ytree_excerpt(name, strlen(name), ex,
					       sizeof(ex)),
			pol_gpu_list(c, list, sizeof(list)));
	return AUTOSIZE_OK;
}

/* The catalog's NVLink domain in nodes of gpus_per_node: its nodes
 * (GB200 NVL72: 18 trays, also where a cap leaves fewer GPUs on each),
 * but never more GPUs than the domain holds (8-GPU nodes of GB200: 9,
 * not 18 nodes of 144 GPUs); 1 off NVLink. */
static int pol_domain_nodes(const autosize_gpu *g, int gpus_per_node,
			    int nvlink)
{
	int nodes;

	if (!nvlink || gpus_per_node < 1)
		return 1;
	nodes = g->nvlink_domain_gpus / g->gpus_per_node;
	if ((long)nodes * gpus_per_node > g->nvlink_domain_gpus)
		nodes = g->nvlink_domain_gpus / gpus_per_node;
	return nodes > 1 ? nodes : 1;
}

/* nvlink_domain_gpus: the GPUs of the partition that share the NVLink
 * switch fabric, a whole number of its nodes; default the catalog's
 * domain (pol_domain_nodes) on the GPU's own NVLink, else the node. A
 * site whose scheduler does not keep a job's nodes inside one rack (no
 * topology/block) sets it to gpus_per_node. */
static autosize_err pol_domain(const autosize_ytree *t,
			       const autosize_ynode *m,
			       autosize_partition *part, autosize_error *e)
{
	const autosize_gpu *g = part->gpu;
	int gpn = part->gpus_per_node, nvlink, dom, found;
	autosize_err rc;

	nvlink = part->intra_link == AUTOSIZE_LINK_NVLINK;
	part->domain_nodes = pol_domain_nodes(g, gpn, nvlink);
	dom = part->domain_nodes * gpn;
	rc = autosize_ytree_int(t, m, "nvlink_domain_gpus", AUTOSIZE_Y_OPTIONAL,
				1, AUTOSIZE_NVLINK_DOMAIN_MAX, &dom, &found, e);
	if (rc || !found)
		return rc;
	if (dom % gpn || (dom > gpn && !nvlink))
		return autosize_ytree_fail(t,
			autosize_ynode_get(m, "nvlink_domain_gpus")->line, e,
			AUTOSIZE_EINVAL,
			dom % gpn ? "key 'nvlink_domain_gpus': %d is not a whole "
				    "number of the partition's %d-GPU nodes "
				    "(expected a multiple of gpus_per_node)"
				  : "key 'nvlink_domain_gpus': %d GPUs span "
				    "nodes of %d, which needs NVLink (expected "
				    "gpus_per_node with intra_node_link: pcie)",
			dom, gpn);
	part->domain_nodes = dom / gpn;
	return AUTOSIZE_OK;
}

/* intra_node_link / intra_node_gbs, defaulting to the GPU's own link. */
static autosize_err pol_intra(const autosize_ytree *t,
			      const autosize_ynode *m,
			      autosize_partition *part, autosize_error *e)
{
	const autosize_gpu *g = part->gpu;
	int link = g->link, found;
	autosize_err rc;

	rc = autosize_ytree_choice(t, m, "intra_node_link",
				   AUTOSIZE_Y_OPTIONAL,
				   names_link, &link,
				   &found, e);
	if (rc)
		return rc;
	if (found && link != (int)g->link && link != AUTOSIZE_LINK_PCIE)
		return autosize_ytree_fail(t,
			autosize_ynode_get(m, "intra_node_link")->line, e,
			AUTOSIZE_EINVAL,
			"key 'intra_node_link': %s has %s, not %s (expected %s or pcie)",
			g->name, autosize_link_name(g->link),
			autosize_link_name((autosize_link)link),
			autosize_link_name(g->link));
	part->intra_link = (autosize_link)link;
	part->intra_gbs = g->link_gbs;
	if (part->intra_link == AUTOSIZE_LINK_PCIE &&
	    g->link != AUTOSIZE_LINK_PCIE)
		part->intra_gbs = POL_PCIE_GBS;
	rc = autosize_ytree_double(t, m, "intra_node_gbs", AUTOSIZE_Y_GT_MIN,
				   0, POL_MAX_GBS, &part->intra_gbs, NULL, e);
	return rc ? rc : pol_domain(t, m, part, e);
}

static autosize_err pol_currency(const autosize_ytree *t,
				 const autosize_ynode *m,
				 autosize_partition *part, autosize_error *e)
{
	autosize_err rc;
	int found;

	snprintf(part->currency, sizeof(part->currency), "USD");
	rc = autosize_ytree_str(t, m, "currency", AUTOSIZE_Y_OPTIONAL,
				part->currency, sizeof(part->currency), &found,
				e);
	if (rc || !found)
		return rc;
	if (strspn(part->currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
	    strlen(part->currency))
		return autosize_ytree_fail(t,
			autosize_ynode_get(m, "currency")->line, e,
			AUTOSIZE_EINVAL,
			"key 'currency': '%s' is not a currency code (expected 1 to %d capital letters, e.g. USD)",
			part->currency, AUTOSIZE_CURRENCY_MAX - 1);
	return AUTOSIZE_OK;
}

/* A warning kept with the policy (check-config shows it). */
static void pol_warn(autosize_policy *p, const char *text)
{
	if (text[0] && p->n_warnings < AUTOSIZE_MAX_PARTITIONS)
		snprintf(p->warnings[p->n_warnings++],
			 AUTOSIZE_POLICY_WARNING_LEN, "%s", text);
}

/* The price schedule (price.c) and the storage checkpoints go to. */
static autosize_err pol_storage(const autosize_ytree *t, autosize_policy *p,
				const autosize_ynode *m,
				autosize_partition *part, autosize_error *e)
{
	char warn[AUTOSIZE_POLICY_WARNING_LEN];
	autosize_err rc;

	rc = price_policy_parse(t, m, part, warn, sizeof(warn), e);
	if (rc)
		return rc;
	pol_warn(p, warn);
	rc = autosize_ytree_double(t, m, "storage_write_gbs",
				   AUTOSIZE_Y_GT_MIN, 0, POL_MAX_GBS,
				   &part->storage_write_gbs, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "storage_tb",
					   AUTOSIZE_Y_GT_MIN, 0, 1e9,
					   &part->storage_tb, NULL, e);
	return rc;
}

/* Default mean run time between preemptions of a preemptible partition's
 * jobs: a guess (hours on a busy cluster); sites set theirs from sacct
 * --state=PREEMPTED. */
#define POL_PREEMPT_EVERY_S (4 * 3600.0)

/* What Slurm gives the partition's jobs: the GRES type of its GPUs,
 * CPUs and memory per GPU, preemption. */
static autosize_err pol_slurm_side(const autosize_ytree *t,
				   const autosize_ynode *m,
				   autosize_partition *part,
				   autosize_error *e)
{
	autosize_err rc;
	int found;

	rc = autosize_ytree_str(t, m, "gres_type", AUTOSIZE_Y_OPTIONAL,
				part->gres_type, sizeof(part->gres_type),
				&found, e);
	if (!rc && found &&
	    strspn(part->gres_type, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "abcdefghijklmnopqrstuvwxyz0123456789_.-") !=
	    strlen(part->gres_type))
		return autosize_ytree_fail(t,
			autosize_ynode_get(m, "gres_type")->line, e,
			AUTOSIZE_EINVAL,
			"key 'gres_type': not a GRES type (expected the Type= of gres.conf, e.g. h100)");
	if (!rc)
		rc = autosize_ytree_int(t, m, "cpus_per_gpu", 0, 1, 4096,
					&part->cpus_per_gpu, NULL, e);
	if (!rc)
		rc = policy_mem_bytes(t, m, "mem_per_gpu",
				      &part->mem_per_gpu_bytes, e);
	if (!rc)
		rc = autosize_ytree_bool(t, m, "preemptible", 0,
					 &part->preemptible, NULL, e);
	part->preempt_every_s = POL_PREEMPT_EVERY_S;
	if (!rc)
		rc = policy_duration(t, m, "preempted_every", 0,
				     &part->preempt_every_s, e);
	if (!rc && !part->preemptible &&
	    autosize_ynode_get(m, "preempted_every"))
		return autosize_ytree_fail(t,
			autosize_ynode_get(m, "preempted_every")->line, e,
			AUTOSIZE_EINVAL,
			"key 'preempted_every': the partition is not preemptible (add preemptible: true)");
	return rc;
}

static autosize_err pol_partition(const autosize_ytree *t,
				  autosize_policy *p,
				  const autosize_ynode *m,
				  autosize_partition *part,
				  autosize_error *e)
{
	const int req = AUTOSIZE_Y_REQUIRED;
	int net = AUTOSIZE_NET_IB, found;
	autosize_err rc;

	memset(part, 0, sizeof(*part));
	rc = autosize_ytree_check_keys(t, m, "partition", pol_part_keys, e);
	if (!rc)
		rc = autosize_ytree_str(t, m, "name", req, part->name,
					sizeof(part->name), NULL, e);
	if (!rc)
		rc = pol_check_name(t, m, part->name, e);
	if (!rc)
		rc = pol_gpu(t, p, m, part, e);
	if (!rc)
		rc = autosize_ytree_int(t, m, "gpus_per_node", req, 1, 64,
					&part->gpus_per_node, NULL, e);
	if (!rc)
		rc = autosize_ytree_int(t, m, "nodes", req, 1, 100000,
					&part->nodes, NULL, e);
	if (rc)
		return rc;
	part->max_nodes_per_job = part->nodes;
	rc = autosize_ytree_int(t, m, "max_nodes_per_job", 0, 1, 100000,
				&part->max_nodes_per_job, &found, e);
	if (rc)
		return rc;
	if (part->max_nodes_per_job > part->nodes)
		return autosize_ytree_fail(t,
			autosize_ynode_get(m, "max_nodes_per_job")->line, e,
			AUTOSIZE_EINVAL,
			"key 'max_nodes_per_job': %d is more than the partition's %d nodes (expected 1 to %d)",
			part->max_nodes_per_job, part->nodes, part->nodes);
	rc = policy_duration(t, m, "max_time", 1, &part->max_time_s, e);
	if (!rc)
		rc = pol_intra(t, m, part, e);
	if (!rc)
		rc = pol_network(t, m, &net, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "network_gbps_per_node",
					   req | AUTOSIZE_Y_GT_MIN, 0,
					   POL_MAX_GBS,
					   &part->net_gbps_per_node, NULL, e);
	if (!rc)
		rc = autosize_ytree_bool(t, m, "nvlink_sharp", 0,
					 &part->nvlink_sharp, NULL, e);
	if (!rc)
		rc = autosize_ytree_bool(t, m, "ib_sharp", 0, &part->ib_sharp,
					 NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "price_per_gpu_hour", 0, 0,
					   POL_MAX_PRICE,
					   &part->price_per_gpu_hour, NULL, e);
	if (!rc)
		rc = pol_currency(t, m, part, e);
	part->net = (autosize_net)net;
	if (!rc)
		rc = pol_storage(t, p, m, part, e);
	if (!rc) {
		int mode = p->defaults.mode;

		rc = autosize_ytree_choice(t, m, "mode", AUTOSIZE_Y_OPTIONAL,
					   names_mode,
					   &mode, &part->mode_own,
					   e);
		part->mode = (autosize_mode)mode;
	}
	if (!rc)
		rc = pol_slurm_side(t, m, part, e);
	return rc;
}

/* `exempt: {users: [...], accounts: [...]}` */
static autosize_err pol_exempt(const autosize_ytree *t, autosize_policy *p,
			       autosize_error *e)
{
	const autosize_ynode *m;
	autosize_err rc;

	rc = autosize_ytree_map(t, autosize_ytree_root(t), "exempt",
				AUTOSIZE_Y_OPTIONAL, &m, e);
	if (rc || !m)
		return rc;
	rc = autosize_ytree_check_keys(t, m, "exempt", pol_exempt_keys, e);
	if (!rc)
		rc = policy_names(t, m, "users", "exempt.users",
				  AUTOSIZE_EXEMPT_MAX, p->exempt_users,
				  &p->n_exempt_users, NULL, e);
	if (!rc)
		rc = policy_names(t, m, "accounts", "exempt.accounts",
				  AUTOSIZE_EXEMPT_MAX, p->exempt_accounts,
				  &p->n_exempt_accounts, NULL, e);
	return rc;
}

/* 1 when the defaults' mode and every rule's are off. */
static int pol_inherited_off(const autosize_policy *p)
{
	int i;

	if (p->defaults.mode != AUTOSIZE_MODE_OFF)
		return 0;
	for (i = 0; i < p->n_rules; i++)
		if (p->rules[i].mode_set &&
		    p->rules[i].mode != AUTOSIZE_MODE_OFF)
			return 0;
	return 1;
}

int autosize_policy_is_off(const autosize_policy *p)
{
	int i;

	if (!p)
		return 1;
	if (p->n_parts == 0)
		return pol_inherited_off(p);
	for (i = 0; i < p->n_parts; i++)
		if (p->parts[i].mode_own
		    ? p->parts[i].mode != AUTOSIZE_MODE_OFF
		    : !pol_inherited_off(p))
			return 0;
	return 1;
}

int autosize_policy_rule_count(const autosize_policy *p)
{
	return p ? p->n_rules : 0;
}

const autosize_rule *autosize_policy_rule_at(const autosize_policy *p, int i)
{
	return p && i >= 0 && i < p->n_rules ? &p->rules[i] : NULL;
}

const autosize_rule *autosize_policy_rule_for(const autosize_policy *p,
					      const char *user,
					      const char *account,
					      const char *qos)
{
	return p ? policy_rules_match(p->rules, p->n_rules, user, account,
				      qos)
		 : NULL;
}

autosize_mode autosize_policy_mode_for(const autosize_policy *p,
				       const autosize_rule *rule,
				       const autosize_partition *part)
{
	if (part && part->mode_own)
		return part->mode;
	if (rule && rule->mode_set)
		return rule->mode;
	return autosize_policy_defaults(p)->mode;
}

const char *autosize_policy_partition_for(const autosize_policy *p,
					  const autosize_rule *rule)
{
	return rule && rule->partition[0] ? rule->partition
					  : autosize_policy_defaults(p)->partition;
}

autosize_framework autosize_policy_framework_for(const autosize_policy *p,
						 const autosize_rule *rule)
{
	return rule && rule->framework != AUTOSIZE_FRAMEWORK_DEFAULT
	       ? rule->framework : autosize_policy_defaults(p)->framework;
}

const char *autosize_policy_stack_for(const autosize_policy *p,
				      const autosize_rule *rule)
{
	return rule && rule->stack[0] ? rule->stack
				      : autosize_policy_defaults(p)->stack;
}

const char *autosize_policy_exempt_user_at(const autosize_policy *p, int i)
{
	return p && i >= 0 && i < p->n_exempt_users ? p->exempt_users[i]
						     : NULL;
}

const char *autosize_policy_exempt_account_at(const autosize_policy *p,
					      int i)
{
	return p && i >= 0 && i < p->n_exempt_accounts
	       ? p->exempt_accounts[i] : NULL;
}

int autosize_policy_exempt(const autosize_policy *p, const char *user,
			   const char *account)
{
	int i;

	for (i = 0; p && user && user[0] && i < p->n_exempt_users; i++)
		if (strcmp(user, p->exempt_users[i]) == 0)
			return 1;
	for (i = 0; p && account && account[0] && i < p->n_exempt_accounts;
	     i++)
		if (strcmp(account, p->exempt_accounts[i]) == 0)
			return 1;
	return 0;
}

/*
 * Two entries of one name describe one Slurm partition of several GPU
 * types: each needs its own gres_type (the type Slurm's nodes name, so a
 * job planned for one type is written as gres/gpu:TYPE:N), and one mode.
 */
static autosize_err pol_same_name(const autosize_ytree *t,
				  const autosize_partition *first,
				  int first_line,
				  const autosize_partition *part, int line,
				  autosize_error *e)
{
	if (strcmp(first->name, part->name) != 0)
		return AUTOSIZE_OK;
	if (!first->gres_type[0] || !part->gres_type[0] ||
	    strcasecmp(first->gres_type, part->gres_type) == 0)
		return autosize_ytree_fail(t, line, e, AUTOSIZE_EINVAL,
			"key 'name': partition '%s' is listed twice (first at line %d); a partition of several GPU types is one entry per type, each with its own gres_type",
			part->name, first_line);
	if (first->mode != part->mode)
		return autosize_ytree_fail(t, line, e, AUTOSIZE_EINVAL,
			"key 'mode': partition '%s' has another mode at line %d (one partition, one mode)",
			part->name, first_line);
	return AUTOSIZE_OK;
}

static autosize_err pol_partitions(const autosize_ytree *t,
				   autosize_policy *p, autosize_error *e)
{
	const autosize_ynode *root = autosize_ytree_root(t), *seq, *it;
	int lines[AUTOSIZE_MAX_PARTITIONS];
	autosize_err rc;
	int i;

	rc = autosize_ytree_seq(t, root, "partitions", AUTOSIZE_Y_REQUIRED,
				AUTOSIZE_MAX_PARTITIONS, &seq, e);
	if (rc)
		return rc;
	if (!seq->child)
		return autosize_ytree_fail(t, seq->line, e, AUTOSIZE_EINVAL,
			"key 'partitions': no partitions (expected a list of at least one partition)");
	for (it = seq->child; it; it = it->next) {
		autosize_partition *part = &p->parts[p->n_parts];

		rc = pol_partition(t, p, it, part, e);
		if (rc)
			return rc;
		lines[p->n_parts] = autosize_ynode_get(it, "name")->line;
		for (i = 0; i < p->n_parts; i++)
			if ((rc = pol_same_name(t, &p->parts[i], lines[i],
						part, lines[p->n_parts], e)))
				return rc;
		p->n_parts++;
	}
	return AUTOSIZE_OK;
}

/* rel, a path the policy names, relative to the policy's folder dir;
 * -1 when it does not fit in len bytes. */
static int pol_rel_path(const char *dir, const char *rel, char *out,
			size_t len)
{
	int n = rel[0] == '/' ? snprintf(out, len, "%s", rel)
			      : snprintf(out, len, "%s/%s",
					 dir && *dir ? dir : ".", rel);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* `catalog:` (relative to dir) or the compiled-in catalog. */
static autosize_err pol_catalog(const autosize_ytree *t, const char *dir,
				autosize_policy *p, autosize_error *e)
{
	const autosize_ynode *root = autosize_ytree_root(t);
	char rel[PATH_MAX];
	autosize_error sub;
	int found;
	autosize_err rc;

	rc = autosize_ytree_str(t, root, "catalog", AUTOSIZE_Y_OPTIONAL, rel,
				sizeof(rel), &found, e);
	if (rc)
		return rc;
	autosize_error_clear(&sub);
	if (!found) {
		p->catalog = autosize_catalog_default(&sub);
		if (!p->catalog)
			return autosize_fail(e, sub.code, "%s", sub.msg);
		return AUTOSIZE_OK;
	}
	if (pol_rel_path(dir, rel, p->catalog_path,
			 sizeof(p->catalog_path)) != 0)
		return autosize_ytree_fail(t,
			autosize_ynode_get(root, "catalog")->line, e,
			AUTOSIZE_EINVAL, "key 'catalog': path too long");
	p->catalog = autosize_catalog_load(p->catalog_path, &sub);
	if (!p->catalog)
		return autosize_ytree_fail(t,
			autosize_ynode_get(root, "catalog")->line, e,
			sub.code, "key 'catalog': %s", sub.msg);
	return AUTOSIZE_OK;
}

/* `calibration:` (relative to dir): the corrections `autosize
 * calibrate` wrote. Not there yet (before cron's first run): a warning,
 * plans stay uncorrected; there but unreadable: an error (slurmctld then
 * keeps its last good policy). */
static autosize_err pol_calibration(const autosize_ytree *t,
				    const char *dir, autosize_policy *p,
				    autosize_error *e)
{
	const autosize_ynode *root = autosize_ytree_root(t), *n;
	char rel[PATH_MAX];
	autosize_error sub;
	int found;
	autosize_err rc;

	rc = autosize_ytree_str(t, root, "calibration", AUTOSIZE_Y_OPTIONAL,
				rel, sizeof(rel), &found, e);
	if (rc || !found)
		return rc;
	n = autosize_ynode_get(root, "calibration");
	if (pol_rel_path(dir, rel, p->calibration_path,
			 sizeof(p->calibration_path)) != 0)
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
					   "key 'calibration': path too long");
	if (access(p->calibration_path, F_OK) != 0) {
		if (p->n_warnings < AUTOSIZE_MAX_PARTITIONS)
			snprintf(p->warnings[p->n_warnings++],
				 AUTOSIZE_POLICY_WARNING_LEN, "%s:%d: key "
				 "'calibration': %.200s does not exist yet "
				 "(autosize calibrate writes it): plans are "
				 "not corrected", autosize_ytree_what(t),
				 n->line, p->calibration_path);
		return AUTOSIZE_OK;
	}
	autosize_error_clear(&sub);
	p->calibration = autosize_calibration_load(p->calibration_path, &sub);
	if (!p->calibration)
		return autosize_ytree_fail(t, n->line, e, sub.code,
					   "key 'calibration': %s", sub.msg);
	return AUTOSIZE_OK;
}

/* A site's perf.yaml cap (the shipped one is ~12 KiB). */
#define POL_PERF_MAX_BYTES (1024 * 1024)

/* `perf:` (relative to dir): the site's performance file, read as
 * strictly as the compiled-in etc/perf.yaml and used instead of it, so a
 * new GPU is an entry there, without a rebuild. */
static autosize_err pol_perf(const autosize_ytree *t, const char *dir,
			     autosize_policy *p, autosize_error *e)
{
	const autosize_ynode *root = autosize_ytree_root(t), *n;
	char rel[PATH_MAX], *text = NULL;
	size_t len = 0;
	autosize_error sub;
	int found;
	autosize_err rc;

	rc = autosize_ytree_str(t, root, "perf", AUTOSIZE_Y_OPTIONAL, rel,
				sizeof(rel), &found, e);
	if (rc || !found)
		return rc;
	n = autosize_ynode_get(root, "perf");
	if (pol_rel_path(dir, rel, p->perf_path, sizeof(p->perf_path)) != 0)
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
					   "key 'perf': path too long");
	autosize_error_clear(&sub);
	p->perf = calloc(1, sizeof(*p->perf));
	if (!p->perf)
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_ENOMEM,
					   "key 'perf': out of memory");
	rc = autosize_read_regular_file(p->perf_path, POL_PERF_MAX_BYTES,
					"YAML file", &text, &len, &sub);
	if (!rc)
		rc = perfdata_parse(text, len, p->perf_path, p->perf, &sub);
	free(text);
	if (rc)
		return autosize_ytree_fail(t, n->line, e, rc,
					   "key 'perf' (a copy of "
					   "etc/perf.yaml with the site's "
					   "entries): %s", sub.msg);
	return AUTOSIZE_OK;
}

const perfdata_table *perfdata_for(const autosize_policy *p)
{
	return p && p->perf ? p->perf : perfdata_default();
}

static autosize_err pol_walk(const autosize_ytree *t, const char *dir,
			     autosize_policy *p, autosize_error *e)
{
	const autosize_ynode *root = autosize_ytree_root(t), *dp;
	char list[200];
	size_t used = 0;
	autosize_err rc;
	int i;

	rc = autosize_ytree_check_keys(t, root, "the policy", pol_top_keys,
				       e);
	if (!rc)
		rc = pol_catalog(t, dir, p, e);
	if (!rc)
		rc = pol_defaults(t, root, &p->defaults, e);
	if (!rc)
		rc = checkpoint_policy_parse(t, root, &p->defaults.checkpoint,
					     e);
	if (!rc)
		rc = pol_partitions(t, p, e);
	if (!rc)
		rc = pol_exempt(t, p, e);
	if (!rc)
		rc = pol_calibration(t, dir, p, e);
	if (!rc)
		rc = pol_perf(t, dir, p, e);
	if (!rc) {
		policy_rules_in in = {
			p->parts, p->n_parts, perfdata_for(p), p->warnings,
			&p->n_warnings, AUTOSIZE_MAX_PARTITIONS
		};

		rc = policy_rules_parse(t, &in, &p->rules, &p->n_rules, e);
	}
	if (rc || !p->defaults.partition[0])
		return rc;
	if (autosize_policy_find_partition(p, p->defaults.partition))
		return AUTOSIZE_OK;
	list[0] = '\0';
	for (i = 0; i < p->n_parts && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used,
					 "%s%s", i ? ", " : "",
					 p->parts[i].name);
	dp = autosize_ynode_get(autosize_ynode_get(root, "defaults"),
				"partition");
	return autosize_ytree_fail(t, dp ? dp->line : 1, e,
		AUTOSIZE_ENOTFOUND,
		"key 'partition': no partition '%s' under partitions (expected one of %s)",
		p->defaults.partition, list);
}

static autosize_policy *pol_from_tree(autosize_ytree *t, const char *dir,
				      autosize_error *e)
{
	autosize_policy *p;

	if (!t)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		autosize_fail(e, AUTOSIZE_ENOMEM, "%s: out of memory",
			      autosize_ytree_what(t));
		goto fail;
	}
	pol_defaults_init(&p->defaults);
	if (pol_walk(t, dir, p, e))
		goto fail;
	autosize_ytree_destroy(t);
	return p;
fail:
	autosize_ytree_destroy(t);
	autosize_policy_destroy(p);
	return NULL;
}

autosize_policy *autosize_policy_parse(const char *text, size_t len,
				       const char *what, const char *dir,
				       autosize_error *e)
{
	return pol_from_tree(autosize_ytree_parse(text, len, what, e), dir,
			     e);
}

autosize_policy *autosize_policy_load(const char *path, autosize_error *e)
{
	char dir[PATH_MAX];
	const char *slash;
	size_t n;

	if (!path) {
		autosize_fail(e, AUTOSIZE_EINVAL, "no policy file given");
		return NULL;
	}
	/* before quoting it whole in messages (they would lose the end) */
	if (strnlen(path, PATH_MAX) >= PATH_MAX) {
		autosize_fail(e, AUTOSIZE_EINVAL, "%.40s...: path longer than "
			      "%d bytes (expected a policy file path)", path,
			      PATH_MAX - 1);
		return NULL;
	}
	slash = strrchr(path, '/');
	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else {
		n = (size_t)(slash - path);
		if (n == 0)
			n = 1; /* "/x.yaml": the root folder */
		if (n >= sizeof(dir)) {
			autosize_fail(e, AUTOSIZE_EINVAL, "%s: path too long",
				      path);
			return NULL;
		}
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return pol_from_tree(autosize_ytree_load(path, e), dir, e);
}

autosize_policy *autosize_policy_default(autosize_error *e)
{
	autosize_policy *p = calloc(1, sizeof(*p));

	if (!p) {
		autosize_fail(e, AUTOSIZE_ENOMEM, "out of memory");
		return NULL;
	}
	pol_defaults_init(&p->defaults);
	p->catalog = autosize_catalog_default(e);
	if (!p->catalog) {
		free(p);
		return NULL;
	}
	return p;
}

void autosize_policy_destroy(autosize_policy *p)
{
	if (!p)
		return;
	autosize_catalog_destroy(p->catalog);
	autosize_calibration_destroy(p->calibration);
	free(p->perf);
	free(p->rules);
	free(p);
}

const autosize_defaults *autosize_policy_defaults(const autosize_policy *p)
{
	return p ? &p->defaults : NULL;
}

const autosize_catalog *autosize_policy_catalog(const autosize_policy *p)
{
	return p ? p->catalog : NULL;
}

int autosize_policy_warning_count(const autosize_policy *p)
{
	return p ? p->n_warnings : 0;
}

const char *autosize_policy_warning_at(const autosize_policy *p, int i)
{
	if (!p || i < 0 || i >= p->n_warnings)
		return NULL;
	return p->warnings[i];
}

int autosize_policy_partition_count(const autosize_policy *p)
{
	return p ? p->n_parts : 0;
}

const autosize_partition *autosize_policy_partition_at(const autosize_policy *p,
							int i)
{
	if (!p || i < 0 || i >= p->n_parts)
		return NULL;
	return &p->parts[i];
}

const autosize_partition *autosize_policy_find_partition(
	const autosize_policy *p, const char *name)
{
	int i;

	if (!p || !name)
		return NULL;
	for (i = 0; i < p->n_parts; i++)
		if (strcmp(p->parts[i].name, name) == 0)
			return &p->parts[i];
	return NULL;
}

int autosize_partition_has_type(const autosize_policy *p,
				const autosize_partition *part,
				const char *type)
{
	const autosize_gpu *g;
	size_t n;

	if (!part || !type || !type[0])
		return 0;
	if (part->gres_type[0])
		return strcasecmp(part->gres_type, type) == 0;
	/* the GPU by one of its catalog names, or its name's first part
	 * ("a100" for A100-SXM4-80GB, as sites name GRES types) */
	g = autosize_catalog_find(autosize_policy_catalog(p), type);
	n = strlen(type);
	return part->gpu && (g == part->gpu ||
			     (strncasecmp(part->gpu->name, type, n) == 0 &&
			      (part->gpu->name[n] == '-' ||
			       part->gpu->name[n] == '\0')));
}

void autosize_partition_reference(autosize_partition *part,
				  const autosize_gpu *gpu, int gpus_per_node)
{
	memset(part, 0, sizeof(*part));
	snprintf(part->currency, sizeof(part->currency), "USD");
	if (!gpu)
		return;
	snprintf(part->name, sizeof(part->name), "%s", gpu->name);
	part->gpu = gpu;
	part->gpus_per_node = gpus_per_node;
	/* No site limit: as large as the largest published runs (Llama 3
	 * 405B: 16,384 GPUs) and then some. */
	part->nodes = AUTOSIZE_REFERENCE_MAX_NODES;
	part->max_nodes_per_job = AUTOSIZE_REFERENCE_MAX_NODES;
	part->max_time_s = 0;
	part->intra_link = gpu->link;
	part->intra_gbs = gpu->link_gbs;
	part->domain_nodes = pol_domain_nodes(gpu, gpus_per_node,
					      gpu->link == AUTOSIZE_LINK_NVLINK);
	part->net = (autosize_net)gpu->net_kind;
	part->net_gbps_per_node = gpu->net_gbps_per_gpu * gpus_per_node;
	part->price_per_gpu_hour = 0;
}

const autosize_calibration *autosize_policy_calibration(
	const autosize_policy *p)
{
	return p ? p->calibration : NULL;
}

const char *autosize_policy_calibration_path(const autosize_policy *p)
{
	return p ? p->calibration_path : "";
}

const char *autosize_policy_file_at(const autosize_policy *p, int i)
{
	const char *files[3];
	int n = 0;

	if (!p)
		return NULL;
	if (p->catalog_path[0])
		files[n++] = p->catalog_path;
	if (p->perf_path[0])
		files[n++] = p->perf_path;
	if (p->calibration_path[0])
		files[n++] = p->calibration_path;
	return i >= 0 && i < n ? files[i] : NULL;
}

void autosize_policy_set_calibration(autosize_policy *p,
				     autosize_calibration *c)
{
	autosize_calibration_destroy(p->calibration);
	p->calibration = c;
}
