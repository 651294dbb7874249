/*
 * autosize show JOBID [--json]: what autosize decided for one job, from
 * the plan record slurmctld wrote into its AdminComment (jobrecord.h),
 * in the words of the submit-time line, with what it measured and
 * whether it hit its limit (show.h). A live job (pending, running) is read
 * with `scontrol show job`; one that ended from accounting (`sacct -j`,
 * the same reader as report and calibrate), where the SPANK plugin
 * writes what the job measured once it ends before its script (the end
 * record slurmctld sends would carry the old comment: spank_report.c),
 * else from scontrol while slurmctld still knows it.
 *
 * scontrol prints each field as Key=Value, one group per line; the
 * AdminComment on its own line after WorkDir. A user who puts a newline
 * and "AdminComment=" into their own job's name, comment or folder can
 * mislead this view of their own job only: the record is still decoded
 * strictly, checked against the allocation, and sacct's view (random
 * delimiter, cli/sacct.c) cannot be forged that way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "opts.h"
#include "autosize/show.h"
#include "autosize/spawn.h"

#define SHOW_OUT_MAX (256 * 1024)
#define SHOW_DELIM "\x1f|\x1f"

static void show_usage(FILE *f)
{
	fprintf(f, "usage: autosize show JOBID [--json | --record]\n\n"
		"What autosize decided for a job: the plan it was sized with "
		"(in the words\nsbatch showed at submission), what it "
		"measured, whether it hit its time\nlimit. A job slurmctld "
		"still knows is read with scontrol, an older one\nwith sacct "
		"(accounting). --json: one object (doc/users.md); --record: the "
		"plan\nrecord alone, as one line (a chained job's next one "
		"reads it).\n");
}

/* A job id as Slurm takes one: N, N_M (array task) or N+M (het). */
static int show_job_id_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n > 10)
		return 0;
	if (!s[n])
		return 1;
	if ((s[n] != '_' && s[n] != '+') || !s[n + 1])
		return 0;
	return strspn(s + n + 1, "0123456789") == strlen(s + n + 1) &&
	       strlen(s + n + 1) <= 10;
}

/* Run argv, its standard output into buf (NUL-terminated, cut at len).
 * Its exit status, or -1 when it could not run. */
static int show_run(char *const argv[], char *buf, size_t len)
{
	int rc = autosize_run(argv[0], argv, AUTOSIZE_SPAWN_PATH |
			      AUTOSIZE_SPAWN_QUIET, 0, buf, len, NULL);

	return rc < 0 ? -1 : rc;
}

/* Value of "Key=" in scontrol's text: from a line start or a space, to
 * the next space (rest = 1: to the end of its line), into out. */
static int show_field(const char *text, const char *key, int rest, char *out,
		      size_t len)
{
	size_t k = strlen(key);
	const char *p, *end;

	for (p = strstr(text, key); p; p = strstr(p + 1, key)) {
		if (p != text && p[-1] != ' ' && p[-1] != '\n')
			continue;
		if (p[k] != '=')
			continue;
		p += k + 1;
		end = p + strcspn(p, rest ? "\n" : " \n");
		while (rest && end > p && end[-1] == ' ')
			end--;
		snprintf(out, len, "%.*s", (int)(end - p), p);
		return 1;
	}
	out[0] = '\0';
	return 0;
}

/* The AdminComment line that follows WorkDir (see the top). */
static const char *show_admin_line(const char *text)
{
	const char *wd = strstr(text, "WorkDir="), *p;

	for (p = wd ? wd : text; (p = strstr(p, "\n")); p++) {
		const char *q = p + 1;

		q += strspn(q, " ");
		if (strncmp(q, "AdminComment=", 13) == 0)
			return q;
	}
	return NULL;
}

/*
 * scontrol's job as the line sacct would print for it (the fields of
 * AUTOSIZE_SACCT_FIELDS, joined by SHOW_DELIM) into line, so that one
 * reader (autosize_sacct_job_line) decodes both.
 */
static void show_as_sacct(const char *text, char *line, size_t len)
{
	static const struct {
		const char *key, *alt, *alt2;
		int rest;
	} f[] = {
		{"JobId", NULL, NULL, 0}, {"UserId", NULL, NULL, 0},
		{"Partition", NULL, NULL, 0}, {"JobState", NULL, NULL, 0},
		{"RunTime", NULL, NULL, 0}, {"NumNodes", NULL, NULL, 0},
		{"AllocTRES", "TRES", "ReqTRES", 0},
		{"TimeLimit", NULL, NULL, 0}, {"SubmitTime", NULL, NULL, 0},
		{"StartTime", NULL, NULL, 0}, {"EndTime", NULL, NULL, 0},
		{"AdminComment", NULL, NULL, 1}, {"JobName", NULL, NULL, 1},
	};
	char v[4096];
	const char *admin;
	size_t used = 0, i;

	line[0] = '\0';
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (strcmp(f[i].key, "AdminComment") == 0) {
			admin = show_admin_line(text);
			if (!admin || !show_field(admin, "AdminComment", 1, v,
						  sizeof(v)))
				v[0] = '\0';
		} else if (!show_field(text, f[i].key, f[i].rest, v,
				       sizeof(v)) &&
			   !(f[i].alt && show_field(text, f[i].alt, 0, v,
						    sizeof(v))) &&
			   !(f[i].alt2 && show_field(text, f[i].alt2, 0, v,
						     sizeof(v)))) {
			v[0] = '\0';
		}
		/* "alice(1000)": the name; "2-4" nodes pending: the least */
		if (i == 1 || i == 5)
			v[strcspn(v, i == 1 ? "(" : "-")] = '\0';
		used += (size_t)snprintf(line + used, len > used ? len - used
					 : 0, "%s%s", i ? SHOW_DELIM : "", v);
		if (used >= len)
			return;
	}
}

