/*
 * autosize spool: the node's measured figures waiting for slurmctld or
 * slurmdbd (autosize/spool.h), listed, or handed over with --flush. The
 * SPANK plugin runs `autosize spool --flush` at a batch script's end
 * (--job, that job) and in every job epilog; a timer may run it too.
 *
 * Each entry is marked tried before it is tried, and removed only once
 * its figures are in Slurm's records (or there is nothing to deliver):
 * a run killed at any point loses nothing. --max-time ends the run
 * whatever libslurm waits for (SIGALRM): a hung slurmdbd holds no node.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "opts.h"
#include "acct.h"

#ifndef AUTOSIZE_SPOOL_DIR
#define AUTOSIZE_SPOOL_DIR "/var/spool/slurm-autosize"
#endif
/* An entry is tried again this long after its last try, by default. */
#define SPOOL_RETRY_S 60
/* Exit status: every entry tried was delivered or dropped; some are kept
 * for later. */
#define SPOOL_EXIT_KEPT 1

typedef struct spool_opts {
	const char *dir;
	int flush;
	unsigned long job;   /* 0: every entry due */
	long retry_s;
	long max_time_s;     /* 0: none */
} spool_opts;

static void spool_usage(FILE *f)
{
	fprintf(f, "usage: autosize spool [--dir DIR] [--flush [--job N] "
		"[--retry S] [--max-time S]]\n"
		"Lists the measured figures this node holds for Slurm's "
		"records (default\nspool %s); --flush hands them to slurmctld "
		"or slurmdbd.\n", AUTOSIZE_SPOOL_DIR);
}

/* A whole number in lo..hi from the value s of option opt; -1 (said)
 * when not. */
static long spool_num(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi) {
		fprintf(stderr, "autosize: spool: %s '%.40s': expected a "
			"whole number in %ld..%ld\n", opt, s, lo, hi);
		return -1;
	}
	return v;
}

enum { SPOOL_HELP = 1, SPOOL_DIR, SPOOL_FLUSH, SPOOL_JOB, SPOOL_RETRY,
       SPOOL_MAX_TIME };
static const cli_opt spool_table[] = {
	{"help", 'h', 0, SPOOL_HELP},
	{"dir", 0, 1, SPOOL_DIR},
	{"flush", 0, 0, SPOOL_FLUSH},
	{"job", 0, 1, SPOOL_JOB},
	{"retry", 0, 1, SPOOL_RETRY},
	{"max-time", 0, 1, SPOOL_MAX_TIME},
};

static int spool_args(int argc, char **argv, spool_opts *o)
{
	cli_opts op;
	int k;
	long v;

	memset(o, 0, sizeof(*o));
	o->dir = AUTOSIZE_SPOOL_DIR;
	o->retry_s = SPOOL_RETRY_S;
	cli_opts_init(&op, spool_table, CLI_N(spool_table), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		if (k == SPOOL_DIR) {
			o->dir = op.value;
		} else if (k == SPOOL_FLUSH) {
			o->flush = 1;
		} else if (k == SPOOL_JOB) {
			if ((v = spool_num(op.name, op.value, 1,
					   4294967295L)) < 0)
				return -1;
			o->job = (unsigned long)v;
		} else if (k == SPOOL_RETRY) {
			if ((o->retry_s = spool_num(op.name, op.value, 0,
						    86400)) < 0)
				return -1;
		} else if (k == SPOOL_MAX_TIME) {
			if ((o->max_time_s = spool_num(op.name, op.value, 1,
						       86400)) < 0)
				return -1;
		} else if (k == SPOOL_HELP) {
			spool_usage(stdout);
			exit(CLI_EXIT_OK);
		} else if (k == CLI_OPT_NO_VALUE) {
			fprintf(stderr, "autosize: spool: %s needs a value\n",
				op.text);
			return -1;
		} else if (k != CLI_OPT_DASHDASH) {
			fprintf(stderr, "autosize: spool: unknown argument "
				"'%.40s'\n", op.text);
			spool_usage(stderr);
			return -1;
		}
	}
	if (o->job && !o->flush) {
		fprintf(stderr, "autosize: spool: --job goes with --flush\n");
		return -1;
	}
	return 0;
}

/* --max-time ran out inside libslurm: say so and end (nothing is lost:
 * entries go only once delivered). */
static void spool_alarm(int sig)
{
	static const char msg[] = "--max-time reached: the entries left "
				  "are kept for the next try\n";
	ssize_t n = write(1, msg, sizeof(msg) - 1);

	(void)n;
	(void)sig;
	_exit(SPOOL_EXIT_KEPT);
}

