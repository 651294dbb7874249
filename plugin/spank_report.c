/*
 * autosize SPANK plugin, remote context: AUTOSIZE_REPORT (issue 10).
 *
 * Every task gets AUTOSIZE_REPORT, a path in the job's private folder on
 * the node (spank_jobdir.c); a training loop may append JSON lines there
 * ({"tokens_per_s":..,"step_s":..,"peak_memory_bytes":..}). When the
 * batch script's task exits, slurmstepd (root, on the batch node, while
 * the job is still running in slurmctld) reads the report (its tail, at
 * most AUTOSIZE_REPORT_MAX_BYTES, owned by the job's user, not a link),
 * keeps the figures plausible against the job's plan record, and writes
 * them into the record in the job's AdminComment with `scontrol update`
 * (the current AdminComment is read with `squeue -O admin_comment`, that
 * field alone: `scontrol show job` also prints the job's name, command
 * and folder, which the user chooses and which may spell a fake
 * " AdminComment=..."; the whole comment is kept, the site's text after
 * the record included):
 * AdminComment needs an operator, which root on a Slurm node is; an
 * update of a running job reaches slurmdbd with the job's record, so
 * `sacct -o AdminComment` and `autosize calibrate --sacct` see it.
 *
 * A job that ended before its batch script (its time limit, scancel) no
 * longer takes updates in slurmctld, and those are the jobs calibration
 * most needs to see (the slow ones). Their figures go into the
 * accounting record instead (`sacctmgr modify job ... set
 * AdminComment=`, root is a slurmdbd admin), once sacct shows the job
 * ended: slurmctld's end record carries the old AdminComment and would
 * otherwise write it over ours.
 * Nothing here fails a step: every problem is a warning at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "autosize/spawn.h"
#include "spank_common.h"

#define REPORT_NAME "report.jsonl"
#define REPORT_SHOW_MAX (64 * 1024)
/* scontrol may take this long before it is killed (slurmctld busy). */
#define REPORT_TIMEOUT_S 20

/* The commands of the Slurm the plugin was built for come first
 * (make SLURM_PREFIX=DIR defines AUTOSIZE_SLURM_BINDIR): slurmctld
 * refuses clients more than two releases older than itself, so
 * /usr/bin's may not do. */
#ifdef AUTOSIZE_SLURM_BINDIR
#define REPORT_BUILT_FOR(cmd) AUTOSIZE_SLURM_BINDIR "/" cmd,
#else
#define REPORT_BUILT_FOR(cmd)
#endif
static const char *const report_scontrol[] = {
	REPORT_BUILT_FOR("scontrol")
	"/usr/local/bin/scontrol", "/usr/bin/scontrol", NULL
};
static const char *const report_squeue[] = {
	REPORT_BUILT_FOR("squeue")
	"/usr/local/bin/squeue", "/usr/bin/squeue", NULL
};
static const char *const report_sacct[] = {
	REPORT_BUILT_FOR("sacct")
	"/usr/local/bin/sacct", "/usr/bin/sacct", NULL
};
static const char *const report_sacctmgr[] = {
	REPORT_BUILT_FOR("sacctmgr")
	"/usr/local/bin/sacctmgr", "/usr/bin/sacctmgr", NULL
};
/* How long to wait for accounting to hold a job's end (seconds). */
#define REPORT_END_WAIT_S 15

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

/* Read the tail of the report (the job's user's file, not a link, in
 * the job's very folder: root never follows a link the user put in the
 * folder's place to a file elsewhere): 0, or -1 when there is none worth
 * reading. *partial: the tail starts inside a line. */
