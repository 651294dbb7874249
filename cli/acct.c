/*
 * autosize: a spool entry's figures into the job's AdminComment, through
 * libslurm (acct.h). No command line is parsed or built: the comment is
 * read and written as the bytes slurmctld and slurmdbd hold (sacctmgr
 * lowercases a whole comment on 22.05 and turns its quotes into
 * backquotes on every release).
 *
 * A job slurmctld still runs takes an update (slurm_update_job2): the
 * changed job reaches slurmdbd with the job, through slurmctld's own
 * queue, which outlives slurmdbd's outages and its own restarts. A job
 * it has ended (time limit, scancel, preemption, node failure) or
 * forgotten takes no updates; its accounting record does
 * (slurmdb_job_modify), once that record holds the job's end: the end
 * record slurmctld sends carries the old comment and would write over
 * ours.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "acct.h"
#include "live.h"

#ifdef AUTOSIZE_HAVE_SLURM
#include <stdbool.h>
#include <stdint.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include <slurm/slurm_errno.h>
#include "autosize/jobstate.h"

/* A job slurmctld has ended: its end record reaches slurmdbd a moment
 * later (its queue); accounting is asked again this long (an epilog
 * starts as the job ends). */
#define ACCT_END_WAIT_US 2000000
#define ACCT_END_POLL_US 250000


/* slurm_free_ctl_conf was renamed in 26.05 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
#define acct_free_conf slurm_free_conf
#else
#define acct_free_conf slurm_free_ctl_conf
#endif
static void *acct_db;        /* slurmdbd connection, opened once */

int acct_available(void)
{
	return 1;
}

void acct_end(void)
{
	if (acct_db)
		slurmdb_connection_close(&acct_db);
	acct_db = NULL;
}

/* The name Slurm gives a job state: its first flag that job_state_string()
 * (src/common/slurm_protocol_defs.c) names, else its base state's. That
 * function is not in slurm.h; these are slurm.h's JOB_* values. */
static const char *acct_state_name(uint32_t state)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} flags[] = {
		{JOB_COMPLETING, "COMPLETING"}, {JOB_STAGE_OUT, "STAGE_OUT"},
		{JOB_CONFIGURING, "CONFIGURING"},
#ifdef JOB_EXPEDITING
		{JOB_EXPEDITING, "EXPEDITING"},
#endif
		{JOB_RESIZING, "RESIZING"}, {JOB_REQUEUE, "REQUEUED"},
		{JOB_REQUEUE_FED, "REQUEUE_FED"},
		{JOB_REQUEUE_HOLD, "REQUEUE_HOLD"},
		{JOB_SPECIAL_EXIT, "SPECIAL_EXIT"}, {JOB_STOPPED, "STOPPED"},
		{JOB_REVOKED, "REVOKED"}, {JOB_RESV_DEL_HOLD, "RESV_DEL_HOLD"},
		{JOB_SIGNALING, "SIGNALING"},
		{JOB_POWER_UP_NODE, "POWER_UP_NODE"},
	};
	static const char *const base[JOB_END] = {
		[JOB_PENDING] = "PENDING", [JOB_RUNNING] = "RUNNING",
		[JOB_SUSPENDED] = "SUSPENDED", [JOB_COMPLETE] = "COMPLETED",
		[JOB_CANCELLED] = "CANCELLED", [JOB_FAILED] = "FAILED",
		[JOB_TIMEOUT] = "TIMEOUT", [JOB_NODE_FAIL] = "NODE_FAIL",
		[JOB_PREEMPTED] = "PREEMPTED", [JOB_BOOT_FAIL] = "BOOT_FAIL",
		[JOB_DEADLINE] = "DEADLINE", [JOB_OOM] = "OUT_OF_MEMORY",
	};
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (state & flags[i].flag)
			return flags[i].name;
	i = state & JOB_STATE_BASE;
	return i < JOB_END && base[i] ? base[i] : "?";
}

