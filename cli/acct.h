/*
 * autosize: one spool entry's figures into Slurm's records, through
 * libslurm (cli/acct.c): slurmctld's job while it runs, else the job's
 * accounting record once slurmdbd holds its end. Built without libslurm's
 * headers, acct_available says so.
 */
#ifndef AUTOSIZE_CLI_ACCT_H
#define AUTOSIZE_CLI_ACCT_H

#include <stddef.h>
#include "autosize/spool.h"

typedef enum acct_outcome {
	ACCT_DELIVERED,  /* in the job's AdminComment (where said) */
	ACCT_LATER,      /* not now (why says): keep it for a later try */
	ACCT_DROP        /* nothing to deliver (why says): not a sized job,
			  * nothing plausible, a record that does not read */
} acct_outcome;

/* 1 when built with libslurm. */
int acct_available(void);

/* en into the job's AdminComment record, the rest of the comment byte
 * for byte; why: where it went, or why not (one line). */
acct_outcome acct_deliver(const autosize_spool_entry *en, char *why,
			  size_t len);

#ifdef AUTOSIZE_HAVE_SLURM
#include <stdint.h>
/* 1 when a job whose slurmctld or slurmdbd state (job_state: base and
 * flags) is this has not ended (autosize_job_state_live on the name
 * Slurm gives it). */
int acct_state_live(uint32_t state);
#endif

/* Close what acct_deliver opened (the slurmdbd connection). */
void acct_end(void);

/*
 * cli/chain_end.c: after job_id's figures reached slurmctld, when they
 * say its chain's run has trained all its tokens, the chain's later jobs
 * still pending (the same user's, the same chain id) are cancelled, their
 * records saying done_at=job_id. Returns how many (why names them), 0
 * when the run goes on or the job is not a chain's, -1 when they could
 * not be listed (why says so).
 */
int acct_chain_end(unsigned long job_id, char *why, size_t len);

#endif
