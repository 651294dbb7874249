/*
 * A page for the browser test (tests/browser/check.py) with what the plan
 * page cannot carry: markup planted in a title, heading, series name,
 * label, tooltip and table cell (the core keeps model and partition
 * names plain), a weekly date axis with line series, predicted against
 * measured with its band, log axes with values to skip.
 *
 *   browser_fixture --html FILE   the page
 *   browser_fixture --json        what it draws, as check.py expects
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "chart.h"
#include "html.h"

#define FX_WEEKS 10
#define FX_JOBS 24
/* 2024-01-04 00:00 UTC, a Thursday: the weekly ticks fall on Mondays. */
#define FX_START_S 1704326400.0
#define FX_WEEK_S (7 * 86400.0)

static const char *const fx_planted[] = {
	"<script>alert(1)</script>",
	"\"><img src=x onerror=alert(2)>",
	"</svg><script>alert(3)</script>",
	"<b onmouseover=alert(4)>cell</b>",
	"<iframe src=javascript:alert(5)></iframe>",
};

/* Tokens per second of series s in week w; jobs' measured hours. */
static double fx_speed(int s, int w)
{
	return 1e5 * (1 + s) * (1 + 0.1 * w) + 2e4 * sin(w + s);
}

static double fx_measured(int j)
{
	return 0.5 * pow(1.35, j);
}

static double fx_predicted(int j)
{
	return fx_measured(j) * (1 + 0.2 * sin(3.0 * j));
}

/* A JSON string (the planted text has quotes). */
static void fx_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static void fx_json_point(int *first, const char *series, double x,
			  double y)
{
	printf("%s{\"series\":", *first ? "" : ",");
	fx_json_str(series);
	printf(",\"x\":%.17g,\"y\":%.17g}", x, y);
	*first = 0;
}

static const char *fx_series_name(int s)
{
	return s == 0 ? "h100" : fx_planted[0];
}

/* The expectation: both charts' points, the highlight, the skipped
 * count, the table and the planted texts. */
static int fx_json(void)
{
	int s, w, j, first = 1;
	size_t i;

	printf("{\"charts\":[{\"id\":\"weekly\",\"highlight\":null,"
	       "\"skipped\":0,\"points\":[");
	for (s = 0; s < 2; s++)
		for (w = 0; w < FX_WEEKS; w++)
			fx_json_point(&first, fx_series_name(s),
				      FX_START_S + w * FX_WEEK_S,
				      fx_speed(s, w));
	printf("]},{\"id\":\"accuracy\",\"highlight\":{\"x\":%.17g,"
	       "\"y\":%.17g},\"skipped\":2,\"points\":[", fx_measured(7),
	       fx_predicted(7));
	first = 1;
	for (j = 0; j < FX_JOBS; j++)
		fx_json_point(&first, "jobs", fx_measured(j), fx_predicted(j));
	printf("]}],\"tables\":[{\"id\":\"fixture-table\",\"rows\":3,"
	       "\"highlighted\":1}],\"texts\":[");
	for (i = 0; i < sizeof(fx_planted) / sizeof(fx_planted[0]); i++) {
		printf("%s", i ? "," : "");
		fx_json_str(fx_planted[i]);
	}
	printf("]}\n");
	return 0;
}

static chart *fx_weekly(void)
{
	chart *c = chart_create("weekly", fx_planted[2]);
	int s, w, k;

	chart_axis(c, CHART_X, "Week", CHART_UNIT_DATE, NULL, CHART_LINEAR);
	chart_axis(c, CHART_Y, "Speed", CHART_UNIT_TOKENS_S, NULL,
		   CHART_LINEAR);
	for (s = 0; s < 2; s++) {
		k = chart_series(c, fx_series_name(s), CHART_LINE);
		for (w = 0; w < FX_WEEKS; w++)
			chart_point(c, k, FX_START_S + w * FX_WEEK_S,
				    fx_speed(s, w), fx_planted[4]);
	}
	chart_mark(c, CHART_X, FX_START_S + 4 * FX_WEEK_S, fx_planted[1]);
	return c;
}

static chart *fx_accuracy(void)
{
	chart *c = chart_create("accuracy", "Predicted against measured");
	int j, k;

	chart_axis(c, CHART_X, "Measured", CHART_UNIT_HOURS, NULL, CHART_LOG);
	chart_axis(c, CHART_Y, "Predicted", CHART_UNIT_HOURS, NULL,
		   CHART_LOG);
	k = chart_series(c, "jobs", CHART_SCATTER);
	for (j = 0; j < FX_JOBS; j++)
		chart_point(c, k, fx_measured(j), fx_predicted(j), NULL);
	chart_point(c, k, 0, 1, "zero: skipped");
	chart_point(c, k, NAN, 1, "NaN: skipped");
	chart_diagonal(c, 0.15);
	chart_highlight(c, fx_measured(7), fx_predicted(7), fx_planted[1]);
	return c;
}

static int fx_html(const char *file)
{
	const char *head[] = {"name", "value"};
	const char *rows[3][2] = {{"plain", "1"}, {fx_planted[3], "2"},
				  {fx_planted[0], fx_planted[1]}};
	chart *a = fx_weekly(), *b = fx_accuracy();
	FILE *f = fopen(file, "w");
	html_page *p;
	int i, rv = 1;

	if (!f || !a || !b) {
		perror(file);
		goto out;
	}
	p = html_page_create(f, "Browser test page");
	if (!p)
		goto out;
	html_heading(p, fx_planted[4]);
	html_paragraph(p, fx_planted[3]);
	html_chart(p, a);
	html_chart(p, b);
	html_table_begin(p, "fixture-table", fx_planted[0], "lr", head, 2);
	for (i = 0; i < 3; i++)
		html_table_row(p, rows[i], i == 1);
	rv = html_page_finish(p) ? 1 : 0;
	html_page_destroy(p);
out:
	if (f && fclose(f))
		rv = 1;
	chart_destroy(a);
	chart_destroy(b);
	return rv;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--json") == 0)
		return fx_json();
	if (argc == 3 && strcmp(argv[1], "--html") == 0)
		return fx_html(argv[2]);
	fprintf(stderr, "usage: browser_fixture --json | --html FILE\n");
	return 2;
}