/* sacct's line of the job, kept when it is the one asked for. */
typedef struct show_found {
	const char *id;
	autosize_finished_job job;
	char comment[AUTOSIZE_ADMIN_COMMENT_MAX];
	int found;
} show_found;

static void show_sacct_job(void *ctx, autosize_finished_job *j)
{
	show_found *s = ctx;

	if (strcmp(j->job_id, s->id) != 0)
		return;
	s->job = *j;   /* the last line: the latest run */
	snprintf(s->comment, sizeof(s->comment), "%s",
		 j->comment ? j->comment : "");
	s->job.comment = s->comment;
	s->found = 1;
}

int cli_show(int argc, char **argv)
{
	char *argv_sc[] = {"scontrol", "show", "job", NULL, NULL};
	static char text[SHOW_OUT_MAX], line[SHOW_OUT_MAX];
	const char *id = NULL, *source = "scontrol", *rec_error = NULL;
	autosize_record rec;
	autosize_error e;
	show_found s;
	cli_sacct sa;
	char token[AUTOSIZE_RECORD_MAX];
	size_t start, len;
	enum { SHOW_HELP = 1, SHOW_JSON, SHOW_RECORD };
	static const cli_opt opts[] = {
		{"help", 'h', 0, SHOW_HELP},
		{"json", 0, 0, SHOW_JSON},
		{"record", 0, 0, SHOW_RECORD},
	};
	cli_opts op;
	int k, json = 0, raw = 0, have, rc;

	cli_opts_init(&op, opts, CLI_N(opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		if (k == SHOW_JSON) {
			json = 1;
		} else if (k == SHOW_RECORD) {
			raw = 1;
		} else if (k == SHOW_HELP) {
			show_usage(stdout);
			return CLI_EXIT_OK;
		} else if (k == CLI_OPT_ARG && !id) {
			id = op.value;
		} else if (k != CLI_OPT_DASHDASH) {
			fprintf(stderr, "autosize: show: unexpected argument "
				"'%.40s'\n", op.text);
			show_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (!id || !show_job_id_ok(id)) {
		fprintf(stderr, "autosize: show: %s%.40s%s (expected a job id: "
			"12345, 12345_7 or 12345+1)\n", id ? "'" : "",
			id ? id : "no job id given", id ? "' is not a job id"
						      : "");
		return CLI_EXIT_USAGE;
	}
	memset(&s, 0, sizeof(s));
	s.id = id;
	argv_sc[3] = (char *)id;
	rc = show_run(argv_sc, text, sizeof(text));
	if (rc == 0 && strstr(text, "JobId=")) {
		show_as_sacct(text, line, sizeof(line));
		if (autosize_sacct_job_line(line, SHOW_DELIM, &s.job) == 0)
			s.found = 1;
	}
	if (!s.found || !autosize_show_live(s.job.state)) {
		/* ended, or forgotten by slurmctld (MinJobAge): accounting,
		 * which has what the job measured */
		show_found acct;

		memset(&acct, 0, sizeof(acct));
		acct.id = id;
		cli_sacct_init(&sa);
		sa.use = 1;
		sa.jobs = id;
		if (cli_sacct_read(&sa, "show", show_sacct_job, &acct) != 0 &&
		    !s.found)
			return CLI_EXIT_NOFIT;
		/* accounting's, unless it has no plan record yet while
		 * slurmctld's has (the job just ended: its comment reaches
		 * slurmdbd with its end record, a moment later) */
		if (acct.found && (!s.found ||
				   autosize_record_find(acct.comment, &start,
							&len) ||
				   !autosize_record_find(s.job.comment ?
							 s.job.comment : "",
							 &start, &len))) {
			s = acct;
			s.job.comment = s.comment;
			source = "sacct";
		}
	}
	if (!s.found) {
		fprintf(stderr, "autosize: show: job %s: neither slurmctld "
			"(scontrol) nor accounting (sacct) knows it\n", id);
		return CLI_EXIT_NOFIT;
	}
	have = autosize_finished_record(&s.job, &rec, &e);
	if (have < 0)
		rec_error = e.msg;
	if (raw) {
		/* the record as decoded, written again: one strict line */
		if (have <= 0 ||
		    autosize_record_encode(&rec, token, sizeof(token)) < 0) {
			fprintf(stderr, "autosize: show: job %s: %s\n", id,
				rec_error ? rec_error : "no autosize plan "
				"record");
			return CLI_EXIT_NOFIT;
		}
		printf("%s\n", token);
		return CLI_EXIT_OK;
	}
	if (json)
		rc = autosize_show_write_json(&s.job, have > 0 ? &rec : NULL,
					      rec_error, source, stdout);
	else
		rc = autosize_show_write_text(&s.job, have > 0 ? &rec : NULL,
					      rec_error, source, stdout);
	if (rc != 0)
		return CLI_EXIT_USAGE;
	return have > 0 ? CLI_EXIT_OK : CLI_EXIT_NOFIT;
}
