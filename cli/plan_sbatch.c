/*
 * autosize plan: sbatch's own options, so that a renter's sbatch line
 * can be pasted as it is (cli.h cli_sbatch). Each takes sbatch's meaning
 * (sbatch(1), Slurm 22.05 to 26.05):
 *
 *   -p, --partition=NAME[,NAME]  the partition (a list: each planned)
 *   -N, --nodes=N[-M]            nodes; a range plans its minimum, as
 *                                slurmctld reads min_nodes
 *   -G, --gpus=[TYPE:]N          GPUs of the job
 *   --gpus-per-node=[TYPE:]N     GPUs per node
 *   --gres=gpu[:TYPE]:N          GPUs per node (a --gres is per node)
 *   -n, --ntasks=N               tasks: with --gpus-per-task, GPUs
 *   --gpus-per-task=[TYPE:]N     GPUs per task
 *   -t, --time=TIME              the job's time limit (a bare number is
 *                                minutes): checked against the plan
 *   -A, --account=NAME           the account and QOS the policy's rules
 *   -q, --qos=NAME               match (with the user running this)
 *
 * A TYPE without -p picks that GPU's reference server (--gpu). Options
 * of sbatch that do not change a size (-J, -o, --mem, ...) are taken and
 * said not to be used; anything else is refused as before.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "opts.h"
#include "autosize/parse.h"

/* sbatch's one-letter options with a value, and their long names. */
static const struct {
	char letter;
	const char *name;
} sbatch_short[] = {
	{'p', "partition"}, {'N', "nodes"}, {'G', "gpus"}, {'n', "ntasks"},
	{'t', "time"}, {'J', "job-name"}, {'o', "output"}, {'e', "error"},
	{'A', "account"}, {'q', "qos"}, {'c', "cpus-per-task"},
	{'C', "constraint"}, {'D', "chdir"}, {'w', "nodelist"},
	{'x', "exclude"},
};

/* sbatch's long options read here (the others are autosize's own). */
static const char *const sbatch_sized[] = {
	"gres", "ntasks", "time", "gpus-per-task", "gpus-per-node", "gpus",
	"nodes", "account", "qos", NULL
};

/* sbatch options that leave the size alone: taken, said, not used. */
static const char *const sbatch_unused[] = {
	"job-name", "output", "error", "cpus-per-task",
	"constraint", "chdir", "nodelist", "exclude", "mem", "mem-per-cpu",
	"mem-per-gpu", "ntasks-per-node", "mail-type", "mail-user",
	"comment", "signal", "export", "reservation", "dependency", "begin",
	"wckey", "cpus-per-gpu", "open-mode", NULL
};
/* ... and those without a value. */
static const char *const sbatch_unused_flags[] = {
	"exclusive", "requeue", "no-requeue", "wait", "parsable", "hold",
	"overcommit", "oversubscribe", "contiguous", NULL
};

void cli_sbatch_init(cli_sbatch *sb)
{
	memset(sb, 0, sizeof(*sb));
}

/* Note an option taken but not used ("-J x", "--mem=4G"). */
static void sbatch_unused_note(cli_sbatch *sb, const char *arg)
{
	size_t n = strlen(sb->unused);

	snprintf(sb->unused + n, sizeof(sb->unused) - n, "%s%s", n ? " " : "",
		 arg);
}

/*
 * The count of "[TYPE:]N" into sb->value, the type into sb->gpu_type
 * (the last one named wins, as sbatch's last option does). 0, or -1 with
 * *e.
 */
static int sbatch_typed_count(cli_sbatch *sb, const char *value,
			      const char *what, autosize_error *e)
{
	const char *colon = strrchr(value, ':');
	long n;

	if (autosize_parse_int(colon ? colon + 1 : value, what, 0, 1000000,
			       &n, e))
		return -1;
	if (colon && colon > value) {
		snprintf(sb->gpu_type, sizeof(sb->gpu_type), "%.*s",
			 (int)(colon - value), value);
		if (strchr(sb->gpu_type, ':'))
			*strchr(sb->gpu_type, ':') = '\0';
	}
	snprintf(sb->value, sizeof(sb->value), "%ld", n);
	return 0;
}