/* 1 when a job in this state has not ended (slurmctld's and
 * accounting's states alike: jobstate.h). A COMPLETING or STAGE_OUT job,
 * whose base state is already COMPLETED, is not done: slurmctld still
 * sends its end record, which would write over a comment given to
 * accounting now. */
int acct_state_live(uint32_t state)
{
	return autosize_job_state_live(acct_state_name(state));
}

/* The job as slurmctld holds it: 1 with its state and comment (a copy
 * in comment), 0 when slurmctld does not know it, -1 when slurmctld did
 * not answer. */
static int acct_ctld_job(unsigned long id, uint32_t *state, char *comment,
			 size_t len, char *why, size_t wlen)
{
	job_info_msg_t *msg = NULL;
	uint32_t i;
	int rc;

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t step = {.job_id = (uint32_t)id, .step_id = NO_VAL,
				.step_het_comp = NO_VAL};

	rc = slurm_load_job(&msg, step, SHOW_ALL);
#else
	rc = slurm_load_job(&msg, (uint32_t)id, SHOW_ALL);
#endif
	if (rc != SLURM_SUCCESS) {
		int err = errno;

		if (err == ESLURM_INVALID_JOB_ID)
			return 0;
		snprintf(why, wlen, "slurmctld: %s", slurm_strerror(err));
		return -1;
	}
	rc = 0;
	for (i = 0; msg && i < msg->record_count && !rc; i++) {
		slurm_job_info_t *j = &msg->job_array[i];
		const char *c = j->admin_comment ? j->admin_comment : "";

		if (j->job_id != id)
			continue;
		*state = j->job_state;
		if (strlen(c) >= len) {
			snprintf(why, wlen, "slurmctld: the AdminComment is "
				 "longer than %zu bytes", len - 1);
			rc = -1;
		} else {
			memcpy(comment, c, strlen(c) + 1);
			rc = 1;
		}
	}
	slurm_free_job_info_msg(msg);
	return rc;
}

/* comment into the job slurmctld runs: 1 done, 0 it has ended meanwhile,
 * -1 refused (why). */
static int acct_ctld_update(unsigned long id, char *comment, char *why,
			    size_t wlen)
{
	job_array_resp_msg_t *resp = NULL;
	job_desc_msg_t d;
	char id_str[24];
	int rc, err = 0;
	uint32_t i;

	snprintf(id_str, sizeof(id_str), "%lu", id);
	slurm_init_job_desc_msg(&d);
	d.job_id_str = id_str;
	d.admin_comment = comment;
	rc = slurm_update_job2(&d, &resp);
	if (rc != SLURM_SUCCESS)
		err = errno;
	for (i = 0; resp && i < resp->job_array_count && !err; i++)
		err = (int)resp->error_code[i];
	if (resp)
		slurm_free_job_array_resp(resp);
	if (!err)
		return 1;
	if (err == ESLURM_JOB_FINISHED || err == ESLURM_INVALID_JOB_ID)
		return 0;
	snprintf(why, wlen, "slurmctld refused the update: %s",
		 slurm_strerror(err));
	return -1;
}

/* What names one job in accounting: its id on cluster (libslurm only
 * reads the lists; acct_cond_free frees them). */
typedef struct acct_cond {
	slurm_selected_step_t sel;
	slurmdb_job_cond_t cond;
} acct_cond;

static void acct_cond_init(acct_cond *c, unsigned long id,
			   const char *cluster)
{
	memset(c, 0, sizeof(*c));
	c->sel.array_task_id = NO_VAL;
	c->sel.het_job_offset = NO_VAL;
	c->sel.step_id.job_id = (uint32_t)id;
	c->sel.step_id.step_id = NO_VAL;
	c->sel.step_id.step_het_comp = NO_VAL;
	c->cond.step_list = slurm_list_create(NULL);
	c->cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(c->cond.step_list, &c->sel);
	slurm_list_append(c->cond.cluster_list, (char *)cluster);
	c->cond.flags = JOBCOND_FLAG_NO_DEFAULT_USAGE;
	c->cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
}

