/*
 * autosize probe: measure before renting. Submits the
 * user's own script as short probe jobs at two sizes (4 and 8 GPUs of a
 * node; also 1 and 2 whole nodes when the plan spans nodes) with
 * AUTOSIZE_PROBE_STEPS in their environment, waits, reads each job's plan
 * record with what its training loop appended to $AUTOSIZE_REPORT, and
 * judges the scaling by the renter's rules (offline/probe.c). The measured
 * speed and memory become a calibration file for this model and user.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "autosize/calibration_learn.h"
#include "autosize/probe.h"
#include "autosize/jobstate.h"
#include "autosize/spawn.h"

#define PROBE_MAX_RUNS 3
#define PROBE_MAX_ARGS 256
/* The longest one sbatch, squeue or sacct call may take: Slurm's own
 * retries against a busy slurmctld are well within it; past it the
 * controller is hung and the probe says the command failed. */
#define PROBE_CMD_S 300
#define PROBE_OUT_MAX (256 * 1024)
#define PROBE_GIB (1024.0 * 1024.0 * 1024.0)
/* Default time limit of a probe job, minutes (100 steps and start-up). */
#define PROBE_TIME_MIN 30

typedef struct probe_cli {
	autosize_request req;
	autosize_policy *policy;
	const char *fwd[PROBE_MAX_ARGS];  /* plan options for sbatch */
	int n_fwd;
	char **user_args;                 /* after "--" */
	int n_user;
	int steps, time_min, no_wait, collect;
	const char *cal_out;
	char part[AUTOSIZE_PART_NAME_MAX]; /* the plan's partition, "" for
					    * a GPU's reference server */
	int have_req;                     /* plan options were given */
	autosize_probe_run runs[PROBE_MAX_RUNS];
	int gpn[PROBE_MAX_RUNS], nodes[PROBE_MAX_RUNS];
	autosize_record rec[PROBE_MAX_RUNS];
	int n_runs;
} probe_cli;

static void probe_help(void)
{
	printf("usage: autosize probe [PLAN OPTIONS] [--steps=N] [--time=MIN] "
	       "[--no-wait]\n"
	       "                      [--calibration-out=FILE] [--policy=FILE] "
	       "-- [SBATCH OPTIONS] SCRIPT [ARGS]\n"
	       "       autosize probe --collect [--calibration-out=FILE] "
	       "JOBID JOBID [JOBID]\n\n"
	       "Submits SCRIPT as short probe jobs at two sizes (4 and 8 GPUs "
	       "of a node; also 1\nand 2 nodes when the plan spans nodes) "
	       "with AUTOSIZE_PROBE_STEPS=N (default %d)\nin the environment, "
	       "waits, and reports each probe's tokens/s, MFU and peak\nmemory "
	       "against the plan, the speedup against the 1.6x rule and what "
	       "to fix\nfirst. The script appends {\"tokens_per_s\": ..., "
	       "\"peak_memory_bytes\": ...} lines\nto $AUTOSIZE_REPORT. The "
	       "measurements are written as a calibration\n(--calibration-out, "
	       "default autosize-probe.yaml) for autosize plan --calibration.\n"
	       "--no-wait prints the job ids; --collect reads them later (any "
	       "order).\n"
	       "Exit status: 0 scaling holds, 1 a rule failed, 2 bad input or "
	       "a failed submission.\n", AUTOSIZE_PROBE_STEPS);
}

/* Run argv (no shell), its stdout into out (NUL-terminated, cut at
 * len); stderr passes through. Returns its exit status, -1 when it could
 * not run or did not end within PROBE_CMD_S (a hung slurmctld). */
static int probe_exec(char *const argv[], char *out, size_t len)
{
	int rc = autosize_run(argv[0], argv, AUTOSIZE_SPAWN_PATH,
			      PROBE_CMD_S * 1000, out, len, NULL);

	return rc < 0 ? -1 : rc;
}

/* The first line of text, without its line end. */
static void probe_first_line(char *text)
{
	text[strcspn(text, "\n")] = '\0';
}

/*
 * One field of a job, read alone: squeue's (`-O FIELD:0`, neither cut
 * nor padded), else, once the job has left slurmctld, sacct's. Never out
 * of `scontrol show job` text, where the job's name (chosen by whoever
 * submitted it) could forge "JobState=..." or "AdminComment=...".
 */
