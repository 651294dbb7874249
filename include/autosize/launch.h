/*
 * autosize: what a job is told about its plan: a one-line summary, a
 * report, and the arguments of the common launchers (torchrun, Megatron-LM,
 * DeepSpeed). Pure string formatting: used by the SPANK plugin on compute
 * nodes and usable by the CLI.
 *
 * Every function writes a NUL-terminated string into buf (len bytes) and
 * returns its length, or -1 when it does not fit or an argument is invalid
 * (buf then holds "" when len > 0). Nothing is allocated.
 */
#ifndef AUTOSIZE_LAUNCH_H
#define AUTOSIZE_LAUNCH_H

#include <stddef.h>
#include "autosize/plan.h"

/* torchrun's default rendezvous port. */
#define AUTOSIZE_LAUNCH_RDZV_PORT 29500
/* Longest host name accepted (RFC 1035 full name). */
#define AUTOSIZE_LAUNCH_HOST_MAX 255

/*
 * One line: "2 nodes x 8 H100-SXM5-80GB, TP 8 PP 2 DP 1, ZeRO-1,
 * recompute full, micro-batch 1, grad accum 1024, global batch 1024 x 4096
 * tokens, MFU 31.7%, 24.9 h, time limit 1-04:36:00" (the time parts only
 * when the plan has a training time).
 */
int autosize_launch_summary(const autosize_plan *p, char *buf, size_t len);

/*
 * The full plan as several lines (each ending in '\n'), as the CLI prints
 * it: model, size, layout, memory, speed, time, cost, feasibility and
 * warnings. r gives the model name.
 */
int autosize_launch_report(const autosize_request *r, const autosize_plan *p,
			   char *buf, size_t len);

/*
 * torchrun arguments for the plan's size. One node: "--nnodes=1
 * --nproc-per-node=8 --standalone". More: "--nnodes=2 --nproc-per-node=8
 * --rdzv-backend=c10d --rdzv-endpoint=HOST:PORT --rdzv-id=RUN_ID"
 * (--rdzv-id only when run_id is given). host and run_id must be made of
 * letters, digits, '.', '_' and '-' (they end up word-split in a shell);
 * host is required with more than one node.
 */
int autosize_launch_torchrun_args(const autosize_plan *p, const char *host,
				  int port, const char *run_id, char *buf,
				  size_t len);

/*
 * Megatron-LM arguments: "--tensor-model-parallel-size 8
 * --pipeline-model-parallel-size 2 --micro-batch-size 1
 * --global-batch-size 1024 --seq-length 4096 [--sequence-parallel]
 * [--use-distributed-optimizer] [--recompute-granularity full
 * --recompute-method uniform | --recompute-granularity selective]
 * --bf16|--fp16 [--fp8-format hybrid]". --sequence-parallel with TP > 1
 * unless the request turned it off; the distributed optimizer (Megatron's
 * ZeRO-1) for any ZeRO stage >= 1.
 */
int autosize_launch_megatron_args(const autosize_plan *p,
				  const autosize_request *r, char *buf,
				  size_t len);

/*
 * A DeepSpeed configuration (JSON object, pretty-printed, ending in '\n'):
 * train_batch_size, train_micro_batch_size_per_gpu,
 * gradient_accumulation_steps, zero_optimization.stage, bf16/fp16
 * enabled (fp8 plans train in bf16 as far as DeepSpeed is concerned), and
 * activation_checkpointing when the plan recomputes.
 */
int autosize_launch_deepspeed_json(const autosize_plan *p,
				   const autosize_request *r, char *buf,
				   size_t len);

/*
 * The first host of a Slurm node list ("gpu[07-08,11],login1" ->
 * "gpu07"; "n1" -> "n1"; "a[1-2]-ib" -> "a1-ib"): the first entry, each
 * bracket replaced by the first number in it as written (zero padding
 * kept). -1 for an empty or malformed list or a name with characters
 * other than letters, digits, '.', '_' and '-'.
 */
int autosize_launch_first_host(const char *nodelist, char *buf, size_t len);

#endif
