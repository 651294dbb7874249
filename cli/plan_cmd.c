/*
 * autosize plan: size one job and print a report or JSON.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "opts.h"
#include "json_write.h"
#include "autosize/calibration.h"

#define PLAN_REPORT_MAX 16384
#define PLAN_JSON_MAX 24576

static void plan_help(void)
{
	const autosize_option *o;

	printf("usage: autosize plan [OPTIONS] [SBATCH OPTIONS] [--json] "
	       "[--policy FILE]\n\n"
	       "Sizes an LLM training job. Options (also accepted by "
	       "sbatch where marked *):\n");
	for (o = autosize_options(); o->name; o++)
		printf("  %c--%s=%s\n      %s\n",
		       o->where & AUTOSIZE_OPT_SPANK ? '*' : ' ', o->name,
		       o->arg, o->help);
	printf("  --json\n      print one JSON object (doc/plan-json.md; "
	       "errors too)\n"
	       "  --table\n      a menu of sizes per partition (GPUs, time, "
	       "cost, MFU);\n      with --json a JSON list of plans in rising "
	       "GPU count\n"
	       "  --svg=FILE, --html=FILE\n      the menu as a chart of time "
	       "against cost (SVG), or a page\n      with the chart and the "
	       "table (HTML); - is standard output\n      (then instead of "
	       "the menu); implies --table\n"
	       "  --policy=FILE|none\n      site policy (default "
	       "$AUTOSIZE_POLICY or the installed one)\n"
	       "  --calibration=FILE|none\n      the site's corrections "
	       "(autosize calibrate -o FILE;\n      default: the policy's "
	       "calibration: key)\n"
	       "\nsbatch's own options, with sbatch's meanings: -p, --partition;"
	       "\n-N, --nodes (MIN-MAX: MIN); -G, --gpus=[TYPE:]N; "
	       "--gpus-per-node=[TYPE:]N;\n--gres=gpu[:TYPE]:N (per node); "
	       "-n, --ntasks with --gpus-per-task; -t, --time\n(the time "
	       "limit, checked against the plan). Others (-J, -o, --mem, "
	       "...) are\nsaid not to be used.\n"
	       "\nExit status: 0 a plan, 1 no feasible plan, 2 bad input.\n");
}

/* The core's report (core/launch.c), as the submit side prints it. */
static void plan_report(const autosize_request *r, const autosize_plan *p)
{
	char text[PLAN_REPORT_MAX];

	if (autosize_launch_report(r, p, text, sizeof(text)) < 0) {
		fprintf(stderr, "autosize: internal error: report larger than "
			"%d bytes\n", PLAN_REPORT_MAX);
		return;
	}
	printf("autosize: %s", text);
}

/* --calibration FILE (or none) instead of the policy's. */
static int cli_plan_calibration(autosize_policy *policy, const char *file)
{
	autosize_calibration *c = NULL;
	autosize_error err;

	if (strcmp(file, "none") != 0 &&
	    !(c = autosize_calibration_load(file, &err))) {
		fprintf(stderr, "autosize: --calibration: %s\n", err.msg);
		return -1;
	}
	autosize_policy_set_calibration(policy, c);
	return 0;
}

/* An error: one line on stderr, or with --json {"error": {"code": ...,
 * "message": ...}} on stdout (doc/plan-json.md); the exit status is the
 * same either way. */
static void plan_error(int as_json, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void plan_error(int as_json, const char *code, const char *fmt, ...)
{
	char msg[AUTOSIZE_MSG_LEN + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!as_json) {
		fprintf(stderr, "autosize: %s\n", msg);
		return;
	}
	printf("{\"schema_version\":%d,\"error\":{\"code\":\"%s\","
	       "\"message\":", AUTOSIZE_PLAN_JSON_SCHEMA, code);
	json_write_str_file(stdout, msg, 0);
	printf("}}\n");
}

/* 1 when --json is among the arguments (errors before it are JSON too). */
static int plan_wants_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--json") == 0)
			return 1;
	return 0;
}