static void probe_job_field(long id, const char *squeue_field,
			    const char *sacct_field, char *buf, size_t len)
{
	char idbuf[24], fmt[64];
	char *sq[] = {"squeue", "-h", "-a", "-t", "all", "-j", idbuf, "-O",
		      fmt, NULL};
	char *sa[] = {"sacct", "-n", "-X", "-P", "-j", idbuf, "-o",
		      (char *)sacct_field, NULL};

	snprintf(idbuf, sizeof(idbuf), "%ld", id);
	snprintf(fmt, sizeof(fmt), "%s:0", squeue_field);
	if (probe_exec(sq, buf, len) == 0) {
		probe_first_line(buf);
		if (buf[0])
			return;
	}
	buf[0] = '\0';
	if (sacct_field && probe_exec(sa, buf, len) == 0)
		probe_first_line(buf);
}

/*
 * The job's output file: squeue prints the pattern as submitted
 * (`--output=dir/%j.out`); expand Slurm's %j / %A (the id), %x (the
 * job's name) and %%. "" when another pattern is in it.
 */
static void probe_stdout(long id, char *buf, size_t len)
{
	char pattern[1024], name[256];
	size_t used = 0, i;
	int n;

	probe_job_field(id, "stdout", NULL, pattern, sizeof(pattern));
	name[0] = '\0';
	if (strstr(pattern, "%x"))
		probe_job_field(id, "name", NULL, name, sizeof(name));
	buf[0] = '\0';
	for (i = 0; pattern[i] && used + 1 < len; i++) {
		if (pattern[i] != '%') {
			buf[used++] = pattern[i];
			continue;
		}
		switch (pattern[++i]) {
		case 'j':
		case 'A':
			n = snprintf(buf + used, len - used, "%ld", id);
			break;
		case 'x':
			n = snprintf(buf + used, len - used, "%s", name);
			break;
		case '%':
			n = snprintf(buf + used, len - used, "%%");
			break;
		default:
			buf[0] = '\0';
			return;
		}
		if (n < 0 || (size_t)n >= len - used) {
			buf[0] = '\0';
			return;
		}
		used += (size_t)n;
	}
	buf[used] = '\0';
}

/* The job's state ("COMPLETED"; sacct's "CANCELLED by 0" cut to its
 * first word), "" when unknown. */
static void probe_state(long id, char *buf, size_t len)
{
	probe_job_field(id, "state", "State", buf, len);
	buf[strcspn(buf, " ")] = '\0';
}

/* The job has ended (jobstate.h); "" (not in accounting yet) has not. */
static int probe_terminal(const char *state)
{
	return state[0] && !autosize_job_state_live(state);
}

/* The job's output file shows an OOM. */
static int probe_output_oom(const char *path)
{
	static char text[PROBE_OUT_MAX];
	size_t n;
	FILE *f;

	if (!path[0])
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > PROBE_OUT_MAX)
		fseek(f, -PROBE_OUT_MAX, SEEK_END);
	else
		rewind(f);
	n = fread(text, 1, sizeof(text), f);
	fclose(f);
	return autosize_probe_output_oom(text, n);
}

/* Read a finished probe job: state, OOM, its record. */
static void probe_read_job(probe_cli *c, int i)
{
	char comment[AUTOSIZE_ADMIN_COMMENT_MAX], out[1024], what[64];
	autosize_probe_run *run = &c->runs[i];
	const autosize_gpu *gpu;
	autosize_error e;
	size_t start, len;

	probe_state(run->job_id, run->state, sizeof(run->state));
	if (!run->state[0])
		return;
	probe_stdout(run->job_id, out, sizeof(out));
	run->oom = strcmp(run->state, "OUT_OF_MEMORY") == 0 ||
		   probe_output_oom(out);
	probe_job_field(run->job_id, "admin_comment", "AdminComment", comment,
			sizeof(comment));
	if (!autosize_record_find(comment, &start, &len))
		return;
	snprintf(what, sizeof(what), "job %ld's AdminComment", run->job_id);
	if (autosize_record_decode(comment + start, len, what, &c->rec[i],
				   &e) != AUTOSIZE_OK) {
		fprintf(stderr, "autosize: probe: %s\n", e.msg);
		return;
	}
	gpu = autosize_catalog_find(autosize_policy_catalog(c->policy),
				    c->rec[i].gpu);
	autosize_probe_from_record(&c->rec[i], gpu, run);
}

