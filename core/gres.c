/*
 * autosize: GPU requests in Slurm's tres strings (job_desc tres_per_node,
 * tres_per_job, tres_per_task, tres_per_socket), read and edited as plain
 * text: "gres:gpu:8" (Slurm 22.05), "gres/gpu:8" (23.02 and newer),
 * "gres:gpu:a100:2", "gres/gpu=4", "gpu:8", comma lists. Every input is
 * untrusted.
 */
#include <stdio.h>
#include <string.h>
#include "autosize/gres.h"

/* Largest GPU count read from one entry (more is unreadable). */
#define GRES_GPUS_MAX 10000000L
#define GRES_TOKEN_MAX 128

/* One GPU entry, split. */
typedef struct gres_gpu {
	const char *type;   /* not NUL-terminated; NULL: none */
	size_t type_len;
	long count;         /* UNSET when not a GPU entry */
} gres_gpu;

/* 1 when the n bytes at s contain "gpu". */
static int gres_mentions_gpu(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 3 <= n; i++)
		if (s[i] == 'g' && s[i + 1] == 'p' && s[i + 2] == 'u')
			return 1;
	return 0;
}

/* A whole number 0..GRES_GPUS_MAX in decimal digits only; -1 if not. */
static long gres_count(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 8)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= GRES_GPUS_MAX ? v : -1;
}

/* Parse one entry of n bytes: g->count UNSET when it is not a GPU,
 * UNREADABLE when it is one we cannot read (an oversized one that
 * mentions "gpu" too). */
static void gres_token(const char *tok, size_t n, gres_gpu *g)
{
	const char *rest, *colon;
	size_t rn;
	long c;

	memset(g, 0, sizeof(*g));
	g->count = AUTOSIZE_JOB_UNSET;
	if (n >= GRES_TOKEN_MAX) {
		if (gres_mentions_gpu(tok, n))
			g->count = AUTOSIZE_JOB_UNREADABLE;
		return;
	}
	if (n >= 5 && (strncmp(tok, "gres:", 5) == 0 ||
		       strncmp(tok, "gres/", 5) == 0)) {
		tok += 5;
		n -= 5;
	}
	if (n < 3 || strncmp(tok, "gpu", 3) != 0)
		return;
	if (n == 3) {
		g->count = 1;          /* "gres:gpu": one GPU */
		return;
	}
	if (tok[3] != ':' && tok[3] != '=')
		return;                /* "gpuX...": another gres */
	rest = tok + 4;
	rn = n - 4;
	g->count = AUTOSIZE_JOB_UNREADABLE;
	if (tok[3] == '=') {           /* gres/gpu=N */
		if ((c = gres_count(rest, rn)) >= 0)
			g->count = c;
		return;
	}
	colon = memchr(rest, ':', rn);
	if (!colon) {
		c = gres_count(rest, rn);
		if (c >= 0) {
			g->count = c;  /* gpu:N */
		} else if (rn > 0 && !(rest[0] >= '0' && rest[0] <= '9')) {
			/* gpu:TYPE, one GPU (a type never starts with a
			 * digit: "gpu:99999999" is a count too large) */
			g->type = rest;
			g->type_len = rn;
			g->count = 1;
		}
		return;
	}
	if (colon == rest || memchr(colon + 1, ':', rn - (size_t)(colon -
						rest) - 1))
		return;                /* gpu::N, gpu:a:b:c */
	g->type = rest;                /* gpu:TYPE:N (typed even when N is
					* unreadable) */
	g->type_len = (size_t)(colon - rest);
	c = gres_count(colon + 1, rn - (size_t)(colon - rest) - 1);
	if (c >= 0)
		g->count = c;
}

/* The GPU entry of a list into *g and its position; 0 when none, 1 when
 * found (count UNREADABLE when it cannot be read, oversized say), -1
 * when there are two. */
