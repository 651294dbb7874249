/*
 * autosize: what a training run's checkpoints need: the size of one
 * (weights and optimizer state as the framework saves them), the write
 * bandwidth that keeps writing them under a share of the run, the
 * storage the kept ones take, and the time they add to a job's time
 * limit (policy `checkpoint:`, partition `storage_write_gbs` and
 * `storage_tb`; man autosize.yaml, doc/sizing-model.md
 * "Checkpoints and storage").
 */
#ifndef AUTOSIZE_CHECKPOINT_H
#define AUTOSIZE_CHECKPOINT_H

#include <stddef.h>

/* Documented defaults of the policy's `checkpoint:`. */
#define AUTOSIZE_CHECKPOINT_INTERVAL_S 3600.0
#define AUTOSIZE_CHECKPOINT_MAX_SHARE 0.05
#define AUTOSIZE_CHECKPOINT_KEEP 3
/* Beyond a checkpoint's write, the warning signal's lead before a
 * chained job's limit (Slurm sends it up to a minute early or late
 * within its 30 s timer; a step's last iteration finishes first). */
#define AUTOSIZE_CHECKPOINT_SIGNAL_MARGIN_S 300.0

typedef struct autosize_checkpoint_policy {
	double interval_s;  /* training time between checkpoints */
	double max_share;   /* most of the run spent writing them, 0..1 */
	int keep;           /* checkpoints kept on storage at once */
	double signal_margin_s; /* the warning signal comes this long
				 * before a chained job's limit, beyond
				 * the checkpoint's write time */
} autosize_checkpoint_policy;

/* A plan's checkpoints (plan->ckpt). Bandwidths are GB/s = 1e9 B/s,
 * sizes bytes, as storage vendors quote them. */
typedef struct autosize_checkpoint {
	double trained_params;   /* parameters whose state is saved (LoRA:
				  * the adapters; the frozen base is not) */
	double bytes_per_param;  /* as the framework saves them */
	double bytes;            /* one checkpoint, all ranks together */
	double shard_bytes;      /* the most one rank writes */
	double interval_s;       /* the policy's, or the run when shorter */
	double need_write_gbs;   /* all ranks together, to write one in
				  * max_share x interval_s */
	double write_s;          /* one checkpoint: at the partition's
				  * storage_write_gbs, else at the need */
	int count;               /* written over the run */
	double hours;            /* writing them all */
	double job_write_s;      /* writing those of one job (of a chain):
				  * part of its time limit */
	int keep;                /* kept at once */
	double storage_bytes;    /* keep x bytes */
} autosize_checkpoint;

/* Fill cp with the documented defaults (1 h, 0.05, 3, 5 min). */
void autosize_checkpoint_policy_init(autosize_checkpoint_policy *cp);

/* Checkpoints a run of train_s writes, one every interval_s and the last
 * at its end: ceil(train_s / interval_s), 0 for no run. */
int autosize_checkpoint_count(double train_s, double interval_s);

/*
 * Training seconds one job with time limit limit_s holds when it spends
 * startup_s starting and write_s on each checkpoint it writes (one every
 * interval_s of training and one at its end); 0 when not even one
 * checkpoint fits.
 */
double autosize_checkpoint_job_train_s(double limit_s, double startup_s,
				       double interval_s, double write_s);

/* bytes as storage is sold (decimal): "980 GB", "2.9 TB", "35 MB";
 * returns buf. */
const char *autosize_checkpoint_format_bytes(double bytes, char *buf,
					     size_t len);

#endif
