/*
 * autosize CLI: small SVG charts: what a chart holds and its SVG
 * (chart.h; ticks and labels in chart_axis.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chart.h"
#include "markup.h"

/* Layout in the SVG's user units (pixels at 100%). */
#define CH_WIDTH_PX 760
#define CH_HEIGHT_PX 460
#define CH_LEFT_PX 86          /* y tick labels and the y title */
#define CH_RIGHT_PX 190        /* the legend */
#define CH_TOP_PX 50           /* the title and the notes */
#define CH_BOTTOM_PX 58        /* x tick labels and the x title */
#define CH_MARKER_R_PX 4.5
#define CH_LEGEND_ROW_PX 18
#define CH_LEGEND_CHARS 20
#define CH_TIP_MAX 512
/* Segments of y = x when one axis is log and the other not (a curve). */
#define CH_DIAGONAL_STEPS 48

/* Okabe and Ito's colour-blind safe palette ("Color Universal Design",
 * 2008), yellow replaced by grey (unreadable on white); the shapes and,
 * for lines, the dashes tell series apart in grey. */
static const char *const ch_colour[] = {"#0072b2", "#d55e00", "#009e73",
	"#cc79a7", "#e69f00", "#56b4e9", "#000000", "#777777"};
static const char *const ch_dash[] = {"", "6 3", "2 3", "8 3 2 3", "4 4",
	"1 2", "10 4", "3 6"};
#define CH_STYLES 8

typedef struct chart_axis_def {
	size_t title;           /* offsets into the chart's text */
	size_t unit_name;
	chart_unit unit;
	chart_scale scale;
} chart_axis_def;

typedef struct chart_series_def {
	size_t name;
	chart_kind kind;
	int style;              /* colour, marker and dash: 0..CH_STYLES-1 */
} chart_series_def;

typedef struct chart_pt {
	double x, y;
	int series;
	size_t tip;
} chart_pt;

typedef struct chart_mark_def {
	chart_axis_id axis;
	double value;
	size_t label;
} chart_mark_def;

struct chart {
	char id[CHART_ID_MAX];
	size_t title;
	chart_axis_def axis[2];
	chart_series_def *series;
	size_t n_series, cap_series;
	chart_pt *pts;
	size_t n_pts, cap_pts;
	chart_mark_def marks[CHART_MARKS_MAX];
	int n_marks;
	int diagonal;
	double band;
	int highlight;
	double hl_x, hl_y;
	size_t hl_label;
	/* every string, NUL-terminated one after another; offset 0 is "" */
	char *text;
	size_t text_len, text_cap;
	size_t skipped, capped;
};

/* What chart_write_svg works out before it writes. */
typedef struct chart_frame {
	double lo[2], hi[2];
	double ticks[2][CHART_TICKS_MAX];
	int n_ticks[2];
	double x0, y0, w, h;    /* the plot area */
} chart_frame;

static void chart_oom(void)
{
	fprintf(stderr, "autosize: chart: out of memory\n");
}

/* Make room for need items of size bytes in *p (doubling). */
static int chart_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q) {
		chart_oom();
		return -1;
	}
	*p = q;
	*cap = n;
	return 0;
}

/* Keep s in the chart's text; *off its offset (0 for NULL or ""). */
static int chart_keep(chart *c, const char *s, size_t *off)
{
	size_t n;
	void *text = c->text;

	*off = 0;
	if (!s || !*s)
		return 0;
	n = strlen(s) + 1;
	if (chart_grow(&text, &c->text_cap, c->text_len + n, 1) < 0)
		return -1;
	c->text = text;
	memcpy(c->text + c->text_len, s, n);
	*off = c->text_len;
	c->text_len += n;
	return 0;
}

static const char *chart_str(const chart *c, size_t off)
{
	return c->text + off;
}

