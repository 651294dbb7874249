/*
 * autosize SPANK plugin, remote context: AUTOSIZE_REPORT.
 *
 * Every task gets AUTOSIZE_REPORT, a path in the job's private folder on
 * the node (spank_jobdir.c); a training loop may append JSON lines there
 * ({"tokens_per_s":..,"step_s":..,"peak_memory_bytes":..}).
 *
 * When the batch script's task exits, slurmstepd (root, on the batch
 * node) reads the report (its tail, at most AUTOSIZE_REPORT_MAX_BYTES, a
 * regular file of the job's user on the folder's own device, opened
 * neither through a link nor across a mount) and sums it up, and writes
 * the figures into the node's spool (autosize/spool.h) for the job. Then
 * `autosize spool --flush --job N` (the autosize command built with this
 * plugin, cli/spool_cmd.c) gets REPORT_FLUSH_S seconds to hand them to
 * Slurm: into slurmctld's job while it runs (which sends it on to
 * slurmdbd with the job, whatever slurmdbd's state), else into the job's
 * accounting record once slurmdbd holds the job's end, the site's part
 * of the AdminComment byte for byte (libslurm, not sacctmgr). It is
 * killed past that time, and whatever it did not deliver stays in the
 * spool: every job epilog on the node runs the flush again for the
 * entries due (spool_retry= seconds after their last try), for
 * REPORT_FLUSH_S at most too, and so may a timer or an admin.
 *
 * So nothing at a step's end waits on slurmctld or slurmdbd longer than
 * REPORT_FLUSH_S: slurmstepd used to run sacct and sacctmgr for minutes
 * under a hung slurmdbd, past UnkillableStepTimeout, and the node was
 * drained "Kill task failed" (doc/closed-loop.md says why the spool).
 * Nothing here fails a step or an epilog: every problem is a warning.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "autosize/spawn.h"
#include "autosize/spool.h"
#include "spank_common.h"

#define REPORT_NAME "report.jsonl"
/* What a step's end or an epilog gives `autosize spool --flush` (s),
 * its own --max-time one less: far below UnkillableStepTimeout (60 s by
 * default, at least 5 x MessageTimeout). */
#define REPORT_FLUSH_S 4
/* The flush's output kept (a line per entry). */
#define REPORT_OUT_MAX 4096

/* The report's path on this node, or NULL. */
static const char *report_path(spank_t sp, char *buf, size_t len)
{
	const char *dir = autosize_spank_job_dir(sp);
	int n;

	if (!dir)
		return NULL;
	n = snprintf(buf, len, "%s/" REPORT_NAME, dir);
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/* 1 when the job is autosize's: options given, and neither the job
 * (--autosize=off) nor the site (mode: off) switched it off. */
static int report_active(void)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	autosize_request r;
	autosize_policy *p;
	autosize_error e;
	int off;

	if (cfg->disabled || !autosize_spank_options_given())
		return 0;
	autosize_spank_options_request(&r);
	if (r.job_mode == AUTOSIZE_JOB_OFF)
		return 0;
	p = autosize_spank_policy_load(cfg->policy, &e);
	off = autosize_policy_is_off(p);
	autosize_policy_destroy(p);
	return !off;
}

void autosize_spank_report_user_init(spank_t sp)
{
	char path[AUTOSIZE_PATH_MAX + 32];

	if (!report_active() || !report_path(sp, path, sizeof(path)))
		return;
	if (spank_setenv(sp, "AUTOSIZE_REPORT", path, 1) != ESPANK_SUCCESS)
		autosize_spank_warn("cannot set AUTOSIZE_REPORT");
}

/* Read the tail of the report (the job's user's regular file in the
 * job's very folder and on its device: root never follows a link the
 * user put in the folder, nor enters a file system the user mounted over
 * the report): 0, or -1 when there is none worth reading. *partial: the
 * tail starts inside a line. */