enum {
	PLAN_HELP = 1,
	PLAN_JSON,
	PLAN_TABLE,
	PLAN_POLICY,
	PLAN_CALIBRATION,
	PLAN_SVG,
	PLAN_HTML,
	PLAN_CORE        /* autosize_options(): autosize_request_set */
};

/* plan's own options; then sbatch's and the core's (plan_opts). */
static const cli_opt plan_own_opts[] = {
	{"help", 'h', 0, PLAN_HELP},
	{"json", 0, 0, PLAN_JSON},
	{"table", 0, 0, PLAN_TABLE},
	{"policy", 0, 1, PLAN_POLICY},
	{"calibration", 0, 1, PLAN_CALIBRATION},
	{"svg", 0, 1, PLAN_SVG},
	{"html", 0, 1, PLAN_HTML},
};

/* plan's option table into t: its own, sbatch's (the sizes sbatch's
 * --nodes, --gpus, --gpus-per-node say are sbatch's), then the core's
 * options not named yet; the count. */
static int plan_opts(cli_opt *t)
{
	const autosize_option *o;
	int n, i;

	for (n = 0; n < CLI_N(plan_own_opts); n++)
		t[n] = plan_own_opts[n];
	n = cli_sbatch_opts(t, n, CLI_OPTS_MAX);
	for (o = autosize_options(); o->name && n < CLI_OPTS_MAX; o++) {
		for (i = 0; i < n; i++)
			if (t[i].name && strcmp(t[i].name, o->name) == 0)
				break;
		if (i == n)
			t[n++] = (cli_opt){o->name, 0, 1, PLAN_CORE};
	}
	return n;
}

/* An argument plan does not take (rc: CLI_OPT_UNKNOWN, _ARG,
 * _DASHDASH, _NO_VALUE), said as plan_error says it. */
static void plan_refuse(int as_json, const cli_opts *op, int rc)
{
	const char *a = op->text;

	if (rc == CLI_OPT_NO_VALUE && op->opt &&
	    op->opt->key == CLI_SBATCH_OPT)
		plan_error(as_json, "usage", "%.40s needs a value", a);
	else if (rc == CLI_OPT_NO_VALUE)
		plan_error(as_json, "usage", "%.40s needs a value "
			   "(--name=value)", a);
	else if (a[0] == '-' && a[1] == '-')
		plan_error(as_json, "usage", "unknown option '%.40s' "
			   "(see autosize plan --help)", a);
	else
		plan_error(as_json, "usage", "unexpected argument "
			   "'%.40s' (options start with - or --; the "
			   "script is not read)", a);
}

/* --table: sizes to choose from (at most TABLE_ROWS per partition). */
#define TABLE_ROWS 8
#define TABLE_MAX 64

typedef cli_table_row table_row;

/* Rows in rising GPU count, then cost. */
static int table_cmp(const void *a, const void *b)
{
	const autosize_plan *x = &((const table_row *)a)->plan;
	const autosize_plan *y = &((const table_row *)b)->plan;

	if (x->gpus != y->gpus)
		return x->gpus < y->gpus ? -1 : 1;
	return (x->cost > y->cost) - (x->cost < y->cost);
}

/* log2 distance of nodes from the chosen size: the rows kept are the
 * sizes nearest to it. */
static double table_dist(int nodes, int chosen)
{
	return fabs(log2((double)nodes / chosen));
}

/*
 * The sizes of one partition (r's partition or GPU): the plan autosize
 * picks, and the powers of two nodes up to the partition's limit that
 * have a layout, the TABLE_ROWS nearest the pick. Appends to rows;
 * returns the new count.
 */
