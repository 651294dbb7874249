/*
 * autosize: parsers for user-written numbers, durations and choices.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "autosize/parse.h"

#define PARSE_MAX_COUNT 1e18
#define PARSE_MAX_DURATION_S (100.0 * 365 * 86400)
#define PARSE_ECHO_MAX 40

/* Copy text into buf for an error message: printable ASCII only. */
static const char *parse_echo(const char *text, char *buf, size_t len)
{
	size_t i, n = 0;

	for (i = 0; text[i] && n + 4 < len && i < PARSE_ECHO_MAX; i++)
		buf[n++] = isprint((unsigned char)text[i]) ? text[i] : '?';
	if (text[i] && n + 4 < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/* Checks shared by every parser: present, short, no spaces or controls. */
static autosize_err parse_precheck(const char *text, const char *what,
				   autosize_error *e)
{
	size_t i;
	char echo[64];

	if (!text || !*text)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: empty value", what);
	for (i = 0; text[i]; i++) {
		if (i >= AUTOSIZE_VALUE_MAX)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: value '%s' is longer than %d "
					     "characters", what,
					     parse_echo(text, echo, sizeof(echo)),
					     AUTOSIZE_VALUE_MAX);
		if (!isgraph((unsigned char)text[i]))
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: value '%s' contains a space "
					     "or control character", what,
					     parse_echo(text, echo, sizeof(echo)));
	}
	return AUTOSIZE_OK;
}

/*
 * Scan a plain decimal number "12", "7.5", "2e12" at *p (no sign, no hex,
 * no inf/nan). Advances *p; returns 0 on success, -1 if none.
 */
static int parse_decimal(const char **p, double *out)
{
	const char *s = *p, *start = *p;
	char buf[AUTOSIZE_VALUE_MAX + 1];
	int digits = 0;
	size_t n;

	while (isdigit((unsigned char)*s)) {
		s++;
		digits++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			s++;
			digits++;
		}
	}
	if (!digits)
		return -1;
	if ((*s == 'e' || *s == 'E') &&
	    (isdigit((unsigned char)s[1]) ||
	     ((s[1] == '+' || s[1] == '-') && isdigit((unsigned char)s[2])))) {
		s += 2;
		while (isdigit((unsigned char)*s))
			s++;
	}
	n = (size_t)(s - start);
	if (n > AUTOSIZE_VALUE_MAX)
		return -1;
	memcpy(buf, start, n);
	buf[n] = '\0';
	*out = strtod(buf, NULL);
	*p = s;
	return isfinite(*out) ? 0 : -1;
}

static double parse_suffix_scale(char c)
{
	switch (c) {
	case 'k': case 'K': return 1e3;
	case 'm': case 'M': return 1e6;
	case 'b': case 'B': case 'g': case 'G': return 1e9;
	case 't': case 'T': return 1e12;
	}
	return 0;
}

/* A number with an optional K/M/B/T suffix; any value >= 0. */
static autosize_err parse_scaled(const char *text, const char *what,
				 const char *example, double *out,
				 autosize_error *e)
{
	const char *p = text;
	char echo[64];
	double v, scale = 1;
	autosize_err rc;

	if ((rc = parse_precheck(text, what, e)))
		return rc;
	if (*p == '-')
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is negative (expected a "
				     "positive number, e.g. %s)", what,
				     parse_echo(text, echo, sizeof(echo)),
				     example);
	if (parse_decimal(&p, &v) != 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is not a number (expected "
				     "e.g. %s)", what,
				     parse_echo(text, echo, sizeof(echo)),
				     example);
	if (*p && parse_suffix_scale(*p) > 0 && !p[1])
		scale = parse_suffix_scale(*p++);
	if (*p)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' has trailing characters "
				     "(expected e.g. %s)", what,
				     parse_echo(text, echo, sizeof(echo)),
				     example);
	*out = v * scale;   /* finite: at most 64 digits times 1e12 */
	return AUTOSIZE_OK;
}

autosize_err autosize_parse_count(const char *text, const char *what,
				  double *out, autosize_error *e)
{
	char echo[64];
	double v = 0;
	autosize_err rc;

	rc = parse_scaled(text, what, "70e9, 70B, 7.5b, 2T, 1.5M", &v, e);
	if (rc)
		return rc;
	if (v > PARSE_MAX_COUNT)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is too large (at most 1e18)",
				     what, parse_echo(text, echo, sizeof(echo)));
	if (!(v >= 1))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' must be at least 1 (expected "
				     "e.g. 70e9, 70B, 2T)", what,
				     parse_echo(text, echo, sizeof(echo)));
	*out = v;
	return AUTOSIZE_OK;
}

