/*
 * autosize check-config / gpus / presets: what the site has and knows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "opts.h"
#include "autosize/calibration.h"
#include "live.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Which policy is checked: a file, or the built-in defaults (asked for
 * with "none", or because there is no policy file: exit status 1). */
static int config_which(const char *file, const char *path)
{
	if (path) {
		printf("autosize: policy %s is valid\n", path);
		return CLI_EXIT_OK;
	}
	if (file) {
		printf("autosize: no policy file (none): the built-in defaults, "
		       "with no partitions; jobs can only be sized on a GPU's "
		       "reference servers (--gpu)\n");
		return CLI_EXIT_OK;
	}
	printf("autosize: no policy file: %s does not exist and "
	       "$AUTOSIZE_POLICY is not set, so only the built-in defaults "
	       "are in force, with no partitions (not a site policy: copy "
	       "%s there and edit it)\n", cli_installed_policy(),
	       cli_example_policy());
	return CLI_EXIT_NOFIT;
}

/* `--live`: the valid policy p against slurmctld's partitions and
 * nodes; rv is check-config's status so far. */
static int config_live(const autosize_policy *p, int rv)
{
	live_cluster *c = calloc(1, sizeof(*c));
	char err[256];
	int live_rv;

	if (!c) {
		fprintf(stderr, "autosize: out of memory\n");
		return CLI_EXIT_USAGE;
	}
	if (live_load(c, err, sizeof(err))) {
		fprintf(stderr, "autosize: --live: %s\n", err);
		free(c);
		return CLI_EXIT_USAGE;
	}
	live_rv = cli_live_compare(p, c, 1);
	free(c);
	return rv != CLI_EXIT_OK ? rv : live_rv;
}

/* The corrections in force (policy calibration:, autosize calibrate). */
/* A partition's price schedule and storage, when the policy states
 * them (price.h, checkpoint.h); nothing otherwise. */
static void config_renter(const autosize_partition *pt)
{
	const autosize_price_schedule *s = &pt->pricing;
	int i;

	if (s->per_node_hour > 0 || s->min_gpus > 0 || s->off_peak ||
	    s->n_rental > 0 || s->platform_fee > 0) {
		printf("    %s pricing:", pt->name);
		if (s->per_node_hour > 0)
			printf(" whole node %.2f/h (%.2f per GPU-hour);",
			       s->per_node_hour,
			       s->per_node_hour / pt->gpus_per_node);
		if (s->min_gpus > 0)
			printf(" under %d GPUs %.2f per GPU-hour;",
			       s->min_gpus, s->below_min_per_gpu_hour);
		if (s->off_peak)
			printf(" off-peak %02d:%02d-%02d:%02d -%.0f%%;",
			       (int)s->off_peak_from_h,
			       (int)(s->off_peak_from_h * 60) % 60,
			       (int)s->off_peak_to_h,
			       (int)(s->off_peak_to_h * 60) % 60,
			       s->off_peak_discount * 100);
		for (i = 0; i < s->n_rental; i++)
			printf(" from %.0f h -%.0f%%;", s->rental[i].min_hours,
			       s->rental[i].discount * 100);
		if (s->platform_fee > 0)
			printf(" fee %.0f%%;", s->platform_fee * 100);
		printf(" %s\n", pt->currency);
	}
	if (pt->storage_write_gbs > 0 || pt->storage_tb > 0)
		printf("    %s storage: %.1f GB/s, %.1f TB (0: not stated)\n",
		       pt->name, pt->storage_write_gbs, pt->storage_tb);
}

/* What Slurm is told for the partition's jobs besides their size. */
static void config_slurm_side(const autosize_partition *pt)
{
	char every[32];

	if (pt->gres_type[0])
		printf("    %s %s: jobs written as gres/gpu:%s:N\n", pt->name,
		       pt->gpu->name, pt->gres_type);
	if (pt->cpus_per_gpu > 0 || pt->mem_per_gpu_bytes > 0)
		printf("    %s: each GPU gets %d CPUs, %.0f MiB (0: Slurm's "
		       "DefCpuPerGPU/DefMemPerGPU, else the node's share)\n",
		       pt->name, pt->cpus_per_gpu,
		       pt->mem_per_gpu_bytes / (1024.0 * 1024));
	if (pt->preemptible)
		printf("    %s: preemptible, about every %s: planned only "
		       "for jobs that name it\n", pt->name,
		       autosize_format_duration(pt->preempt_every_s, every,
						sizeof(every)));
}

