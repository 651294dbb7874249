/*
 * The CLI's charts (cli/chart.c, chart_axis.c), text escaping
 * (cli/markup.c) and HTML pages (cli/html.c): ticks, log axes, escaping,
 * skipped and capped points, determinism.
 */
#include <ctype.h>
#include <time.h>
#include "testutil.h"
#include "chart.h"
#include "html.h"
#include "markup.h"

/* What a chart or page wrote, NUL-terminated (the caller frees). */
typedef struct written {
	char *text;
	size_t len;
	FILE *f;
} written;

static void w_open(written *w)
{
	w->text = NULL;
	w->len = 0;
	w->f = open_memstream(&w->text, &w->len);
	assert_non_null(w->f);
}

static char *w_close(written *w)
{
	assert_int_equal(fclose(w->f), 0);
	return w->text;
}

static char *svg_of(const chart *c)
{
	written w;

	w_open(&w);
	assert_int_equal(chart_write_svg(c, w.f), 0);
	return w_close(&w);
}

/* The number after `name="` at or after p, NAN when absent. */
static double attr_num(const char *p, const char *name)
{
	char want[64];
	const char *q;

	snprintf(want, sizeof(want), " %s=\"", name);
	q = strstr(p, want);
	return q ? strtod(q + strlen(want), NULL) : NAN;
}

/* 1 when v is 1, 2 or 5 times a power of ten. */
static int is_125(double v)
{
	double m = v / pow(10, floor(log10(v) + 1e-6));

	return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6;
}

/* Linear ticks: 4 to 10, evenly spaced by a 1-2-5 step, the first and
 * last at or outside the data, which then are the range's ends. */
static void test_linear_ticks(void **state)
{
	static const double ranges[][2] = {{0, 1}, {7649, 13693},
		{-3.2, 17.9}, {0.0012, 0.0047}, {1e9, 3.3e12}, {5, 5},
		{0, 0}, {-100, -99.5}, {23.2, 1076.2}};
	double t[CHART_TICKS_MAX];
	size_t r;
	int n, i;

	(void)state;
	for (r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		double lo = ranges[r][0], hi = ranges[r][1], step;

		n = chart_ticks(CHART_LINEAR, CHART_UNIT_NONE, &lo, &hi, t,
				CHART_TICKS_MAX);
		assert_true(n >= 4 && n <= 10);
		step = t[1] - t[0];
		assert_true(is_125(step));
		for (i = 1; i < n; i++)
			assert_true(fabs(t[i] - t[i - 1] - step) < step * 1e-6);
		assert_true(t[0] <= ranges[r][0]);
		assert_true(t[n - 1] >= ranges[r][1]);
		assert_true(lo == t[0] && hi == t[n - 1]);
		/* no more than one step of margin on either side */
		if (ranges[r][1] > ranges[r][0]) {
			assert_true(ranges[r][0] - t[0] < step);
			assert_true(t[n - 1] - ranges[r][1] < step);
		}
	}
}

/* Log ticks: 1-2-5 within three decades, whole decades past that;
 * rising; the data inside; nothing for a range touching zero. */
static void test_log_ticks(void **state)
{
	double t[CHART_TICKS_MAX], lo = 23.2, hi = 1076.2;
	int n, i;

	(void)state;
	n = chart_ticks(CHART_LOG, CHART_UNIT_HOURS, &lo, &hi, t,
			CHART_TICKS_MAX);
	assert_true(n >= 6);
	for (i = 0; i < n; i++) {
		assert_true(is_125(t[i]));
		if (i)
			assert_true(t[i] > t[i - 1]);
	}
	assert_true(t[0] <= 23.2 && t[0] > 23.2 / 2.5);
	assert_true(t[n - 1] >= 1076.2 && t[n - 1] < 1076.2 * 2.5);
	/* twelve decades: powers of ten only, a constant ratio */
	lo = 3e-4;
	hi = 7e8;
	n = chart_ticks(CHART_LOG, CHART_UNIT_NONE, &lo, &hi, t,
			CHART_TICKS_MAX);
	assert_true(n >= 4 && n <= 10);
	for (i = 0; i < n; i++) {
		double e = log10(t[i]);

		assert_true(fabs(e - round(e)) < 1e-9);
		if (i > 1)
			assert_true(fabs(t[i] / t[i - 1] - t[1] / t[0]) < 1e-6 *
				    t[1] / t[0]);
	}
	assert_true(t[0] <= 3e-4 && t[n - 1] >= 7e8);
	lo = 0;
	hi = 10;
	assert_int_equal(chart_ticks(CHART_LOG, CHART_UNIT_NONE, &lo, &hi, t,
				     CHART_TICKS_MAX), 0);
	lo = 7;
	hi = 7;
	n = chart_ticks(CHART_LOG, CHART_UNIT_NONE, &lo, &hi, t,
			CHART_TICKS_MAX);
	assert_true(n >= 2 && t[0] < 7 && t[n - 1] > 7);
}