chart *chart_create(const char *id, const char *title)
{
	chart *c = calloc(1, sizeof(*c));
	size_t i, n = 0;

	if (!c) {
		chart_oom();
		return NULL;
	}
	c->text = calloc(1, 256);
	if (!c->text) {
		chart_oom();
		goto fail;
	}
	c->text_len = 1;
	c->text_cap = 256;
	for (i = 0; id && id[i] && n + 1 < sizeof(c->id); i++)
		if ((id[i] >= 'a' && id[i] <= 'z') ||
		    (id[i] >= 'A' && id[i] <= 'Z') ||
		    (id[i] >= '0' && id[i] <= '9') || id[i] == '-' ||
		    id[i] == '_')
			c->id[n++] = id[i];
	if (n == 0)
		snprintf(c->id, sizeof(c->id), "chart");
	if (chart_keep(c, title, &c->title) < 0)
		goto fail;
	return c;
fail:
	chart_destroy(c);
	return NULL;
}

void chart_destroy(chart *c)
{
	if (!c)
		return;
	free(c->series);
	free(c->pts);
	free(c->text);
	free(c);
}

int chart_axis(chart *c, chart_axis_id axis, const char *title,
	       chart_unit unit, const char *unit_name, chart_scale scale)
{
	chart_axis_def *a;

	if (!c || (axis != CHART_X && axis != CHART_Y))
		return -1;
	a = &c->axis[axis];
	a->unit = unit;
	a->scale = scale;
	if (chart_keep(c, title, &a->title) < 0 ||
	    chart_keep(c, unit_name, &a->unit_name) < 0)
		return -1;
	return 0;
}

int chart_series(chart *c, const char *name, chart_kind kind)
{
	return chart_series_styled(c, name, kind, c ? (int)c->n_series : 0);
}

int chart_series_styled(chart *c, const char *name, chart_kind kind,
			int style)
{
	void *series;
	size_t off;

	if (!c || style < 0 || chart_keep(c, name, &off) < 0)
		return -1;
	series = c->series;
	if (chart_grow(&series, &c->cap_series, c->n_series + 1,
		       sizeof(*c->series)) < 0)
		return -1;
	c->series = series;
	c->series[c->n_series].name = off;
	c->series[c->n_series].kind = kind;
	c->series[c->n_series].style = style % CH_STYLES;
	return (int)c->n_series++;
}

int chart_series_of(chart *c, int *series, int n, int i, const char *name,
		    chart_kind kind)
{
	if (i < 0 || i >= n)
		return -1;
	if (series[i] < 0)
		series[i] = chart_series_styled(c, name, kind, i);
	return series[i];
}

/* 1 when v can be drawn on axis. */
static int chart_drawable(const chart *c, chart_axis_id axis, double v)
{
	return isfinite(v) && (c->axis[axis].scale != CHART_LOG || v > 0);
}

int chart_point(chart *c, int s, double x, double y, const char *tip)
{
	void *pts;
	chart_pt *p;
	size_t off;

	if (!c || s < 0 || (size_t)s >= c->n_series)
		return -1;
	if (!chart_drawable(c, CHART_X, x) || !chart_drawable(c, CHART_Y, y)) {
		c->skipped++;
		return 1;
	}
	if (c->n_pts >= CHART_POINTS_MAX) {
		c->capped++;
		return 1;
	}
	pts = c->pts;
	if (chart_grow(&pts, &c->cap_pts, c->n_pts + 1, sizeof(*c->pts)) < 0)
		return -1;
	c->pts = pts;
	if (chart_keep(c, tip, &off) < 0)
		return -1;
	p = &c->pts[c->n_pts++];
	p->x = x;
	p->y = y;
	p->series = s;
	p->tip = off;
	return 0;
}

int chart_mark(chart *c, chart_axis_id axis, double value,
	       const char *label)
{
	chart_mark_def *m;

	if (!c || (axis != CHART_X && axis != CHART_Y))
		return -1;
	if (!chart_drawable(c, axis, value) || c->n_marks >= CHART_MARKS_MAX)
		return 1;
	m = &c->marks[c->n_marks];
	if (chart_keep(c, label, &m->label) < 0)
		return -1;
	m->axis = axis;
	m->value = value;
	c->n_marks++;
	return 0;
}