static void config_calibration(const autosize_policy *p)
{
	const autosize_calibration *c = autosize_policy_calibration(p);
	const autosize_cal_entry *x;
	int i;

	if (!c)
		return;
	printf("  calibration %s: %d correction%s\n",
	       autosize_policy_calibration_path(p),
	       autosize_calibration_count(c),
	       autosize_calibration_count(c) == 1 ? "" : "s");
	for (i = 0; (x = autosize_calibration_at(c, i)); i++)
		printf("    %s/%s/%s/%s: speed x %.2f (%.2f-%.2f), memory x "
		       "%.2f, %d jobs of %d users\n", x->partition, x->gpu,
		       x->framework, x->scale, x->speed_factor, x->speed_low,
		       x->speed_high, x->memory_factor, x->jobs, x->users);
}

/* `exempt:` and `rules:`, in the order they apply. */
static void config_rules(const autosize_policy *p)
{
	const autosize_rule *r;
	const char *name;
	char match[400], set[300];
	int i;

	for (i = 0; (name = autosize_policy_exempt_user_at(p, i)); i++)
		printf("%s%s", i ? ", " : "  exempt (never sized): users ",
		       name);
	if (i)
		printf("\n");
	for (i = 0; (name = autosize_policy_exempt_account_at(p, i)); i++)
		printf("%s%s", i ? ", " : "  exempt (never sized): accounts ",
		       name);
	if (i)
		printf("\n");
	if (!autosize_policy_rule_count(p))
		return;
	printf("  rules (the first that matches a job applies; the "
	       "defaults above for the rest):\n");
	for (i = 0; (r = autosize_policy_rule_at(p, i)); i++)
		printf("    line %d: %s: %s\n", r->line,
		       autosize_rule_match_text(r, match, sizeof(match)),
		       autosize_rule_set_text(r, set, sizeof(set)));
}