/* A weekly time axis: ticks on Mondays at midnight UTC, a whole number
 * of weeks apart; labels are dates. */
static void test_date_ticks(void **state)
{
	/* 2024-01-03 (a Wednesday) 12:00 UTC, plus 61 days */
	double lo = 1704283200, hi = lo + 61 * 86400.0, t[CHART_TICKS_MAX];
	char label[CHART_LABEL_MAX];
	int n, i;

	(void)state;
	n = chart_ticks(CHART_LINEAR, CHART_UNIT_DATE, &lo, &hi, t,
			CHART_TICKS_MAX);
	assert_true(n >= 3 && n <= 9);
	for (i = 0; i < n; i++) {
		time_t s = (time_t)t[i];
		struct tm tm;

		assert_non_null(gmtime_r(&s, &tm));
		assert_int_equal(tm.tm_wday, 1);
		assert_int_equal(tm.tm_hour, 0);
		if (i)
			assert_int_equal((long)(t[i] - t[i - 1]) % (7 * 86400),
					 0);
		chart_format(t[i], CHART_UNIT_DATE, NULL, label,
			     sizeof(label));
		assert_int_equal(strlen(label), 10);
		assert_int_equal(label[4], '-');
		assert_int_equal(label[7], '-');
	}
	assert_true(t[0] <= 1704283200);
	assert_true(t[n - 1] >= 1704283200 + 61 * 86400.0);
}

/* Labels carry units; 4 significant figures, k/M from 10,000. */
static void test_labels(void **state)
{
	static const struct {
		double v;
		chart_unit unit;
		const char *name, *want;
	} cases[] = {
		{12500, CHART_UNIT_MONEY, "USD", "12.5k USD"},
		{87.9, CHART_UNIT_HOURS, NULL, "87.9 h"},
		{2811.69, CHART_UNIT_GPU_HOURS, NULL, "2812 GPU-h"},
		{1.25e6, CHART_UNIT_TOKENS_S, NULL, "1.25M tok/s"},
		{0.4, CHART_UNIT_PERCENT, NULL, "40%"},
		{9999.7, CHART_UNIT_NONE, NULL, "10k"},
		{-3e9, CHART_UNIT_NONE, "B", "-3G B"},
		{0, CHART_UNIT_DATE, NULL, "1970-01-01"},
	};
	char b[CHART_LABEL_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		chart_format(cases[i].v, cases[i].unit, cases[i].name, b,
			     sizeof(b));
		assert_string_equal(b, cases[i].want);
	}
}

/* Markup, quotes and controls come out as inert text; bad UTF-8 as
 * U+FFFD; a short buffer holds whole entities and is terminated. */
static void test_escape(void **state)
{
	char b[256], small[8];
	size_t n;

	(void)state;
	markup_escape(b, sizeof(b), "<script>alert(1)</script>");
	assert_string_equal(b, "&lt;script&gt;alert(1)&lt;/script&gt;");
	markup_escape(b, sizeof(b), "\"><img src=x onerror='alert(1)'>&");
	assert_null(strchr(b, '<'));
	assert_null(strchr(b, '"'));
	assert_null(strchr(b, '\''));
	assert_non_null(strstr(b, "&quot;&gt;&lt;img"));
	assert_non_null(strstr(b, "&#39;alert(1)&#39;&gt;&amp;"));
	markup_escape(b, sizeof(b), "a\x01\x1b[31mb\x7f\xc2\x85" "c\td\n");
	assert_string_equal(b, "a[31mbc d ");
	markup_escape(b, sizeof(b), "caf\xc3\xa9 \xff \xed\xa0\x80 \xc0\xaf");
	assert_string_equal(b, "caf\xc3\xa9 \xef\xbf\xbd \xef\xbf\xbd"
			    "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd"
			    "\xef\xbf\xbd");
	n = markup_escape(small, sizeof(small), "ab<cd");
	assert_int_equal(n, strlen("ab&lt;cd"));
	assert_string_equal(small, "ab&lt;c");
	n = markup_escape(small, sizeof(small), "abcd<e");
	assert_string_equal(small, "abcd");
	assert_int_equal(n, strlen("abcd&lt;e"));
	assert_int_equal(markup_escape(NULL, 0, "&"), 5);
}

