/*
 * autosize: a plan's warnings (plan.h). Apart from plan.c because the
 * modules plan.c calls (options, checkpoint) add warnings too, and would
 * otherwise depend on the planner that depends on them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "autosize/plan.h"

void autosize_plan_warn(autosize_plan *plan, const char *fmt, ...)
{
	va_list ap;

	if (plan->n_warnings >= AUTOSIZE_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(plan->warnings[plan->n_warnings++], AUTOSIZE_WARNING_LEN,
		  fmt, ap);
	va_end(ap);
}

/* Words of each warning (plan.c, checkpoint.c, options.c, decide.c) and
 * its code; the first row whose words all occur wins. A warning whose
 * wording changes without this table falls to "other" (tests/
 * test_report.c plans the common ones and checks their codes). */
static const struct {
	const char *words[2];
	const char *code;
} warn_codes[] = {
	{{"more GPUs would not help", NULL}, "gpus_no_help"},
	{{"GPUs asked for; ", " would do"}, "ask_oversized"},
	{{"exceeds partition", "chained jobs"}, "chained"},
	{{" max time ", "holds no more than"}, "limit_ckpt"},
	{{"the time limits must cover", "a job;"}, "not_chained"},
	{{"chained jobs; ", "the chain is cut"}, "chain_cut"},
	{{"warning signal comes", "less than"}, "signal_short"},
	{{"planned within", "TRES"}, "slurm_cap"},
	{{"MaxWall=", "time limits kept"}, "slurm_cap"},
	{{"-per-gpu=", "room for"}, "per_gpu_cap"},
	{{"is preemptible", NULL}, "preemptible"},
	{{"--exclusive", "all "}, "exclusive"},
	{{"the model does not fit the memory of", NULL}, "memory_nodes"},
	{{"offloaded model states", "host memory"}, "host_memory"},
	{{"--gpus=", "the same on each node"}, "gpus_split"},
	{{"partition ", ": Slurm"}, "slurm_limit"},
	{{"the global batch of", "micro-batches"}, "pipe_bubble"},
	{{"deadline ", "holds only near"}, "deadline_tight"},
	{{"deadline ", "cannot be met"}, "deadline_miss"},
	{{"plain Ethernet", NULL}, "ethernet"},
	{{"predicted utilization", NULL}, "low_mfu"},
	{{"scaling efficiency", NULL}, "poor_scaling"},
	{{"vision tower", NULL}, "vision_ignored"},
	{{"stack ", "is not validated"}, "stack_unvalidated"},
	{{"stack ", "validated on other GPU"}, "stack_other_gpu"},
	{{"no performance data measured", NULL}, "no_perf_data"},
	{{"no fp4_gemm_speedup", NULL}, "no_fp4_speedup"},
	{{"search stopped at its work budget", NULL}, "search_budget"},
	{{"keeping ", "checkpoints of"}, "ckpt_storage"},
	{{"checkpoints of ", "GB/s"}, "ckpt_bandwidth"},
	{{"--train-time", "minutes"}, "train_time_minutes"},
	{{"--train-tokens", "optimizer step"}, "tokens_tiny"},
	{{"sequence length", "positions"}, "seq_over_model"},
	{{"--train-batch", "sequences of"}, "batch_rounded"},
	{{"your time limit", "ends before"}, "limit_short"},
	{{"planned in bf16", NULL}, "stack_no_fp8"},
	{{"recomputes whole layers", NULL}, "stack_whole_recompute"},
	{{"recompute module mlp", NULL}, "selective_mlp_other"},
	{{"--recompute-layers", "block method"}, "recompute_layers_other"},
	{{"cannot run this layout", NULL}, "stack_no_launch"},
	{{"--segment=", "does not divide"}, "segment_misfit"},
	{{"no segment of", "divides"}, "segment_none"},
	{{"--segment=", "cannot set"}, "segment_manual"},
	{{"under no_sync", "unsharded gradients"}, "held_grads"},
	{{"gathers all", "no expert parallelism"}, "moe_gather"},
	{{"--moe-dispatcher deepep", "over RDMA"}, "deepep_rdma"},
	{{"--moe-dispatcher ", "nothing to send"}, "dispatcher_unused"},
};

const char *autosize_warning_code(const char *warning)
{
	size_t i;

	for (i = 0; warning && i < sizeof(warn_codes) / sizeof(warn_codes[0]);
	     i++)
		if (strstr(warning, warn_codes[i].words[0]) &&
		    (!warn_codes[i].words[1] ||
		     strstr(warning, warn_codes[i].words[1])))
			return warn_codes[i].code;
	return "other";
}

int autosize_warning_codes(const char (*warnings)[AUTOSIZE_WARNING_LEN],
			   int n, char *out, size_t len)
{
	size_t used = 0;
	int i, kept = 0;

	if (len)
		out[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *code = autosize_warning_code(warnings[i]);
		size_t clen = strlen(code), need = clen + (used ? 1 : 0);
		const char *at = out;

		/* each code once: "+code+" in "+out+" */
		while ((at = strstr(at, code)) &&
		       !((at == out || at[-1] == '+') &&
			 (at[clen] == '\0' || at[clen] == '+')))
			at += clen;
		if (at || used + need >= len)
			continue;
		snprintf(out + used, len - used, "%s%s", used ? "+" : "",
			 code);
		used += need;
		kept++;
	}
	return kept;
}