/* --gres=gpu[:TYPE]:N[,...]: the GPU entry (others are not GPUs). 1
 * with sb->value set, 0 when it names no GPU, -1 with *e. */
static int sbatch_gres(cli_sbatch *sb, const char *value, autosize_error *e)
{
	const char *p = value;
	char one[128];
	size_t n;

	for (; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		if (n < 3 || strncmp(p, "gpu", 3) != 0 ||
		    (n > 3 && p[3] != ':'))
			continue;
		if (n == 3) {           /* "gpu" alone: one, as in Slurm */
			snprintf(sb->value, sizeof(sb->value), "1");
			return 1;
		}
		snprintf(one, sizeof(one), "%.*s", (int)(n - 4), p + 4);
		return sbatch_typed_count(sb, one, "--gres", e) ? -1 : 1;
	}
	return 0;
}

/* -N N or MIN-MAX: the minimum, as slurmctld's min_nodes. */
static int sbatch_nodes(cli_sbatch *sb, const char *value, autosize_error *e)
{
	char low[32];
	long n;
	size_t k = strcspn(value, "-");

	snprintf(low, sizeof(low), "%.*s", (int)k, value);
	if (autosize_parse_int(low, "-N", 1, 100000, &n, e))
		return -1;
	if (value[k] == '-') {
		long hi;

		if (autosize_parse_int(value + k + 1, "-N", n, 100000, &hi, e))
			return -1;
		sb->node_range = 1;
	}
	snprintf(sb->value, sizeof(sb->value), "%ld", n);
	return 0;
}

