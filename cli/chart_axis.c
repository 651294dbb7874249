/*
 * autosize CLI: chart axes' ticks and labels (chart.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "chart.h"
#include "date.h"

#define AXIS_DAY_S 86400.0
/* 1970-01-05 00:00 UTC, the first Monday of the epoch: weekly ticks. */
#define AXIS_MONDAY_S (4 * AXIS_DAY_S)
/* Relative slack when comparing computed tick values. */
#define AXIS_EPS 1e-9

/* The smallest 1, 2 or 5 x 10^k at or above raw (Heckbert, "Nice
 * numbers for graph labels", Graphics Gems, 1990). */
static double axis_step(double raw)
{
	double base = pow(10, floor(log10(raw))), m = raw / base;

	if (m <= 1 + AXIS_EPS)
		return base;
	if (m <= 2 + AXIS_EPS)
		return 2 * base;
	if (m <= 5 + AXIS_EPS)
		return 5 * base;
	return 10 * base;
}

/* Ticks k0 .. k1 times step from origin; lo and hi become the ends. */
static int axis_fill(double origin, double step, double k0, double k1,
		     double *lo, double *hi, double *ticks, int max)
{
	int n = 0;
	double k;

	for (k = k0; k <= k1 + AXIS_EPS && n < max; k++) {
		double t = origin + k * step;

		ticks[n++] = fabs(t) < step * AXIS_EPS ? 0 : t;
	}
	if (n > 0) {
		*lo = ticks[0];
		*hi = ticks[n - 1];
	}
	return n;
}

/* About five intervals of 1-2-5 steps (4 to 8 ticks). */
static int axis_linear(double *lo, double *hi, double *ticks, int max)
{
	double step;

	if (!isfinite(*hi - *lo))
		return 0;
	if (*hi <= *lo) {
		double d = *lo != 0 ? fabs(*lo) * 0.1 : 1;

		*lo -= d;
		*hi += d;
	}
	step = axis_step((*hi - *lo) / 5);
	return axis_fill(0, step, floor(*lo / step + AXIS_EPS),
			 ceil(*hi / step - AXIS_EPS), lo, hi, ticks, max);
}

/* Days, or weeks from Monday: the first step giving 5 ticks or fewer
 * (an ISO date is ten characters: five fit under any plot width). */
static int axis_date(double *lo, double *hi, double *ticks, int max)
{
	static const double days[] = {1, 2, 7, 14, 28, 56, 91, 182, 364,
				      728, 1820, 3640};
	double step = 0, origin, k0, k1;
	size_t i;

	if (!isfinite(*hi - *lo))
		return 0;
	for (i = 0; i < sizeof(days) / sizeof(days[0]); i++) {
		step = days[i] * AXIS_DAY_S;
		if ((*hi - *lo) / step <= 4)
			break;
	}
	origin = step >= 7 * AXIS_DAY_S ? AXIS_MONDAY_S : 0;
	k0 = floor((*lo - origin) / step + AXIS_EPS);
	k1 = ceil((*hi - origin) / step - AXIS_EPS);
	if (k1 <= k0)
		k1 = k0 + 1;
	return axis_fill(origin, step, k0, k1, lo, hi, ticks, max);
}

/* Decades, with 2 and 5 between them over 3 decades or less; the
 * range's ends are tick values. */
static int axis_log(double *lo, double *hi, double *ticks, int max)
{
	static const double mant[] = {1, 2, 5};
	double e0, e1, every, e;
	int n = 0, m;

	if (!(*lo > 0) || !isfinite(*lo) || !isfinite(*hi))
		return 0;
	if (*hi <= *lo) {
		*lo /= 2;
		*hi *= 2;
	}
	e0 = floor(log10(*lo) + AXIS_EPS);
	e1 = ceil(log10(*hi) - AXIS_EPS);
	if (e1 - e0 > 3) {
		/* whole decades, every few when there are many */
		every = ceil((e1 - e0) / 8);
		e0 = every * floor(e0 / every);
		for (e = e0; e < e1 + every - AXIS_EPS && n < max; e += every)
			ticks[n++] = pow(10, e);
	} else {
		for (e = e0; e <= e1 && n < max; e++)
			for (m = 0; m < 3 && n < max; m++) {
				double t = mant[m] * pow(10, e);

				/* the last value <= lo starts the list */
				if (t <= *lo * (1 + AXIS_EPS))
					n = 0;
				ticks[n++] = t;
				if (t >= *hi * (1 - AXIS_EPS))
					goto done;
			}
	}
done:
	if (n > 0) {
		*lo = ticks[0];
		*hi = ticks[n - 1];
	}
	return n;
}

int chart_ticks(chart_scale scale, chart_unit unit, double *lo, double *hi,
		double *ticks, int max)
{
	if (max <= 0 || !isfinite(*lo) || !isfinite(*hi) || *lo > *hi)
		return 0;
	if (scale == CHART_LOG)
		return axis_log(lo, hi, ticks, max);
	if (unit == CHART_UNIT_DATE)
		return axis_date(lo, hi, ticks, max);
	return axis_linear(lo, hi, ticks, max);
}

/* 4 significant figures, k/M/G/T from 10,000 ("12.5k"). */
#define AXIS_SI 5
static void axis_number(double v, char *buf, size_t len)
{
	static const char *const si[AXIS_SI] = {"", "k", "M", "G", "T"};
	size_t i = 0;

	if (fabs(v) >= 9999.5)
		while (fabs(v) >= 999.95 && i + 1 < AXIS_SI) {
			v /= 1000;
			i++;
		}
	snprintf(buf, len, "%.4g%s", v, si[i]);
}

void chart_format(double v, chart_unit unit, const char *unit_name,
		  char *buf, size_t len)
{
	char num[32];
	const char *suffix = "", *space = " ";

	if (unit == CHART_UNIT_DATE && fabs(v) < 1e15) {
		if (date_day((long long)floor(v), buf, len) == 0)
			return;
	}
	if (unit == CHART_UNIT_PERCENT)
		v *= 100;
	axis_number(v, num, sizeof(num));
	switch (unit) {
	case CHART_UNIT_HOURS: suffix = "h"; break;
	case CHART_UNIT_GPU_HOURS: suffix = "GPU-h"; break;
	case CHART_UNIT_TOKENS_S: suffix = "tok/s"; break;
	case CHART_UNIT_PERCENT: suffix = "%"; space = ""; break;
	default: suffix = unit_name ? unit_name : ""; break;
	}
	snprintf(buf, len, "%s%s%s", num, suffix[0] ? space : "", suffix);
}