static int table_partition(const autosize_policy *pol,
			   const autosize_request *r, table_row *rows, int n)
{
	autosize_request pin = *r;
	autosize_error err;
	table_row *base = rows + n;
	int k, max, start = n, i, j;

	pin.nodes = pin.gpus = AUTOSIZE_UNSET;
	if (autosize_plan_compute(pol, &pin, &base->plan, &err) !=
	    AUTOSIZE_OK && base->plan.tp <= 0)
		return n;
	autosize_request_warnings(&pin, &base->plan);
	base->chosen = 1;
	n++;
	max = base->plan.part.max_nodes_per_job > 0
	      ? base->plan.part.max_nodes_per_job : 4 * base->plan.nodes;
	for (k = 1; k <= max && n < TABLE_MAX; k *= 2) {
		pin.nodes = k;
		rows[n].chosen = 0;
		if (autosize_plan_compute(pol, &pin, &rows[n].plan, &err) !=
		    AUTOSIZE_OK && rows[n].plan.tp <= 0)
			continue;
		/* a size already in the menu (the pick's) once */
		for (i = start; i < n; i++)
			if (rows[i].plan.gpus == rows[n].plan.gpus)
				break;
		if (i < n)
			continue;
		autosize_request_warnings(&pin, &rows[n].plan);
		n++;
	}
	/* keep the TABLE_ROWS nearest the chosen size */
	while (n - start > TABLE_ROWS) {
		for (i = j = start + 1; i < n; i++)
			if (table_dist(rows[i].plan.nodes, base->plan.nodes) >
			    table_dist(rows[j].plan.nodes, base->plan.nodes))
				j = i;
		rows[j] = rows[--n];
	}
	return n;
}

/* Each partition's search stars its own pick: keep the star on the row
 * of the plan the whole request gets (the choice among partitions), or
 * on none when that plan is not in the menu. */
static void table_star(const autosize_policy *pol,
		       const autosize_request *req, table_row *rows, int n)
{
	autosize_plan *pick = malloc(sizeof(*pick));
	autosize_error err;
	int i, starred = 0;

	if (pick && autosize_plan_compute(pol, req, pick, &err) !=
	    AUTOSIZE_OK && pick->tp <= 0) {
		free(pick);
		pick = NULL;
	}
	for (i = 0; i < n; i++) {
		int same = pick && !starred && rows[i].chosen &&
			   rows[i].plan.gpus == pick->gpus &&
			   strcmp(rows[i].plan.part.name,
				  pick->part.name) == 0;

		rows[i].chosen = same;
		starred |= same;
	}
	free(pick);
}

/* One row of the text menu. */
static void table_print(const table_row *t)
{
	const autosize_plan *p = &t->plan;
	cli_table_text x;

	cli_table_text_of(t, &x);
	printf("%c %-16.16s %6d %5d  %-18s %5.1f%% %10.1f h  %-16s %s%s\n",
	       t->chosen ? '*' : ' ', p->part.name, p->gpus, p->nodes,
	       x.layout, p->mfu * 100, p->train_hours, x.limit, x.cost,
	       p->feasible ? "" : "  (not feasible)");
}

/* Where --svg and --html write (NULL: not asked). */
typedef struct table_charts {
	const char *svg;
	const char *html;
} table_charts;

/* 1 when a chart goes to standard output instead of the menu. */
static int table_charts_stdout(const table_charts *ch)
{
	return (ch->svg && strcmp(ch->svg, "-") == 0) ||
	       (ch->html && strcmp(ch->html, "-") == 0);
}

/*
 * The plan object of --json: the plan, what its tasks get (launch) and
 * the published runs nearest to it with their error (published_runs),
 * into json; its length, or -1 when it does not fit.
 */
static int plan_json(const autosize_request *req, const autosize_plan *plan,
		     char *json, size_t size)
{
	int len = autosize_launch_plan_json(req, plan, json, size);
	int more;

	if (len < 1 || json[len - 1] != '}' || (size_t)len + 1 >= size)
		return -1;
	json[len - 1] = ',';
	more = autosize_plan_published_json(req, plan, json + len,
					    size - (size_t)len - 1);
	if (more < 0)
		return -1;
	len += more;
	json[len++] = '}';
	json[len] = '\0';
	return len;
}