static int report_read(uid_t uid, char **text, size_t *len, int *partial)
{
	struct stat st;
	ssize_t got;
	off_t from;
	char *buf;
	int fd;

	fd = autosize_spank_job_dir_openat(REPORT_NAME, O_RDONLY |
					   O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid ||
	    st.st_size <= 0) {
		close(fd);
		return -1;
	}
	from = st.st_size > AUTOSIZE_REPORT_MAX_BYTES
	       ? st.st_size - AUTOSIZE_REPORT_MAX_BYTES : 0;
	buf = malloc(AUTOSIZE_REPORT_MAX_BYTES + 1);
	if (!buf || lseek(fd, from, SEEK_SET) < 0) {
		free(buf);
		close(fd);
		return -1;
	}
	got = read(fd, buf, AUTOSIZE_REPORT_MAX_BYTES);
	close(fd);
	if (got <= 0) {
		free(buf);
		return -1;
	}
	buf[got] = '\0';
	*text = buf;
	*len = (size_t)got;
	*partial = from > 0;
	return 0;
}

/* A file root may run: regular, executable, root's (or this user's),
 * writable by nobody else. */
static int report_runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & 0111) && (st.st_mode & 022) == 0 &&
	       (st.st_uid == 0 || st.st_uid == geteuid());
}

int autosize_spank_cli(char *buf, size_t len)
{
	Dl_info info;
	const char *slash;
	int n;

	if (dladdr((void *)autosize_spank_cli, &info) && info.dli_fname &&
	    (slash = strrchr(info.dli_fname, '/')) != NULL) {
		n = snprintf(buf, len, "%.*s/autosize",
			     (int)(slash - info.dli_fname), info.dli_fname);
		if (n > 0 && (size_t)n < len && report_runnable(buf))
			return 0;
	}
#ifdef AUTOSIZE_CLI_PATH
	n = snprintf(buf, len, "%s", AUTOSIZE_CLI_PATH);
	if (n > 0 && (size_t)n < len && report_runnable(buf))
		return 0;
#endif
	return -1;
}

/*
 * `autosize spool --flush --dir SPOOL [--job ID] [--retry S]`, killed
 * past REPORT_FLUSH_S; its output into out. Its exit status: 0 nothing
 * kept, 1 some kept, -1 it could not run or was killed.
 */
static int report_flush(const char *job, char *out, size_t len)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	char cli[AUTOSIZE_PATH_MAX], retry[16], max_s[16];
	char *argv[14];
	int i = 0;

	out[0] = '\0';
	if (autosize_spank_cli(cli, sizeof(cli)) != 0) {
		snprintf(out, len, "no autosize command to deliver them "
			 "(install slurm-autosize's autosize on the node)");
		return -1;
	}
	snprintf(retry, sizeof(retry), "%d", cfg->spool_retry_s);
	snprintf(max_s, sizeof(max_s), "%d", REPORT_FLUSH_S - 1);
	/* execv takes char *const[] but writes nothing through it */
	argv[i++] = cli;
	argv[i++] = (char *)"spool";
	argv[i++] = (char *)"--flush";
	argv[i++] = (char *)"--dir";
	argv[i++] = (char *)cfg->spool;
	argv[i++] = (char *)"--retry";
	argv[i++] = retry;
	argv[i++] = (char *)"--max-time";
	argv[i++] = max_s;
	if (job) {
		argv[i++] = (char *)"--job";
		argv[i++] = (char *)job;
	}
	argv[i] = NULL;
	return autosize_run(cli, argv, AUTOSIZE_SPAWN_QUIET,
			    REPORT_FLUSH_S * 1000, out, len, NULL);
}

