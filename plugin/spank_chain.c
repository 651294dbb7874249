/*
 * autosize SPANK plugin, allocator context (sbatch): a run longer than
 * its partition's time limit is queued as chained jobs (doc/users.md
 * "Long runs: chained jobs").
 *
 * sbatch is where the followers are submitted: it runs as the user, on
 * the host the user submits from, with the command line, the script and
 * the environment the user gave; a follower is the same submission again
 * (the same argv, run by the same sbatch binary), so slurmctld checks and
 * sizes it as it did the first (job_submit.lua, QOS and association
 * limits, MaxSubmitJobs), and nothing runs as root.
 *
 *  1. init_post_opt, first submission: a chain id is drawn and the job
 *     marked AUTOSIZE_CHAIN=ID:1:0:LEAD (chain.h). sbatch has read its
 *     options already, so for the warning signal (SIGUSR1 LEAD seconds
 *     before the limit, to the job's steps) it runs itself again with
 *     SBATCH_SIGNAL set and the mark in AUTOSIZE_CHAIN_RUN (execv of
 *     /proc/self/exe, as --autosize=explain's --test-only run): a
 *     --signal of the user's own (command line, SBATCH_SIGNAL, #SBATCH)
 *     is kept instead, and the mark says LEAD 0.
 *  2. at sbatch's end (slurm_spank_exit, after "Submitted batch job N"):
 *     the first job's plan record (slurmctld wrote it in the AdminComment,
 *     found by the chain id among the user's jobs) gives the jobs its
 *     limits need, K; sbatch runs itself K - 1 more times, each marked
 *     ID:INDEX:PREV:LEAD, and job_submit.lua makes each depend on the one
 *     before (afterany). A follower sbatch refuses (MaxSubmitJobs, a
 *     dependency Slurm does not take) cuts the chain, said with Slurm's
 *     words.
 *
 * Not chained: salloc and srun (never), --autosize-chain=off, the
 * policy's chain: off, --test-only, --wait (sbatch would wait for the
 * first job only), job arrays, heterogeneous jobs, and a script sbatch
 * read on its standard input (it cannot be read again): said by sbatch
 * -v, and by slurmctld's plan when the run needs more than one job.
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include "autosize/chain.h"
#include "autosize/spawn.h"
#include "spank_common.h"

/* sbatch's mark for its own run again and for its followers. */
#define CHAIN_ENV_RUN "AUTOSIZE_CHAIN_RUN"
#define CHAIN_ARGS_MAX 1024
#define CHAIN_OUT_MAX 8192
/* The script's #SBATCH lines are read this far at most. */
#define CHAIN_SCRIPT_MAX (64 * 1024)

static struct chain_state {
	int decided;               /* post_opt ran (once a process: sbatch
				    * calls it per heterogeneous component) */
	autosize_chain_mark mark;  /* this submission's; id "" none */
	int first;                 /* 1: queue the followers at the end */
	char signal[32];           /* "USR1@480" when autosize's, else "" */
	char text[AUTOSIZE_CHAIN_MARK_MAX];
	char *argv[CHAIN_ARGS_MAX + 1];
	char out[CHAIN_OUT_MAX];
	unsigned long ids[AUTOSIZE_CHAIN_MAX_JOBS];
} chain;

/* 1 when word (an sbatch option, "--signal") or its short form (e.g.
 * "-a", "" none) is among argv. A script argument that looks the same
 * counts too: chaining is then left out, said, never done wrong. */
static int chain_argv_has(char *const argv[], const char *word,
			  const char *letter)
{
	size_t n = strlen(word);
	int i;

	for (i = 1; argv[i]; i++) {
		if (strncmp(argv[i], word, n) == 0 &&
		    (argv[i][n] == '\0' || argv[i][n] == '='))
			return 1;
		if (letter[0] && strncmp(argv[i], letter, 2) == 0)
			return 1;
	}
	return 0;
}