void chart_diagonal(chart *c, double band)
{
	if (!c)
		return;
	c->diagonal = 1;
	c->band = isfinite(band) && band > 0 ? fmin(band, 0.9) : 0;
}

int chart_highlight(chart *c, double x, double y, const char *label)
{
	if (!c)
		return -1;
	if (!chart_drawable(c, CHART_X, x) || !chart_drawable(c, CHART_Y, y))
		return 1;
	if (chart_keep(c, label, &c->hl_label) < 0)
		return -1;
	c->highlight = 1;
	c->hl_x = x;
	c->hl_y = y;
	return 0;
}

size_t chart_skipped(const chart *c)
{
	return c ? c->skipped : 0;
}

size_t chart_capped(const chart *c)
{
	return c ? c->capped : 0;
}

/* --- The SVG --- */

/* Take v into the range of axis. */
static void frame_take(chart_frame *f, int axis, double v, int *any)
{
	if (!any[axis] || v < f->lo[axis])
		f->lo[axis] = v;
	if (!any[axis] || v > f->hi[axis])
		f->hi[axis] = v;
	any[axis] = 1;
}

/* The axes' ranges (every point, mark and the highlight in them) and
 * their ticks. */
static void frame_plan(const chart *c, chart_frame *f)
{
	int any[2] = {0, 0}, a;
	size_t i;

	for (i = 0; i < c->n_pts; i++) {
		frame_take(f, CHART_X, c->pts[i].x, any);
		frame_take(f, CHART_Y, c->pts[i].y, any);
	}
	for (a = 0; a < c->n_marks; a++)
		frame_take(f, c->marks[a].axis, c->marks[a].value, any);
	if (c->highlight) {
		frame_take(f, CHART_X, c->hl_x, any);
		frame_take(f, CHART_Y, c->hl_y, any);
	}
	for (a = 0; a < 2; a++)
		if (!any[a]) {
			f->lo[a] = c->axis[a].scale == CHART_LOG ? 1 : 0;
			f->hi[a] = c->axis[a].scale == CHART_LOG ? 10 : 1;
		}
	if (c->diagonal && c->axis[0].scale == c->axis[1].scale) {
		f->lo[0] = f->lo[1] = fmin(f->lo[0], f->lo[1]);
		f->hi[0] = f->hi[1] = fmax(f->hi[0], f->hi[1]);
	}
	for (a = 0; a < 2; a++)
		f->n_ticks[a] = chart_ticks(c->axis[a].scale, c->axis[a].unit,
					    &f->lo[a], &f->hi[a], f->ticks[a],
					    CHART_TICKS_MAX);
	f->x0 = CH_LEFT_PX;
	f->y0 = CH_TOP_PX;
	f->w = CH_WIDTH_PX - CH_LEFT_PX - CH_RIGHT_PX;
	f->h = CH_HEIGHT_PX - CH_TOP_PX - CH_BOTTOM_PX;
}

/* The pixel of value v on axis. */
static double frame_pos(const chart *c, const chart_frame *f, int axis,
			double v)
{
	double a = f->lo[axis], b = f->hi[axis], t;

	if (c->axis[axis].scale == CHART_LOG) {
		v = log10(v);
		a = log10(a);
		b = log10(b);
	}
	t = b > a ? (v - a) / (b - a) : 0.5;
	return axis == CHART_X ? f->x0 + t * f->w : f->y0 + f->h - t * f->h;
}

/* ` name="value"`, the value escaped. */
static void svg_attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	markup_write(f, value);
	fputc('"', f);
}

/* <text> at (x, y) with its anchor and class, then closed. */
static void svg_text(FILE *f, double x, double y, const char *anchor,
		     const char *cls, const char *s)
{
	fprintf(f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"%s\">", cls, x, y, anchor);
	markup_write(f, s);
	fputs("</text>\n", f);
}

/* v as axis's label. */
static void chart_label(const chart *c, int axis, double v, char *buf,
			size_t len)
{
	chart_format(v, c->axis[axis].unit,
		     chart_str(c, c->axis[axis].unit_name), buf, len);
}

/* A marker of shape (0-7) at (x, y), left open for attributes; returns
 * the element's name to close it with. */
