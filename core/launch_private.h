/*
 * autosize internal: the bounded string builder the launcher files share
 * (core/launch_out.c; used by launch.c and launch_dp.c), launch_run.c's
 * launch_peft and launch_dp.c's launch_dp_none.
 */
#ifndef AUTOSIZE_LAUNCH_PRIVATE_H
#define AUTOSIZE_LAUNCH_PRIVATE_H

/* Minutes from a job's start to Megatron-LM's clock (its initialisation):
 * taken off --exit-duration-in-mins. */
#define LAUNCH_EXIT_SLACK_MIN 2

#include <stddef.h>
#include "autosize/launch.h"

/* Append to a fixed buffer; ok drops to 0 once anything did not fit. */
typedef struct launch_out {
	char *buf;
	size_t len;
	size_t used;
	int ok;
} launch_out;

void launch_init(launch_out *o, char *buf, size_t len);
void launch_put(launch_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Length written, or -1 (and "") when something did not fit. */
int launch_done(launch_out *o);
/* buf made "" (when it has room); returns -1. */
int launch_fail(char *buf, size_t len);
/* 1 for adapter training (LoRA, QLoRA; launch_run.c). */
int launch_peft(const autosize_request *r);
/* 1 when no launcher of an FSDP plan runs it (no accelerate, Trainer,
 * axolotl, torchtune or torchtitan line), with why (len bytes;
 * launch_dp.c). */
int launch_dp_none(const autosize_request *r, const autosize_plan *p,
		   char *why, size_t len);

#endif
