/*
 * autosize: the value readers the policy's sections share (policy_read.h):
 * durations and fractions written as Slurm and the command line write
 * them, with errors that name the file, line and key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "autosize/parse.h"
#include "policy_read.h"

/* Longest duration or fraction text read. */
#define POLICY_TEXT_MAX 128

/* Slurm's words for no time limit (slurm.conf MaxTime=UNLIMITED;
 * scontrol prints INFINITE), any case. */
static int policy_unlimited(const char *text)
{
	return strcasecmp(text, "UNLIMITED") == 0 ||
	       strcasecmp(text, "INFINITE") == 0;
}

/* An optional duration value (Slurm or human form) into *out seconds;
 * with unlimited_ok, Slurm's UNLIMITED / INFINITE give 0 (no limit). */
autosize_err policy_duration(const autosize_ytree *t,
			     const autosize_ynode *map, const char *key,
			     int unlimited_ok, double *out,
			     autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(map, key);
	char text[POLICY_TEXT_MAX], what[64];
	autosize_error sub;
	autosize_err rc;
	int found;

	rc = autosize_ytree_str(t, map, key, AUTOSIZE_Y_OPTIONAL, text,
				sizeof(text), &found, e);
	if (rc || !found)
		return rc;
	if (unlimited_ok && policy_unlimited(text)) {
		*out = 0;
		return AUTOSIZE_OK;
	}
	snprintf(what, sizeof(what), "key '%s'", key);
	autosize_error_clear(&sub);
	rc = autosize_parse_duration(text, what, out, &sub);
	if (rc)
		return autosize_ytree_fail(t, n->line, e, rc, "%s", sub.msg);
	return AUTOSIZE_OK;
}

/* An optional fraction in [0, max]: a number, or a percentage as the
 * command line takes it ("20%"). */
autosize_err policy_fraction(const autosize_ytree *t,
			     const autosize_ynode *map, const char *key,
			     double max, double *out, autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(map, key);
	char text[POLICY_TEXT_MAX], what[64];
	autosize_error sub;
	autosize_err rc;

	if (!n || n->kind != AUTOSIZE_YNODE_SCALAR || n->len == 0 ||
	    n->value[n->len - 1] != '%')
		return autosize_ytree_double(t, map, key, AUTOSIZE_Y_OPTIONAL,
					     0, max, out, NULL, e);
	rc = autosize_ytree_str(t, map, key, AUTOSIZE_Y_OPTIONAL, text,
				sizeof(text), NULL, e);
	if (rc)
		return rc;
	snprintf(what, sizeof(what), "key '%s'", key);
	autosize_error_clear(&sub);
	rc = autosize_parse_fraction(text, what, 0, max, out, &sub);
	if (rc)
		return autosize_ytree_fail(t, n->line, e, rc, "%s", sub.msg);
	return AUTOSIZE_OK;
}

/* Slurm's memory units (slurm.conf, --mem): powers of 1024 from MB. */
autosize_err policy_mem_bytes(const autosize_ytree *t,
			      const autosize_ynode *map, const char *key,
			      double *out, autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(map, key);
	char text[POLICY_TEXT_MAX], *end;
	double v, unit = 1024.0 * 1024;
	autosize_err rc;
	int found;

	rc = autosize_ytree_str(t, map, key, AUTOSIZE_Y_OPTIONAL, text,
				sizeof(text), &found, e);
	if (rc || !found)
		return rc;
	v = strtod(text, &end);
	switch (*end) {
	case 'K': case 'k': unit = 1024.0; end++; break;
	case 'M': case 'm': end++; break;
	case 'G': case 'g': unit *= 1024; end++; break;
	case 'T': case 't': unit *= 1024.0 * 1024; end++; break;
	default: break;
	}
	if (end == text || *end || !(v > 0) || v * unit > 1e18)
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
			"key '%s': '%.40s' is not a memory size (expected megabytes, or a number with K, M, G or T, e.g. 60G)",
			key, text);
	*out = v * unit;
	return AUTOSIZE_OK;
}

autosize_err policy_names(const autosize_ytree *t, const autosize_ynode *map,
			  const char *key, const char *what, int max,
			  char (*names)[AUTOSIZE_EXEMPT_NAME_MAX], int *n,
			  int *found, autosize_error *e)
{
	const autosize_ynode *seq, *it;
	autosize_err rc;
	size_t i;

	*n = 0;
	rc = autosize_ytree_seq(t, map, key, AUTOSIZE_Y_OPTIONAL, max, &seq, e);
	if (found)
		*found = seq != NULL;
	if (rc || !seq)
		return rc;
	for (it = seq->child; it; it = it->next) {
		if (it->kind != AUTOSIZE_YNODE_SCALAR || it->len == 0 ||
		    it->len >= AUTOSIZE_EXEMPT_NAME_MAX)
			return autosize_ytree_fail(t, it->line, e,
				AUTOSIZE_EINVAL, "key '%s': an item is not a "
				"name of 1 to %d characters", what,
				AUTOSIZE_EXEMPT_NAME_MAX - 1);
		for (i = 0; i < it->len; i++)
			if ((unsigned char)it->value[i] <= ' ' ||
			    it->value[i] == ',')
				return autosize_ytree_fail(t, it->line, e,
					AUTOSIZE_EINVAL, "key '%s': a name "
					"holds a space, a comma or a control "
					"character (one name an item)", what);
		memcpy(names[*n], it->value, it->len + 1);
		(*n)++;
	}
	return AUTOSIZE_OK;
}