/* The batch script named in argv (its first readable file), or NULL. */
static const char *chain_script(char *const argv[])
{
	struct stat st;
	int i;

	for (i = 1; argv[i]; i++)
		if (argv[i][0] != '-' && stat(argv[i], &st) == 0 &&
		    S_ISREG(st.st_mode))
			return argv[i];
	return NULL;
}

/* 1 when the script's #SBATCH lines (those before its first command, as
 * sbatch reads them) name word or letter. */
static int chain_script_has(const char *path, const char *word,
			    const char *letter)
{
	static char text[CHAIN_SCRIPT_MAX + 1];
	char *line, *save = NULL, *opt;
	size_t n;
	FILE *f;

	if (!path || !(f = fopen(path, "re")))
		return 0;
	n = fread(text, 1, CHAIN_SCRIPT_MAX, f);
	fclose(f);
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!line[0])
			continue;
		if (line[0] != '#')
			break;
		if (strncmp(line, "#SBATCH", 7) != 0)
			continue;
		opt = line + 7 + strspn(line + 7, " \t");
		if ((strncmp(opt, word, strlen(word)) == 0 &&
		     strchr("= \t", opt[strlen(word)] ? opt[strlen(word)]
						      : ' ')) ||
		    (letter[0] && strncmp(opt, letter, 2) == 0))
			return 1;
	}
	return 0;
}

/* Why this submission is not chained ("" when it may be). */
static const char *chain_why_not(char *const argv[], int argc)
{
	const char *script = chain_script(argv);

	if (chain_argv_has(argv, "--test-only", ""))
		return "";   /* nothing is queued: nothing to say */
	if (!autosize_spank_script_in_args(argv, argc))
		return "a script read on standard input cannot be submitted "
		       "again (give its file)";
	if (chain_argv_has(argv, "--wait", "-W") || getenv("SBATCH_WAIT") ||
	    chain_script_has(script, "--wait", "-W"))
		return "--wait waits for the first job only";
	if (chain_argv_has(argv, "--array", "-a") ||
	    getenv("SBATCH_ARRAY_INX") ||
	    chain_script_has(script, "--array", "-a"))
		return "a job array is not chained";
	if (chain_argv_has(argv, ":", "") ||
	    chain_script_has(script, "hetjob", "") ||
	    chain_script_has(script, "packjob", ""))
		return "a heterogeneous job is not chained";
	return NULL;
}

/* 1 when the user gives the job a --signal of their own. */
static int chain_own_signal(char *const argv[])
{
	return chain_argv_has(argv, "--signal", "") ||
	       getenv("SBATCH_SIGNAL") ||
	       chain_script_has(chain_script(argv), "--signal", "");
}

/* The warning signal's lead for this request under the site policy
 * (autosize_plan_signal_lead: the slowest storage of its partitions,
 * whichever slurmctld picks). */
static int chain_lead_s(const autosize_policy *p, const autosize_request *r)
{
	static autosize_request req;
	static autosize_plan plan;
	autosize_error e;

	req = *r;
	memset(&plan, 0, sizeof(plan));
	(void)autosize_plan_compute(p, &req, &plan, &e);
	return autosize_plan_signal_lead(p, &plan);
}

/* A re-run or a follower: the mark sbatch gave it, to slurmctld. */
static void chain_marked(spank_t sp, const char *run)
{
	autosize_error e;
	int rc;

	if (run != chain.text)
		snprintf(chain.text, sizeof(chain.text), "%s", run);
	unsetenv(CHAIN_ENV_RUN);
	if (autosize_chain_mark_decode(chain.text, &chain.mark, &e)) {
		slurm_error("autosize: %s", e.msg);
		memset(&chain.mark, 0, sizeof(chain.mark));
		return;
	}
	/* read by sbatch already: the job's own environment (a nested
	 * sbatch in its script) does not inherit autosize's signal */
	if (chain.mark.signal_s > 0) {
		snprintf(chain.signal, sizeof(chain.signal), "USR1@%d",
			 chain.mark.signal_s);
		unsetenv("SBATCH_SIGNAL");
	}
	rc = spank_job_control_setenv(sp, AUTOSIZE_ENV_CHAIN, chain.text, 1);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("autosize: warning: cannot mark the chained job: "
			    "%s", spank_strerror(rc));
		memset(&chain.mark, 0, sizeof(chain.mark));
		return;
	}
	chain.first = chain.mark.index == 1;
}