/* A whole number v (from text) in [min, max]; hint ends the message. */
static autosize_err parse_in_range(const char *text, const char *what,
				   double v, long min, long max,
				   const char *hint, long *out,
				   autosize_error *e)
{
	char echo[64];

	if (v < (double)min || v > (double)max)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is out of range (expected "
				     "%ld..%ld%s)", what,
				     parse_echo(text, echo, sizeof(echo)),
				     min, max, hint);
	*out = (long)v;
	return AUTOSIZE_OK;
}

autosize_err autosize_parse_int(const char *text, const char *what,
				long min, long max, long *out,
				autosize_error *e)
{
	char echo[64];
	double v = 0;
	autosize_err rc;

	if ((rc = parse_scaled(text, what, "8", &v, e)))
		return rc;
	if (v != floor(v))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is not a whole number", what,
				     parse_echo(text, echo, sizeof(echo)));
	return parse_in_range(text, what, v, min, max, "", out, e);
}

/* A number with an optional K/M suffix meaning 2^10 / 2^20; *rest is
 * what follows. -1 if no number. */
static int parse_binary_scaled(const char *text, double *out,
			       const char **rest)
{
	const char *p = text;
	double v;

	if (parse_decimal(&p, &v) != 0)
		return -1;
	if (*p == 'k' || *p == 'K') {
		v *= 1024;
		p++;
	} else if (*p == 'm' || *p == 'M') {
		v *= 1024.0 * 1024;
		p++;
	}
	*out = v;
	*rest = p;
	return 0;
}

autosize_err autosize_parse_tokens(const char *text, const char *what,
				   long min, long max, long *out,
				   autosize_error *e)
{
	const char *rest;
	char echo[64];
	double v;
	autosize_err rc;

	if ((rc = parse_precheck(text, what, e)))
		return rc;
	if (parse_binary_scaled(text, &v, &rest) != 0 || *rest)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is not a length in tokens "
				     "(expected e.g. 4096, 8k = 8192, 128k)",
				     what, parse_echo(text, echo, sizeof(echo)));
	if (v != floor(v))
		v = (double)max + 1;    /* "0.1k": out of range, said so */
	return parse_in_range(text, what, v, min, max, ", e.g. 4096 or 8k",
			      out, e);
}

