/*
 * autosize: what a job measured, from the JSON lines its training loop
 * appended to $AUTOSIZE_REPORT (jobrecord.h). Read by the SPANK plugin at
 * the end of the batch step; strict (the project's JSON scanner) and
 * bounded: a report is the job's user's input.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/jobrecord.h"
#include "json.h"

/* Lines looked at at most (AUTOSIZE_REPORT_MAX_BYTES of short lines). */
#define REPORT_MAX_LINES 8192

#define REPORT_KEYS 4

typedef struct report_line {
	double v[REPORT_KEYS]; /* tokens_per_s, step_s, peak_memory_bytes,
				* tokens_done; -1 */
	int bad;
} report_line;

static const char *const report_keys[REPORT_KEYS] = {
	"tokens_per_s", "step_s", "peak_memory_bytes", "tokens_done"
};

static void report_visit(void *ctx, const autosize_json_member *m)
{
	report_line *l = ctx;
	char num[64];
	double v;
	int i;

	if (m->parent[0])
		return;
	for (i = 0; i < REPORT_KEYS; i++)
		if (m->key_fits && strcmp(m->key, report_keys[i]) == 0)
			break;
	if (i == REPORT_KEYS)
		return;
	if (m->kind != AUTOSIZE_JSON_NUMBER || m->num_len >= sizeof(num)) {
		l->bad = 1;
		return;
	}
	memcpy(num, m->num, m->num_len);
	num[m->num_len] = '\0';
	errno = 0;
	v = strtod(num, NULL);
	if (errno || !isfinite(v) || v < 0 || l->v[i] >= 0)
		l->bad = 1;     /* also a key given twice */
	else
		l->v[i] = v;
}

static int report_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median (which 0, 1) or largest (2, 3) of the lines' values; 0 none. */
static double report_summary(const report_line *lines, int n, int which,
			     double *scratch)
{
	int i, m = 0;

	for (i = 0; i < n; i++)
		if (!lines[i].bad && lines[i].v[which] > 0)
			scratch[m++] = lines[i].v[which];
	if (m == 0)
		return 0;
	qsort(scratch, (size_t)m, sizeof(*scratch), report_cmp);
	if (which >= 2)
		return scratch[m - 1];
	return m % 2 ? scratch[m / 2] : (scratch[m / 2 - 1] + scratch[m / 2]) / 2;
}

/* v when within the plausible range of planned (0 planned: kept). */
static double report_plausible(double v, double planned)
{
	if (v <= 0 || planned <= 0)
		return v;
	return v >= planned * AUTOSIZE_REPORT_RATIO_MIN &&
	       v <= planned * AUTOSIZE_REPORT_RATIO_MAX ? v : 0;
}

int autosize_report_summary(const char *text, size_t len, int partial_first,
			    autosize_measured *m, int *bad)
{
	report_line *lines = NULL;
	double *scratch = NULL;
	size_t pos = 0;
	int n = 0, used = 0;

	memset(m, 0, sizeof(*m));
	*bad = 0;
	if (len > AUTOSIZE_REPORT_MAX_BYTES) {
		text += len - AUTOSIZE_REPORT_MAX_BYTES;
		len = AUTOSIZE_REPORT_MAX_BYTES;
		partial_first = 1;
	}
	lines = calloc(REPORT_MAX_LINES, sizeof(*lines));
	scratch = calloc(REPORT_MAX_LINES, sizeof(*scratch));
	if (!lines || !scratch)
		goto out;
	if (partial_first) {
		const char *nl = memchr(text, '\n', len);

		pos = nl ? (size_t)(nl - text) + 1 : len;
	}
	while (pos < len && n < REPORT_MAX_LINES) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		report_line *ln = &lines[n];

		pos += l + (nl ? 1 : 0);
		while (l && (s[l - 1] == '\r' || s[l - 1] == ' '))
			l--;
		if (l == 0)
			continue;
		ln->v[0] = ln->v[1] = ln->v[2] = ln->v[3] = -1;
		if (autosize_json_scan(s, l, "report", report_visit, ln,
				       NULL) != AUTOSIZE_OK ||
		    (ln->v[0] < 0 && ln->v[1] < 0 && ln->v[2] < 0 &&
		     ln->v[3] < 0))
			ln->bad = 1;
		*bad += ln->bad;
		used += !ln->bad;
		n++;
	}
	if (used == 0)
		goto out;
	m->tokens_per_s = report_summary(lines, n, 0, scratch);
	m->step_s = report_summary(lines, n, 1, scratch);
	m->mem_bytes = report_summary(lines, n, 2, scratch);
	m->tokens_done = report_summary(lines, n, 3, scratch);
	m->lines = used;
out:
	free(lines);
	free(scratch);
	return m->lines;
}

int autosize_record_add_measured(autosize_record *r,
				 const autosize_measured *m)
{
	r->m_tokens_per_s = report_plausible(m->tokens_per_s,
					     r->tokens_per_s);
	r->m_step_s = report_plausible(m->step_s, r->step_s);
	r->m_mem_bytes = report_plausible(m->mem_bytes, r->alloc_bytes);
	r->m_lines = m->lines;
	/* progress past twice the run is no progress of this plan's */
	r->m_tokens_done = m->tokens_done > 0 && r->tokens > 0 &&
			   m->tokens_done <= 2 * (r->tokens + r->tokens_done)
			   ? m->tokens_done : 0;
	r->has_measured = m->lines > 0 && (r->m_tokens_per_s > 0 ||
					   r->m_step_s > 0 ||
					   r->m_mem_bytes > 0 ||
					   r->m_tokens_done > 0);
	return r->has_measured ? m->lines : 0;
}

int autosize_record_measure(autosize_record *r, const char *text, size_t len,
			    int partial_first, int *bad)
{
	autosize_measured m;

	if (autosize_report_summary(text, len, partial_first, &m, bad) == 0)
		return 0;
	return autosize_record_add_measured(r, &m);
}