/* Wait for every probe, one progress line on stderr. */
static int probe_wait(probe_cli *c)
{
	time_t until = time(NULL) + (time_t)(c->time_min + 10) * 60 * 2;
	const char *poll = getenv("AUTOSIZE_PROBE_POLL_S");
	int i, left, poll_s = poll ? atoi(poll) : 5;
	char state[32];

	if (poll_s < 1)
		poll_s = 1;
	for (;;) {
		left = 0;
		fprintf(stderr, "\rautosize: probe:");
		for (i = 0; i < c->n_runs; i++) {
			probe_state(c->runs[i].job_id, state, sizeof(state));
			if (!probe_terminal(state))
				left++;
			fprintf(stderr, " job %ld (%d GPUs) %s%s",
				c->runs[i].job_id, c->runs[i].gpus,
				state[0] ? state : "?",
				i + 1 < c->n_runs ? "," : "");
		}
		fprintf(stderr, "   ");
		if (!left)
			break;
		if (time(NULL) > until) {
			fprintf(stderr, "\nautosize: probe: gave up waiting; "
				"autosize probe --collect reads them later\n");
			return -1;
		}
		sleep((unsigned)poll_s);
	}
	fprintf(stderr, "\n");
	return 0;
}

/* sbatch one probe; its job id, or -1. */
static long probe_submit(probe_cli *c, int i)
{
	char *argv[PROBE_MAX_ARGS + 16], out[256], nodes[16], gpn[48];
	char name[48], limit[16], env[64], part[AUTOSIZE_PART_NAME_MAX + 16];
	int n = 0, k, rc;
	long id;

	snprintf(nodes, sizeof(nodes), "--nodes=%d", c->nodes[i]);
	snprintf(gpn, sizeof(gpn), "--gpus-per-node=%d", c->gpn[i]);
	snprintf(name, sizeof(name), "--job-name=autosize-probe-%d",
		 c->nodes[i] * c->gpn[i]);
	snprintf(limit, sizeof(limit), "--time=%d", c->time_min);
	snprintf(env, sizeof(env), "--export=ALL,AUTOSIZE_PROBE_STEPS=%d",
		 c->steps);
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = name;
	argv[n++] = nodes;
	argv[n++] = gpn;
	argv[n++] = limit;
	argv[n++] = env;
	if (!c->req.partition[0] && c->part[0]) {
		/* the partition the plan chose */
		snprintf(part, sizeof(part), "--partition=%s", c->part);
		argv[n++] = part;
	}
	for (k = 0; k < c->n_fwd && n < PROBE_MAX_ARGS; k++)
		argv[n++] = (char *)c->fwd[k];
	for (k = 0; k < c->n_user && n < PROBE_MAX_ARGS + 14; k++)
		argv[n++] = c->user_args[k];
	argv[n] = NULL;
	rc = probe_exec(argv, out, sizeof(out));
	id = strtol(out, NULL, 10);
	if (rc != 0 || id <= 0) {
		fprintf(stderr, "autosize: probe: sbatch failed (exit %d) for "
			"the %d-GPU probe\n", rc, c->nodes[i] * c->gpn[i]);
		return -1;
	}
	return id;
}

/* The probe sizes from the plan: half a node and a node, and two nodes
 * when the plan spans nodes. */
static void probe_sizes(probe_cli *c, const autosize_plan *plan)
{
	int g = plan->part.gpus_per_node > 0 ? plan->part.gpus_per_node : 8;

	c->n_runs = 0;
	if (g >= 2) {
		c->nodes[c->n_runs] = 1;
		c->gpn[c->n_runs++] = g / 2;
	}
	c->nodes[c->n_runs] = 1;
	c->gpn[c->n_runs++] = g;
	if (plan->nodes > 1) {
		c->nodes[c->n_runs] = 2;
		c->gpn[c->n_runs++] = g;
	}
}

