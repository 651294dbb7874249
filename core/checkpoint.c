/*
 * autosize: a plan's checkpoints: the size of one as the framework saves
 * it, the write bandwidth that keeps writing them under the policy's
 * share of the run, the storage the kept ones take, and the time they
 * add to a job (checkpoint.h). The policy's `checkpoint:` is read here.
 *
 * The renter's rule: checkpoints of several GB every few hundred steps
 * need fast shared storage; rental guides size a 40-GPU 7B run at
 * >= 10 TB and >= 10 GB/s.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "checkpoint_private.h"
#include "framework_private.h"
#include "policy_read.h"

/* fp32 master weights the optimizer keeps beside 16-bit ones. */
#define CKPT_FP32_B 4.0
#define CKPT_GB 1e9
#define CKPT_TB 1e12
#define CKPT_MAX_KEEP 1000
#define CKPT_MAX_SIGNAL_MARGIN_S 43200.0

static const char *const ckpt_keys[] = {"interval", "max_share", "keep",
					"signal_margin", NULL};

void autosize_checkpoint_policy_init(autosize_checkpoint_policy *cp)
{
	cp->interval_s = AUTOSIZE_CHECKPOINT_INTERVAL_S;
	cp->max_share = AUTOSIZE_CHECKPOINT_MAX_SHARE;
	cp->keep = AUTOSIZE_CHECKPOINT_KEEP;
	cp->signal_margin_s = AUTOSIZE_CHECKPOINT_SIGNAL_MARGIN_S;
}

int autosize_checkpoint_count(double train_s, double interval_s)
{
	double n;

	if (!(train_s > 0) || !(interval_s > 0))
		return 0;
	n = ceil(train_s / interval_s - 1e-9);
	if (n < 1)
		n = 1;
	if (n > INT_MAX)
		n = INT_MAX;   /* 100 years at a second: still counted */
	return (int)n;
}

double autosize_checkpoint_job_train_s(double limit_s, double startup_s,
				       double interval_s, double write_s)
{
	double m = limit_s - startup_s, k, t, t_less;

	if (!(interval_s > 0) || !(write_s >= 0) || !(m > write_s))
		return 0;
	/* t of training writes k = ceil(t / interval) checkpoints:
	 * t + k x write <= m. The best k is the first whose k intervals
	 * and writes pass m; one fewer holds (k - 1) full intervals. */
	k = ceil(m / (interval_s + write_s));
	t = fmin(m - k * write_s, k * interval_s);
	t_less = (k - 1) * interval_s;
	return t > t_less ? t : t_less;
}

/* Parameters whose state a checkpoint holds: all, or the LoRA adapters
 * (the frozen base is reloaded from the original, not saved). */
static double ckpt_trained_params(const sizing_job *job,
				  const autosize_plan *plan)
{
	sizing_layout one = {.tp = 1, .pp = 1, .dp = 1, .vp = 1,
			     .micro_batch = 1, .grad_accum = 1,
			     .cp = 1, .ep = 1};

	if (job->train_mode == AUTOSIZE_TRAIN_LORA ||
	    job->train_mode == AUTOSIZE_TRAIN_QLORA)
		return sizing_trained_params_per_gpu(job, &one);
	return plan->params;
}

void checkpoint_size(const sizing_job *job, autosize_plan *plan)
{
	autosize_checkpoint *ck = &plan->ckpt;
	double gpus = plan->gpus > 0 ? plan->gpus : 1, mp, weights_b;
	framework_state st;

	memset(ck, 0, sizeof(*ck));
	framework_state_bytes(job, &st);
	/* Saved: the weights as the framework holds them, an fp32 master
	 * copy when those are 16-bit, the optimizer's moments; never the
	 * gradients. Megatron dist_checkpointing (torch_dist) and
	 * DeepSpeed save bf16 params + fp32 master + Adam exp_avg and
	 * exp_avg_sq = 2 + 4 + 8 = 14 B/param; torch.distributed.checkpoint
	 * under FSDP2 saves the sharded fp32 params (the master) + moments
	 * = 4 + 8 = 12. */
	weights_b = st.weight_b;
	ck->bytes_per_param = weights_b +
			      (weights_b < CKPT_FP32_B ? CKPT_FP32_B : 0) +
			      framework_moment_bytes(job->optimizer);
	ck->trained_params = ckpt_trained_params(job, plan);
	ck->bytes = ck->trained_params * ck->bytes_per_param;
	if (framework_resolve(job->framework) ==
	    AUTOSIZE_FRAMEWORK_DEEPSPEED) {
		/* DeepSpeed save_checkpoint: data-parallel rank 0 of each
		 * model-parallel rank writes the 16-bit module
		 * (mp_rank_NN_model_states.pt; under ZeRO-3 each rank its
		 * partition), each rank its ZeRO partition of the
		 * optimizer state (without ZeRO, rank 0 all of it). */
		mp = plan->tp > 0 && plan->pp > 0
		     ? (double)plan->tp * plan->pp : 1;
		ck->shard_bytes =
			weights_b * ck->trained_params /
			(plan->zero_stage >= 3 ? gpus : mp) +
			(ck->bytes_per_param - weights_b) *
			ck->trained_params /
			(plan->zero_stage >= 1 ? gpus : mp);
	} else {
		/* Megatron's fully parallel save and DCP's deduplicated
		 * save plans spread the state, replicas written once,
		 * over every rank. */
		ck->shard_bytes = ck->bytes / gpus;
	}
}