void autosize_spank_chain_post_opt(spank_t sp, const autosize_request *r)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	const char *run = getenv(CHAIN_ENV_RUN), *why;
	autosize_policy *p = NULL;
	autosize_error e;
	int argc, lead, own;

	if (strcmp(program_invocation_short_name, "sbatch") != 0 ||
	    chain.decided)
		return;
	chain.decided = 1;
	if (run) {
		chain_marked(sp, run);
		return;
	}
	p = autosize_spank_policy_load(cfg->policy, &e);
	if (!p)
		p = autosize_policy_default(&e);
	if (!p || autosize_policy_is_off(p) || r->chain == 0 ||
	    (r->chain == AUTOSIZE_UNSET &&
	     !autosize_policy_defaults(p)->chain))
		goto out;
	argc = autosize_spank_argv(chain.argv, CHAIN_ARGS_MAX, NULL);
	if (argc < 0)
		goto out;
	why = chain_why_not(chain.argv, argc);
	if (why) {
		/* slurmctld's plan says so when the run needs more than
		 * one job: here only with sbatch -v */
		if (why[0])
			slurm_verbose("autosize: not chained: %s", why);
		goto out;
	}
	if (autosize_chain_id_new(chain.mark.id) != 0) {
		slurm_error("autosize: warning: no random chain id (%s): not "
			    "chained", strerror(errno));
		goto out;
	}
	lead = chain_lead_s(p, r);
	own = chain_own_signal(chain.argv);
	chain.mark.index = 1;
	chain.mark.signal_s = own ? 0 : lead;
	if (autosize_chain_mark_encode(&chain.mark, chain.text,
				       sizeof(chain.text)) < 0)
		goto out;
	if (!own) {
		/* the signal is an option sbatch has read: run it again */
		snprintf(chain.signal, sizeof(chain.signal), "USR1@%d", lead);
		if (setenv("SBATCH_SIGNAL", chain.signal, 1) == 0 &&
		    setenv(CHAIN_ENV_RUN, chain.text, 1) == 0) {
			fflush(stdout);
			fflush(stderr);
			autosize_spank_execv("/proc/self/exe", chain.argv);
		}
		unsetenv("SBATCH_SIGNAL");
		unsetenv(CHAIN_ENV_RUN);
		slurm_error("autosize: warning: cannot run sbatch again for "
			    "the warning signal (%s): chained without it",
			    strerror(errno));
		chain.signal[0] = '\0';
		chain.mark.signal_s = 0;
		(void)autosize_chain_mark_encode(&chain.mark, chain.text,
						 sizeof(chain.text));
	}
	chain_marked(sp, chain.text);
out:
	autosize_policy_destroy(p);
}

/* The job of this chain at index among the user's jobs: its id, and its
 * record into rec; 0 when slurmctld does not show it. */
static unsigned long chain_find(int index, autosize_record *rec)
{
	job_info_msg_t *msg = NULL;
	unsigned long id = 0;
	autosize_error e;
	size_t start, len;
	uint32_t i;

	if (slurm_load_job_user(&msg, (uint32_t)getuid(), SHOW_ALL) != 0)
		return 0;
	for (i = 0; msg && i < msg->record_count && !id; i++) {
		const char *c = msg->job_array[i].admin_comment;

		if (!c || !autosize_record_find(c, &start, &len) ||
		    autosize_record_decode(c + start, len, "AdminComment",
					   rec, &e) != AUTOSIZE_OK)
			continue;
		if (strcmp(rec->chain, chain.mark.id) == 0 &&
		    rec->chain_index == index)
			id = msg->job_array[i].job_id;
	}
	slurm_free_job_info_msg(msg);
	return id;
}

/* The job id sbatch printed ("Submitted batch job N", or --parsable's
 * "N" / "N;cluster"); 0 when none. */