static void probe_print_run(const autosize_probe_run *r)
{
	printf("  %3d GPUs  job %-8ld %-12s", r->gpus, r->job_id,
	       r->state[0] ? r->state : "?");
	if (r->oom)
		printf(" OUT OF MEMORY");
	if (!r->measured) {
		printf(" no figures\n");
		return;
	}
	printf(" %.0f tokens/s (%.0f per GPU; planned %.0f, %.2fx), MFU "
	       "%.0f%% (planned %.0f%%)", r->tokens_per_s,
	       r->tokens_per_s / r->gpus, r->pred_tokens_per_s,
	       r->pred_tokens_per_s > 0 ? r->tokens_per_s /
					  r->pred_tokens_per_s : 0,
	       r->mfu * 100, r->pred_mfu * 100);
	if (r->mem_bytes > 0)
		printf(", peak %.1f GiB (planned %.1f)", r->mem_bytes / PROBE_GIB,
		       r->pred_mem_bytes / PROBE_GIB);
	printf("\n");
}

/* The real job sized from the measurements: the request planned under
 * the probe's calibration (the policy takes it), as sbatch options. */
static void probe_real_job(probe_cli *c, autosize_calibration *cal)
{
	autosize_plan plan;
	autosize_error e;
	char limit[32];

	autosize_policy_set_calibration(c->policy, cal);
	if (autosize_plan_compute(c->policy, &c->req, &plan, &e) !=
	    AUTOSIZE_OK || plan.time_limit_min <= 0)
		return;
	printf("  real job   %d node%s x %d GPU%s, %.1f h predicted from the "
	       "measured speed: sbatch --nodes=%d --gpus-per-node=%d "
	       "--time=%s%s%s [the plan options] SCRIPT\n", plan.nodes,
	       autosize_plural(plan.nodes), plan.gpus_per_node,
	       autosize_plural(plan.gpus_per_node),
	       plan.train_hours, plan.nodes, plan.gpus_per_node,
	       autosize_format_duration(plan.time_limit_min * 60.0, limit,
					sizeof(limit)),
	       plan.chained_jobs > 1 ? " (chained: the run needs " : "",
	       plan.chained_jobs > 1 ? "more than one job)" : "");
}

/* The calibration of what the probes measured, for this user. */
static int probe_calibration(probe_cli *c)
{
	autosize_cal_options o;
	autosize_calibrator *k;
	autosize_calibration *cal;
	autosize_error e;
	const char *user = getenv("USER"), *out;
	struct passwd *pw = getpwuid(getuid());
	char summary[256];
	int i, used = 0;
	FILE *f;

	if (pw && pw->pw_name)
		user = pw->pw_name;
	autosize_cal_options_init(&o);
	o.min_jobs = 1;
	o.min_users = 1;
	/* the user's own short probe runs: no run-time or state rule */
	o.min_run_s = 0;
	o.require_state = 0;
	o.max_step = 0;
	k = autosize_calibrator_create(&o);
	if (!k)
		return -1;
	for (i = 0; i < c->n_runs; i++)
		if (c->runs[i].measured)
			used += autosize_calibrator_add(k, user ? user : "user",
							&c->rec[i],
							c->runs[i].state, 0);
	cal = used ? autosize_calibrator_result(k, &e) : NULL;
	autosize_calibrator_summary(k, summary, sizeof(summary));
	autosize_calibrator_destroy(k);
	if (!cal)
		return 0;
	out = c->cal_out ? c->cal_out : "autosize-probe.yaml";
	f = fopen(out, "w");
	if (!f || autosize_calibration_write(cal, f, "autosize probe") != 0) {
		fprintf(stderr, "autosize: probe: %s: %s\n", out,
			strerror(errno));
		if (f)
			fclose(f);
		autosize_calibration_destroy(cal);
		return -1;
	}
	fclose(f);
	printf("  calibration %s (%s): autosize plan ... --calibration=%s "
	       "sizes the real job from these measurements\n", out, summary,
	       out);
	if (c->have_req)
		probe_real_job(c, cal);   /* the policy owns cal now */
	else
		autosize_calibration_destroy(cal);
	return 0;
}

