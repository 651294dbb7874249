/*
 * autosize: chained jobs (doc/users.md "Long runs: chained jobs"). A run
 * longer than its partition's MaxTime is queued by sbatch as the first
 * job and its followers, each depending on the one before; the SPANK
 * plugin marks each submission with AUTOSIZE_CHAIN so that slurmctld
 * plans and records it as the job of the chain it is.
 *
 * The mark, as sbatch sends it in the job's spank_job_env:
 *   AUTOSIZE_CHAIN=ID:INDEX:PREV:SIGNAL
 * ID the run's id (16 lower-case hex digits sbatch drew), INDEX this job's
 * place from 1, PREV the job it follows (0 for the first), SIGNAL the
 * seconds before its limit the job's SIGUSR1 comes (sbatch set it; 0: the
 * user's own --signal, whatever it is). Untrusted like every option: read
 * strictly.
 */
#ifndef AUTOSIZE_CHAIN_H
#define AUTOSIZE_CHAIN_H

#include <stddef.h>
#include "autosize/error.h"
#include "autosize/jobrecord.h"

#define AUTOSIZE_ENV_CHAIN "AUTOSIZE_CHAIN"
/* Jobs one chain may have (a max time barely above the start-up would
 * ask for more: the plan's count is cut to this). */
#define AUTOSIZE_CHAIN_MAX_JOBS 1000
/* The mark's longest text, with its NUL. */
#define AUTOSIZE_CHAIN_MARK_MAX 48

typedef struct autosize_chain_mark {
	char id[AUTOSIZE_CHAIN_ID_MAX]; /* "" no mark */
	int index;                      /* from 1 */
	unsigned long prev;             /* the job this one follows; 0 */
	int signal_s;                   /* 0: the user's own signal */
} autosize_chain_mark;

/* A new chain id (16 hex digits of the kernel's randomness) into id;
 * 0, or -1 when none could be drawn. */
int autosize_chain_id_new(char id[AUTOSIZE_CHAIN_ID_MAX]);

/* 1 when s is a chain id: 16 lower-case hex digits. */
int autosize_chain_id_ok(const char *s);

/* The mark as its text ("ID:INDEX:PREV:SIGNAL"); length or -1. */
int autosize_chain_mark_encode(const autosize_chain_mark *m, char *buf,
			       size_t len);

/* Read a mark's text strictly: the id, INDEX 1..AUTOSIZE_CHAIN_MAX_JOBS,
 * PREV 0 for the first job and a job id after it, SIGNAL 0..65535. */
autosize_err autosize_chain_mark_decode(const char *text,
					autosize_chain_mark *m,
					autosize_error *e);

/* The mark among a job's environment entries (n of them; "NAME=value"):
 * 0 with m->id "" when there is none, else as decoded. */
autosize_err autosize_chain_from_env(const char *const *env, size_t n,
				     autosize_chain_mark *m,
				     autosize_error *e);

#endif