static int report_read(uid_t uid, char **text, size_t *len, int *partial)
{
	struct stat st;
	ssize_t got;
	off_t from;
	char *buf;
	int fd;

	fd = autosize_spank_job_dir_openat(REPORT_NAME, O_RDONLY |
					   O_NONBLOCK | O_CLOEXEC);
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

/* Run a Slurm command (one of the paths in exes) with the arguments after
 * len, a NULL-ended list of at most 8 strings (no shell);
 * its stdout into out (may be NULL). Killed after REPORT_TIMEOUT_S. 0
 * when it exited 0. */
static int report_slurm_run(const char *const exes[], char *out, size_t len,
			    ...)
{
	const char *exe = NULL, *arg;
	char *argv[10];
	int fd, i;
	size_t used = 0;
	va_list ap;
	time_t end;
	pid_t pid;

	/* The first one there: exes is in order of preference. */
	for (i = 0; exes[i] && !exe; i++)
		if (access(exes[i], X_OK) == 0)
			exe = exes[i];
	if (!exe) {
		autosize_spank_warn("AUTOSIZE_REPORT: no %s on this node "
				    "(install slurm-client): measured figures "
				    "not kept", strrchr(exes[i - 1], '/') + 1);
		return -1;
	}
	/* execv takes char *const[] but writes nothing through it. */
	argv[0] = (char *)exe;
	va_start(ap, len);
	for (i = 1; i < 9 && (arg = va_arg(ap, const char *)) != NULL; i++)
		argv[i] = (char *)arg;
	va_end(ap);
	argv[i] = NULL;
	pid = autosize_spawn(argv, AUTOSIZE_SPAWN_QUIET, &fd);
	if (pid < 0)
		return -1;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	end = time(NULL) + REPORT_TIMEOUT_S;
	for (;;) {
		char sink[512];
		char *dst = out && used + 1 < len ? out + used : sink;
		size_t room = out && used + 1 < len ? len - 1 - used
						    : sizeof(sink);
		ssize_t n;

		/* checked on every pass: a child that never stops writing
		 * is cut off too */
		if (time(NULL) > end)
			break;
		n = read(fd, dst, room);
		if (n > 0) {
			if (dst != sink)
				used += (size_t)n;
			continue;
		}
		if (n == 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			break;
		usleep(20000);
	}
	close(fd);
	if (out)
		out[used] = '\0';
	/* one that closed its output but runs on is killed at the end */
	return autosize_reap_by(pid, end) == 0 ? 0 : -1;
}

/* The job's whole AdminComment, as slurmctld holds it, into comment:
 * squeue's admin_comment field alone (width 0: neither cut nor padded),
 * without the line's end. 0, or -1 (no job, too long). */
static int report_admin_comment(const char *id, char *comment, size_t len)
{
	char *show;
	size_t n;
	int rc = -1;

	show = malloc(REPORT_SHOW_MAX);
	if (!show)
		return -1;
	if (report_slurm_run(report_squeue, show, REPORT_SHOW_MAX, "-h", "-a",
			     "-j", id, "-O", "admin_comment:0", NULL) == 0) {
		n = strlen(show);
		if (n > 0 && show[n - 1] == '\n')
			show[--n] = '\0';
		if (n < len && !memchr(show, '\n', n)) {
			memcpy(comment, show, n + 1);
			rc = 0;
		}
	}
	free(show);
	return rc;
}

/* 1 when accounting holds the job's end (sacct's state is not one of a
 * job still on its nodes). */
static int report_job_ended(const char *id)
{
	char state[256];

	if (report_slurm_run(report_sacct, state, sizeof(state), "-n", "-P",
			     "-X", "-j", id, "-o", "State", NULL) != 0 ||
	    !state[0])
		return 0;
	return strncmp(state, "PENDING", 7) != 0 &&
	       strncmp(state, "RUNNING", 7) != 0 &&
	       strncmp(state, "REQUEUED", 8) != 0 &&
	       strncmp(state, "RESIZING", 8) != 0 &&
	       strncmp(state, "SUSPENDED", 9) != 0;
}

/* The AdminComment of a job slurmctld has ended, in its accounting
 * record. 0, or -1. */
static int report_attach_accounting(const char *id, const char *comment)
{
	char jobid_arg[48], assign[AUTOSIZE_ADMIN_COMMENT_MAX + 16];
	int waited_s;

	for (waited_s = 0; !report_job_ended(id); waited_s++) {
		if (waited_s >= REPORT_END_WAIT_S)
			return -1;
		sleep(1);
	}
	snprintf(jobid_arg, sizeof(jobid_arg), "jobid=%s", id);
	snprintf(assign, sizeof(assign), "AdminComment=%s", comment);
	return report_slurm_run(report_sacctmgr, NULL, 0, "-i", "modify",
				"job", "where", jobid_arg, "set", assign,
				NULL);
}

/* The measured figures into the job's AdminComment. */
static void report_attach(uint32_t job_id, const char *text, size_t len,
			  int partial)
{
	char id[32];
	char comment[AUTOSIZE_ADMIN_COMMENT_MAX], token[AUTOSIZE_RECORD_MAX];
	char what[64], assign[AUTOSIZE_ADMIN_COMMENT_MAX + 16];
	char newc[AUTOSIZE_ADMIN_COMMENT_MAX], jobid_arg[48];
	autosize_record rec;
	autosize_error e;
	size_t start, n;
	int bad, used;

	snprintf(id, sizeof(id), "%u", job_id);
	snprintf(what, sizeof(what), "job %u's AdminComment", job_id);
	if (report_admin_comment(id, comment, sizeof(comment)) != 0 ||
	    !autosize_record_find(comment, &start, &n) ||
	    autosize_record_decode(comment + start, n, what, &rec, &e))
		return;   /* not a job slurmctld sized: nothing to attach to */
	used = autosize_record_measure(&rec, text, len, partial, &bad);
	if (bad > 0)
		autosize_spank_warn("AUTOSIZE_REPORT: %d line%s not read (one "
				    "JSON object a line: tokens_per_s, step_s, "
				    "peak_memory_bytes)", bad,
				    bad == 1 ? "" : "s");
	if (used == 0 ||
	    autosize_record_encode(&rec, token, sizeof(token)) < 0 ||
	    autosize_record_attach(comment, token, newc, sizeof(newc)) < 0)
		return;
	snprintf(jobid_arg, sizeof(jobid_arg), "jobid=%u", job_id);
	snprintf(assign, sizeof(assign), "AdminComment=%s", newc);
	if (report_slurm_run(report_scontrol, NULL, 0, "update", jobid_arg,
			     assign, NULL) == 0)
		return;
	/* Ended already (time limit, scancel): the accounting record. */
	if (report_attach_accounting(id, newc) != 0)
		autosize_spank_warn("AUTOSIZE_REPORT: neither scontrol update "
				    "nor sacctmgr modify of job %u's "
				    "AdminComment worked: measured figures "
				    "not kept", job_id);
}

int autosize_spank_report_task_exit(spank_t sp)
{
	char path[AUTOSIZE_PATH_MAX + 32], *text = NULL;
	uint32_t job_id, step_id;
	size_t len;
	int partial;
	uid_t uid;

	if (!report_active() ||
	    spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
	    step_id != AUTOSIZE_SPANK_STEP_BATCH ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    !report_path(sp, path, sizeof(path)) ||
	    report_read(uid, &text, &len, &partial) != 0)
		return 0;
	report_attach(job_id, text, len, partial);
	free(text);
	return 0;
}
