/*
 * autosize: plan summaries and launcher arguments (torchrun, Megatron-LM,
 * DeepSpeed), as bounded strings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "autosize/launch.h"
#include "autosize/parse.h"

#define LAUNCH_GIB (1024.0 * 1024.0 * 1024.0)

/* Append to a fixed buffer; ok drops to 0 once anything did not fit. */
typedef struct launch_out {
	char *buf;
	size_t len;
	size_t used;
	int ok;
} launch_out;

static void launch_init(launch_out *o, char *buf, size_t len)
{
	o->buf = buf;
	o->len = len;
	o->used = 0;
	o->ok = buf != NULL && len > 0;
	if (o->ok)
		buf[0] = '\0';
}

static void launch_put(launch_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void launch_put(launch_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!o->ok)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->ok = 0;
		o->buf[o->used] = '\0';
		return;
	}
	o->used += (size_t)n;
}

/* Length written, or -1 (and "") when something did not fit. */
static int launch_done(launch_out *o)
{
	if (!o->ok) {
		if (o->buf && o->len > 0)
			o->buf[0] = '\0';
		return -1;
	}
	return (int)o->used;
}

static int launch_fail(char *buf, size_t len)
{
	if (buf && len > 0)
		buf[0] = '\0';
	return -1;
}

static int launch_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* 1 when s is a non-empty word of host name characters. */
static int launch_is_name(const char *s)
{
	size_t i;

	if (!s || !s[0])
		return 0;
	for (i = 0; s[i]; i++)
		if (!launch_name_char(s[i]) || i >= AUTOSIZE_LAUNCH_HOST_MAX)
			return 0;
	return 1;
}

static const char *launch_gpu_name(const autosize_plan *p)
{
	return p->part.gpu ? p->part.gpu->name : "GPUs";
}

int autosize_launch_summary(const autosize_plan *p, char *buf, size_t len)
{
	launch_out o;
	char limit[32];

	launch_init(&o, buf, len);
	if (!p)
		return launch_fail(buf, len);
	launch_put(&o, "%d node%s x %d %s, TP %d PP %d DP %d, ZeRO-%d, "
		   "recompute %s, micro-batch %d, grad accum %d, global batch "
		   "%d x %d tokens", p->nodes, p->nodes == 1 ? "" : "s",
		   p->gpus_per_node, launch_gpu_name(p), p->tp, p->pp, p->dp,
		   p->zero_stage, autosize_recompute_name(p->recompute),
		   p->micro_batch, p->grad_accum, p->global_batch, p->seq_len);
	if (p->mfu > 0)
		launch_put(&o, ", MFU %.1f%%", p->mfu * 100);
	if (p->train_hours > 0)
		launch_put(&o, ", %.1f h", p->train_hours);
	if (p->time_limit_min > 0) {
		autosize_format_duration(p->time_limit_min * 60.0, limit,
					 sizeof(limit));
		launch_put(&o, ", time limit %s", limit);
		if (p->chained_jobs > 1)
			launch_put(&o, " x %d chained jobs", p->chained_jobs);
	}
	if (!p->feasible)
		launch_put(&o, " (NOT FEASIBLE)");
	return launch_done(&o);
}

