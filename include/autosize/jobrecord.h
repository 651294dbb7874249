/*
 * autosize: the plan as it travels with a job, in Slurm's AdminComment
 * (users cannot edit it; slurmdbd keeps it next to the job's elapsed
 * time, state and allocation), and the figures the job measured.
 *
 * Format, version 1: one token without spaces,
 *   autosize:v1:key=value,key=value,...
 * keys [a-z_]+, values [A-Za-z0-9._+-]+ (numbers in C's %.6g, names as
 * the policy spells them). A reader skips keys it does not know (a later
 * writer may add some) and refuses a malformed token. doc/closed-loop.md
 * lists the keys.
 */
#ifndef AUTOSIZE_JOBRECORD_H
#define AUTOSIZE_JOBRECORD_H

#include <stddef.h>
#include "autosize/plan.h"

#define AUTOSIZE_RECORD_PREFIX "autosize:v1:"
/* Longest token written (the plan with measured figures). */
#define AUTOSIZE_RECORD_MAX 640
/* The most the measured keys add (m_tok_s= .. m_lines=, m_done=, each at its
 * widest %.6g): a record is written with room for them. */
#define AUTOSIZE_RECORD_MEASURED_MAX 101
/* Longest AdminComment handled (a site's comment plus the token). */
#define AUTOSIZE_ADMIN_COMMENT_MAX 4096
#define AUTOSIZE_FRAMEWORK_NAME_MAX 16
/* warn=: the plan's warning codes joined by '+' (plan.h
 * autosize_warning_code), at most this long with its NUL. */
#define AUTOSIZE_RECORD_WARN_MAX 64
/* chain=: a chain's id, 16 lower-case hex digits, with its NUL. */
#define AUTOSIZE_CHAIN_ID_MAX 17

typedef struct autosize_record {
	/* the plan */
	double params;               /* params= */
	double tokens;               /* tokens= (0: none given) */
	char partition[AUTOSIZE_PART_NAME_MAX]; /* part= */
	char gpu[AUTOSIZE_GPU_NAME_MAX];        /* gpu= */
	char framework[AUTOSIZE_FRAMEWORK_NAME_MAX]; /* fw= */
	int nodes, gpus_per_node;    /* nodes=, gpn= */
	int tp, pp, dp, cp, ep, zero_stage, micro_batch, grad_accum; /* tp=
				      * pp= dp= cp= ep= zero= mb= ga= */
	int etp;                     /* etp= (a MoE plan's expert TP; 0
				      * absent: the rule, as before) */
	int seq_len, global_batch;   /* seq=, gbs= (sequences) */
	int vp;                      /* vp=: virtual stages, 0 = none */
	int recompute;               /* rc=: autosize_recompute, 0 = none */
	int recompute_layers;        /* rcl= */
	double tokens_per_s;         /* tok_s=, whole job */
	double step_s;               /* step_s= */
	double train_hours;          /* hours= */
	double train_hours_low;      /* hours_lo= */
	double train_hours_high;     /* hours_hi= */
	double mem_bytes;            /* mem_b=: predicted device peak per
				      * GPU (what the job needs plus
				      * PyTorch's cache where the GPU has
				      * room) */
	double alloc_bytes;          /* alloc_b=: of it, tensors (what
				      * torch.cuda.max_memory_allocated
				      * counts: mem_b less CUDA context,
				      * NCCL buffers, fragmentation,
				      * cache) */
	long time_limit_min;         /* limit_min= */
	double cal_speed;            /* cal_speed=: calibration used, 0 none */
	int cal_jobs;                /* cal_jobs= */
	double cal_memory;           /* cal_mem=: memory factor used, 0 none */
	int ask_gpus;                /* ask_gpus=: GPUs the user asked for
				      * (-N x GPUs per node, or --gpus), 0:
				      * not given */
	long ask_min;                /* ask_min=: the user's time limit
				      * (minutes), 0: not given */
	char warn[AUTOSIZE_RECORD_WARN_MAX]; /* warn=: the plan's warning
				      * codes, '+'-joined; "" none */
	/* what the request was, where it is not the default (replay
	 * rebuilds the request from them; show names the model) */
	char model[AUTOSIZE_NAME_MAX]; /* model=: its name; "" none */
	char mode[16];               /* mode=: train mode; "" pretrain */
	char stack[24];              /* stack=: "" none */
	char prec[8];                /* prec=: precision; "" bf16 */
	/* a run of chained jobs (doc/users.md "Long runs") */
	char chain[AUTOSIZE_CHAIN_ID_MAX]; /* chain=: the run's id (16 hex
				      * digits sbatch drew); "" none */
	int chain_index;             /* ci=: this job's place, from 1 */
	int chain_jobs;              /* ck=: jobs the chain was planned */
	double tokens_done;          /* done=: tokens trained before the
				      * plan (--train-tokens-done) */
	double eval_tokens;          /* ev=: tokens the plan evaluates
				      * (--eval-tokens, its share of them) */
	double chain_job_tokens;     /* jtok=: one job's tokens at the
				      * predicted speed */
	int signal_s;                /* sig=: SIGUSR1 this long before the
				      * limit (autosize's), 0 none */
	/* what the job reported ($AUTOSIZE_REPORT), when it did */
	int has_measured;
	double m_tokens_per_s;       /* m_tok_s=: median over the lines */
	double m_step_s;             /* m_step_s= (0: not reported) */
	double m_mem_bytes;          /* m_mem_b=: largest (0: not reported) */
	int m_lines;                 /* m_lines=: lines used */
	double m_tokens_done;        /* m_done=: the run's tokens trained
				      * when the job ended (the largest
				      * tokens_done it reported; 0 none) */
	unsigned long done_at;       /* done_at=: a follower cancelled
				      * unrun: the run was complete when
				      * this job ended (0 none) */
} autosize_record;