const char *autosize_checkpoint_format_bytes(double bytes, char *buf,
					     size_t len)
{
	if (bytes >= CKPT_TB)
		snprintf(buf, len, "%.1f TB", bytes / CKPT_TB);
	else if (bytes >= CKPT_GB)
		snprintf(buf, len, "%.0f GB", bytes / CKPT_GB);
	else
		snprintf(buf, len, "%.0f MB", bytes / 1e6);
	return buf;
}

/* The partition's storage against what the checkpoints need. */
static void ckpt_warn(autosize_plan *plan,
		      const autosize_checkpoint_policy *cp)
{
	const autosize_checkpoint *ck = &plan->ckpt;
	const autosize_partition *part = &plan->part;
	char one[32], all[32];
	double fit;

	autosize_checkpoint_format_bytes(ck->bytes, one, sizeof(one));
	if (part->storage_write_gbs > 0 &&
	    ck->need_write_gbs > part->storage_write_gbs * (1 + 1e-9))
		autosize_plan_warn(plan, "checkpoints of %s need %.1f GB/s "
				   "to take %.0f%% of each %.1f h; partition "
				   "%s's storage writes %.1f GB/s: %.1f min "
				   "each, %.0f%% of the run (checkpoint every "
				   "%.1f h, or save asynchronously)", one,
				   ck->need_write_gbs, cp->max_share * 100,
				   ck->interval_s / 3600, part->name,
				   part->storage_write_gbs, ck->write_s / 60,
				   100 * ck->write_s / ck->interval_s,
				   ck->write_s / cp->max_share / 3600);
	if (part->storage_tb > 0 &&
	    ck->storage_bytes > part->storage_tb * CKPT_TB * (1 + 1e-9)) {
		fit = floor(part->storage_tb * CKPT_TB / ck->bytes);
		autosize_plan_warn(plan, "keeping %d checkpoints of %s needs "
				   "%s; partition %s's storage holds %.1f "
				   "TB: %s", ck->keep, one,
				   autosize_checkpoint_format_bytes(
					   ck->storage_bytes, all,
					   sizeof(all)),
				   part->name, part->storage_tb,
				   fit >= 1 ? "keep fewer" : "not even one "
				   "fits");
	}
}

void checkpoint_finish(autosize_plan *plan,
		       const autosize_checkpoint_policy *cp, double train_s)
{
	autosize_checkpoint *ck = &plan->ckpt;
	double gbs = plan->part.storage_write_gbs;

	ck->keep = cp->keep;
	ck->storage_bytes = cp->keep * ck->bytes;
	/* a run shorter than the interval writes one, at its end, within
	 * the same share of the run */
	ck->interval_s = train_s > 0 && train_s < cp->interval_s
			 ? train_s : cp->interval_s;
	ck->need_write_gbs = ck->bytes /
			     (cp->max_share * ck->interval_s) / CKPT_GB;
	/* at the storage's speed when the site states it, else at the
	 * most the policy allows */
	ck->write_s = gbs > 0 ? ck->bytes / (gbs * CKPT_GB)
			      : cp->max_share * ck->interval_s;
	ck->count = autosize_checkpoint_count(train_s, cp->interval_s);
	ck->hours = ck->count * ck->write_s / 3600;
	if (ck->bytes > 0)
		ckpt_warn(plan, cp);
}

autosize_err checkpoint_policy_parse(const autosize_ytree *t,
				     const autosize_ynode *root,
				     autosize_checkpoint_policy *cp,
				     autosize_error *e)
{
	const autosize_ynode *m, *n;
	autosize_err rc;

	rc = autosize_ytree_map(t, root, "checkpoint", AUTOSIZE_Y_OPTIONAL,
				&m, e);
	if (rc || !m)
		return rc;
	rc = autosize_ytree_check_keys(t, m, "checkpoint", ckpt_keys, e);
	if (!rc)   /* a duration is longer than zero (parse.c) */
		rc = policy_duration(t, m, "interval", 0, &cp->interval_s, e);
	if (!rc)
		rc = policy_fraction(t, m, "max_share", 1, &cp->max_share, e);
	if (!rc && !(cp->max_share > 0)) {
		n = autosize_ynode_get(m, "max_share");
		rc = autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
			"key 'max_share': 0 (expected the most of the run spent writing checkpoints, e.g. 0.05 or 5%%)");
	}
	if (!rc)
		rc = autosize_ytree_int(t, m, "keep", 0, 1, CKPT_MAX_KEEP,
					&cp->keep, NULL, e);
	/* longer than zero (parse.c), at most 12 h (Slurm's lead is 16
	 * bits of seconds, 18.2 h, and the write comes on top) */
	if (!rc)
		rc = policy_duration(t, m, "signal_margin", 0,
				     &cp->signal_margin_s, e);
	if (!rc && cp->signal_margin_s > CKPT_MAX_SIGNAL_MARGIN_S) {
		n = autosize_ynode_get(m, "signal_margin");
		rc = autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
			"key 'signal_margin': %.0f min is longer than 12 h "
			"(Slurm's warning signal comes at most 18 h before "
			"a limit)", cp->signal_margin_s / 60);
	}
	return rc;
}
