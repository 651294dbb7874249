/*
 * autosize: the renter's scaling probe. Before the
 * money goes in, run the user's own script for a few steps at two sizes
 * (4 and 8 GPUs of a node; 1 and 2 nodes when the plan spans nodes),
 * read what each probe measured (its plan record with $AUTOSIZE_REPORT's
 * figures, jobrecord.h) and judge it by the renter's rules of thumb:
 * doubling the GPUs must
 * give at least 1.6x, a GPU must reach 35% of its peak, nothing may run
 * out of memory. `autosize probe` (cli/probe_cmd.c) submits and
 * collects; this part judges.
 */
#ifndef AUTOSIZE_PROBE_H
#define AUTOSIZE_PROBE_H

#include "autosize/catalog.h"
#include "autosize/jobrecord.h"

/* Doubling the GPUs must give at least this speedup (seed 000); other
 * ratios scale it: speedup >= 0.8 x the GPU ratio. */
#define AUTOSIZE_PROBE_MIN_SPEEDUP_2X 1.6
/* Below this share of peak per GPU, fix the code or the data loading
 * before adding GPUs (seed 000: 35%; 001: 40%). */
#define AUTOSIZE_PROBE_MIN_MFU 0.35
/* Measured against predicted speed under which the plan is off enough
 * that the real job should be sized from the measurement. */
#define AUTOSIZE_PROBE_OFF_RATIO 0.8
/* Steps a probe runs when the user says nothing ($AUTOSIZE_PROBE_STEPS). */
#define AUTOSIZE_PROBE_STEPS 100
#define AUTOSIZE_PROBE_ADVICE_MAX 6
#define AUTOSIZE_PROBE_ADVICE_LEN 320

/* One probe job, as it finished. */
typedef struct autosize_probe_run {
	long job_id;
	char state[32];          /* Slurm's JobState */
	int oom;                 /* it ran out of memory */
	int has_record;          /* its plan record was read */
	int measured;            /* the script reported figures */
	int gpus, nodes;
	double tokens_per_s;     /* measured, whole job */
	double pred_tokens_per_s;
	double mem_bytes;        /* measured peak per GPU (0: not said) */
	double pred_mem_bytes;   /* planned tensors per GPU */
	double mfu;              /* measured, 6N per token over the peak */
	double pred_mfu;
} autosize_probe_run;

/* The judgement of two probes, the smaller first. */
typedef struct autosize_probe_verdict {
	int compared;            /* both measured: speedup is known */
	double gpu_ratio;        /* larger / smaller GPUs */
	double speedup;          /* larger / smaller tokens per second */
	double min_speedup;      /* what the rule asks at this ratio */
	int scales_badly;
	int ok;                  /* both measured, nothing to fix */
	int n_advice;            /* what to fix first, most urgent first */
	char advice[AUTOSIZE_PROBE_ADVICE_MAX][AUTOSIZE_PROBE_ADVICE_LEN];
} autosize_probe_verdict;

/*
 * Fill run from a probe job's decoded record (what was planned for its
 * size and what it measured) and its GPU (peak BF16 for MFU = 6 x
 * params x tokens/s / (GPUs x peak), the 6ND rule; NULL: MFU 0). Keeps
 * run's job_id, state and oom.
 */
void autosize_probe_from_record(const autosize_record *r,
				const autosize_gpu *gpu,
				autosize_probe_run *run);

/* The speedup the rule asks for going from `small` to `large` GPUs. */
double autosize_probe_min_speedup(int small, int large);

/* Judge two probes (small: fewer GPUs). */
void autosize_probe_assess(const autosize_probe_run *small,
			   const autosize_probe_run *large,
			   autosize_probe_verdict *v);

/* 1 when a job's output shows it ran out of GPU memory (PyTorch's
 * "CUDA out of memory" / OutOfMemoryError, HIP's, or Slurm's oom-kill). */
int autosize_probe_output_oom(const char *text, size_t len);

#endif