int cli_sbatch_opts(cli_opt *t, int n, int max)
{
	const char *const *lists[] = {sbatch_sized, sbatch_unused,
				      sbatch_unused_flags};
	size_t k, l;

	for (k = 0; k < sizeof(sbatch_short) / sizeof(sbatch_short[0]) &&
	     n < max; k++)
		t[n++] = (cli_opt){NULL, sbatch_short[k].letter, 1,
				   CLI_SBATCH_OPT};
	for (l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (k = 0; lists[l][k] && n < max; k++)
			t[n++] = (cli_opt){lists[l][k], 0,
					   lists[l] != sbatch_unused_flags,
					   CLI_SBATCH_OPT};
	return n;
}

int cli_sbatch_take(cli_sbatch *sb, const cli_opt *opt, const char *a,
		    const char *v, int used, char *name, size_t len,
		    const char **value, autosize_error *e)
{
	double s;
	long n;
	size_t k;

	name[0] = '\0';
	*value = NULL;
	if (opt->name) {
		snprintf(name, len, "%s", opt->name);
	} else {
		for (k = 0; k + 1 < sizeof(sbatch_short) /
			    sizeof(sbatch_short[0]) &&
			    sbatch_short[k].letter != opt->letter; k++)
			;
		snprintf(name, len, "%s", sbatch_short[k].name);
	}
	if (!opt->has_value) {
		sbatch_unused_note(sb, a);
		name[0] = '\0';
		return 0;
	}
	if (autosize_word_in(name, sbatch_unused)) {
		char both[160];

		snprintf(both, sizeof(both), "%s%s%s", a, used == 2 ? " " : "",
			 used == 2 ? v : "");
		sbatch_unused_note(sb, both);
		name[0] = '\0';
		return 0;
	}
	if (strcmp(name, "account") == 0 || strcmp(name, "qos") == 0) {
		/* Slurm checks the name; here it only matches a rule */
		snprintf(name[0] == 'a' ? sb->account : sb->qos,
			 sizeof(sb->account), "%.*s",
			 (int)strcspn(v, " \t,"), v);
		name[0] = '\0';
		return 0;
	}
	if (strcmp(name, "time") == 0) {
		if (autosize_parse_duration(v, "-t", &s, e))
			return -1;
		sb->time_limit_min = (long)(s / 60 + 0.5);
		name[0] = '\0';
		return 0;
	}
	if (strcmp(name, "ntasks") == 0) {
		if (autosize_parse_int(v, "-n", 1, 10000000, &n, e))
			return -1;
		sb->ntasks = n;
		snprintf(sb->ntasks_arg, sizeof(sb->ntasks_arg), "%s%s%s", a,
			 used == 2 ? " " : "", used == 2 ? v : "");
		name[0] = '\0';
		return 0;
	}
	if (strcmp(name, "gpus-per-task") == 0) {
		if (sbatch_typed_count(sb, v, "--gpus-per-task", e))
			return -1;
		sb->gpus_per_task = atol(sb->value);
		name[0] = '\0';
		return 0;
	}
	if (strcmp(name, "gres") == 0) {
		int g = sbatch_gres(sb, v, e);

		if (g < 0)
			return -1;
		snprintf(name, len, "%s", g ? "gpus-per-node" : "");
		*value = sb->value;
		return 0;
	}
	if (strcmp(name, "nodes") == 0) {
		if (sbatch_nodes(sb, v, e))
			return -1;
		*value = sb->value;
		return 0;
	}
	if (strcmp(name, "gpus") == 0 || strcmp(name, "gpus-per-node") == 0) {
		if (sbatch_typed_count(sb, v, name[4] ? "--gpus-per-node"
						      : "-G", e))
			return -1;
		*value = sb->value;
		return 0;
	}
	*value = v;         /* -p: the partition as given */
	return 0;
}

int cli_sbatch_finish(const cli_sbatch *sb, autosize_request *r,
		      autosize_error *e)
{
	long gpus;

	/* -t kept: one job of it, never chained (as slurmctld keeps it) */
	r->time_kept = sb->time_limit_min > 0;
	if (sb->gpus_per_task > 0) {
		gpus = sb->gpus_per_task * (sb->ntasks > 0 ? sb->ntasks : 1);
		if (gpus > 1000000)
			return autosize_fail(e, AUTOSIZE_EINVAL, "-n %ld x "
					     "--gpus-per-task %ld is more than "
					     "a million GPUs", sb->ntasks,
					     sb->gpus_per_task);
		r->gpus = (int)gpus;
	}
	/* a GPU type without a partition: its reference server */
	if (sb->gpu_type[0] && !r->partition[0] && !r->gpu[0])
		snprintf(r->gpu, sizeof(r->gpu), "%s", sb->gpu_type);
	return AUTOSIZE_OK;
}

void cli_sbatch_warn(const cli_sbatch *sb, autosize_plan *p)
{
	/* decide.c's words for a kept time limit */
	autosize_plan_warn_kept_time(p, sb->time_limit_min);
}

void cli_sbatch_notes(const cli_sbatch *sb, FILE *f)
{
	char unused[sizeof(sb->unused) + sizeof(sb->ntasks_arg) + 2];

	snprintf(unused, sizeof(unused), "%s%s%s", sb->unused,
		 sb->unused[0] && sb->ntasks_arg[0] &&
		 sb->gpus_per_task <= 0 ? " " : "",
		 sb->gpus_per_task <= 0 ? sb->ntasks_arg : "");
	if (unused[0])
		fprintf(f, "autosize: not used for sizing (they do not change "
			"the GPUs, nodes or time): %s\n", unused);
	if (sb->node_range)
		fprintf(f, "autosize: -N MIN-MAX: planned at the minimum, as "
			"slurmctld reads it\n");
}

void cli_sbatch_rule(const cli_sbatch *sb, const autosize_policy *p,
		     autosize_request *r, FILE *f)
{
	const struct passwd *pw = getpwuid(getuid());
	const autosize_rule *rule, *x;
	char match[300], set[300];
	int i, keyed = 0;

	rule = autosize_rule_apply(p, pw ? pw->pw_name : "", sb->account,
				   sb->qos, r);
	if (rule)
		fprintf(f, "autosize: the policy's rule at line %d (%s) "
			"applies: %s\n", rule->line,
			autosize_rule_match_text(rule, match, sizeof(match)),
			autosize_rule_set_text(rule, set, sizeof(set)));
	/* an earlier rule could match with the defaults slurmctld knows */
	for (i = 0; (x = autosize_policy_rule_at(p, i)) && x != rule; i++)
		keyed |= (x->n_accounts && !sb->account[0]) ||
			 (x->n_qos && !sb->qos[0]);
	if (keyed)
		fprintf(f, "autosize: the policy has rules per account and "
			"QOS: give -A and -q as your sbatch line does to plan "
			"under yours (your defaults are slurmctld's, not known "
			"here)\n");
}