/* The element names in doc, each checked against allowed. */
static void only_tags(const char *doc, const char *const *allowed)
{
	const char *p;

	for (p = strchr(doc, '<'); p; p = strchr(p + 1, '<')) {
		char name[32];
		size_t n = 0;
		int i, ok = 0;

		if (p[1] == '/' || p[1] == '!')
			continue;
		while (n + 1 < sizeof(name) &&
		       isalnum((unsigned char)p[1 + n])) {
			name[n] = p[1 + n];
			n++;
		}
		name[n] = '\0';
		for (i = 0; allowed[i]; i++)
			ok |= strcmp(name, allowed[i]) == 0;
		if (!ok)
			fail_msg("unexpected element <%s> in %.60s", name, p);
	}
}

static const char *const svg_tags[] = {"svg", "title", "rect", "defs",
	"clipPath", "text", "g", "line", "circle", "path", "polygon",
	"polyline", NULL};

/* A chart with hostile text everywhere. */
static chart *hostile_chart(void)
{
	const char *bad = "<script>alert(1)</script>\"><img src=x "
			  "onerror=alert(2)>'\x07";
	chart *c = chart_create("x\"><script>", bad);
	int s;

	assert_non_null(c);
	assert_int_equal(chart_axis(c, CHART_X, bad, CHART_UNIT_MONEY, bad,
				    CHART_LINEAR), 0);
	assert_int_equal(chart_axis(c, CHART_Y, bad, CHART_UNIT_HOURS, NULL,
				    CHART_LOG), 0);
	s = chart_series(c, bad, CHART_LINE);
	assert_true(s >= 0);
	assert_int_equal(chart_point(c, s, 1, 2, bad), 0);
	assert_int_equal(chart_point(c, s, 3, 40, bad), 0);
	assert_int_equal(chart_mark(c, CHART_Y, 10, bad), 0);
	assert_int_equal(chart_highlight(c, 3, 40, bad), 0);
	return c;
}

/* Planted markup in a title, series name, unit, tooltip and labels stays
 * text: only the chart's own elements, no raw quote ends an attribute. */
static void test_svg_inert(void **state)
{
	chart *c = hostile_chart();
	char *svg = svg_of(c);
	const char *p;

	(void)state;
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "<img"));
	assert_null(strchr(svg, '\x07'));
	assert_non_null(strstr(svg, "&lt;script&gt;alert(1)"));
	assert_non_null(strstr(svg, "data-series=\"&lt;script&gt;"));
	assert_non_null(strstr(svg, "id=\"xscript\""));
	only_tags(svg, svg_tags);
	/* every attribute value ends before the next name=" */
	for (p = strstr(svg, "data-series=\""); p;
	     p = strstr(p + 1, "data-series=\"")) {
		const char *end = strchr(p + 13, '"');

		assert_non_null(end);
		assert_true(end[1] == ' ' || end[1] == '>');
		assert_null(memchr(p + 13, '<', (size_t)(end - p - 13)));
	}
	free(svg);
	chart_destroy(c);
}

/* Values a log axis cannot show and values that are not finite are
 * counted and not drawn; no NaN reaches a coordinate. */