static const char *svg_marker(FILE *f, int shape, double x, double y,
			      double r, const char *colour)
{
	const char *fill = shape >= 5 ? "#fff" : colour;

	switch (shape % 5) {
	case 0:
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"",
			x, y, r);
		break;
	case 1:
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"", x - r, y - r, 2 * r, 2 * r);
		break;
	case 2:   /* triangle, point up */
		fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"",
			x, y - 1.3 * r, x + 1.2 * r, y + 0.9 * r,
			x - 1.2 * r, y + 0.9 * r);
		break;
	case 3:   /* diamond */
		fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f "
			"%.1fZ\"", x, y - 1.4 * r, x + 1.4 * r, y, x,
			y + 1.4 * r, x - 1.4 * r, y);
		break;
	default:  /* triangle, point down */
		fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"",
			x, y + 1.3 * r, x + 1.2 * r, y - 0.9 * r,
			x - 1.2 * r, y - 0.9 * r);
		break;
	}
	fprintf(f, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"", fill,
		colour);
	return shape % 5 == 0 ? "circle" : shape % 5 == 1 ? "rect" : "path";
}

/* Grid lines, tick labels and the axes' titles. */
static void svg_axes(FILE *f, const chart *c, const chart_frame *fr)
{
	char label[CHART_LABEL_MAX];
	int i;

	fputs("<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n", f);
	for (i = 0; i < fr->n_ticks[CHART_X]; i++) {
		double x = frame_pos(c, fr, CHART_X, fr->ticks[CHART_X][i]);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\"/>\n", x, fr->y0, x, fr->y0 + fr->h);
	}
	for (i = 0; i < fr->n_ticks[CHART_Y]; i++) {
		double y = frame_pos(c, fr, CHART_Y, fr->ticks[CHART_Y][i]);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\"/>\n", fr->x0, y, fr->x0 + fr->w, y);
	}
	fputs("</g>\n<g class=\"ticks\" fill=\"#222222\">\n", f);
	for (i = 0; i < fr->n_ticks[CHART_X]; i++) {
		chart_label(c, CHART_X, fr->ticks[CHART_X][i], label,
			    sizeof(label));
		svg_text(f, frame_pos(c, fr, CHART_X, fr->ticks[CHART_X][i]),
			 fr->y0 + fr->h + 16, "middle", "tick x", label);
	}
	for (i = 0; i < fr->n_ticks[CHART_Y]; i++) {
		chart_label(c, CHART_Y, fr->ticks[CHART_Y][i], label,
			    sizeof(label));
		svg_text(f, fr->x0 - 6,
			 frame_pos(c, fr, CHART_Y, fr->ticks[CHART_Y][i]) + 4,
			 "end", "tick y", label);
	}
	fputs("</g>\n", f);
	fprintf(f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#444444\"/>\n", fr->x0, fr->y0, fr->w, fr->h);
	svg_text(f, fr->x0 + fr->w / 2, fr->y0 + fr->h + 40, "middle",
		 "axis-title x", chart_str(c, c->axis[CHART_X].title));
	fprintf(f, "<g transform=\"translate(18 %.1f) rotate(-90)\">\n",
		fr->y0 + fr->h / 2);
	svg_text(f, 0, 0, "middle", "axis-title y",
		 chart_str(c, c->axis[CHART_Y].title));
	fputs("</g>\n", f);
}

/* y = x and its band, as points from the x axis's low end to its high
 * end (straight on equal scales, a curve on mixed ones). */