static void spool_print(const autosize_spool_entry *en, time_t tried,
			time_t now)
{
	printf("job %lu  cluster %s  ended %lds ago  tried %lds ago  "
	       "tokens/s %.6g  step %.6gs  peak %.6g bytes  lines %d\n",
	       en->job_id, en->cluster[0] ? en->cluster : "-",
	       (long)(now - en->ended_s), (long)(now - tried),
	       en->m.tokens_per_s, en->m.step_s, en->m.mem_bytes, en->m.lines);
}

/* One entry: 0 gone (delivered or dropped), 1 kept. */
static int spool_one(int dfd, unsigned long id, const spool_opts *o,
		     time_t now)
{
	autosize_spool_entry en;
	autosize_error e;
	char why[AUTOSIZE_MSG_LEN];
	time_t tried;
	acct_outcome out;
	autosize_err rc;

	rc = autosize_spool_get(dfd, id, &en, &tried, &e);
	if (rc == AUTOSIZE_ENOTFOUND)
		return 0;   /* another flush (an epilog) took it meanwhile */
	if (rc != AUTOSIZE_OK) {
		/* only root writes here: an entry that does not read
		 * never will */
		autosize_one_line(e.msg);
		printf("job %lu: dropped: %s\n", id, e.msg);
		autosize_spool_remove(dfd, id);
		return 0;
	}
	if (!o->flush) {
		spool_print(&en, tried, now);
		return 1;
	}
	if (now - en.ended_s > AUTOSIZE_SPOOL_MAX_AGE_S) {
		printf("job %lu: dropped: ended more than %ld days ago\n", id,
		       AUTOSIZE_SPOOL_MAX_AGE_S / 86400);
		autosize_spool_remove(dfd, id);
		return 0;
	}
	if (!o->job && now - tried < o->retry_s)
		return 1;
	autosize_spool_tried(dfd, id);
	out = acct_deliver(&en, why, sizeof(why));
	autosize_one_line(why);
	if (out == ACCT_LATER) {
		printf("job %lu: kept: %s\n", id, why);
		return 1;
	}
	printf("job %lu: %s: %s\n", id,
	       out == ACCT_DELIVERED ? "delivered" : "dropped", why);
	autosize_spool_remove(dfd, id);
	/* a chained run these figures say is done: its followers go */
	if (out == ACCT_DELIVERED && en.m.tokens_done > 0 &&
	    acct_chain_end(id, why, sizeof(why)) != 0) {
		autosize_one_line(why);
		printf("job %lu: %s\n", id, why);
	}
	return 0;
}

int cli_spool(int argc, char **argv)
{
	unsigned long ids[AUTOSIZE_SPOOL_MAX_ENTRIES];
	spool_opts o;
	autosize_error e;
	time_t now = time(NULL);
	int dfd, n, i, kept = 0;

	if (spool_args(argc, argv, &o) != 0)
		return CLI_EXIT_USAGE;
	if (o.flush && !acct_available()) {
		fprintf(stderr, "autosize: spool: built without libslurm "
			"(libslurm-dev): cannot deliver; the entries stay\n");
		return CLI_EXIT_USAGE;
	}
	if (o.max_time_s > 0) {
		signal(SIGALRM, spool_alarm);
		alarm((unsigned)o.max_time_s);
	}
	dfd = autosize_spool_open(o.dir, 0, &e);
	if (dfd < 0) {
		/* no spool yet: nothing waits */
		if (access(o.dir, F_OK) != 0 && errno == ENOENT)
			return CLI_EXIT_OK;
		autosize_one_line(e.msg);
		fprintf(stderr, "autosize: %s\n", e.msg);
		return CLI_EXIT_USAGE;
	}
	n = autosize_spool_list(dfd, ids, AUTOSIZE_SPOOL_MAX_ENTRIES);
	if (n > AUTOSIZE_SPOOL_MAX_ENTRIES)
		n = AUTOSIZE_SPOOL_MAX_ENTRIES;
	for (i = 0; i < n; i++)
		if (!o.job || ids[i] == o.job)
			kept += spool_one(dfd, ids[i], &o, now);
	acct_end();
	close(dfd);
	if (!o.flush) {
		if (n == 0)
			printf("spool %s: empty\n", o.dir);
		return CLI_EXIT_OK;
	}
	fflush(stdout);
	return kept ? SPOOL_EXIT_KEPT : CLI_EXIT_OK;
}