static void test_skipped(void **state)
{
	chart *c = chart_create("skip", "skip");
	double bad[] = {NAN, INFINITY, -INFINITY, 0, -1};
	char *svg;
	size_t i;
	int s;

	(void)state;
	assert_int_equal(chart_axis(c, CHART_X, "x", CHART_UNIT_NONE, NULL,
				    CHART_LOG), 0);
	assert_int_equal(chart_axis(c, CHART_Y, "y", CHART_UNIT_NONE, NULL,
				    CHART_LINEAR), 0);
	s = chart_series(c, "s", CHART_LINE);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(chart_point(c, s, bad[i], 1, NULL), 1);
	assert_int_equal(chart_point(c, s, 5, -1, NULL), 0);
	assert_int_equal(chart_point(c, s, 50, NAN, NULL), 1);
	assert_int_equal(chart_point(c, s, 500, 3, NULL), 0);
	assert_int_equal(chart_mark(c, CHART_X, 0, "zero"), 1);
	assert_int_equal(chart_highlight(c, -5, 1, "neg"), 1);
	assert_int_equal(chart_point(c, 7, 1, 1, NULL), -1);
	assert_int_equal(chart_skipped(c), 6);
	svg = svg_of(c);
	assert_null(strstr(svg, "nan"));
	assert_null(strstr(svg, "inf"));
	assert_int_equal(attr_num(svg, "data-points"), 2);
	assert_int_equal(attr_num(svg, "data-skipped"), 6);
	assert_non_null(strstr(svg, "6 points not drawn"));
	assert_null(strstr(svg, "class=\"hl\""));
	free(svg);
	chart_destroy(c);
}

/* A deterministic spread of n points over four series. */
static chart *spread_chart(size_t n, chart_scale sx, chart_scale sy)
{
	chart *c = chart_create("spread", "spread");
	unsigned long r = 12345;
	size_t i;
	int s[4], k;

	assert_int_equal(chart_axis(c, CHART_X, "x", CHART_UNIT_TOKENS_S,
				    NULL, sx), 0);
	assert_int_equal(chart_axis(c, CHART_Y, "y", CHART_UNIT_MONEY, "EUR",
				    sy), 0);
	for (k = 0; k < 4; k++) {
		char name[16];

		snprintf(name, sizeof(name), "s%d", k);
		s[k] = chart_series(c, name, k % 2 ? CHART_LINE
						   : CHART_SCATTER);
	}
	for (i = 0; i < n; i++) {
		double x, y;

		r = r * 6364136223846793005UL + 1442695040888963407UL;
		x = 0.5 + (double)(r >> 40) / (1 << 20) * 3e4;
		r = r * 6364136223846793005UL + 1442695040888963407UL;
		y = 1e-3 + (double)(r >> 40) / (1 << 20) * 7e2;
		assert_int_equal(chart_point(c, s[i % 4], x, y, NULL), 0);
	}
	chart_mark(c, CHART_Y, 900, "limit");
	return c;
}

/* The axes' ranges hold every point and mark; the same chart writes the
 * same bytes twice. */
static void test_ranges_and_determinism(void **state)
{
	static const chart_scale scales[][2] = {{CHART_LINEAR, CHART_LINEAR},
		{CHART_LOG, CHART_LOG}, {CHART_LOG, CHART_LINEAR}};
	size_t k;

	(void)state;
	for (k = 0; k < 3; k++) {
		chart *c = spread_chart(500, scales[k][0], scales[k][1]);
		chart *again = spread_chart(500, scales[k][0], scales[k][1]);
		char *svg = svg_of(c), *svg2 = svg_of(again);
		const char *plot = strstr(svg, "class=\"plot\""), *p;
		double x0 = attr_num(plot, "data-x-min");
		double x1 = attr_num(plot, "data-x-max");
		double y0 = attr_num(plot, "data-y-min");
		double y1 = attr_num(plot, "data-y-max");
		int n = 0;

		assert_string_equal(svg, svg2);
		assert_true(x0 < x1 && y0 < y1);
		assert_true(y1 >= 900);
		for (p = strstr(svg, "class=\"pt\""); p;
		     p = strstr(p + 1, "class=\"pt\"")) {
			double x = attr_num(p, "data-x"), y = attr_num(p,
								  "data-y");

			assert_true(x >= x0 && x <= x1);
			assert_true(y >= y0 && y <= y1);
			n++;
		}
		assert_int_equal(n, 500);
		assert_int_equal(attr_num(svg, "data-points"), 500);
		free(svg);
		free(svg2);
		chart_destroy(c);
		chart_destroy(again);
	}
}