static void svg_diagonal(FILE *f, const chart *c, const chart_frame *fr)
{
	double lo = fr->lo[CHART_X], hi = fr->hi[CHART_X];
	double v[CH_DIAGONAL_STEPS + 1];
	int i, log_x = c->axis[CHART_X].scale == CHART_LOG;
	int log_y = c->axis[CHART_Y].scale == CHART_LOG;

	for (i = 0; i <= CH_DIAGONAL_STEPS; i++) {
		double t = (double)i / CH_DIAGONAL_STEPS;

		v[i] = log_x ? lo * pow(hi / lo, t) : lo + t * (hi - lo);
		if (log_y && v[i] <= 0)
			v[i] = fr->lo[CHART_Y];
	}
	fprintf(f, "<g class=\"diagonal\" data-band=\"%.6g\" "
		"clip-path=\"url(#%s-clip)\">\n<polygon class=\"band\" "
		"fill=\"#000000\" fill-opacity=\"0.08\" points=\"", c->band,
		c->id);
	for (i = 0; i <= CH_DIAGONAL_STEPS; i++)
		fprintf(f, "%.1f,%.1f ", frame_pos(c, fr, CHART_X, v[i]),
			frame_pos(c, fr, CHART_Y, v[i] * (1 + c->band)));
	for (i = CH_DIAGONAL_STEPS; i >= 0; i--)
		fprintf(f, "%.1f,%.1f ", frame_pos(c, fr, CHART_X, v[i]),
			frame_pos(c, fr, CHART_Y, v[i] * (1 - c->band)));
	fputs("\"/>\n<polyline class=\"identity\" fill=\"none\" "
	      "stroke=\"#555555\" stroke-dasharray=\"4 3\" points=\"", f);
	for (i = 0; i <= CH_DIAGONAL_STEPS; i++)
		fprintf(f, "%.1f,%.1f ", frame_pos(c, fr, CHART_X, v[i]),
			frame_pos(c, fr, CHART_Y, v[i]));
	fputs("\"/>\n</g>\n", f);
}

/* The marker lines and their labels. */
static void svg_marks(FILE *f, const chart *c, const chart_frame *fr)
{
	int i;

	for (i = 0; i < c->n_marks; i++) {
		const chart_mark_def *m = &c->marks[i];
		double p = frame_pos(c, fr, m->axis, m->value);
		int across = m->axis == CHART_Y;   /* a horizontal line */

		fprintf(f, "<g class=\"mark\" data-axis=\"%c\" "
			"data-value=\"%.6g\" fill=\"#b00020\">\n<line "
			"x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#b00020\" stroke-dasharray=\"6 3\"/>\n",
			across ? 'y' : 'x', m->value, across ? fr->x0 : p,
			across ? p : fr->y0, across ? fr->x0 + fr->w : p,
			across ? p : fr->y0 + fr->h);
		if (across)
			svg_text(f, fr->x0 + fr->w - 4, p - 5, "end", "label",
				 chart_str(c, m->label));
		else
			svg_text(f, p + 4, fr->y0 + 12, "start", "label",
				 chart_str(c, m->label));
		fputs("</g>\n", f);
	}
}

/* One point: its marker, data attributes and tooltip. */
static void svg_point(FILE *f, const chart *c, const chart_frame *fr,
		      const chart_pt *p)
{
	const chart_series_def *s = &c->series[p->series];
	char tip[CH_TIP_MAX], xl[CHART_LABEL_MAX], yl[CHART_LABEL_MAX];
	const char *name;

	name = svg_marker(f, s->style, frame_pos(c, fr, CHART_X, p->x),
			  frame_pos(c, fr, CHART_Y, p->y), CH_MARKER_R_PX,
			  ch_colour[s->style]);
	fprintf(f, " class=\"pt\" data-style=\"%d\"", s->style);
	svg_attr(f, "data-series", chart_str(c, s->name));
	fprintf(f, " data-x=\"%.6g\" data-y=\"%.6g\"><title>", p->x, p->y);
	chart_label(c, CHART_X, p->x, xl, sizeof(xl));
	chart_label(c, CHART_Y, p->y, yl, sizeof(yl));
	snprintf(tip, sizeof(tip), "%s: %s, %s%s%s", chart_str(c, s->name),
		 xl, yl, p->tip ? "; " : "", chart_str(c, p->tip));
	markup_write(f, tip);
	fprintf(f, "</title></%s>\n", name);
}

/* Each series: its line (CHART_LINE) and its points, in the order
 * given. */