static int gres_find(const char *tres, gres_gpu *g, size_t *at, size_t *len)
{
	const char *p = tres, *comma;
	gres_gpu one;
	int found = 0;
	size_t n;

	g->count = AUTOSIZE_JOB_UNSET;
	while (*p) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		gres_token(p, n, &one);
		if (one.count != AUTOSIZE_JOB_UNSET) {
			if (found)
				return -1;
			found = 1;
			*g = one;
			*at = (size_t)(p - tres);
			*len = n;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return found;
}

long autosize_gres_entry_gpus(const char *s, size_t n, const char **type,
			      size_t *type_len)
{
	const char *paren = memchr(s, '(', n);
	gres_gpu g;

	/* a node's "gpu:h100:8(S:0-1)": the sockets are not part of it */
	if (paren)
		n = (size_t)(paren - s);
	gres_token(s, n, &g);
	*type = g.type;
	*type_len = g.type_len;
	return g.count;
}

long autosize_tres_gpus(const char *tres)
{
	gres_gpu g;
	size_t at, len;
	int rc;

	if (!tres)
		return AUTOSIZE_JOB_UNSET;
	rc = gres_find(tres, &g, &at, &len);
	if (rc < 0)
		return AUTOSIZE_JOB_UNREADABLE;
	return rc ? g.count : AUTOSIZE_JOB_UNSET;
}

/* The first release of each API major: slurm_api_version() gives the
 * API major, and 23.02 is the first with API major 39. */
#define GRES_API_MAJOR_2302 39
#define GRES_API_MAJOR_MIN 20
#define GRES_API_MAJOR_MAX 255
#define GRES_VERSION_2302 ((23UL << 16) | (2UL << 8))

autosize_tres_syntax autosize_tres_syntax_of_version(unsigned long version)
{
	if (version == 0)
		return AUTOSIZE_TRES_UNKNOWN;
	return version >= GRES_VERSION_2302 ? AUTOSIZE_TRES_SLASH :
					      AUTOSIZE_TRES_COLON;
}

autosize_tres_syntax autosize_tres_syntax_of_api(long api_version)
{
	long major = api_version >> 16;

	if (api_version <= 0 || major < GRES_API_MAJOR_MIN ||
	    major > GRES_API_MAJOR_MAX)
		return AUTOSIZE_TRES_UNKNOWN;
	return major >= GRES_API_MAJOR_2302 ? AUTOSIZE_TRES_SLASH :
					       AUTOSIZE_TRES_COLON;
}

autosize_tres_syntax autosize_tres_syntax_of(const char *tres)
{
	const char *p = tres;

	while (p && *p) {
		if (strncmp(p, "gres/", 5) == 0)
			return AUTOSIZE_TRES_SLASH;
		if (strncmp(p, "gres:", 5) == 0)
			return AUTOSIZE_TRES_COLON;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return AUTOSIZE_TRES_UNKNOWN;
}

int autosize_tres_set_gpus(const char *tres, int gpus, char *out,
			   size_t len)
{
	return autosize_tres_set_gpus_as(tres, gpus, AUTOSIZE_TRES_COLON,
					 out, len);
}

int autosize_tres_set_gpus_as(const char *tres, int gpus,
			      autosize_tres_syntax syntax, char *out,
			      size_t len)
{
	return autosize_tres_set_gpus_typed(tres, gpus, NULL, syntax, out,
					    len);
}

int autosize_tres_gpu_type(const char *tres, char *type, size_t len)
{
	gres_gpu g;
	size_t at, n;

	if (!tres || gres_find(tres, &g, &at, &n) != 1 || !g.type ||
	    g.count == AUTOSIZE_JOB_UNREADABLE || g.type_len >= len)
		return 0;
	memcpy(type, g.type, g.type_len);
	type[g.type_len] = '\0';
	return 1;
}

int autosize_tres_set_gpus_typed(const char *tres, int gpus, const char *type,
				 autosize_tres_syntax syntax, char *out,
				 size_t len)
{
	gres_gpu g;
	size_t at = 0, n = 0, tail;
	int rc = 0, w;
	const char *gres;

	if (tres && tres[0])
		rc = gres_find(tres, &g, &at, &n);
	if (rc < 0 || gpus < 0 || len == 0)
		return -1;
	if (syntax == AUTOSIZE_TRES_UNKNOWN)
		syntax = autosize_tres_syntax_of(tres); /* COLON when none */
	gres = syntax == AUTOSIZE_TRES_SLASH ? "gres/gpu" : "gres:gpu";
	if (type && type[0]) {
		g.type = type;     /* the type planned for */
		g.type_len = strlen(type);
	}
	if (rc == 0) {
		/* No GPU entry: ours first, the others after it. */
		w = type && type[0]
		    ? snprintf(out, len, "%s:%s:%d%s%s", gres, type, gpus,
			       tres && tres[0] ? "," : "", tres ? tres : "")
		    : snprintf(out, len, "%s:%d%s%s", gres, gpus,
			       tres && tres[0] ? "," : "", tres ? tres : "");
		return w < 0 || (size_t)w >= len ? -1 : 0;
	}
	if (g.count == AUTOSIZE_JOB_UNREADABLE)
		return -1;
	tail = at + n;
	if (g.type)
		w = snprintf(out, len, "%.*s%s:%.*s:%d%s", (int)at, tres, gres,
			     (int)g.type_len, g.type, gpus, tres + tail);
	else
		w = snprintf(out, len, "%.*s%s:%d%s", (int)at, tres, gres,
			     gpus, tres + tail);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

int autosize_tres_without_gpus(const char *tres, char *out, size_t len)
{
	const char *p = tres ? tres : "", *comma;
	size_t used = 0, n;
	gres_gpu g;

	if (!len)
		return -1;
	out[0] = '\0';
	while (*p) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		gres_token(p, n, &g);
		if (n && g.count == AUTOSIZE_JOB_UNSET) {
			if (used + (used > 0) + n >= len)
				return -1;
			if (used)
				out[used++] = ',';
			memcpy(out + used, p, n);
			used += n;
			out[used] = '\0';
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return (int)used;
}
