/*
 * autosize internal: civil dates (UTC, proleptic Gregorian) over libc's
 * timegm, gmtime_r and strftime: the times sacct prints, the report's
 * times and ISO weeks, the charts' date axes. Seconds are "civil
 * seconds": what the wall clock read, counted from 1970-01-01T00:00:00
 * as if UTC (sacct prints local time without a zone; every time the
 * project compares comes from the same cluster).
 */
#ifndef AUTOSIZE_DATE_H
#define AUTOSIZE_DATE_H

#include <stddef.h>

/* sacct's "2026-11-03T12:00:00" as civil seconds (years 1970-9999); 0
 * for "Unknown", "None" or anything else that is not such a time. */
long long date_parse(const char *s);

/* s (civil seconds) as "2026-11-03" (a chart's date axis); 0, or -1
 * (buf "") when s is past what the C library can represent. */
int date_day(long long s, char *buf, size_t len);

/* s as "2026-11-03T12:00:00"; "" for 0 or less (unknown). */
void date_time(long long s, char *buf, size_t len);

/* The ISO 8601 week of s, "2026-W45" (strftime's %G-W%V: a week
 * belongs to the year of its Thursday), and its Monday 00:00. */
void date_iso_week(long long s, char *buf, size_t len, long long *monday_s);

#endif