/* One plan of the JSON menu, with "chosen" (doc/plan-json.md). */
static int table_json(const autosize_request *req, const table_row *t,
		      int first)
{
	char json[PLAN_JSON_MAX];
	int len = plan_json(req, &t->plan, json, sizeof(json));

	if (len < 1 || json[len - 1] != '}') {
		fprintf(stderr, "autosize: internal error: JSON larger than "
			"%d bytes\n", PLAN_JSON_MAX);
		return -1;
	}
	printf("%s%.*s,\"chosen\":%s}", first ? "" : ",", len - 1, json,
	       t->chosen ? "true" : "false");
	return 0;
}

/*
 * autosize plan --table: each partition the request may use (its list,
 * all of the policy's when it names none, or the --gpu reference
 * server), a few sizes each; text, or a JSON list of plan objects in
 * rising GPU count. Exit 0 when some size is feasible, else 1.
 */
static int plan_table(const autosize_policy *pol, const autosize_request *req,
		      int as_json, const table_charts *charts)
{
	table_row *rows = calloc(TABLE_MAX, sizeof(*rows));
	char list[AUTOSIZE_PART_LIST_MAX], *name, *save = NULL;
	autosize_request r = *req;
	int n = 0, i, feasible = 0, rv = CLI_EXIT_NOFIT;
	int quiet = table_charts_stdout(charts);

	if (!rows) {
		plan_error(as_json, "internal", "out of memory");
		return CLI_EXIT_USAGE;
	}
	if (req->gpu[0] || (!req->partition[0] &&
			    autosize_policy_partition_count(pol) == 0)) {
		n = table_partition(pol, &r, rows, n);
	} else if (!req->partition[0]) {
		for (i = 0; i < autosize_policy_partition_count(pol) &&
		     n + TABLE_ROWS < TABLE_MAX; i++) {
			snprintf(r.partition, sizeof(r.partition), "%s",
				 autosize_policy_partition_at(pol, i)->name);
			n = table_partition(pol, &r, rows, n);
		}
	} else {
		snprintf(list, sizeof(list), "%s", req->partition);
		for (name = strtok_r(list, ",", &save);
		     name && n + TABLE_ROWS < TABLE_MAX;
		     name = strtok_r(NULL, ",", &save)) {
			snprintf(r.partition, sizeof(r.partition), "%s", name);
			n = table_partition(pol, &r, rows, n);
		}
	}
	table_star(pol, req, rows, n);
	qsort(rows, (size_t)n, sizeof(*rows), table_cmp);
	for (i = 0; i < n; i++)
		feasible |= rows[i].plan.feasible;
	if ((charts->svg && cli_plan_chart(charts->svg, 0, req, rows, n)) ||
	    (charts->html && cli_plan_chart(charts->html, 1, req, rows, n))) {
		rv = CLI_EXIT_USAGE;
		goto out;
	}
	if (quiet)
		goto done;
	if (as_json)
		printf("[");
	else if (n > 0)
		printf("autosize: %s: sizes to choose from (* the one "
		       "autosize picks)\n  %-16s %6s %5s  %-18s %6s %12s  "
		       "%-16s %s\n", req->model.name[0] ? req->model.name
							: "model",
		       "partition", "GPUs", "nodes", "layout", "MFU", "time",
		       "time limit", "cost");
	for (i = 0; i < n; i++) {
		if (!as_json) {
			table_print(&rows[i]);
			continue;
		}
		if (table_json(req, &rows[i], i == 0) < 0) {
			printf("]\n");
			goto out;
		}
	}
	if (as_json)
		printf("]\n");
	else if (n == 0)
		printf("autosize: no partition has a layout for this job\n");
done:
	rv = feasible ? CLI_EXIT_OK : CLI_EXIT_NOFIT;
out:
	free(rows);
	return rv;
}

