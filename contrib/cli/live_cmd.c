/*
 * autosize check-config --live and autosize inventory: the site policy
 * against the running cluster (live.c reads it from slurmctld).
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

/* "2-00:00:00", or "UNLIMITED" for 0. */
static const char *live_time(double s, char *buf, size_t len)
{
	if (s <= 0)
		return "UNLIMITED";
	return autosize_format_duration(s, buf, len);
}

/* Slurm's MaxNodes as scontrol prints it. */
static const char *live_max_nodes(const live_part *lp, char *buf, size_t len)
{
	if (lp->max_nodes <= 0)
		return "UNLIMITED";
	snprintf(buf, len, "%d", lp->max_nodes);
	return buf;
}

/* Nodes one job may have in Slurm: MaxNodes, at most the nodes there. */
static int live_job_nodes(const live_part *lp)
{
	return lp->max_nodes > 0 && lp->max_nodes < lp->nodes ? lp->max_nodes
							       : lp->nodes;
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
	if (pt->nodes != lp->nodes)
		live_say(t, 0, pt->name, "nodes %d in the policy, Slurm has %d",
			 pt->nodes, lp->nodes);
}

static void live_gpus_of(const autosize_policy *p,
			 const autosize_partition *pt, const live_part *lp,
			 live_tally *t)
{
	const autosize_gpu *g;
	char warn[160];

	if (lp->nodes_seen == 0 || lp->gpus_max == 0) {
		live_say(t, 1, pt->name, "its nodes have no GPUs in Slurm (no "
			 "gpu GRES): GPU jobs there never start");
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

int cli_live_compare(const autosize_policy *p, const live_cluster *c)
{
	live_tally t = { 0, 0 };
	char names[256];
	size_t used = 0;
	int i;

	names[0] = '\0';
	for (i = 0; i < c->n && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 "%s%s", i ? ", " : "",
					 c->parts[i].name);
	printf("autosize: against the running cluster (Slurm partitions: "
	       "%s)\n", c->n ? names : "none");
	for (i = 0; i < autosize_policy_partition_count(p); i++) {
		const autosize_partition *pt =
			autosize_policy_partition_at(p, i);
		const live_part *lp = live_find(c, pt->name);

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
	if (c->truncated)
		printf("  warning: more than %d Slurm partitions: the rest "
		       "were not compared\n", LIVE_MAX_PARTS);
	printf("autosize: live check: %d error%s, %d warning%s\n", t.errors,
	       t.errors == 1 ? "" : "s", t.warnings,
	       t.warnings == 1 ? "" : "s");
	return t.errors ? CLI_EXIT_NOFIT : CLI_EXIT_OK;
}

/* 1 when name can be a policy partition name. */
static int live_policy_name(const char *name)
{
	return name[0] && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
				 "klmnopqrstuvwxyz0123456789_.-") ==
			  strlen(name);
}

/* One partition of the starting policy; 1 when written active. */
static int live_inventory_part(const autosize_catalog *cat,
			       const live_part *lp, const char *gpu_flag)
{
	const autosize_gpu *g = NULL;
	const char *why = NULL, *from;
	char warn[160], t[32], m[16];

	warn[0] = '\0';
	from = lp->typed_nodes > 0 && !lp->gpu_mixed ? lp->gpu_type : NULL;
	if (from)
		g = autosize_catalog_resolve(cat, from, warn, sizeof(warn));
	if (!g && gpu_flag && !lp->gpu_mixed && lp->typed_nodes == 0) {
		from = gpu_flag;
		g = autosize_catalog_resolve(cat, gpu_flag, warn, sizeof(warn));
	}
	if (lp->gpu_mixed)
		why = "nodes with different GPU types: split it, or name one";
	else if (!g && lp->typed_nodes == 0)
		why = "Slurm's gpu GRES has no type: give --gpu TYPE, or set "
		      "gpu: to a catalog name (autosize gpus)";
	else if (!g)
		why = "the GRES type is not in the catalog: set gpu: to a "
		      "catalog name (autosize gpus)";
	else if (!live_policy_name(lp->name))
		why = "a name the policy cannot hold (letters, digits, '_', "
		      "'.', '-')";
	else if (lp->gpus_min < 1 || lp->gpus_min > 64)
		why = "GPUs per node outside 1 .. 64";
	printf("\n  # Slurm partition %s: %d nodes, %d%s GPUs per node%s\n",
	       lp->name, lp->nodes, lp->gpus_min,
	       lp->gpus_max != lp->gpus_min ? " (or more)" : "",
	       lp->up ? "" : ", State not UP");
	if (why)
		printf("  # CHECK (left out): %s\n", why);
	printf("  %s- name: %s\n", why ? "# " : "", lp->name);
	printf("  %s  gpu: %s", why ? "# " : "", g ? g->name : "CHECK");
	if (g && from)
		printf("   # from %s%s%s", from == gpu_flag ? "--gpu " :
		       "GRES type ", from, warn[0] ? "; ambiguous" : "");
	printf("\n  %s  gpus_per_node: %d\n", why ? "# " : "", lp->gpus_min);
	printf("  %s  nodes: %d\n", why ? "# " : "", lp->nodes);
	printf("  %s  max_nodes_per_job: %d   # Slurm: MaxNodes %s\n",
	       why ? "# " : "", live_job_nodes(lp),
	       live_max_nodes(lp, m, sizeof(m)));
	printf("  %s  max_time: \"%s\"   # Slurm: MaxTime\n", why ? "# " : "",
	       live_time(lp->max_time_s, t, sizeof(t)));
	printf("  %s  network: %s   # CHECK: Slurm does not know the "
	       "network; the GPU's reference server\n", why ? "# " : "",
	       g ? autosize_net_name((autosize_net)g->net_kind) : "ib");
	printf("  %s  network_gbps_per_node: %.0f   # CHECK: all ports of a "
	       "node, Gb/s\n", why ? "# " : "",
	       g ? g->net_gbps_per_gpu * lp->gpus_min : 400.0 * lp->gpus_min);
	printf("  %s  # price_per_gpu_hour: 0   # CHECK: what a GPU-hour "
	       "costs (cost objective)\n", why ? "# " : "");
	return !why;
}

static void inventory_help(FILE *f)
{
	fprintf(f, "usage: autosize inventory [--gpu TYPE]\n\n"
		"Prints a starting site policy for the running cluster "
		"(SLURM_CONF): its GPU\npartitions, their nodes, GPUs per "
		"node and limits; the GPU model from the\nnodes' GRES type "
		"(--gpu TYPE for GRES without one). What Slurm does not\n"
		"know is marked CHECK. Then: autosize check-config --live "
		"FILE.\n");
}

int cli_inventory(int argc, char **argv)
{
	const char *gpu = NULL;
	autosize_catalog *cat;
	autosize_error e;
	live_cluster *c;
	char err[256];
	int i, active = 0, gpu_parts = 0, rv = CLI_EXIT_USAGE;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			inventory_help(stdout);
			return CLI_EXIT_OK;
		} else if (strncmp(argv[i], "--gpu=", 6) == 0) {
			gpu = argv[i] + 6;
		} else if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc) {
			gpu = argv[++i];
		} else {
			fprintf(stderr, "autosize: inventory: unexpected "
				"argument '%.40s' (expected --gpu TYPE)\n",
				argv[i]);
			inventory_help(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	cat = autosize_catalog_default(&e);
	c = calloc(1, sizeof(*c));
	if (!cat || !c) {
		fprintf(stderr, "autosize: %s\n", cat ? "out of memory" : e.msg);
		goto out;
	}
	if (gpu && !autosize_catalog_find(cat, gpu)) {
		fprintf(stderr, "autosize: --gpu: '%.40s' is not in the GPU "
			"catalog (autosize gpus)\n", gpu);
		goto out;
	}
	if (live_load(c, err, sizeof(err))) {
		fprintf(stderr, "autosize: inventory: %s\n", err);
		goto out;
	}
	printf("# slurm-autosize site policy written by `autosize inventory` "
	       "from slurmctld.\n# Lines marked CHECK are what Slurm does not "
	       "know; then run\n#   autosize check-config --live FILE\n"
	       "# and set mode: rewrite when the plans look right (man "
	       "autosize.yaml).\ndefaults:\n  mode: warn\n"
	       "  memory_reserve: 0.20\n  time_reserve: 0.15\n"
	       "  objective: cost\npartitions:");
	for (i = 0; i < c->n; i++) {
		if (c->parts[i].gpus_max <= 0)
			continue;
		gpu_parts++;
		active += live_inventory_part(cat, &c->parts[i], gpu);
	}
	printf("\n");
	for (i = 0; i < c->n; i++)
		if (c->parts[i].gpus_max <= 0)
			printf("# Slurm partition %s has no GPUs: left out\n",
			       c->parts[i].name);
	rv = CLI_EXIT_OK;
	if (active == 0) {
		fprintf(stderr, "autosize: inventory: %s (see the CHECK "
			"lines)\n", gpu_parts ? "no GPU partition could be "
			"written in full" : "Slurm has no partition with GPUs");
		rv = CLI_EXIT_NOFIT;
	}
out:
	free(c);
	autosize_catalog_destroy(cat);
	return rv;
}