int autosize_launch_report(const autosize_request *r, const autosize_plan *p,
			   char *buf, size_t len)
{
	const autosize_memory *m;
	const char *model;
	char limit[32];
	launch_out o;
	int i;

	launch_init(&o, buf, len);
	if (!r || !p)
		return launch_fail(buf, len);
	m = &p->mem;
	model = r->model.name[0] ? r->model.name : "model";
	launch_put(&o, "%s (%.3gB params", model, p->params / 1e9);
	if (p->params_active < p->params * 0.999)
		launch_put(&o, ", %.3gB active", p->params_active / 1e9);
	launch_put(&o, ")");
	if (p->tokens > 0)
		launch_put(&o, " x %.3gB tokens", p->tokens / 1e9);
	launch_put(&o, " on %s (%s)\n", p->part.name, launch_gpu_name(p));
	launch_put(&o, "size: %d node%s x %d GPUs = %d GPUs (need %.0f)\n",
		   p->nodes, p->nodes == 1 ? "" : "s", p->gpus_per_node,
		   p->gpus, p->gpus_min);
	launch_put(&o, "layout: TP %d x PP %d x DP %d", p->tp, p->pp, p->dp);
	if (p->vp > 1)
		launch_put(&o, " (%d virtual stages per rank)", p->vp);
	if (p->cp > 1)
		launch_put(&o, ", CP %d", p->cp);
	if (p->ep > 1)
		launch_put(&o, ", EP %d", p->ep);
	launch_put(&o, ", ZeRO-%d, %s, "
		   "recompute %s, micro-batch %d, grad accum %d (global batch "
		   "%d x %d)\n", p->zero_stage,
		   autosize_framework_name(p->framework),
		   autosize_recompute_name(p->recompute), p->micro_batch,
		   p->grad_accum, p->global_batch, p->seq_len);
	launch_put(&o, "memory: %.1f GiB per GPU of %.1f GiB usable (weights "
		   "%.1f, gradients %.1f, optimizer %.1f, activations %.1f, "
		   "other %.1f)\n", m->total_bytes / LAUNCH_GIB,
		   m->usable_bytes / LAUNCH_GIB, m->weights_bytes / LAUNCH_GIB,
		   m->gradients_bytes / LAUNCH_GIB,
		   m->optimizer_bytes / LAUNCH_GIB,
		   m->activations_bytes / LAUNCH_GIB,
		   m->other_bytes / LAUNCH_GIB);
	launch_put(&o, "speed: MFU %.1f%%, %.0f TFLOP/s per GPU, %.0f "
		   "tokens/s\n", p->mfu * 100, p->tflops_per_gpu,
		   p->tokens_per_s);
	if (p->train_hours > 0) {
		autosize_format_duration(p->time_limit_min * 60.0, limit,
					 sizeof(limit));
		launch_put(&o, "time: %.1f h; time limit %s (+%.0f%%)",
			   p->train_hours, limit, p->time_reserve * 100);
		if (p->train_hours_high > p->train_hours_low)
			launch_put(&o, "; likely %.1f-%.1f h", p->train_hours_low,
				   p->train_hours_high);
		if (p->chained_jobs > 1)
			launch_put(&o, " x %d chained jobs", p->chained_jobs);
		launch_put(&o, "\ncost: %.0f GPU-hours", p->gpu_hours);
		if (p->cost > 0)
			launch_put(&o, ", %.2f %s", p->cost, p->part.currency);
		launch_put(&o, "\n");
	}
	if (!p->feasible)
		launch_put(&o, "NOT FEASIBLE: %s\n", p->reason);
	for (i = 0; i < p->n_warnings && i < AUTOSIZE_MAX_WARNINGS; i++)
		launch_put(&o, "warning: %s\n", p->warnings[i]);
	return launch_done(&o);
}

int autosize_launch_torchrun_args(const autosize_plan *p, const char *host,
				  int port, const char *run_id, char *buf,
				  size_t len)
{
	launch_out o;

	launch_init(&o, buf, len);
	if (!p || p->nodes < 1 || p->gpus_per_node < 1)
		return launch_fail(buf, len);
	if (run_id && run_id[0] && !launch_is_name(run_id))
		return launch_fail(buf, len);
	launch_put(&o, "--nnodes=%d --nproc-per-node=%d", p->nodes,
		   p->gpus_per_node);
	if (p->nodes == 1) {
		launch_put(&o, " --standalone");
		return launch_done(&o);
	}
	if (!launch_is_name(host) || port < 1 || port > 65535)
		return launch_fail(buf, len);
	launch_put(&o, " --rdzv-backend=c10d --rdzv-endpoint=%s:%d", host,
		   port);
	if (run_id && run_id[0])
		launch_put(&o, " --rdzv-id=%s", run_id);
	return launch_done(&o);
}