int cli_plan(int argc, char **argv)
{
	autosize_request req;
	autosize_plan plan;
	autosize_error err;
	autosize_policy *policy = NULL;
	const char *policy_file = NULL, *cal_file = NULL, *value;
	char name[64], json[PLAN_JSON_MAX];
	int k, as_json = plan_wants_json(argc, argv), rv = CLI_EXIT_USAGE;
	int as_table = 0;
	table_charts charts = {NULL, NULL};
	cli_sbatch sb;
	cli_opt opts[CLI_OPTS_MAX];
	cli_opts op;
	autosize_err rc;

	cli_sbatch_init(&sb);
	autosize_request_init(&req);
	req.model_local = 1;   /* the user's own files and hub cache */
	cli_opts_init(&op, opts, plan_opts(opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		switch (k) {
		case PLAN_HELP:
			plan_help();
			return CLI_EXIT_OK;
		case PLAN_JSON:
			break;
		case PLAN_TABLE:
			as_table = 1;
			break;
		case PLAN_POLICY:
			policy_file = op.value;
			break;
		case PLAN_CALIBRATION:
			cal_file = op.value;
			break;
		case PLAN_SVG:
		case PLAN_HTML:
			*(k == PLAN_SVG ? &charts.svg : &charts.html) =
				op.value;
			as_table = 1;
			break;
		case CLI_SBATCH_OPT:
			/* sbatch's options, as a renter's sbatch line has
			 * them */
			if (cli_sbatch_take(&sb, op.opt, op.text, op.value,
					    op.used, name, sizeof(name),
					    &value, &err) ||
			    (name[0] && autosize_request_set(&req, name, value,
							     &err))) {
				plan_error(as_json, "input", "%s", err.msg);
				goto out;
			}
			break;
		case PLAN_CORE:
			if (autosize_request_set(&req, op.opt->name, op.value,
						 &err)) {
				plan_error(as_json, "input", "%s", err.msg);
				goto out;
			}
			break;
		default:
			plan_refuse(as_json, &op, k);
			goto out;
		}
	}
	if (charts.svg && charts.html && strcmp(charts.svg, "-") == 0 &&
	    strcmp(charts.html, "-") == 0) {
		plan_error(as_json, "usage", "--svg=- and --html=- both want "
			   "standard output: give one a file");
		goto out;
	}
	if (cli_sbatch_finish(&sb, &req, &err) ||
	    autosize_request_finish(&req, &err)) {
		plan_error(as_json, "input", "%s", err.msg);
		goto out;
	}
	cli_sbatch_notes(&sb, stderr);
	policy = cli_load_policy(policy_file);
	if (!policy || (cal_file && cli_plan_calibration(policy, cal_file))) {
		if (as_json)
			plan_error(as_json, "policy", "the site policy or "
				   "calibration could not be read (the reason "
				   "is on stderr)");
		goto out;
	}
	cli_sbatch_rule(&sb, policy, &req, stderr);
	if (req.gpu[0]) {
		char warn[160];

		autosize_catalog_resolve(autosize_policy_catalog(policy),
					 req.gpu, warn, sizeof(warn));
		if (warn[0])
			fprintf(stderr, "autosize: warning: --gpu: %s\n", warn);
	}
	if (as_table) {
		rv = plan_table(policy, &req, as_json, &charts);
		goto out;
	}
	rc = autosize_plan_compute(policy, &req, &plan, &err);
	if (rc != AUTOSIZE_OK && rc != AUTOSIZE_ENOFIT) {
		plan_error(as_json, "input", "%s", err.msg);
		goto out;
	}
	autosize_request_warnings(&req, &plan);
	cli_sbatch_warn(&sb, &plan);
	if (as_json) {
		/* the plan and what its tasks get (launch) */
		if (plan_json(&req, &plan, json, sizeof(json)) < 0) {
			plan_error(as_json, "internal", "internal error: JSON "
				   "larger than %d bytes", PLAN_JSON_MAX);
			goto out;
		}
		printf("%s\n", json);
	} else {
		plan_report(&req, &plan);
	}
	rv = rc == AUTOSIZE_OK ? CLI_EXIT_OK : CLI_EXIT_NOFIT;
out:
	autosize_policy_destroy(policy);
	return rv;
}