static void acct_cond_free(acct_cond *c)
{
	slurm_list_destroy(c->cond.step_list);
	slurm_list_destroy(c->cond.cluster_list);
}

/* The job's newest accounting record on cluster: 1 with its state,
 * submit time and comment, 0 none, -1 slurmdbd did not answer. */
static int acct_db_job(unsigned long id, const char *cluster,
		       uint32_t *state, time_t *submit, char *comment,
		       size_t len, char *why, size_t wlen)
{
	struct xlist *jobs;
	uint16_t flags = 0;
	time_t newest = -1;
	acct_cond c;
	int rc = 0;

	if (!acct_db && !(acct_db = slurmdb_connection_get(&flags))) {
		snprintf(why, wlen, "slurmdbd: cannot connect: %s",
			 slurm_strerror(errno));
		return -1;
	}
	acct_cond_init(&c, id, cluster);
	c.cond.flags |= JOBCOND_FLAG_NO_STEP;
	jobs = slurmdb_jobs_get(acct_db, &c.cond);
	if (!jobs) {
		snprintf(why, wlen, "slurmdbd: %s",
			 slurm_strerror(errno));
		rc = -1;
	} else {
		__typeof__(slurm_list_iterator_create(jobs)) it =
			slurm_list_iterator_create(jobs);
		slurmdb_job_rec_t *j;

		while ((j = slurm_list_next(it))) {
			const char *text = j->admin_comment
					   ? j->admin_comment : "";

			/* a job id Slurm has used again: its newest job */
			if (j->jobid != id || j->submit < newest)
				continue;
			newest = j->submit;
			*state = j->state;
			*submit = j->submit;
			if (strlen(text) >= len) {
				snprintf(why, wlen, "accounting: the "
					 "AdminComment is longer than %zu "
					 "bytes", len - 1);
				rc = -1;
				break;
			}
			memcpy(comment, text, strlen(text) + 1);
			rc = 1;
		}
		slurm_list_iterator_destroy(it);
		slurm_list_destroy(jobs);
	}
	acct_cond_free(&c);
	return rc;
}

/* comment into the job's accounting record on cluster, the one that
 * ran from submit on (an older job of the same id, Slurm's ids having
 * wrapped, ended before it and stays as it is): 0, or -1 (why). */
static int acct_db_modify(unsigned long id, const char *cluster,
			  time_t submit, char *comment, char *why,
			  size_t wlen)
{
	slurmdb_job_rec_t rec;
	struct xlist *done;
	acct_cond c;
	int rc = -1;

	acct_cond_init(&c, id, cluster);
	c.cond.usage_start = submit;
	c.cond.usage_end = time(NULL) + 3600;
	/* only the comment: every other field says "no change" */
	memset(&rec, 0, sizeof(rec));
	rec.derived_ec = NO_VAL;
	rec.admin_comment = comment;
	done = slurmdb_job_modify(acct_db, &c.cond, &rec);
	if (done && slurm_list_count(done) > 0 &&
	    slurmdb_connection_commit(acct_db, 1) == SLURM_SUCCESS)
		rc = 0;
	else
		snprintf(why, wlen, "slurmdbd did not take the change: %s",
			 done ? "no job matched"
			      : slurm_strerror(errno));
	if (done)
		slurm_list_destroy(done);
	acct_cond_free(&c);
	return rc;
}

/* The cluster of an entry that names none: slurmctld's. */
static int acct_cluster(const autosize_spool_entry *en, char *buf,
			size_t len)
{
	slurm_conf_t *conf = NULL;
	int rc = -1;

	if (en->cluster[0]) {
		snprintf(buf, len, "%s", en->cluster);
		return 0;
	}
	if (slurm_load_ctl_conf((time_t)0, &conf) == SLURM_SUCCESS && conf &&
	    conf->cluster_name) {
		snprintf(buf, len, "%s", conf->cluster_name);
		rc = 0;
	}
	if (conf)
		acct_free_conf(conf);
	return rc;
}