/* The batch step's figures into the spool; 0, or -1 (warned). */
static int report_spool(const autosize_spool_entry *en)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	autosize_error e;
	int dfd, rc = 0;

	dfd = autosize_spool_open(cfg->spool, 1, &e);
	if (dfd < 0 || autosize_spool_put(dfd, en, &e) != AUTOSIZE_OK) {
		autosize_spank_warn("AUTOSIZE_REPORT: measured figures not "
				    "kept: %s", e.msg);
		rc = -1;
	}
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/* The job's entry: its figures, its cluster (slurmstepd's own
 * SLURM_CLUSTER_NAME in the step's environment), now. */
static void report_entry(spank_t sp, uint32_t job_id,
			 const autosize_measured *m, autosize_spool_entry *en)
{
	char line[AUTOSIZE_SPOOL_ENTRY_MAX];

	memset(en, 0, sizeof(*en));
	en->job_id = job_id;
	en->ended_s = (long)time(NULL);
	en->m = *m;
	if (spank_getenv(sp, "SLURM_CLUSTER_NAME", en->cluster,
			 sizeof(en->cluster)) != ESPANK_SUCCESS ||
	    autosize_spool_entry_encode(en, line, sizeof(line)) < 0)
		en->cluster[0] = '\0';   /* the flush asks slurmctld */
}

int autosize_spank_report_task_exit(spank_t sp)
{
	char path[AUTOSIZE_PATH_MAX + 32], *text = NULL;
	char rec[AUTOSIZE_RECORD_MAX], id[24], out[REPORT_OUT_MAX];
	autosize_spool_entry en;
	autosize_measured m;
	uint32_t job_id, step_id;
	size_t len;
	int partial, bad, rc;
	const char *kept;
	uid_t uid;

	if (!report_active() ||
	    spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
	    step_id != AUTOSIZE_SPANK_STEP_BATCH ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    !report_path(sp, path, sizeof(path)) ||
	    report_read(uid, &text, &len, &partial) != 0)
		return 0;
	autosize_report_summary(text, len, partial, &m, &bad);
	free(text);
	if (bad > 0)
		autosize_spank_warn("AUTOSIZE_REPORT: %d line%s not read (one "
				    "JSON object a line: tokens_per_s, step_s, "
				    "peak_memory_bytes)", bad,
				    bad == 1 ? "" : "s");
	/* a job slurmctld sized has its plan record (job_submit.lua puts
	 * it in a batch job's environment): the figures' place */
	if (m.lines == 0 ||
	    spank_getenv(sp, "AUTOSIZE_RECORD", rec, sizeof(rec)) !=
	    ESPANK_SUCCESS ||
	    strncmp(rec, AUTOSIZE_RECORD_PREFIX,
		    strlen(AUTOSIZE_RECORD_PREFIX)) != 0)
		return 0;
	report_entry(sp, job_id, &m, &en);
	if (report_spool(&en) != 0)
		return 0;
	snprintf(id, sizeof(id), "%u", job_id);
	rc = report_flush(id, out, sizeof(out));
	if (rc == 0)
		return 0;
	kept = strstr(out, ": kept: ");
	autosize_spank_warn("AUTOSIZE_REPORT: measured figures kept on this "
			    "node, to be delivered when Slurm takes them "
			    "(%.200s)", kept ? kept + 8 : rc < 0 && out[0]
			    ? out : "slurmctld or slurmdbd did not answer in "
			    "time");
	return 0;
}

void autosize_spank_report_epilog(void)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	char out[REPORT_OUT_MAX], *line, *save = NULL;
	autosize_error e;
	int dfd, n;

	dfd = autosize_spool_open(cfg->spool, 0, &e);
	if (dfd < 0)
		return;      /* no spool yet: nothing waits */
	n = autosize_spool_list(dfd, NULL, 0);
	close(dfd);
	if (n == 0)
		return;
	if (report_flush(NULL, out, sizeof(out)) < 0 && !out[0])
		snprintf(out, sizeof(out), "autosize spool --flush did not "
			 "finish in %d s: entries kept", REPORT_FLUSH_S);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		slurm_info("autosize: spool: %.300s", line);
}