/* The probes from the fewest GPUs up (--collect takes any order). */
static void probe_sort(probe_cli *c)
{
	autosize_probe_run run;
	autosize_record rec;
	int i, j;

	for (i = 1; i < c->n_runs; i++)
		for (j = i; j > 0 && c->runs[j].gpus < c->runs[j - 1].gpus;
		     j--) {
			run = c->runs[j];
			c->runs[j] = c->runs[j - 1];
			c->runs[j - 1] = run;
			rec = c->rec[j];
			c->rec[j] = c->rec[j - 1];
			c->rec[j - 1] = rec;
		}
}

/* Read, judge and print every probe. Exit status. */
static int probe_report(probe_cli *c)
{
	autosize_probe_verdict v;
	int i, j, bad = 0;

	for (i = 0; i < c->n_runs; i++)
		probe_read_job(c, i);
	probe_sort(c);
	printf("autosize: probe of %d sizes\n", c->n_runs);
	for (i = 0; i < c->n_runs; i++)
		probe_print_run(&c->runs[i]);
	for (i = 0; i + 1 < c->n_runs; i++) {
		autosize_probe_assess(&c->runs[i], &c->runs[i + 1], &v);
		if (v.compared)
			printf("  speedup   %d -> %d GPUs: %.2fx (the rule asks "
			       "%.2fx)\n", c->runs[i].gpus,
			       c->runs[i + 1].gpus, v.speedup, v.min_speedup);
		for (j = 0; j < v.n_advice; j++)
			printf("  %s %s\n", j ? "          " : v.ok
			       ? "verdict   " : "fix first ", v.advice[j]);
		if (!v.ok)
			bad = 1;
	}
	if (probe_calibration(c) != 0)
		return CLI_EXIT_USAGE;
	return bad ? CLI_EXIT_NOFIT : CLI_EXIT_OK;
}

/* --name=value of probe_cmd's own; 1 taken, 0 not ours, -1 bad. */
static int probe_own(probe_cli *c, const char *arg)
{
	const char *v = strchr(arg, '=');

	if (strcmp(arg, "--no-wait") == 0)
		return c->no_wait = 1;
	if (strcmp(arg, "--collect") == 0)
		return c->collect = 1;
	if (!v)
		return 0;
	v++;
	if (strncmp(arg, "--steps=", 8) == 0)
		c->steps = atoi(v);
	else if (strncmp(arg, "--time=", 7) == 0)
		c->time_min = atoi(v);
	else if (strncmp(arg, "--calibration-out=", 18) == 0)
		c->cal_out = v;
	else
		return 0;
	if (c->steps < 1 || c->steps > 1000000 || c->time_min < 1 ||
	    c->time_min > 100000) {
		fprintf(stderr, "autosize: probe: %.40s: expected a whole "
			"number from 1\n", arg);
		return -1;
	}
	return 1;
}

/* PLAN OPTIONS: into the request; those sbatch takes are forwarded. */
static int probe_plan_option(probe_cli *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const autosize_option *o;
	char name[64];
	autosize_error e;
	size_t n;

	if (strncmp(arg, "--", 2) != 0 || !eq ||
	    (n = (size_t)(eq - arg - 2)) >= sizeof(name)) {
		fprintf(stderr, "autosize: probe: '%.40s': expected "
			"--name=value before -- (see autosize probe "
			"--help)\n", arg);
		return -1;
	}
	memcpy(name, arg + 2, n);
	name[n] = '\0';
	if (autosize_request_set(&c->req, name, eq + 1, &e)) {
		fprintf(stderr, "autosize: %s\n", e.msg);
		return -1;
	}
	o = autosize_option_find(name);
	/* the token budget, its evaluations, what is done of it and the
	 * deadline are the real run's: a probe job measures a few steps,
	 * slurmctld would warn it about a time limit and chained jobs that
	 * are not its own, and refuses --eval-tokens or
	 * --train-tokens-done without --train-tokens */
	if (strcmp(name, "train-tokens") == 0 ||
	    strcmp(name, "train-tokens-done") == 0 ||
	    strcmp(name, "eval-tokens") == 0 ||
	    strcmp(name, "train-time") == 0)
		return 0;
	if (((o && (o->where & AUTOSIZE_OPT_SPANK)) ||
	     strcmp(name, "partition") == 0) && c->n_fwd < PROBE_MAX_ARGS)
		c->fwd[c->n_fwd++] = arg;
	return 0;
}