static unsigned long chain_printed_id(const char *out)
{
	const char *p = strstr(out, "Submitted batch job "), *line;
	char *end;
	unsigned long id;

	if (p)
		return strtoul(p + strlen("Submitted batch job "), NULL, 10);
	for (line = out; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		id = strtoul(line, &end, 10);
		if (end != line && (*end == '\n' || *end == ';' || !*end))
			return id;
	}
	return 0;
}

/* Slurm's own words for a refused follower: its first error line. */
static const char *chain_error_line(char *out)
{
	char *p = strstr(out, "error:"), *nl;

	if (!p)
		return "sbatch failed";
	if ((nl = strchr(p, '\n')))
		*nl = '\0';
	return p;
}

/* Submit follower index after prev: its job id, 0 when refused (said). */
static unsigned long chain_submit(int index, unsigned long prev, int count)
{
	autosize_chain_mark m = chain.mark;
	autosize_record rec;
	unsigned long id;
	int st, err;

	m.index = index;
	m.prev = prev;
	if (autosize_chain_mark_encode(&m, chain.text,
				       sizeof(chain.text)) < 0 ||
	    setenv(CHAIN_ENV_RUN, chain.text, 1) != 0 ||
	    (chain.signal[0] && setenv("SBATCH_SIGNAL", chain.signal, 1)))
		return 0;
	st = autosize_run("/proc/self/exe", chain.argv, AUTOSIZE_SPAWN_MERGE,
			  0, chain.out, sizeof(chain.out), NULL);
	err = errno;
	unsetenv(CHAIN_ENV_RUN);
	if (chain.signal[0])
		unsetenv("SBATCH_SIGNAL");
	if (st == AUTOSIZE_RUN_NOT_RUN) {
		slurm_error("autosize: chain: cannot run sbatch for job %d of "
			    "%d: %s", index, count, strerror(err));
		return 0;
	}
	id = st == 0 ? chain_printed_id(chain.out) : 0;
	if (st == 0 && !id)
		id = chain_find(index, &rec);   /* --quiet */
	if (!id)
		slurm_error("autosize: chain: job %d of %d not queued (%.300s)",
			    index, count, chain_error_line(chain.out));
	return id;
}

static void chain_followers(void)
{
	autosize_record rec;
	char list[1024];
	size_t used = 0;
	int count, i, n;

	chain.ids[0] = chain_find(1, &rec);
	if (!chain.ids[0] || rec.chain_jobs <= 1)
		return;   /* not queued, or one limit holds the run */
	count = rec.chain_jobs < AUTOSIZE_CHAIN_MAX_JOBS
		? rec.chain_jobs : AUTOSIZE_CHAIN_MAX_JOBS;
	if (autosize_spank_argv(chain.argv, CHAIN_ARGS_MAX, NULL) < 0)
		return;
	for (n = 1; n < count; n++)
		if (!(chain.ids[n] = chain_submit(n + 1, chain.ids[n - 1],
						  count)))
			break;
	list[0] = '\0';
	for (i = 0; i < n; i++) {
		int w = snprintf(list + used, sizeof(list) - used, " %lu",
				 chain.ids[i]);

		if (w < 0 || (size_t)w >= sizeof(list) - used)
			break;
		used += (size_t)w;
	}
	if (n < count)
		slurm_info("autosize: chain: cut at %d of the %d jobs the run "
			   "needs; when job %lu ends, resubmit with "
			   "--train-tokens-done", n, count, chain.ids[n - 1]);
	i = snprintf(NULL, 0, " %lu", chain.ids[0]);
	slurm_info("autosize: chain %s: job %lu and %d follower%s, each "
		   "starting once the one before it has ended:%s (stop the "
		   "run: scancel%s)", chain.mark.id, chain.ids[0], n - 1,
		   n == 2 ? "" : "s", used > (size_t)i ? list + i : "", list);
}

void autosize_spank_chain_exit(void)
{
	/* sbatch's end, the first job queued: its followers now */
	if (chain.first && chain.mark.id[0])
		chain_followers();
	memset(&chain, 0, sizeof(chain));
}