autosize_err autosize_parse_batch(const char *text, const char *what,
				  long *sequences, double *tokens,
				  autosize_error *e)
{
	static const char *const tok[] = {"tok", "tokens", NULL};
	static const char *const seq[] = {"", "seq", "sequences", NULL};
	const char *rest;
	char echo[64];
	double v;
	int i;
	autosize_err rc;

	*sequences = 0;
	*tokens = 0;
	if ((rc = parse_precheck(text, what, e)))
		return rc;
	if (parse_binary_scaled(text, &v, &rest) != 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is not a batch (expected "
				     "sequences such as 1024, or tokens such "
				     "as 4Mtok)", what,
				     parse_echo(text, echo, sizeof(echo)));
	for (i = 0; tok[i]; i++) {
		if (strcasecmp(rest, tok[i]) != 0)
			continue;
		if (!(v >= 1) || v > 1e12)
			goto bad;
		*tokens = v;
		return AUTOSIZE_OK;
	}
	for (i = 0; seq[i]; i++) {
		if (strcasecmp(rest, seq[i]) != 0)
			continue;
		/* "4M" alone: millions of sequences, or tokens? */
		if (rest[0] == '\0' && (rest[-1] == 'm' || rest[-1] == 'M'))
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: '%s' is ambiguous (expected "
					     "sequences such as 1024, or "
					     "tokens with a tok suffix such "
					     "as %stok)", what,
					     parse_echo(text, echo,
							sizeof(echo)), echo);
		if (v != floor(v) || v < 1 || v > 100000000)
			goto bad;
		*sequences = (long)v;
		return AUTOSIZE_OK;
	}
bad:
	return autosize_fail(e, AUTOSIZE_EINVAL,
			     "%s: '%s' is not a batch (expected whole "
			     "sequences 1..100000000 such as 1024, or tokens "
			     "such as 4Mtok)", what,
			     parse_echo(text, echo, sizeof(echo)));
}

int autosize_duration_is_bare_minutes(const char *text)
{
	size_t i;

	if (!text || !*text)
		return 0;
	for (i = 0; text[i]; i++)
		if (!isdigit((unsigned char)text[i]))
			return 0;
	return 1;
}

autosize_err autosize_parse_fraction(const char *text, const char *what,
				     double min, double max, double *out,
				     autosize_error *e)
{
	const char *p = text;
	char echo[64];
	double v = 0;
	autosize_err rc;

	if ((rc = parse_precheck(text, what, e)))
		return rc;
	if (parse_decimal(&p, &v) != 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is not a number (expected a "
				     "fraction such as 0.2 or 20%%)", what,
				     parse_echo(text, echo, sizeof(echo)));
	if (*p == '%' && !p[1]) {
		v /= 100;
		p++;
	}
	if (*p)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' has trailing characters "
				     "(expected a fraction such as 0.2 or "
				     "20%%)", what,
				     parse_echo(text, echo, sizeof(echo)));
	if (v < min || v > max)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is out of range (expected "
				     "%g..%g)", what,
				     parse_echo(text, echo, sizeof(echo)),
				     min, max);
	*out = v;
	return AUTOSIZE_OK;
}

/* Slurm's time forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. */
static int parse_slurm_time(const char *text, double *seconds)
{
	long f[4] = {0, 0, 0, 0};
	int n = 0, days = 0;
	const char *p = text;
	char *end;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (;;) {
		if (!isdigit((unsigned char)*p) || n >= 4)
			return -1;
		f[n++] = strtol(p, &end, 10);
		if (end - p > 9)
			return -1;
		p = end;
		if (*p == '-' && n == 1 && !days) {
			days = 1;
			p++;
			continue;
		}
		if (*p == ':') {
			p++;
			continue;
		}
		break;
	}
	if (*p)
		return -1;
	if (days) {
		/* D-H, D-H:M, D-H:M:S */
		if (n < 2)
			return -1;
		*seconds = f[0] * 86400.0 + f[1] * 3600.0 + f[2] * 60.0 +
			   f[3];
		return 0;
	}
	if (n == 1)
		*seconds = f[0] * 60.0;                  /* minutes */
	else if (n == 2)
		*seconds = f[0] * 60.0 + f[1];           /* M:S */
	else if (n == 3)
		*seconds = f[0] * 3600.0 + f[1] * 60.0 + f[2]; /* H:M:S */
	else
		return -1;
	return 0;
}

static double parse_unit_s(char c)
{
	switch (c) {
	case 'w': case 'W': return 7 * 86400.0;
	case 'd': case 'D': return 86400.0;
	case 'h': case 'H': return 3600.0;
	case 'm': case 'M': return 60.0;
	case 's': case 'S': return 1.0;
	}
	return 0;
}

/* People's forms: "10d", "36h", "1d12h", "1.5d", "90m", "45s". */
static int parse_human_time(const char *text, double *seconds)
{
	const char *p = text;
	double total = 0, v, unit;

	while (*p) {
		if (parse_decimal(&p, &v) != 0)
			return -1;
		unit = parse_unit_s(*p);
		if (unit == 0)
			return -1;
		p++;
		total += v * unit;
	}
	*seconds = total;
	return 0;
}

autosize_err autosize_parse_duration(const char *text, const char *what,
				     double *seconds, autosize_error *e)
{
	char echo[64];
	double s = 0;
	autosize_err rc;

	if ((rc = parse_precheck(text, what, e)))
		return rc;
	if (parse_slurm_time(text, &s) != 0 &&
	    parse_human_time(text, &s) != 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is not a duration (expected "
				     "e.g. 10d, 36h, 90m, 2-12:00:00, "
				     "1:30:00)", what,
				     parse_echo(text, echo, sizeof(echo)));
	if (!isfinite(s) || s <= 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' must be longer than zero",
				     what, parse_echo(text, echo, sizeof(echo)));
	if (s > PARSE_MAX_DURATION_S)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: '%s' is longer than 100 years",
				     what, parse_echo(text, echo, sizeof(echo)));
	*seconds = s;
	return AUTOSIZE_OK;
}

autosize_err autosize_parse_choice(const char *text, const char *what,
				   const char *const *words, int *index,
				   autosize_error *e)
{
	char echo[64], list[160];
	size_t n = 0;
	int i;
	autosize_err rc;

	if ((rc = parse_precheck(text, what, e)))
		return rc;
	for (i = 0; words[i]; i++) {
		if (strcasecmp(text, words[i]) == 0) {
			*index = i;
			return AUTOSIZE_OK;
		}
	}
	list[0] = '\0';
	for (i = 0; words[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      i ? "|" : "", words[i]);
	return autosize_fail(e, AUTOSIZE_EINVAL,
			     "%s: '%s' is not one of %s", what,
			     parse_echo(text, echo, sizeof(echo)), list);
}

int autosize_word_in(const char *s, const char *const *list)
{
	int i;

	for (i = 0; s && list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

const char *autosize_plural(long n)
{
	return n == 1 ? "" : "s";
}

char *autosize_format_duration(double seconds, char *buf, size_t len)
{
	long long s = seconds > 0 ? (long long)ceil(seconds) : 0;
	long long d = s / 86400;

	s %= 86400;
	if (d > 0)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", d, s / 3600,
			 s % 3600 / 60, s % 60);
	else
		snprintf(buf, len, "%02lld:%02lld:%02lld", s / 3600,
			 s % 3600 / 60, s % 60);
	return buf;
}