int cli_check_config(int argc, char **argv)
{
	const char *file = NULL;
	autosize_policy *p;
	const autosize_defaults *d;
	char buf[32];
	enum { CONFIG_HELP = 1, CONFIG_LIVE };
	static const cli_opt opts[] = {
		{"help", 0, 0, CONFIG_HELP},
		{"live", 0, 0, CONFIG_LIVE},
	};
	cli_opts op;
	int i, k, rv, live = 0;

	cli_opts_init(&op, opts, CLI_N(opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		if (k == CONFIG_HELP) {
			printf("usage: autosize check-config [--live] "
			       "[FILE|none]\n");
			return CLI_EXIT_OK;
		}
		if (k == CONFIG_LIVE) {
			live = 1;
		} else if (k == CLI_OPT_ARG && !file) {
			file = op.value;
		} else if (k != CLI_OPT_DASHDASH) {
			fprintf(stderr, "autosize: check-config: unexpected "
				"argument '%.40s' (expected [--live] "
				"[FILE|none])\n", op.text);
			return CLI_EXIT_USAGE;
		}
	}
	p = cli_load_policy(file);
	if (!p)
		return CLI_EXIT_USAGE;
	d = autosize_policy_defaults(p);
	rv = config_which(file, cli_policy_file(file));
	for (i = 0; i < autosize_policy_warning_count(p); i++)
		printf("  warning: %s\n", autosize_policy_warning_at(p, i));
	config_calibration(p);
	printf("  mode %s, objective %s, framework %s, memory reserve "
	       "%.0f%%, time reserve %.0f%%, deadline %s, default partition "
	       "%s\n", autosize_mode_name(d->mode),
	       autosize_objective_name(d->objective),
	       autosize_framework_name(d->framework), d->memory_reserve * 100,
	       d->time_reserve * 100,
	       d->deadline_s > 0 ? autosize_format_duration(d->deadline_s, buf,
							    sizeof(buf))
				 : "none",
	       d->partition[0] ? d->partition : "(best)");
	printf("  checkpoints every %s, at most %.0f%% of the run writing "
	       "them, %d kept\n", autosize_format_duration(
		       d->checkpoint.interval_s, buf, sizeof(buf)),
	       d->checkpoint.max_share * 100, d->checkpoint.keep);
	printf("  explicit sizes: %s, unfit jobs: %s, internal errors: %s, "
	       "GPU check: %s\n", autosize_explicit_name(d->explicit_size),
	       autosize_unfit_name(d->on_unfit),
	       autosize_on_error_name(d->on_error),
	       autosize_gpu_check_name(d->gpu_check));
	if (autosize_policy_partition_count(p) == 0)
		printf("  no partitions\n");
	else
		printf("  %-12s %-16s %5s %6s %8s %12s %-18s %s\n",
		       "partition", "gpu", "g/node", "nodes", "max/job",
		       "max time", "network", "price/GPU-h");
	for (i = 0; i < autosize_policy_partition_count(p); i++) {
		const autosize_partition *pt =
			autosize_policy_partition_at(p, i);
		char net[32];

		snprintf(net, sizeof(net), "%s %.0f Gb/s",
			 autosize_net_name(pt->net), pt->net_gbps_per_node);
		printf("  %-12s %-16s %5d %6d %8d %12s %-18s %.2f %s\n",
		       pt->name, pt->gpu->name, pt->gpus_per_node, pt->nodes,
		       pt->max_nodes_per_job,
		       pt->max_time_s > 0
		       ? autosize_format_duration(pt->max_time_s, buf,
						  sizeof(buf))
		       : "unlimited", net, pt->price_per_gpu_hour,
		       pt->currency);
		config_renter(pt);
		config_slurm_side(pt);
	}
	config_rules(p);
	if (live)
		rv = config_live(p, rv);
	autosize_policy_destroy(p);
	return rv;
}

int cli_list_gpus(int argc, char **argv)
{
	autosize_error err;
	autosize_catalog *c = autosize_catalog_default(&err);
	int i;

	if (!c) {
		fprintf(stderr, "autosize: %s\n", err.msg);
		return CLI_EXIT_USAGE;
	}
	printf("%-16s %9s %9s %9s %9s %8s %8s %-8s %s\n", "gpu",
	       "bf16 TF/s", "fp16 TF/s", "fp8 TF/s", "fp4 TF/s", "mem GiB",
	       "HBM GB/s", "link", "link GB/s");
	for (i = 0; i < autosize_catalog_count(c); i++) {
		const autosize_gpu *g = autosize_catalog_at(c, i);

		printf("%-16s %9.1f %9.1f %9.1f %9.1f %8.1f %8.0f %-8s %.0f\n",
		       g->name, g->bf16_tflops, g->fp16_tflops, g->fp8_tflops,
		       g->fp4_tflops, g->mem_bytes / GIB, g->hbm_gbs,
		       autosize_link_name(g->link), g->link_gbs);
	}
	autosize_catalog_destroy(c);
	return CLI_EXIT_OK;
}

int cli_list_presets(int argc, char **argv)
{
	autosize_error err;
	autosize_model m;
	const char *hf;
	int i;

	printf("%-18s %7s %7s %6s %6s %8s %9s  %s\n", "preset", "layers",
	       "hidden", "heads", "kv", "params", "published",
	       "Hugging Face id");
	for (i = 0; i < autosize_model_preset_count(); i++) {
		const char *name = autosize_model_preset_name(i);

		if (autosize_model_preset(name, &m, &err)) {
			fprintf(stderr, "autosize: %s\n", err.msg);
			return CLI_EXIT_USAGE;
		}
		hf = autosize_model_preset_hf_id(i);
		printf("%-18s %7d %7d %6d %6d %7.2fB %8.2fB  %s\n", name,
		       m.layers, m.hidden, m.heads, m.kv_heads, m.params / 1e9,
		       m.params_published / 1e9, hf && hf[0] ? hf : "-");
	}
	return CLI_EXIT_OK;
}