int autosize_launch_megatron_args(const autosize_plan *p,
				  const autosize_request *r, char *buf,
				  size_t len)
{
	launch_out o;

	launch_init(&o, buf, len);
	if (!p || !r)
		return launch_fail(buf, len);
	/* An FSDP or DeepSpeed plan has no Megatron arguments: "" (a
	 * ZeRO-3 layout is not a Megatron layout). */
	if (p->framework != AUTOSIZE_FRAMEWORK_MEGATRON &&
	    p->framework != AUTOSIZE_FRAMEWORK_DEFAULT)
		return launch_done(&o);
	launch_put(&o, "--tensor-model-parallel-size %d "
		   "--pipeline-model-parallel-size %d --micro-batch-size %d "
		   "--global-batch-size %d --seq-length %d", p->tp, p->pp,
		   p->micro_batch, p->global_batch, p->seq_len);
	/* The search turns sequence parallelism on with TP > 1 unless the
	 * request pinned it off (search.c). */
	if (p->tp > 1 && r->sequence_parallel != 0)
		launch_put(&o, " --sequence-parallel");
	if (p->cp > 1)
		launch_put(&o, " --context-parallel-size %d", p->cp);
	if (p->ep > 1)
		/* experts folded over the TP ranks: expert TP 1 */
		launch_put(&o, " --expert-model-parallel-size %d%s", p->ep,
			   p->dp * p->cp % p->ep
			   ? " --expert-tensor-parallel-size 1" : "");
	/* interleaved 1F1B (Megatron-LM arguments.py) */
	if (p->vp > 1 && p->pp > 1)
		launch_put(&o, " --num-virtual-stages-per-pipeline-rank %d",
			   p->vp);
	/* Megatron's distributed optimizer shards optimizer state over
	 * data-parallel ranks: ZeRO stage 1 (Megatron-LM docs,
	 * dist_optimizer.md). */
	if (p->zero_stage >= 1)
		launch_put(&o, " --use-distributed-optimizer");
	if (p->recompute == AUTOSIZE_RECOMPUTE_FULL)
		launch_put(&o, " --recompute-granularity full "
			   "--recompute-method uniform");
	else if (p->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE)
		launch_put(&o, " --recompute-granularity selective");
	switch (r->precision) {
	case AUTOSIZE_PREC_FP16:
		launch_put(&o, " --fp16");
		break;
	case AUTOSIZE_PREC_FP8:
		/* Transformer Engine FP8 on top of bf16 master weights. */
		launch_put(&o, " --bf16 --fp8-format hybrid");
		break;
	default:
		launch_put(&o, " --bf16");
		break;
	}
	return launch_done(&o);
}

int autosize_launch_deepspeed_json(const autosize_plan *p,
				   const autosize_request *r, char *buf,
				   size_t len)
{
	launch_out o;
	int fp16;

	launch_init(&o, buf, len);
	if (!p || !r)
		return launch_fail(buf, len);
	fp16 = r->precision == AUTOSIZE_PREC_FP16;
	/* DeepSpeed requires train_batch_size = micro batch x gradient
	 * accumulation x data-parallel size; the plan keeps that identity
	 * (search.c). */
	launch_put(&o, "{\n"
		   "  \"train_batch_size\": %d,\n"
		   "  \"train_micro_batch_size_per_gpu\": %d,\n"
		   "  \"gradient_accumulation_steps\": %d,\n"
		   "  \"zero_optimization\": {\n"
		   "    \"stage\": %d\n"
		   "  },\n"
		   "  \"bf16\": {\n"
		   "    \"enabled\": %s\n"
		   "  },\n"
		   "  \"fp16\": {\n"
		   "    \"enabled\": %s\n"
		   "  }", p->global_batch, p->micro_batch, p->grad_accum,
		   p->zero_stage, fp16 ? "false" : "true",
		   fp16 ? "true" : "false");
	if (p->recompute != AUTOSIZE_RECOMPUTE_NONE)
		launch_put(&o, ",\n"
			   "  \"activation_checkpointing\": {\n"
			   "    \"partition_activations\": false,\n"
			   "    \"contiguous_memory_optimization\": false,\n"
			   "    \"cpu_checkpointing\": false\n"
			   "  }");
	launch_put(&o, "\n}\n");
	return launch_done(&o);
}

int autosize_launch_first_host(const char *nodelist, char *buf, size_t len)
{
	size_t n = 0;
	const char *s = nodelist;

	if (!s || !buf || len == 0)
		return launch_fail(buf, len);
	while (*s && *s != ',') {
		if (*s == '[') {
			size_t digits = 0;

			for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
				if (n + 1 >= len)
					return launch_fail(buf, len);
				buf[n++] = *s;
			}
			if (digits == 0)
				return launch_fail(buf, len);
			/* Skip the rest of the range list: "-08,11]". */
			while (*s && *s != ']') {
				if (!(*s >= '0' && *s <= '9') && *s != '-' &&
				    *s != ',')
					return launch_fail(buf, len);
				s++;
			}
			if (*s != ']')
				return launch_fail(buf, len);
			s++;
			continue;
		}
		if (!launch_name_char(*s) || n + 1 >= len)
			return launch_fail(buf, len);
		buf[n++] = *s++;
	}
	buf[n] = '\0';
	if (n == 0 || n > AUTOSIZE_LAUNCH_HOST_MAX)
		return launch_fail(buf, len);
	return (int)n;
}
