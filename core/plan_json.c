/*
 * autosize: a plan as one JSON object.
 */
#include <stdio.h>
#include "autosize/plan.h"
#include "autosize/published.h"
#include "json_write.h"

/* Append to buf, tracking the length even past the end (snprintf). */
typedef struct json_out {
	char *buf;
	size_t len;
	size_t used;
} json_out;

static void json_put(json_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void json_put(json_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->used < o->len ? o->buf + o->used : NULL,
		      o->used < o->len ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

/* A JSON string (json_write.h: valid UTF-8 whatever s holds). */
static void json_string(json_out *o, const char *s)
{
	json_write_str(o->buf, o->len, &o->used, s, 0);
}

/* Where the step's time goes (autosize_step_parts), seconds. */
static void json_step_parts(json_out *o, const autosize_step_parts *sp)
{
	json_put(o, ",\"step_parts_s\":{\"gemm\":%.6g,\"attention\":%.6g,"
		 "\"elementwise\":%.6g,\"host\":%.6g,\"recompute\":%.6g,"
		 "\"tp_comm\":%.6g,\"cp_comm\":%.6g,\"ep_comm\":%.6g,"
		 "\"pp_comm\":%.6g,\"dp_comm\":%.6g,\"bubble\":%.6g,"
		 "\"optimizer\":%.6g,\"offload\":%.6g,\"fixed_mfu\":%s}",
		 sp->gemm_s, sp->attention_s, sp->elementwise_s, sp->host_s,
		 sp->recompute_s, sp->tp_comm_s, sp->cp_comm_s, sp->ep_comm_s,
		 sp->pp_comm_s, sp->dp_comm_s, sp->bubble_s, sp->optimizer_s,
		 sp->offload_s, sp->fixed_mfu ? "true" : "false");
}

/* The checkpoint (checkpoint.h) and price (price.h) objects. */
static void json_renter(json_out *o, const autosize_plan *p)
{
	const autosize_checkpoint *k = &p->ckpt;
	const autosize_cost *c = &p->price;

	json_put(o, ",\"checkpoint\":{\"bytes\":%.0f,\"shard_bytes\":%.0f,"
		 "\"bytes_per_param\":%.3g,\"trained_params\":%.0f,"
		 "\"interval_s\":%.0f,\"need_write_gbs\":%.3f,"
		 "\"write_s\":%.1f,\"count\":%d,\"hours\":%.3f,"
		 "\"job_write_s\":%.1f,\"keep\":%d,\"storage_bytes\":%.0f}",
		 k->bytes, k->shard_bytes, k->bytes_per_param,
		 k->trained_params, k->interval_s, k->need_write_gbs,
		 k->write_s, k->count, k->hours, k->job_write_s, k->keep,
		 k->storage_bytes);
	json_put(o, ",\"price\":{\"list\":%.2f,\"rate_per_gpu_hour\":%.4f,"
		 "\"whole_nodes\":%s,\"below_min\":%s,"
		 "\"off_peak_share\":%.4f,\"rental_discount\":%.4f,"
		 "\"fee\":%.2f}", c->list, c->rate_per_gpu_hour,
		 c->whole_nodes ? "true" : "false",
		 c->below_min ? "true" : "false", c->off_peak_share,
		 c->rental_discount, c->fee);
}

/* The run as chained jobs and the warning signal (doc/plan-json.md):
 * "tokens_done", "chain": {"jobs", "needed", "cut_by", "job_tokens"},
 * "signal": {"name", "before_s"} or null. */
static void json_chain(json_out *o, const autosize_plan *p)
{
	json_put(o, ",\"tokens_done\":%.0f,\"chain\":{\"jobs\":%d,"
		 "\"needed\":%d,\"job_tokens\":%.0f,\"cut_by\":",
		 p->tokens_done, p->chained_jobs,
		 p->chain_needed > p->chained_jobs ? p->chain_needed
						   : p->chained_jobs,
		 p->chain_job_tokens);
	if (p->chain_cut_by[0])
		json_string(o, p->chain_cut_by);
	else
		json_put(o, "null");
	json_put(o, "},\"signal\":");
	if (p->signal_s > 0)
		json_put(o, "{\"name\":\"USR1\",\"before_s\":%d}",
			 p->signal_s);
	else
		json_put(o, "null");
}

int autosize_plan_to_json(const autosize_plan *p, char *buf, size_t len)
{
	json_out o = {buf, len, 0};
	const autosize_memory *m = &p->mem;
	int i;

	/* doc/plan-json.md describes every field; schema_version changes
	 * when a field changes meaning or goes (not when one is added) */
	json_put(&o, "{\"schema_version\":%d,\"feasible\":%s,\"reason\":",
		 AUTOSIZE_PLAN_JSON_SCHEMA, p->feasible ? "true" : "false");
	json_string(&o, p->reason);
	json_put(&o, ",\"partition\":");
	json_string(&o, p->part.name);
	json_put(&o, ",\"gpu\":");
	json_string(&o, p->part.gpu ? p->part.gpu->name : "");
	json_put(&o, ",\"framework\":\"%s\",\"precision\":\"%s\","
		 "\"vp\":%d,\"cp\":%d,\"ep\":%d,\"etp\":%d,"
		 "\"moe_dispatcher\":",
		 autosize_framework_name(p->framework),
		 autosize_precision_name(p->precision), p->vp, p->cp, p->ep,
		 p->etp);
	if (p->moe_dispatcher != AUTOSIZE_MOE_DISPATCH_DEFAULT)
		json_string(&o, autosize_moe_dispatcher_name(
					p->moe_dispatcher));
	else
		json_put(&o, "null");
	json_put(&o, ",\"perf\":");
	json_string(&o, p->perf_generation);
	json_put(&o, ",\"nodes\":%d,\"gpus_per_node\":%d,\"gpus\":%d,"
		 "\"segment_nodes\":%d,\"gpus_min\":%.0f,\"tp\":%d,\"pp\":%d,\"dp\":%d,"
		 "\"zero_stage\":%d,\"recompute\":\"%s\","
		 "\"recompute_layers\":%d,\"micro_batch\":%d,"
		 "\"grad_accum\":%d,\"seq_len\":%d,\"global_batch\":%d,"
		 "\"params\":%.0f,\"params_active\":%.0f,\"tokens\":%.0f,"
		 "\"flops_total\":%.6g,",
		 p->nodes, p->gpus_per_node, p->gpus, p->segment_nodes,
		 p->gpus_min, p->tp,
		 p->pp, p->dp, p->zero_stage,
		 autosize_recompute_name(p->recompute), p->recompute_layers,
		 p->micro_batch,
		 p->grad_accum, p->seq_len, p->global_batch, p->params,
		 p->params_active, p->tokens, p->flops_total);
	if (p->stage_layers[0] > 0)
		json_put(&o, "\"stage_layers\":[%d,%d,%d],",
			 p->stage_layers[0], p->stage_layers[1],
			 p->stage_layers[2]);
	else
		json_put(&o, "\"stage_layers\":null,");
	json_put(&o, "\"memory_per_gpu_bytes\":{\"weights\":%.0f,"
		 "\"gradients\":%.0f,\"optimizer\":%.0f,\"activations\":%.0f,"
		 "\"other\":%.0f,\"total\":%.0f,\"cache\":%.0f,"
		 "\"usable\":%.0f},",
		 m->weights_bytes, m->gradients_bytes, m->optimizer_bytes,
		 m->activations_bytes, m->other_bytes, m->total_bytes,
		 m->cache_bytes, m->usable_bytes);
	json_put(&o, "\"memory_stage\":\"%s\",",
		 p->pp <= 1 ? "only" : m->last_stage ? "last" : "first");
	json_put(&o, "\"mfu\":%.4f,\"hfu\":%.4f,\"tflops_per_gpu\":%.2f,"
		 "\"tokens_per_s\":%.1f,\"step_s\":%.4f,\"train_hours\":%.3f,"
		 "\"train_hours_low\":%.3f,\"train_hours_high\":%.3f,"
		 "\"time_limit_min\":%ld,\"chained_jobs\":%d,"
		 "\"gpu_hours\":%.2f,\"cost\":%.2f,\"currency\":",
		 p->mfu, p->hfu, p->tflops_per_gpu, p->tokens_per_s, p->step_s,
		 p->train_hours, p->train_hours_low, p->train_hours_high,
		 p->time_limit_min, p->chained_jobs,
		 p->gpu_hours, p->cost);
	json_string(&o, p->part.currency);
	json_step_parts(&o, &p->step);
	json_put(&o, ",\"goodput\":%.4f,\"interruptions\":%.1f,"
		 "\"run_efficiency\":%.4f,\"eval_tokens\":%.6g,"
		 "\"eval_hours\":%.3f", p->goodput, p->interruptions,
		 p->run_efficiency, p->eval_tokens, p->eval_hours);
	json_renter(&o, p);
	json_chain(&o, p);
	if (p->calibration.applied) {
		const autosize_plan_calibration *c = &p->calibration;

		json_put(&o, ",\"calibration\":{\"jobs\":%d,\"users\":%d,"
			 "\"speed_factor\":%.4f,\"speed_low\":%.4f,"
			 "\"speed_high\":%.4f,\"memory_factor\":%.4f,"
			 "\"regime\":", c->jobs, c->users, c->speed_factor,
			 c->speed_low, c->speed_high, c->memory_factor);
		json_string(&o, c->regime);
		json_put(&o, "}");
	}
	json_put(&o, ",\"memory_reserve\":%.3f,\"time_reserve\":%.3f,"
		 "\"warnings\":[", p->memory_reserve, p->time_reserve);
	for (i = 0; i < p->n_warnings; i++) {
		if (i)
			json_put(&o, ",");
		json_string(&o, p->warnings[i]);
	}
	json_put(&o, "]}");
	return o.used < len ? (int)o.used : -1;
}

/* Published runs a plan's JSON cites (doc/plan-json.md). */
#define PLAN_JSON_PUBLISHED 3

int autosize_plan_published_json(const autosize_request *r,
				 const autosize_plan *p, char *buf, size_t len)
{
	static const struct {
		int bit;
		const char *name;
	} match[] = {
		{AUTOSIZE_MATCH_GENERATION, "generation"},
		{AUTOSIZE_MATCH_FRAMEWORK, "framework"},
		{AUTOSIZE_MATCH_STACK, "stack"},
		{AUTOSIZE_MATCH_MOE, "moe"},
		{AUTOSIZE_MATCH_PEFT, "peft"},
	};
	autosize_published near[PLAN_JSON_PUBLISHED];
	json_out o = {buf, len, 0};
	int i, k, n, first;

	if (!buf || len == 0)
		return -1;
	n = autosize_published_nearest(r, p, near, PLAN_JSON_PUBLISHED);
	json_put(&o, "\"published_runs\":[");
	for (i = 0; i < n; i++) {
		const autosize_published *u = &near[i];

		json_put(&o, "%s{\"id\":", i ? "," : "");
		json_string(&o, u->id);
		json_put(&o, ",\"half\":");
		json_string(&o, u->half);
		json_put(&o, ",\"generation\":");
		json_string(&o, u->generation);
		json_put(&o, ",\"framework\":");
		json_string(&o, u->framework);
		json_put(&o, ",\"stack\":");
		json_string(&o, u->stack);
		json_put(&o, ",\"moe\":%s,\"peft\":%s,\"gpus\":%d,"
			 "\"params\":%.0f,\"seq_len\":%d,\"metric\":",
			 u->moe ? "true" : "false", u->peft ? "true" : "false",
			 u->gpus, u->params, u->seq_len);
		json_string(&o, u->metric);
		json_put(&o, ",\"error\":%.3f,\"known_miss\":%s,"
			 "\"distance\":%.3f,\"matches\":[", u->error,
			 u->known_miss ? "true" : "false", u->distance);
		for (k = 0, first = 1; k < (int)(sizeof(match) /
						 sizeof(match[0])); k++)
			if (u->matches & match[k].bit) {
				json_put(&o, "%s\"%s\"", first ? "" : ",",
					 match[k].name);
				first = 0;
			}
		json_put(&o, "],\"source\":");
		json_string(&o, u->source);
		json_put(&o, "}");
	}
	json_put(&o, "]");
	return o.used < len ? (int)o.used : -1;
}
