/*
 * autosize: the mark a chained job carries from sbatch to slurmctld
 * (chain.h), read as strictly as any option.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "autosize/chain.h"

#define CHAIN_ID_LEN 16
#define CHAIN_JOB_ID_MAX 4294967295UL

int autosize_chain_id_new(char id[AUTOSIZE_CHAIN_ID_MAX])
{
	unsigned char b[CHAIN_ID_LEN / 2];
	size_t got = 0;
	ssize_t n;
	int i;

	while (got < sizeof(b)) {
		n = getrandom(b + got, sizeof(b) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	for (i = 0; i < (int)sizeof(b); i++)
		snprintf(id + 2 * i, 3, "%02x", b[i]);
	return 0;
}

int autosize_chain_id_ok(const char *s)
{
	return s && strlen(s) == CHAIN_ID_LEN &&
	       strspn(s, "0123456789abcdef") == CHAIN_ID_LEN;
}

int autosize_chain_mark_encode(const autosize_chain_mark *m, char *buf,
			       size_t len)
{
	int n;

	if (!autosize_chain_id_ok(m->id))
		return -1;
	n = snprintf(buf, len, "%s:%d:%lu:%d", m->id, m->index, m->prev,
		     m->signal_s);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* A whole decimal number lo..hi, the n bytes at s. */
static int chain_number(const char *s, size_t n, unsigned long lo,
			unsigned long hi, unsigned long *v)
{
	char buf[16], *end;

	if (n == 0 || n >= sizeof(buf) || strspn(s, "0123456789") < n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoul(buf, &end, 10);
	return errno || *end || *v < lo || *v > hi ? -1 : 0;
}

autosize_err autosize_chain_mark_decode(const char *text,
					autosize_chain_mark *m,
					autosize_error *e)
{
	const char *f[4], *p = text;
	size_t flen[4];
	unsigned long index, prev, sig;
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < 4; i++) {
		const char *colon = strchr(p, ':');

		f[i] = p;
		flen[i] = colon ? (size_t)(colon - p) : strlen(p);
		if ((i < 3) != (colon != NULL))
			goto bad;
		p = colon ? colon + 1 : p;
	}
	if (flen[0] != CHAIN_ID_LEN ||
	    strspn(f[0], "0123456789abcdef") < CHAIN_ID_LEN ||
	    chain_number(f[1], flen[1], 1, AUTOSIZE_CHAIN_MAX_JOBS,
			 &index) || chain_number(f[2], flen[2], 0,
						 CHAIN_JOB_ID_MAX, &prev) ||
	    chain_number(f[3], flen[3], 0, 65535, &sig) ||
	    (index == 1) != (prev == 0))
		goto bad;
	memcpy(m->id, f[0], CHAIN_ID_LEN);
	m->id[CHAIN_ID_LEN] = '\0';
	m->index = (int)index;
	m->prev = prev;
	m->signal_s = (int)sig;
	return AUTOSIZE_OK;
bad:
	memset(m, 0, sizeof(*m));
	return autosize_fail(e, AUTOSIZE_EINVAL, "%s '%.60s': not a chained "
			     "job's mark (ID:INDEX:PREV:SIGNAL, which sbatch's "
			     "autosize plugin writes); submit with sbatch",
			     AUTOSIZE_ENV_CHAIN, text);
}

autosize_err autosize_chain_from_env(const char *const *env, size_t n,
				     autosize_chain_mark *m,
				     autosize_error *e)
{
	size_t i, k = strlen(AUTOSIZE_ENV_CHAIN);

	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++)
		if (env[i] && strncmp(env[i], AUTOSIZE_ENV_CHAIN, k) == 0 &&
		    env[i][k] == '=')
			return autosize_chain_mark_decode(env[i] + k + 1, m,
							  e);
	return AUTOSIZE_OK;
}
