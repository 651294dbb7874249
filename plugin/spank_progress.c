/*
 * autosize SPANK plugin, remote context (the batch step's user_init, as
 * the job's user): where a chained job's run stands when it starts.
 *
 * The job before it reported the run's progress (AUTOSIZE_REPORT's
 * tokens_done) at its end; the figures went through the node's spool
 * into its plan record (spank_report.c, `autosize spool --flush`):
 * slurmctld's job, else its accounting record. `autosize show PREV
 * --record` reads that record as the job's user (scontrol while
 * slurmctld knows the job, else sacct) and prints it as one line; here
 * it is read strictly and held against this job's chain. Bounded: a
 * slurmctld or slurmdbd that does not answer costs the job's start at
 * most CHAIN_READ_S, and the job is then planned as its chain was.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "autosize/chain.h"
#include "autosize/spawn.h"
#include "spank_common.h"

/* How long the job's start waits for the record (seconds). */
#define CHAIN_READ_S 4

int autosize_spank_chain_progress(const char *chain, int index,
				  unsigned long prev, double *done,
				  char *why, size_t len)
{
	char cli[AUTOSIZE_PATH_MAX], id[24], out[AUTOSIZE_RECORD_MAX + 2];
	char *argv[5];
	autosize_record rec;
	autosize_error e;
	size_t n;
	int st;

	*done = 0;
	if (autosize_spank_cli(cli, sizeof(cli)) != 0) {
		snprintf(why, len, "no autosize command on this node to read "
			 "it");
		return 0;
	}
	snprintf(id, sizeof(id), "%lu", prev);
	argv[0] = cli;
	argv[1] = (char *)"show";
	argv[2] = id;
	argv[3] = (char *)"--record";
	argv[4] = NULL;
	st = autosize_run(cli, argv, AUTOSIZE_SPAWN_MERGE, CHAIN_READ_S * 1000,
			  out, sizeof(out), &n);
	if (st == AUTOSIZE_RUN_NOT_RUN) {
		snprintf(why, len, "autosize show could not run: %s",
			 strerror(errno));
		return 0;
	}
	if (n && out[n - 1] == '\n')
		out[--n] = '\0';
	if (st != 0) {
		/* show's own one line (slurmctld and accounting do not know
		 * the job), else that it did not end in time */
		out[strcspn(out, "\n")] = '\0';
		snprintf(why, len, "%.200s", st > 0 && out[0] ? out
			 : "autosize show did not answer in time");
		return 0;
	}
	if (autosize_record_decode(out, n, "its record", &rec, &e) !=
	    AUTOSIZE_OK) {
		snprintf(why, len, "%s", e.msg);
		return 0;
	}
	/* the job it follows, of its own run: else it says nothing here */
	if (strcmp(rec.chain, chain) != 0 || rec.chain_index != index - 1) {
		snprintf(why, len, "its record is not of this chain's job %d",
			 index - 1);
		return 0;
	}
	if (!(rec.m_tokens_done > 0)) {
		snprintf(why, len, "it reported no tokens_done (or its "
			 "figures have not reached Slurm yet)");
		return 0;
	}
	*done = rec.m_tokens_done;
	return 1;
}

/* The run's progress carried into this job's own report: its end then
 * says where the run stands even when its script reports nothing (a run
 * complete before it started ends the chain there). */
static void chain_carry(double done)
{
	char line[64];
	int fd, n;

	fd = autosize_spank_job_dir_openat("report.jsonl", O_WRONLY |
					   O_APPEND | O_CREAT);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "{\"tokens_done\": %.0f}\n", done);
	if (n > 0 && write(fd, line, (size_t)n) != n)
		autosize_spank_warn("AUTOSIZE_REPORT: the run's progress not "
				    "carried: %s", strerror(errno));
	close(fd);
}

void autosize_spank_chain_start(spank_t sp, autosize_plan *p,
				const autosize_record *rec, int batch,
				double done_env)
{
	char mark[AUTOSIZE_CHAIN_MARK_MAX + 32], why[AUTOSIZE_MSG_LEN];
	char a[16], b[16], c[16], d[16];
	autosize_chain_mark m;
	autosize_error e;
	double done, part, left, run = p->tokens + p->tokens_done;

	if (!rec->chain[0] || rec->chain_index < 2 || !(p->tokens > 0))
		return;
	/* a step: the batch step's reading, in the environment it gave */
	if (!batch) {
		if (done_env >= p->tokens_done)
			p->chain_done_before = fmin(done_env - p->tokens_done,
						    p->tokens);
		return;
	}
	if (spank_getenv(sp, "SLURM_SPANK_" AUTOSIZE_ENV_CHAIN, mark,
			 sizeof(mark)) != ESPANK_SUCCESS ||
	    autosize_chain_mark_decode(mark, &m, &e) != AUTOSIZE_OK ||
	    strcmp(m.id, rec->chain) != 0 || m.index != rec->chain_index) {
		snprintf(why, sizeof(why), "this job's chain mark does not "
			 "read");
		done = -1;
	} else if (!autosize_spank_chain_progress(rec->chain, m.index, m.prev,
						  &done, why, sizeof(why))) {
		done = -1;
	} else if (done < p->tokens_done) {
		snprintf(why, sizeof(why), "it reported %s tokens done, fewer "
			 "than the %s this run started from",
			 autosize_launch_count(done, a, sizeof(a)),
			 autosize_launch_count(p->tokens_done, b, sizeof(b)));
		done = -1;
	}
	if (done < 0) {
		autosize_spank_warn("job %d of the chain: the run's progress "
				    "when job %lu ended is not known (%s): "
				    "planned as the chain was, %s tokens "
				    "done before this job", rec->chain_index,
				    m.prev, why, autosize_launch_count(
					    p->tokens_done +
					    autosize_plan_done_before(
						    p, rec->chain_index, -1),
					    a, sizeof(a)));
		return;
	}
	p->chain_done_before = fmin(done - p->tokens_done, p->tokens);
	chain_carry(done);
	if (done >= run * (1 - 1e-5)) {
		autosize_spank_warn("job %d of the chain: the run was complete "
				    "when job %lu ended (%s of %s tokens): "
				    "nothing is left for this job "
				    "(AUTOSIZE_JOB_TRAIN_TOKENS=0); its "
				    "followers are cancelled when it ends",
				    rec->chain_index, m.prev,
				    autosize_launch_count(done, a, sizeof(a)),
				    autosize_launch_count(run, b, sizeof(b)));
		return;
	}
	part = autosize_plan_part(p, rec->chain_index, p->chain_done_before);
	/* slower than the chain's upper end: what its last job leaves */
	left = run - done - part;
	if (rec->chain_index >= rec->chain_jobs && left > run * 1e-5)
		snprintf(why, sizeof(why), "; about %s will be left after it, "
			 "the chain's last job: resubmit then with "
			 "--train-tokens-done", autosize_launch_count(
				 left, d, sizeof(d)));
	else
		why[0] = '\0';
	autosize_spank_warn("job %d of the chain: the run had trained %s of "
			    "%s tokens when job %lu ended: this job trains "
			    "%s%s", rec->chain_index,
			    autosize_launch_count(done, a, sizeof(a)),
			    autosize_launch_count(run, b, sizeof(b)), m.prev,
			    autosize_launch_count(part, c, sizeof(c)), why);
}
