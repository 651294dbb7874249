/*
 * autosize inventory: a starting site policy for the running cluster
 * (live.c reads it from slurmctld). Every GPU partition is written: the
 * first AUTOSIZE_MAX_PARTITIONS that can be written in full active, the
 * others commented out with the reason, so check-config accepts the
 * file as it is and nothing is dropped unsaid. Names are YAML-quoted:
 * a partition called null, true, 1e3 or "a#b" stays that string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "opts.h"
#include "live.h"

const char *live_yaml_quote(const char *s, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (len < 3) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	buf[n++] = '"';
	for (; *s && n + 5 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)ch;
		} else if (ch < 0x20 || ch >= 0x7f) {
			/* YAML's \xNN: never a raw control byte or a
			 * broken UTF-8 sequence in the file */
			buf[n++] = '\\';
			buf[n++] = 'x';
			buf[n++] = hex[ch >> 4];
			buf[n++] = hex[ch & 15];
		} else {
			buf[n++] = (char)ch;
		}
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return buf;
}

/* 1 when name can be a policy partition name. */
static int inv_policy_name(const char *name)
{
	return name[0] && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
				 "klmnopqrstuvwxyz0123456789_.-") ==
			  strlen(name);
}

/* Why partition lp cannot be written in full (NULL: it can), and its
 * GPU (*g, from *from). */
static const char *inv_why(const autosize_catalog *cat, const live_part *lp,
			   const char *gpu_flag, const autosize_gpu **g,
			   const char **from, char *warn, size_t wlen)
{
	*g = NULL;
	warn[0] = '\0';
	*from = lp->typed_nodes > 0 && !lp->gpu_mixed ? lp->gpu_type : NULL;
	if (*from)
		*g = autosize_catalog_resolve(cat, *from, warn, wlen);
	if (!*g && gpu_flag && !lp->gpu_mixed && lp->typed_nodes == 0) {
		*from = gpu_flag;
		*g = autosize_catalog_resolve(cat, gpu_flag, warn, wlen);
	}
	if (lp->gpu_mixed)
		return "nodes with different GPU types: split it, or name one";
	if (!*g && lp->typed_nodes == 0)
		return "Slurm's gpu GRES has no type: give --gpu TYPE, or set "
		       "gpu: to a catalog name (autosize gpus)";
	if (!*g)
		return "the GRES type is not in the catalog: set gpu: to a "
		       "catalog name (autosize gpus)";
	if (!inv_policy_name(lp->name))
		return "a name the policy cannot hold (letters, digits, '_', "
		       "'.', '-')";
	if (lp->gpus_min < 1 || lp->gpus_min > 64)
		return "GPUs per node outside 1 .. 64";
	return NULL;
}

/* One partition of the starting policy (of GPU type ti of a partition
 * of several types, or -1: all its nodes), commented out when why. */
