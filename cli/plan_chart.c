/*
 * autosize plan --table --svg/--html: the menu of sizes as a chart of
 * training time against cost, one series per partition (per GPU when
 * that is what the menu varies), the pick ringed, the deadline a line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "chart.h"
#include "html.h"

/* Series at most: the menu has at most 64 rows (plan_cmd.c). */
#define PCH_SERIES_MAX 64
#define PCH_NAME_MAX (AUTOSIZE_PART_NAME_MAX + AUTOSIZE_GPU_NAME_MAX + 4)
#define PCH_TEXT_MAX 256
/* An axis is logarithmic when its values span more than this factor. */
#define PCH_LOG_SPAN 10.0

void cli_table_text_of(const cli_table_row *t, cli_table_text *out)
{
	const autosize_plan *p = &t->plan;

	snprintf(out->layout, sizeof(out->layout), "TP %d PP %d DP %d%s",
		 p->tp, p->pp, p->dp, p->cp > 1 || p->ep > 1 ? " +" : "");
	if (p->cost > 0)
		snprintf(out->cost, sizeof(out->cost), "%.0f %s", p->cost,
			 p->part.currency);
	else
		snprintf(out->cost, sizeof(out->cost), "%.0f GPU-h",
			 p->gpu_hours);
	if (p->train_hours > 0) {
		size_t n;

		autosize_format_duration(p->time_limit_min * 60.0, out->limit,
					 sizeof(out->limit));
		/* the run needs more than one job at the partition's
		 * longest time: each gets the limit */
		n = strlen(out->limit);
		if (p->chained_jobs > 1)
			snprintf(out->limit + n, sizeof(out->limit) - n,
				 " x %d", p->chained_jobs);
	} else
		snprintf(out->limit, sizeof(out->limit), "-");
}

static const char *pch_gpu(const autosize_plan *p)
{
	return p->part.gpu ? p->part.gpu->name : "";
}

/* 1 when every row has a cost in one currency: the x axis is money. */
static int pch_priced(const cli_table_row *rows, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!(rows[i].plan.cost > 0) ||
		    strcmp(rows[i].plan.part.currency,
			   rows[0].plan.part.currency) != 0)
			return 0;
	return n > 0;
}

/* What a row is drawn at: its cost (or GPU-hours) and hours. */
static double pch_x(const cli_table_row *t, int priced)
{
	return priced ? t->plan.cost : t->plan.gpu_hours;
}

/* Log when the positive values span more than PCH_LOG_SPAN. */
static chart_scale pch_scale(const cli_table_row *rows, int n, int priced,
			     int axis)
{
	double lo = 0, hi = 0, v;
	int i;

	for (i = 0; i < n; i++) {
		v = axis == CHART_X ? pch_x(&rows[i], priced)
				    : rows[i].plan.train_hours;
		if (!(v > 0))
			return CHART_LINEAR;
		lo = i == 0 || v < lo ? v : lo;
		hi = i == 0 || v > hi ? v : hi;
	}
	return n > 0 && hi > PCH_LOG_SPAN * lo ? CHART_LOG : CHART_LINEAR;
}

/* The series of a row: "partition (GPU)": per partition, and per GPU
 * where that is what the menu varies; a --gpu menu's reference server
 * is named after its GPU: that name once. */
static void pch_series_name(const autosize_plan *p, char *buf, size_t len)
{
	if (pch_gpu(p)[0] && strcmp(pch_gpu(p), p->part.name) != 0)
		snprintf(buf, len, "%s (%s)", p->part.name, pch_gpu(p));
	else
		snprintf(buf, len, "%s", p->part.name);
}