void autosize_record_init(autosize_record *r);

/* Jobs of r's chain: ck=, else, for a record written before chains
 * were queued, the limits its hours take (1: one job). */
int autosize_record_chain_jobs(const autosize_record *r);

/* The record of a plan (its numbers, no measured figures). */
void autosize_record_from_plan(const autosize_plan *plan,
			       autosize_record *r);

/*
 * Write r as one token into buf. Returns its length, or -1 when it does
 * not fit or a name holds a character outside the format (nothing useful
 * written).
 */
int autosize_record_encode(const autosize_record *r, char *buf, size_t len);

/*
 * Read one token (len bytes, from "autosize:v1:"). Strict: a bad number,
 * an out-of-range value, a repeated key or a missing plan key is an
 * error naming the key. `what` names the input ("job 12's AdminComment").
 */
autosize_err autosize_record_decode(const char *text, size_t len,
				    const char *what, autosize_record *r,
				    autosize_error *e);

/*
 * Find the record token in an AdminComment: *start, *len of the last
 * "autosize:v1:" that begins the text or follows a space. Returns 0 when
 * there is none.
 */
int autosize_record_find(const char *comment, size_t *start, size_t *len);

/*
 * The AdminComment with token in it: the existing record replaced, else
 * appended after one space to what the site wrote (never clobbered).
 * Returns the length, or -1 when out (len bytes) is too small.
 */
int autosize_record_attach(const char *comment, const char *token,
			   char *out, size_t len);

/*
 * 0 when the record describes the job as the scheduler ran it: the same
 * partition, node count and GPUs (GPUs in all, nodes x gpn). partition
 * NULL or "", and nodes or gpus below 0, are not known and not
 * compared. 1 when it does not (scontrol update after submission moved
 * the job, or the plan was not applied): why says how, in a few words.
 * Its measured figures then describe another job than the plan.
 */
int autosize_record_mismatch(const autosize_record *r, const char *partition,
			     long nodes, long gpus, char *why, size_t len);

/*
 * Pin r to the layout slurmctld planned (the record of the job's plan):
 * its GPU, size, TP, PP, VP, CP, EP, ZeRO stage, micro-batch,
 * recomputation and framework, where the request does not pin them
 * itself. The nodes then lay out what slurmctld decided, whatever
 * policy they hold. Names the GPU (r->gpu) only when the request names
 * no partition.
 */
void autosize_record_pin(const autosize_record *rec, autosize_request *r);

/* ---- what the job measured ($AUTOSIZE_REPORT) ---- */

/* Bytes of a report read at most (its last ones when longer). */
#define AUTOSIZE_REPORT_MAX_BYTES (256 * 1024)
/* Plausible measured / planned figures; outside: not attached. */
#define AUTOSIZE_REPORT_RATIO_MIN 0.1
#define AUTOSIZE_REPORT_RATIO_MAX 10.0

/* What a report's lines say, before they are held against a plan. */
typedef struct autosize_measured {
	double tokens_per_s;         /* median over the lines; 0 none */
	double step_s;               /* median; 0 none */
	double mem_bytes;            /* largest peak_memory_bytes; 0 none */
	double tokens_done;          /* largest tokens_done: the whole
				      * run's tokens trained so far (a
				      * chained job's progress); 0 none */
	int lines;                   /* lines read (0: nothing) */
} autosize_measured;

/*
 * The lines a training loop appended to $AUTOSIZE_REPORT (len bytes; a
 * partial first line, when the text is a file's tail, is skipped): each
 * one JSON object with any of tokens_per_s, step_s, peak_memory_bytes,
 * tokens_done (non-negative numbers; other keys ignored). Bad lines are
 * skipped and counted in *bad. m: the median tokens_per_s and step_s
 * over the lines, the largest peak_memory_bytes and tokens_done.
 * Returns the lines read (0: none).
 */
int autosize_report_summary(const char *text, size_t len, int partial_first,
			    autosize_measured *m, int *bad);

/*
 * m into r's measured figures, each kept only within RATIO_MIN..MAX of
 * r's plan (tokens_done: at most twice the run's tokens). Returns the
 * lines used (0: nothing attached).
 */
int autosize_record_add_measured(autosize_record *r,
				 const autosize_measured *m);

/* autosize_report_summary, then autosize_record_add_measured into r. */
int autosize_record_measure(autosize_record *r, const char *text, size_t len,
			    int partial_first, int *bad);

/*
 * The measured figures into the plan record of an AdminComment, the
 * rest of the comment kept byte for byte (autosize_record_attach): 1
 * with the new comment in out, 0 when the comment holds no plan record
 * or nothing of m is plausible (nothing to write), -1 when the record
 * does not read or the result does not fit len (e says why). `what`
 * names the comment in e.
 */
int autosize_record_merge(const char *comment, const autosize_measured *m,
			  const char *what, char *out, size_t len,
			  autosize_error *e);

#endif