static void inv_part(FILE *f, const live_part *lp, int ti,
		     const autosize_gpu *g, const char *from,
		     const char *gpu_flag, const char *warn, const char *why)
{
	const char *c = why ? "# " : "";
	const char *type = ti >= 0 ? lp->types[ti]
			   : lp->typed_nodes > 0 && !lp->gpu_mixed
			   ? lp->gpu_type : NULL;
	char t[32], m[16], q[4 * AUTOSIZE_PART_NAME_MAX + 4];
	char qf[4 * LIVE_TYPE_MAX + 4];
	int nodes = ti >= 0 ? lp->type_nodes[ti] : lp->nodes;
	int gpn = ti >= 0 ? lp->type_gpus[ti] : lp->gpus_min;
	int job_nodes = live_job_nodes(lp);

	live_yaml_quote(lp->name, q, sizeof(q));
	if (ti >= 0)
		fprintf(f, "\n  # Slurm partition %s, its nodes of GPU type "
			"%s: %d nodes, %d GPUs per node%s\n", q,
			live_yaml_quote(type, qf, sizeof(qf)), nodes, gpn,
			lp->up ? "" : ", State not UP");
	else
		fprintf(f, "\n  # Slurm partition %s: %d nodes, %d%s GPUs per "
			"node%s\n", q, lp->nodes, lp->gpus_min,
			lp->gpus_max != lp->gpus_min ? " (or more)" : "",
			lp->up ? "" : ", State not UP");
	if (why)
		fprintf(f, "  # CHECK (left out): %s\n", why);
	fprintf(f, "  %s- name: %s\n", c, q);
	fprintf(f, "  %s  gpu: %s", c, g ? g->name : "CHECK");
	if (g && from)
		fprintf(f, "   # from %s%s%s", from == gpu_flag ? "--gpu " :
			"GRES type ", live_yaml_quote(from, qf, sizeof(qf)),
			warn[0] ? "; ambiguous" : "");
	if (type)
		fprintf(f, "\n  %s  gres_type: %s   # jobs are written as "
			"gres/gpu:TYPE:N", c, live_yaml_quote(type, qf,
							     sizeof(qf)));
	fprintf(f, "\n  %s  gpus_per_node: %d\n", c, gpn);
	fprintf(f, "  %s  nodes: %d\n", c, nodes);
	fprintf(f, "  %s  max_nodes_per_job: %d   # Slurm: MaxNodes %s\n", c,
		job_nodes < nodes ? job_nodes : nodes,
		live_max_nodes(lp, m, sizeof(m)));
	fprintf(f, "  %s  max_time: \"%s\"   # Slurm: MaxTime\n", c,
		live_time(lp->max_time_s, t, sizeof(t)));
	fprintf(f, "  %s  network: %s   # CHECK: Slurm does not know the "
		"network; the GPU's reference server\n", c,
		g ? autosize_net_name((autosize_net)g->net_kind) : "ib");
	fprintf(f, "  %s  network_gbps_per_node: %.0f   # CHECK: all ports "
		"of a node, Gb/s\n", c, g ? g->net_gbps_per_gpu * gpn
					  : 400.0 * gpn);
	fprintf(f, "  %s  # price_per_gpu_hour: 0   # CHECK: what a GPU-hour "
		"costs (cost objective)\n", c);
	if (lp->preempted)
		fprintf(f, "  %s  preemptible: true   # Slurm: PreemptMode "
			"preempts its jobs (PriorityTier %d); CHECK "
			"preempted_every\n", c, lp->priority_tier);
}

/* 1 when partition lp is written as one entry per GPU type: nodes of
 * several types, each node of one. */
static int inv_by_type(const live_part *lp)
{
	return lp->gpu_mixed && lp->untyped_nodes == 0 && lp->n_types > 1 &&
	       lp->n_types <= LIVE_MAX_TYPES;
}

/* Partition lp, one entry per GPU type (the policy's way to say a
 * partition holds several): those written active. */
static int inv_types(FILE *f, const autosize_catalog *cat,
		     const live_part *lp, int active, const char *full)
{
	const autosize_gpu *g;
	const char *why;
	char warn[160];
	int i, n = 0;

	for (i = 0; i < lp->n_types; i++) {
		g = autosize_catalog_resolve(cat, lp->types[i], warn,
					     sizeof(warn));
		why = !g ? "the GRES type is not in the catalog: set gpu: to "
			   "a catalog name (autosize gpus)"
		      : !inv_policy_name(lp->name)
		      ? "a name the policy cannot hold (letters, digits, "
			"'_', '.', '-')"
		      : lp->type_gpus[i] < 1 || lp->type_gpus[i] > 64
		      ? "GPUs per node outside 1 .. 64"
		      : active + n >= AUTOSIZE_MAX_PARTITIONS ? full : NULL;
		inv_part(f, lp, i, g, lp->types[i], NULL, warn, why);
		n += !why;
	}
	return n;
}

/* Slurm's QOS and association limits, as comments: autosize reads them
 * itself (they are not policy keys). */
static void inv_limits(FILE *f)
{
	autosize_limits *l;
	char err[AUTOSIZE_MSG_LEN];

	l = live_limits_load(err, sizeof(err));
	fprintf(f, "\n# Slurm's QOS and association limits: slurmctld's "
		"module reads them itself\n# (autosize limits) and plans "
		"each job within its own; nothing to write here.\n");
	if (!l) {
		fprintf(f, "#   (cannot be read now: %s)\n", err);
		return;
	}
	live_limits_print(f, l, "#   ");
	autosize_limits_destroy(l);
}