/* The series number for name, made when new. */
static int pch_series(chart *c, char names[][PCH_NAME_MAX], int *count,
		      const char *name)
{
	int i;

	for (i = 0; i < *count; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	if (*count >= PCH_SERIES_MAX)
		return -1;
	snprintf(names[*count], PCH_NAME_MAX, "%s", name);
	(*count)++;
	return chart_series(c, name, CHART_SCATTER);
}

/* The axes: cost (or GPU-hours, said so) and hours. */
static int pch_axes(chart *c, const cli_table_row *rows, int n, int priced)
{
	char title[PCH_TEXT_MAX];

	if (priced)
		snprintf(title, sizeof(title), "Cost (%s)",
			 rows[0].plan.part.currency);
	else
		snprintf(title, sizeof(title), "GPU-hours (no price known)");
	if (chart_axis(c, CHART_X, title, priced ? CHART_UNIT_MONEY
						 : CHART_UNIT_GPU_HOURS,
		       priced ? rows[0].plan.part.currency : NULL,
		       pch_scale(rows, n, priced, CHART_X)) < 0)
		return -1;
	return chart_axis(c, CHART_Y, "Predicted training time (hours)",
			  CHART_UNIT_HOURS, NULL,
			  pch_scale(rows, n, priced, CHART_Y));
}

/* The deadline the user gave, as a line. */
static int pch_deadline(chart *c, const autosize_request *req)
{
	char text[PCH_TEXT_MAX], d[32];

	if (!(req->deadline_s > 0))
		return 0;
	autosize_format_duration(req->deadline_s, d, sizeof(d));
	snprintf(text, sizeof(text), "deadline %s (%.4g h)", d,
		 req->deadline_s / 3600);
	return chart_mark(c, CHART_Y, req->deadline_s / 3600, text) < 0 ? -1
									 : 0;
}

/* The chart of the menu; NULL on out of memory (said). */
static chart *pch_build(const autosize_request *req,
			const cli_table_row *rows, int n)
{
	char names[PCH_SERIES_MAX][PCH_NAME_MAX];
	char title[PCH_TEXT_MAX], name[PCH_NAME_MAX];
	char tip[AUTOSIZE_MSG_LEN + PCH_TEXT_MAX];
	int i, s, count = 0, priced = pch_priced(rows, n);
	chart *c;

	snprintf(title, sizeof(title), "%s: training time against %s",
		 req->model.name[0] ? req->model.name : "model",
		 priced ? "cost" : "GPU-hours");
	c = chart_create("plan", title);
	if (!c || pch_axes(c, rows, n, priced) < 0 || pch_deadline(c, req))
		goto fail;
	for (i = 0; i < n; i++) {
		const autosize_plan *p = &rows[i].plan;
		cli_table_text t;

		cli_table_text_of(&rows[i], &t);
		pch_series_name(p, name, sizeof(name));
		s = pch_series(c, names, &count, name);
		snprintf(tip, sizeof(tip), "%d GPUs on %d nodes, %s, MFU "
			 "%.1f%%, time limit %s%s%s", p->gpus, p->nodes,
			 t.layout, p->mfu * 100, t.limit,
			 p->feasible ? "" : "; not feasible: ", p->reason);
		if (s < 0 || chart_point(c, s, pch_x(&rows[i], priced),
					 p->train_hours, tip) < 0)
			goto fail;
		if (rows[i].chosen &&
		    chart_highlight(c, pch_x(&rows[i], priced),
				    p->train_hours, "autosize's pick") < 0)
			goto fail;
	}
	return c;
fail:
	chart_destroy(c);
	return NULL;
}

/* The page: a paragraph, the chart, the table. */
static int pch_page(FILE *f, const chart *c, const autosize_request *req,
		    const cli_table_row *rows, int n)
{
	static const char *const head[] = {"", "partition", "GPU", "GPUs",
		"nodes", "layout", "MFU", "time (h)", "time limit", "cost",
		"feasible"};
	char title[PCH_TEXT_MAX], text[PCH_TEXT_MAX * 2];
	html_page *page;
	int i, rv;

	snprintf(title, sizeof(title), "autosize plan: %s",
		 req->model.name[0] ? req->model.name : "model");
	page = html_page_create(f, title);
	if (!page)
		return -1;
	html_paragraph(page, "Each point is one size on one partition: its "
		       "predicted training time against what it costs (GPU-"
		       "hours where no price is known). The ringed point and "
		       "the bold row, marked *, are the size autosize picks.");
	if (req->deadline_s > 0) {
		char d[32];

		autosize_format_duration(req->deadline_s, d, sizeof(d));
		snprintf(text, sizeof(text), "The dashed line is the "
			 "deadline: %s.", d);
		html_paragraph(page, text);
	}
	html_chart(page, c);
	html_table_begin(page, "sizes", "Sizes to choose from",
			 "lllrrlrrrrl", head, 11);
	for (i = 0; i < n; i++) {
		const autosize_plan *p = &rows[i].plan;
		char gpus[16], nodes[16], mfu[16], hours[24];
		char ok[AUTOSIZE_MSG_LEN + 8];
		const char *cells[11];
		cli_table_text t;

		cli_table_text_of(&rows[i], &t);
		snprintf(gpus, sizeof(gpus), "%d", p->gpus);
		snprintf(nodes, sizeof(nodes), "%d", p->nodes);
		snprintf(mfu, sizeof(mfu), "%.1f%%", p->mfu * 100);
		snprintf(hours, sizeof(hours), "%.1f", p->train_hours);
		snprintf(ok, sizeof(ok), "%s%s", p->feasible ? "yes" : "no: ",
			 p->feasible ? "" : p->reason);
		cells[0] = rows[i].chosen ? "*" : "";
		cells[1] = p->part.name;
		cells[2] = pch_gpu(p);
		cells[3] = gpus;
		cells[4] = nodes;
		cells[5] = t.layout;
		cells[6] = mfu;
		cells[7] = hours;
		cells[8] = t.limit;
		cells[9] = t.cost;
		cells[10] = ok;
		html_table_row(page, cells, rows[i].chosen);
	}
	rv = html_page_finish(page);
	html_page_destroy(page);
	return rv;
}

int cli_plan_chart(const char *file, int html, const autosize_request *req,
		   const cli_table_row *rows, int n)
{
	int to_stdout = strcmp(file, "-") == 0, werr;
	chart *c = pch_build(req, rows, n);
	FILE *f = NULL;

	if (!c)
		return -1;
	f = to_stdout ? stdout : fopen(file, "w");
	if (!f) {
		fprintf(stderr, "autosize: cannot write %.200s: %s\n", file,
			strerror(errno));
		chart_destroy(c);
		return -1;
	}
	errno = 0;
	werr = html ? pch_page(f, c, req, rows, n) : chart_write_svg(c, f);
	chart_destroy(c);
	if (to_stdout)
		werr |= fflush(f);
	else
		werr |= fclose(f);
	if (werr) {
		fprintf(stderr, "autosize: cannot write %.200s: %s\n", file,
			errno ? strerror(errno) : "write error");
		return -1;
	}
	return 0;
}