static void svg_series(FILE *f, const chart *c, const chart_frame *fr)
{
	size_t s, i;

	for (s = 0; s < c->n_series; s++) {
		const char *colour = ch_colour[c->series[s].style];

		fputs("<g class=\"series\"", f);
		svg_attr(f, "data-series", chart_str(c, c->series[s].name));
		fprintf(f, " data-kind=\"%s\">\n",
			c->series[s].kind == CHART_LINE ? "line" : "scatter");
		if (c->series[s].kind == CHART_LINE) {
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
				"stroke-width=\"1.5\"", colour);
			if (ch_dash[c->series[s].style][0])
				fprintf(f, " stroke-dasharray=\"%s\"",
					ch_dash[c->series[s].style]);
			fputs(" points=\"", f);
			for (i = 0; i < c->n_pts; i++)
				if (c->pts[i].series == (int)s)
					fprintf(f, "%.1f,%.1f ",
						frame_pos(c, fr, CHART_X,
							  c->pts[i].x),
						frame_pos(c, fr, CHART_Y,
							  c->pts[i].y));
			fputs("\"/>\n", f);
		}
		for (i = 0; i < c->n_pts; i++)
			if (c->pts[i].series == (int)s)
				svg_point(f, c, fr, &c->pts[i]);
		fputs("</g>\n", f);
	}
}

/* The chosen point, ringed; its label is in the legend and tooltip (a
 * label beside it would cross marks and points). */
static void svg_highlight(FILE *f, const chart *c, const chart_frame *fr)
{
	double x = frame_pos(c, fr, CHART_X, c->hl_x);
	double y = frame_pos(c, fr, CHART_Y, c->hl_y);
	char xl[CHART_LABEL_MAX], yl[CHART_LABEL_MAX], tip[CH_TIP_MAX];

	chart_label(c, CHART_X, c->hl_x, xl, sizeof(xl));
	chart_label(c, CHART_Y, c->hl_y, yl, sizeof(yl));
	snprintf(tip, sizeof(tip), "%s: %s, %s", chart_str(c, c->hl_label),
		 xl, yl);
	fprintf(f, "<g class=\"highlight\">\n<circle class=\"hl\" "
		"data-x=\"%.6g\" data-y=\"%.6g\" cx=\"%.1f\" cy=\"%.1f\" "
		"r=\"9\" fill=\"none\" stroke=\"#000000\" "
		"stroke-width=\"2\"><title>", c->hl_x, c->hl_y, x, y);
	markup_write(f, tip);
	fputs("</title></circle>\n</g>\n", f);
}

/* The legend, right of the plot: each series, then the highlight and
 * the band; "+N more" when they do not fit. */
static void svg_legend(FILE *f, const chart *c, const chart_frame *fr)
{
	double x = fr->x0 + fr->w + 16, y = fr->y0 + 10;
	size_t s, rows = (size_t)(fr->h / CH_LEGEND_ROW_PX) - 2;
	char more[48];

	fputs("<g class=\"legend\">\n", f);
	for (s = 0; s < c->n_series && s < rows; s++, y += CH_LEGEND_ROW_PX) {
		const char *colour = ch_colour[c->series[s].style];

		fputs("<g class=\"legend-item\"", f);
		svg_attr(f, "data-series", chart_str(c, c->series[s].name));
		fputs(">\n", f);
		if (c->series[s].kind == CHART_LINE)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"%s\" stroke-width="
				"\"1.5\" stroke-dasharray=\"%s\"/>\n", x - 8,
				y, x + 8, y, colour, ch_dash[c->series[s].style]);
		svg_marker(f, c->series[s].style, x, y, CH_MARKER_R_PX,
			   colour);
		fputs("/>\n", f);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 14, y + 4);
		markup_write_max(f, chart_str(c, c->series[s].name),
				 CH_LEGEND_CHARS);
		fputs("</text>\n</g>\n", f);
	}
	if (s < c->n_series) {
		snprintf(more, sizeof(more), "+%zu more", c->n_series - s);
		svg_text(f, x - 8, y + 4, "start", "legend-more", more);
		y += CH_LEGEND_ROW_PX;
	}
	if (c->highlight) {
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" "
			"fill=\"none\" stroke=\"#000000\" stroke-width=\"2\"/>"
			"\n<text x=\"%.1f\" y=\"%.1f\">", x, y, x + 14, y + 4);
		markup_write_max(f, chart_str(c, c->hl_label),
				 CH_LEGEND_CHARS);
		fputs("</text>\n", f);
		y += CH_LEGEND_ROW_PX;
	}
	if (c->diagonal && c->band > 0)
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" "
			"height=\"8\" fill=\"#000000\" fill-opacity=\"0.08\" "
			"stroke=\"#555555\"/>\n<text x=\"%.1f\" y=\"%.1f\">"
			"y = x &#177;%.0f%%</text>\n", x - 8, y - 4, x + 14,
			y + 4, c->band * 100);
	else if (c->diagonal)
		/* no band: the line alone, dashed as drawn */
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#555555\" stroke-dasharray="
			"\"4 3\"/>\n<text x=\"%.1f\" y=\"%.1f\">y = x</text>\n",
			x - 8, y, x + 8, y, x + 14, y + 4);
	fputs("</g>\n", f);
}