acct_outcome acct_deliver(const autosize_spool_entry *en, char *why,
			  size_t len)
{
	char comment[AUTOSIZE_ADMIN_COMMENT_MAX];
	char merged[AUTOSIZE_ADMIN_COMMENT_MAX], again[AUTOSIZE_ADMIN_COMMENT_MAX];
	char what[64], cluster[AUTOSIZE_SPOOL_CLUSTER_MAX];
	autosize_error e;
	uint32_t state = 0;
	time_t submit = 0;
	int rc, ended, waited_us;

	why[0] = '\0';
	live_slurm_init();
	snprintf(what, sizeof(what), "job %lu's AdminComment", en->job_id);
	rc = acct_ctld_job(en->job_id, &state, comment, sizeof(comment), why,
			   len);
	/* slurmctld says the job has ended (else it does not know it, or
	 * did not answer) */
	ended = rc == 1 && !acct_state_live(state);
	if (rc == 1 && !ended) {
		rc = autosize_record_merge(comment, &en->m, what, merged,
					   sizeof(merged), &e);
		if (rc <= 0)
			goto drop;
		rc = acct_ctld_update(en->job_id, merged, why, len);
		if (rc == 1) {
			snprintf(why, len, "into slurmctld's job (it reaches "
				 "accounting with the job)");
			return ACCT_DELIVERED;
		}
		if (rc < 0)
			return ACCT_LATER;
		ended = 1;      /* it ended meanwhile */
	}
	/* ended, forgotten, or slurmctld silent: accounting decides */
	if (acct_cluster(en, cluster, sizeof(cluster)) != 0) {
		snprintf(why, len, "no cluster name known (slurmctld did not "
			 "answer)");
		return ACCT_LATER;
	}
	rc = acct_db_job(en->job_id, cluster, &state, &submit, comment,
			 sizeof(comment), why, len);
	for (waited_us = 0; rc == 1 && acct_state_live(state) && ended &&
	     waited_us < ACCT_END_WAIT_US; waited_us += ACCT_END_POLL_US) {
		usleep(ACCT_END_POLL_US);
		rc = acct_db_job(en->job_id, cluster, &state, &submit,
				 comment, sizeof(comment), why, len);
	}
	if (rc < 0)
		return ACCT_LATER;
	if (rc == 0) {
		snprintf(why, len, "accounting has no job %lu on cluster %s "
			 "yet", en->job_id, cluster);
		return ACCT_LATER;
	}
	if (acct_state_live(state)) {
		snprintf(why, len, "accounting does not hold the job's end "
			 "yet");
		return ACCT_LATER;
	}
	rc = autosize_record_merge(comment, &en->m, what, merged,
				   sizeof(merged), &e);
	if (rc <= 0)
		goto drop;
	if (strcmp(merged, comment) != 0 &&
	    acct_db_modify(en->job_id, cluster, submit, merged, why, len) != 0)
		return ACCT_LATER;
	/* read back: what calibration will read */
	why[0] = '\0';
	if (acct_db_job(en->job_id, cluster, &state, &submit, again,
			sizeof(again), why, len) != 1 ||
	    strcmp(again, merged) != 0) {
		if (!why[0])
			snprintf(why, len, "accounting does not show the "
				 "change yet");
		return ACCT_LATER;
	}
	snprintf(why, len, "into the accounting record");
	return ACCT_DELIVERED;
drop:
	if (rc == 0)
		snprintf(why, len, "no plan record in its AdminComment, or no "
			 "figure within 0.1x-10x of the plan");
	else
		snprintf(why, len, "%s", e.msg);
	return ACCT_DROP;
}

#else /* built without libslurm's headers */

int acct_available(void)
{
	return 0;
}

void acct_end(void)
{
}

acct_outcome acct_deliver(const autosize_spool_entry *en, char *why,
			  size_t len)
{
	snprintf(why, len, "autosize was built without libslurm "
		 "(libslurm-dev): job %lu's figures stay in the spool",
		 en->job_id);
	return ACCT_LATER;
}

#endif
