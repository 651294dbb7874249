/*
 * autosize: a chained run that is done ends its chain (acct.h). When the
 * figures a job of a chain reported reach slurmctld (`autosize spool
 * --flush` at the batch script's end, as root) and they say the run has
 * trained all its tokens, the chain's jobs still pending after it are
 * cancelled, each told why in its record (done_at=JOB): a run that
 * finishes early leaves no follower to start, wait and exit.
 *
 * Only jobs of the same user (slurmctld's user of the job that reported,
 * not anything the job says) with the same chain id and a later place are
 * touched, so a record a user shaped (the chain id travels from sbatch)
 * can end no one's jobs but their own.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "acct.h"

#ifdef AUTOSIZE_HAVE_SLURM
#include <stdbool.h>
#include <stdint.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* Reported progress this close to the run's tokens is all of them (the
 * record keeps 6 digits). */
#define CHAIN_DONE_TOLERANCE 1e-5

/* job_info's record, decoded; 0 when it has none that reads. */
static int chain_record_of(const slurm_job_info_t *j, autosize_record *rec)
{
	autosize_error e;
	size_t start, len;

	return j->admin_comment &&
	       autosize_record_find(j->admin_comment, &start, &len) &&
	       autosize_record_decode(j->admin_comment + start, len,
				      "AdminComment", rec, &e) == AUTOSIZE_OK;
}

/* 1 when rec's chain is done by its reported progress. */
static int chain_complete(const autosize_record *rec)
{
	double run = rec->tokens + rec->tokens_done;

	return rec->chain[0] && run > 0 &&
	       rec->m_tokens_done >= run * (1 - CHAIN_DONE_TOLERANCE);
}

/* The follower's record says why it never ran, then it is cancelled. */
static int chain_cancel(const slurm_job_info_t *j, autosize_record *rec,
			unsigned long done_at)
{
	char token[AUTOSIZE_RECORD_MAX], comment[AUTOSIZE_ADMIN_COMMENT_MAX];
	job_desc_msg_t d;
	char id[24];

	rec->done_at = done_at;
	if (autosize_record_encode(rec, token, sizeof(token)) >= 0 &&
	    autosize_record_attach(j->admin_comment, token, comment,
				   sizeof(comment)) >= 0) {
		snprintf(id, sizeof(id), "%u", j->job_id);
		slurm_init_job_desc_msg(&d);
		d.job_id_str = id;
		d.admin_comment = comment;
		(void)slurm_update_job(&d);
	}
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	{
		slurm_step_id_t step = {.job_id = j->job_id,
					.step_id = NO_VAL,
					.step_het_comp = NO_VAL};

		return slurm_kill_job(step, SIGKILL, 0) == SLURM_SUCCESS;
	}
#else
	return slurm_kill_job(j->job_id, SIGKILL, 0) == SLURM_SUCCESS;
#endif
}

int acct_chain_end(unsigned long job_id, char *why, size_t len)
{
	job_info_msg_t *msg = NULL, *mine = NULL;
	autosize_record rec, f;
	char ids[256] = "";
	uint32_t i, uid;
	size_t used = 0;
	int n = 0, rc;

	why[0] = '\0';
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	{
		slurm_step_id_t step = {.job_id = (uint32_t)job_id,
					.step_id = NO_VAL,
					.step_het_comp = NO_VAL};

		rc = slurm_load_job(&msg, step, SHOW_ALL);
	}
#else
	rc = slurm_load_job(&msg, (uint32_t)job_id, SHOW_ALL);
#endif
	if (rc != SLURM_SUCCESS || !msg || msg->record_count < 1 ||
	    msg->job_array[0].job_id != job_id ||
	    !chain_record_of(&msg->job_array[0], &rec) ||
	    !chain_complete(&rec)) {
		if (msg)
			slurm_free_job_info_msg(msg);
		return 0;
	}
	uid = msg->job_array[0].user_id;
	slurm_free_job_info_msg(msg);
	if (slurm_load_job_user(&mine, uid, SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(why, len, "chain %s is done, but its followers could "
			 "not be listed: %s", rec.chain,
			 slurm_strerror(errno));
		return -1;
	}
	for (i = 0; mine && i < mine->record_count; i++) {
		const slurm_job_info_t *j = &mine->job_array[i];

		if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING ||
		    !chain_record_of(j, &f) ||
		    strcmp(f.chain, rec.chain) != 0 ||
		    f.chain_index <= rec.chain_index ||
		    !chain_cancel(j, &f, job_id))
			continue;
		n++;
		used += (size_t)snprintf(ids + used, used < sizeof(ids)
					 ? sizeof(ids) - used : 0, " %u",
					 j->job_id);
		if (used >= sizeof(ids))
			used = sizeof(ids) - 1;
	}
	slurm_free_job_info_msg(mine);
	if (n)
		snprintf(why, len, "chain %s done (%.6g of %.6g tokens): "
			 "followers cancelled:%s", rec.chain,
			 rec.m_tokens_done, rec.tokens + rec.tokens_done, ids);
	return n;
}

#else /* built without libslurm's headers */

int acct_chain_end(unsigned long job_id, char *why, size_t len)
{
	why[0] = '\0';
	return 0;
}

#endif