/* Past CHART_POINTS_MAX points are counted, not kept, and said. */
static void test_cap(void **state)
{
	chart *c = chart_create("cap", "cap");
	written w;
	size_t i;
	int s = chart_series(c, "many", CHART_SCATTER);

	(void)state;
	for (i = 0; i < CHART_POINTS_MAX; i++)
		assert_int_equal(chart_point(c, s, (double)i, 1, NULL), 0);
	for (i = 0; i < 7; i++)
		assert_int_equal(chart_point(c, s, 1, 1, NULL), 1);
	assert_int_equal(chart_capped(c), 7);
	w_open(&w);
	assert_int_equal(chart_write_svg(c, w.f), 0);
	w_close(&w);
	assert_int_equal(attr_num(w.text, "data-capped"), 7);
	assert_non_null(strstr(w.text, "7 points not drawn (past 100000)"));
	free(w.text);
	chart_destroy(c);
}

/* Predicted against measured: both axes one range, the band drawn. */
static void test_diagonal(void **state)
{
	chart *c = chart_create("pm", "predicted vs measured");
	char *svg;
	const char *plot;
	int s;

	(void)state;
	chart_axis(c, CHART_X, "measured", CHART_UNIT_HOURS, NULL, CHART_LOG);
	chart_axis(c, CHART_Y, "predicted", CHART_UNIT_HOURS, NULL, CHART_LOG);
	s = chart_series(c, "jobs", CHART_SCATTER);
	chart_point(c, s, 3, 3.3, "job 1");
	chart_point(c, s, 40, 700, "job 2");
	chart_diagonal(c, 0.15);
	svg = svg_of(c);
	plot = strstr(svg, "class=\"plot\"");
	assert_true(attr_num(plot, "data-x-min") ==
		    attr_num(plot, "data-y-min"));
	assert_true(attr_num(plot, "data-x-max") ==
		    attr_num(plot, "data-y-max"));
	assert_true(attr_num(svg, "data-band") == 0.15);
	assert_non_null(strstr(svg, "class=\"band\""));
	assert_null(strstr(svg, "nan"));
	free(svg);
	chart_destroy(c);
}

/* A page of two charts and a table with hostile cells: no script, no
 * link or source to fetch, markup inert, rows as given. */
static void test_html_page(void **state)
{
	static const char *const page_tags[] = {"html", "head", "meta",
		"title", "style", "body", "h1", "h2", "p", "figure", "table",
		"caption", "thead", "tbody", "tr", "th", "td", "svg", "rect",
		"defs", "clipPath", "text", "g", "line", "circle", "path",
		"polygon", "polyline", NULL};
	const char *head[] = {"name", "value"};
	const char *row[] = {"<script>alert(1)</script>", "\"><img src=x>"};
	chart *a = hostile_chart(), *b = spread_chart(20, CHART_LOG,
						       CHART_LINEAR);
	html_page *p;
	written w;
	const char *q;
	int svgs = 0;

	(void)state;
	w_open(&w);
	p = html_page_create(w.f, "<b>report</b>");
	assert_non_null(p);
	html_heading(p, "charts & tables");
	html_chart(p, a);
	html_chart(p, b);
	html_table_begin(p, "t1", "<i>cap</i>", "lr", head, 2);
	html_table_row(p, row, 0);
	html_table_row(p, row, 1);
	assert_int_equal(html_page_finish(p), 0);
	html_page_destroy(p);
	html_page_destroy(NULL);
	w_close(&w);
	assert_true(strncmp(w.text, "<!DOCTYPE html>", 15) == 0);
	assert_null(strstr(w.text, "<script"));
	assert_null(strstr(w.text, "<img"));
	assert_null(strstr(w.text, " src=\""));
	assert_null(strstr(w.text, " href=\""));
	assert_non_null(strstr(w.text, "Content-Security-Policy"));
	assert_non_null(strstr(w.text, "<h1>&lt;b&gt;report&lt;/b&gt;</h1>"));
	assert_non_null(strstr(w.text, "<tr class=\"hl\">"));
	assert_non_null(strstr(w.text, "<td class=\"num\">&quot;&gt;&lt;img"));
	only_tags(w.text + 15, page_tags);
	for (q = strstr(w.text, "<svg "); q; q = strstr(q + 1, "<svg "))
		svgs++;
	assert_int_equal(svgs, 2);
	free(w.text);
	chart_destroy(a);
	chart_destroy(b);
	chart_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear_ticks),
		cmocka_unit_test(test_log_ticks),
		cmocka_unit_test(test_date_ticks),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_svg_inert),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_ranges_and_determinism),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_diagonal),
		cmocka_unit_test(test_html_page),
	};

	return cmocka_run_group_tests_name("chart", tests, NULL, NULL);
}
