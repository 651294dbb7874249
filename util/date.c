/*
 * autosize: civil dates over libc (date.h).
 */
#define _DEFAULT_SOURCE /* timegm */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "date.h"

long long date_parse(const char *s)
{
	int y, mo, d, h, mi, sec, n = 0;
	struct tm tm;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi,
			 &sec, &n) != 6 || s[n] || y < 1970 || y > 9999 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60 || h < 0 || mi < 0 || sec < 0)
		return 0;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	/* timegm carries a 31st of a short month and a leap second over,
	 * as the day count it replaces did */
	return (long long)timegm(&tm);
}

/* s broken down (UTC); 0, or -1 when time_t or struct tm cannot hold it. */
static int date_tm(long long s, struct tm *tm)
{
	time_t t = (time_t)s;

	return (long long)t == s && gmtime_r(&t, tm) ? 0 : -1;
}

int date_day(long long s, char *buf, size_t len)
{
	struct tm tm;

	if (len)
		buf[0] = '\0';
	if (date_tm(s, &tm) != 0 || !strftime(buf, len, "%Y-%m-%d", &tm))
		return -1;
	return 0;
}

void date_time(long long s, char *buf, size_t len)
{
	struct tm tm;

	if (len)
		buf[0] = '\0';
	if (s > 0 && date_tm(s, &tm) == 0)
		strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

void date_iso_week(long long s, char *buf, size_t len, long long *monday_s)
{
	long long days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
	long long dow = ((days + 3) % 7 + 7) % 7;  /* 1970-01-01: Thursday */
	struct tm tm;

	if (len)
		buf[0] = '\0';
	if (date_tm(s, &tm) == 0)
		strftime(buf, len, "%G-W%V", &tm);
	*monday_s = (days - dow) * 86400;
}