static int probe_args(probe_cli *c, int argc, char **argv,
		      const char **policy_file)
{
	int i, r;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			c->user_args = argv + i + 1;
			c->n_user = argc - i - 1;
			return 0;
		}
		if (strcmp(argv[i], "--help") == 0) {
			probe_help();
			return 1;
		}
		if (strncmp(argv[i], "--policy=", 9) == 0) {
			*policy_file = argv[i] + 9;
			continue;
		}
		/* --policy FILE, as autosize plan takes it */
		if (strcmp(argv[i], "--policy") == 0) {
			if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0) {
				fprintf(stderr, "autosize: probe: --policy: "
					"expected a file\n");
				return -1;
			}
			*policy_file = argv[++i];
			continue;
		}
		if (c->collect && argv[i][0] != '-') {
			if (c->n_runs >= PROBE_MAX_RUNS ||
			    (c->runs[c->n_runs].job_id =
			     strtol(argv[i], NULL, 10)) <= 0) {
				fprintf(stderr, "autosize: probe --collect: "
					"'%.40s': expected 2 or 3 job ids\n",
					argv[i]);
				return -1;
			}
			c->n_runs++;
			continue;
		}
		r = probe_own(c, argv[i]);
		if (r < 0)
			return -1;
		if (r == 0 && probe_plan_option(c, argv[i]) != 0)
			return -1;
	}
	return 0;
}

/* Submit the probes (the plan decides the sizes and the partition). */
static int probe_start(probe_cli *c)
{
	autosize_plan plan;
	autosize_error e;
	autosize_err rc;
	int i;

	if (c->n_user < 1) {
		fprintf(stderr, "autosize: probe: no script (expected -- "
			"[SBATCH OPTIONS] SCRIPT)\n");
		return -1;
	}
	if (autosize_request_finish(&c->req, &e)) {
		fprintf(stderr, "autosize: %s\n", e.msg);
		return -1;
	}
	c->have_req = 1;
	rc = autosize_plan_compute(c->policy, &c->req, &plan, &e);
	if (rc != AUTOSIZE_OK && rc != AUTOSIZE_ENOFIT) {
		fprintf(stderr, "autosize: %s\n", e.msg);
		return -1;
	}
	if (!c->req.gpu[0])
		snprintf(c->part, sizeof(c->part), "%s", plan.part.name);
	probe_sizes(c, &plan);
	for (i = 0; i < c->n_runs; i++) {
		c->runs[i].gpus = c->nodes[i] * c->gpn[i];
		c->runs[i].job_id = probe_submit(c, i);
		if (c->runs[i].job_id < 0)
			return -1;
	}
	return 0;
}

int cli_probe(int argc, char **argv)
{
	static probe_cli c;
	const char *policy_file = NULL;
	int rv = CLI_EXIT_USAGE, i, r;

	memset(&c, 0, sizeof(c));
	autosize_request_init(&c.req);
	c.req.model_local = 1;   /* the user's own files and hub cache */
	c.steps = AUTOSIZE_PROBE_STEPS;
	c.time_min = PROBE_TIME_MIN;
	r = probe_args(&c, argc, argv, &policy_file);
	if (r != 0)
		return r > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	c.policy = cli_load_policy(policy_file);
	if (!c.policy)
		return CLI_EXIT_USAGE;
	if (c.collect) {
		if (c.n_runs < 2) {
			fprintf(stderr, "autosize: probe --collect: expected "
				"2 or 3 job ids\n");
			goto out;
		}
		rv = probe_report(&c);
		goto out;
	}
	if (probe_start(&c) != 0)
		goto out;
	if (c.no_wait) {
		printf("autosize: probe jobs");
		for (i = 0; i < c.n_runs; i++)
			printf(" %ld", c.runs[i].job_id);
		printf(": autosize probe --collect");
		for (i = 0; i < c.n_runs; i++)
			printf(" %ld", c.runs[i].job_id);
		printf("\n");
		rv = CLI_EXIT_OK;
		goto out;
	}
	if (probe_wait(&c) != 0)
		goto out;
	rv = probe_report(&c);
out:
	autosize_policy_destroy(c.policy);
	return rv;
}