int live_inventory_write(FILE *f, const autosize_catalog *cat,
			 const live_cluster *c, const char *gpu_flag,
			 int *gpu_parts)
{
	const autosize_gpu *g;
	const char *why, *from;
	char warn[160], full[96], q[4 * AUTOSIZE_PART_NAME_MAX + 4];
	int i, active = 0;

	*gpu_parts = 0;
	snprintf(full, sizeof(full), "the policy holds at most %d "
		 "partitions: uncomment it in place of another",
		 AUTOSIZE_MAX_PARTITIONS);
	fprintf(f, "# slurm-autosize site policy written by `autosize "
		"inventory` from slurmctld.\n# Lines marked CHECK are what "
		"Slurm does not know; then run\n#   autosize check-config "
		"--live FILE\n# and set mode: rewrite when the plans look "
		"right (man autosize.yaml).\ndefaults:\n  mode: warn\n"
		"  memory_reserve: 0.20\n  time_reserve: 0.15\n"
		"  objective: cost\npartitions:");
	for (i = 0; i < c->n; i++) {
		if (c->parts[i].gpus_max <= 0)
			continue;
		(*gpu_parts)++;
		if (inv_by_type(&c->parts[i])) {
			active += inv_types(f, cat, &c->parts[i], active,
					    full);
			continue;
		}
		why = inv_why(cat, &c->parts[i], gpu_flag, &g, &from, warn,
			      sizeof(warn));
		if (!why && active >= AUTOSIZE_MAX_PARTITIONS)
			why = full;
		inv_part(f, &c->parts[i], -1, g, from, gpu_flag, warn, why);
		active += !why;
	}
	fprintf(f, "\n");
	for (i = 0; i < c->n; i++)
		if (c->parts[i].gpus_max <= 0)
			fprintf(f, "# Slurm partition %s has no GPUs: left out\n",
				live_yaml_quote(c->parts[i].name, q,
						sizeof(q)));
	if (c->truncated)
		fprintf(f, "# slurmctld has more than %d partitions: the rest "
			"are not in this file\n", LIVE_MAX_PARTS);
	return active;
}

static void inventory_help(FILE *f)
{
	fprintf(f, "usage: autosize inventory [--gpu TYPE]\n\n"
		"Prints a starting site policy for the running cluster "
		"(SLURM_CONF): its GPU\npartitions, their nodes, GPUs per "
		"node and limits; the GPU model from the\nnodes' GRES type "
		"(--gpu TYPE for GRES without one). What Slurm does not\n"
		"know is marked CHECK; partitions past the policy's %d, or "
		"not writable in\nfull, are commented out with the reason. "
		"Then: autosize check-config --live FILE.\n",
		AUTOSIZE_MAX_PARTITIONS);
}

int cli_inventory(int argc, char **argv)
{
	const char *gpu = NULL;
	autosize_catalog *cat;
	autosize_error e;
	live_cluster *c;
	char err[256];
	enum { INVENTORY_HELP = 1, INVENTORY_GPU };
	static const cli_opt opts[] = {
		{"help", 0, 0, INVENTORY_HELP},
		{"gpu", 0, 1, INVENTORY_GPU},
	};
	cli_opts op;
	int k, active = 0, gpu_parts = 0, rv = CLI_EXIT_USAGE;

	cli_opts_init(&op, opts, CLI_N(opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		if (k == INVENTORY_HELP) {
			inventory_help(stdout);
			return CLI_EXIT_OK;
		} else if (k == INVENTORY_GPU) {
			gpu = op.value;
		} else if (k != CLI_OPT_DASHDASH) {
			fprintf(stderr, "autosize: inventory: unexpected "
				"argument '%.40s' (expected --gpu TYPE)\n",
				op.text);
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
	active = live_inventory_write(stdout, cat, c, gpu, &gpu_parts);
	inv_limits(stdout);
	rv = CLI_EXIT_OK;
	if (gpu_parts > active)
		fprintf(stderr, "autosize: inventory: %d GPU partition%s, %d "
			"written active, %d commented out with the reason "
			"(CHECK lines; the policy holds at most %d)\n",
			gpu_parts, gpu_parts == 1 ? "" : "s", active,
			gpu_parts - active, AUTOSIZE_MAX_PARTITIONS);
	if (c->truncated)
		fprintf(stderr, "autosize: inventory: slurmctld has more than "
			"%d partitions: the rest were not read\n",
			LIVE_MAX_PARTS);
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