/* What was not drawn, under the title. */
static void svg_notes(FILE *f, const chart *c)
{
	char note[160];

	if (c->skipped && c->capped)
		snprintf(note, sizeof(note), "%zu points not drawn (not "
			 "finite, or not positive on a log axis), %zu past %d",
			 c->skipped, c->capped, CHART_POINTS_MAX);
	else if (c->skipped)
		snprintf(note, sizeof(note), "%zu points not drawn (not "
			 "finite, or not positive on a log axis)", c->skipped);
	else if (c->capped)
		snprintf(note, sizeof(note), "%zu points not drawn (past %d)",
			 c->capped, CHART_POINTS_MAX);
	else
		return;
	svg_text(f, CH_LEFT_PX, CH_TOP_PX - 10, "start", "note", note);
}

int chart_write_svg(const chart *c, FILE *f)
{
	chart_frame fr;

	memset(&fr, 0, sizeof(fr));
	frame_plan(c, &fr);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
		"id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-labelledby=\"%s-title\" "
		"font-family=\"sans-serif\" font-size=\"12\" "
		"data-points=\"%zu\" data-skipped=\"%zu\" "
		"data-capped=\"%zu\">\n<title id=\"%s-title\">", c->id,
		CH_WIDTH_PX, CH_HEIGHT_PX, CH_WIDTH_PX, CH_HEIGHT_PX, c->id,
		c->n_pts, c->skipped, c->capped, c->id);
	markup_write(f, chart_str(c, c->title));
	fprintf(f, "</title>\n<rect class=\"bg\" width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\"/>\n<defs><clipPath id=\"%s-clip\"><rect "
		"x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
		"</clipPath></defs>\n", CH_WIDTH_PX, CH_HEIGHT_PX, c->id, fr.x0,
		fr.y0, fr.w, fr.h);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"22\" "
		"text-anchor=\"middle\" font-size=\"15\" "
		"font-weight=\"bold\">", CH_WIDTH_PX / 2);
	markup_write(f, chart_str(c, c->title));
	fputs("</text>\n", f);
	svg_notes(f, c);
	fprintf(f, "<g class=\"plot\" data-x-min=\"%.6g\" data-x-max=\"%.6g\" "
		"data-y-min=\"%.6g\" data-y-max=\"%.6g\" data-x-scale=\"%s\" "
		"data-y-scale=\"%s\">\n", fr.lo[CHART_X], fr.hi[CHART_X],
		fr.lo[CHART_Y], fr.hi[CHART_Y],
		c->axis[CHART_X].scale == CHART_LOG ? "log" : "linear",
		c->axis[CHART_Y].scale == CHART_LOG ? "log" : "linear");
	svg_axes(f, c, &fr);
	if (c->diagonal)
		svg_diagonal(f, c, &fr);
	svg_marks(f, c, &fr);
	svg_series(f, c, &fr);
	if (c->highlight)
		svg_highlight(f, c, &fr);
	fputs("</g>\n", f);
	svg_legend(f, c, &fr);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
