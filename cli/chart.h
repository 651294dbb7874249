/*
 * autosize CLI: small SVG charts (chart.c, chart_axis.c).
 *
 * Written here, not with a library: no Debian-packaged C charting library
 * fits a self-contained page (gnuplot and PLplot are programs or pull in
 * cairo, fonts and a toolkit; GNU libplot's SVG has no per-point data or
 * tooltips), and the SVG needed is a small subset: lines, polygons,
 * markers and text. The output is deterministic (same input, same
 * bytes), has no script, and every text in it goes through markup.h.
 *
 * Usage (one chart; html.h puts several on a page with tables):
 *
 *   chart *c = chart_create("plan", "Time against cost");
 *   chart_axis(c, CHART_X, "Cost", CHART_UNIT_MONEY, "USD", CHART_LOG);
 *   chart_axis(c, CHART_Y, "Time", CHART_UNIT_HOURS, NULL, CHART_LOG);
 *   int s = chart_series(c, "h100", CHART_SCATTER);
 *   chart_point(c, s, 8154, 87.9, "32 GPUs");      (once per point)
 *   chart_mark(c, CHART_Y, 120, "deadline 5-00:00:00");
 *   chart_highlight(c, 8154, 87.9, "autosize's pick");
 *   chart_write_svg(c, stdout);                    (0, or -1: ferror)
 *   chart_destroy(c);
 *
 * For predicted against measured, chart_diagonal(c, 0.15) draws y = x in
 * a +-15% band. Machine-readable output, for tests and scripts: each
 * point is an element of class "pt" with data-series, data-x and data-y
 * (the values given, %.6g); the plot group (class "plot") has
 * data-x-min, data-x-max, data-y-min, data-y-max (the axes' ranges) and
 * data-x-scale, data-y-scale; the highlight is class "hl" with data-x,
 * data-y; the svg has data-points, data-skipped and data-capped.
 */
#ifndef AUTOSIZE_CLI_CHART_H
#define AUTOSIZE_CLI_CHART_H

#include <stddef.h>
#include <stdio.h>

/* Points drawn at most, all series together; more are counted and a
 * note says so (an SVG of 100,000 markers is ~10 MB, still opens). */
#define CHART_POINTS_MAX 100000
/* Marker lines per chart, ticks per axis. */
#define CHART_MARKS_MAX 16
#define CHART_TICKS_MAX 32
/* The chart's id (ids of its parts start with it) and value labels. */
#define CHART_ID_MAX 32
#define CHART_LABEL_MAX 64

typedef struct chart chart;

typedef enum chart_axis_id { CHART_X = 0, CHART_Y = 1 } chart_axis_id;

typedef enum chart_scale { CHART_LINEAR = 0, CHART_LOG = 1 } chart_scale;

/* What an axis's numbers are: how ticks fall and labels read. */
typedef enum chart_unit {
	CHART_UNIT_NONE = 0,   /* plain; unit_name, if any, follows: "3 GB" */
	CHART_UNIT_HOURS,      /* "90 h" */
	CHART_UNIT_MONEY,      /* "8k USD": unit_name is the currency */
	CHART_UNIT_GPU_HOURS,  /* "2.8k GPU-h" */
	CHART_UNIT_TOKENS_S,   /* "1.2M tok/s" */
	CHART_UNIT_PERCENT,    /* 0.4 reads "40%" */
	CHART_UNIT_DATE        /* seconds since 1970 (UTC): "2024-05-06",
				* ticks on days or on Mondays (weekly) */
} chart_unit;

typedef enum chart_kind {
	CHART_SCATTER = 0,     /* markers */
	CHART_LINE             /* markers joined in the order given */
} chart_kind;

/* A chart: id (letters, digits, - and _ kept, else "chart"; unique on a
 * page) and title. NULL on out of memory (said on stderr). The caller
 * owns it: chart_destroy. */
chart *chart_create(const char *id, const char *title);
/* Free c; NULL is fine. */
void chart_destroy(chart *c);

/* Set an axis: its title, unit (unit_name: the currency, or a plain
 * unit's name; may be NULL) and scale (default linear, no title).
 * 0, or -1 on out of memory. */
int chart_axis(chart *c, chart_axis_id axis, const char *title,
	       chart_unit unit, const char *unit_name, chart_scale scale);
/* A new series: its colour and marker shape follow its number (eight,
 * then again), so that series differ in grey too. Returns the series'
 * number, or -1 on out of memory. */
int chart_series(chart *c, const char *name, chart_kind kind);
/* The same with its style given (its colour, marker and dash: style
 * modulo eight), so that a thing drawn on several charts looks the
 * same on each (the report's partitions). */
int chart_series_styled(chart *c, const char *name, chart_kind kind,
			int style);
/* The series of thing i (0 <= i < n, a partition of a page) in c, made
 * when first needed with i's style: series[i] keeps its number (the
 * caller sets all n to -1 first). -1 when i is out of range or on out
 * of memory. */
int chart_series_of(chart *c, int *series, int n, int i, const char *name,
		    chart_kind kind);
/* Add a point to series s; tip (NULL: none) is added to its tooltip,
 * which gives the series and both values. 0 drawn; 1 not drawn: a value
 * not finite, or not positive on a log axis (counted as skipped), or
 * past CHART_POINTS_MAX (counted as capped); -1 on out of memory or a
 * bad series number. */
int chart_point(chart *c, int s, double x, double y, const char *tip);
/* A line across the plot at value on axis (CHART_Y: horizontal, e.g. a
 * deadline) with a label; the axis's range takes it in. 0, 1 when not
 * drawn (not finite, not positive on a log axis, more than
 * CHART_MARKS_MAX), -1 on out of memory. */
int chart_mark(chart *c, chart_axis_id axis, double value,
	       const char *label);
/* y = x with a shaded band of +-band (0.15: 15%) around it, both axes
 * then spanning the same range. */
void chart_diagonal(chart *c, double band);
/* Ring the point (x, y) (the chosen plan); label (short: the legend
 * shows 20 characters) goes in the legend and its tooltip. The last call
 * counts. 0, 1 when not drawable, -1 on out of memory. */
int chart_highlight(chart *c, double x, double y, const char *label);
/* Points counted as skipped and as capped so far. */
size_t chart_skipped(const chart *c);
size_t chart_capped(const chart *c);

/* Write c as one <svg> element (also a whole .svg file: it carries
 * xmlns). 0, or -1 when f reports a write error (the caller names the
 * file). */
int chart_write_svg(const chart *c, FILE *f);

/* chart_axis.c: ticks and labels, shared with tests. */

/*
 * Widen [*lo, *hi] to nice tick values and write the ticks (at most
 * max, rising) to ticks; returns how many. Linear: steps of 1, 2 or 5
 * x 10^k, 4 to 10 ticks; log: decades with 2 and 5 between them when the
 * range spans 3 decades or less; date: days, or weeks from Monday.
 * Needs lo <= hi, finite, and lo > 0 on a log axis.
 */
int chart_ticks(chart_scale scale, chart_unit unit, double *lo, double *hi,
		double *ticks, int max);
/* v as a label (4 significant figures, k/M/G/T from 10,000): "90 h",
 * "12.5k USD", "40%", "2024-05-06". */
void chart_format(double v, chart_unit unit, const char *unit_name,
		  char *buf, size_t len);

#endif
