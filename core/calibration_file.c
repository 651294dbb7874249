/*
 * autosize: the calibration file (calibration.h): read strictly, looked
 * up per plan, written by `autosize calibrate`.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "calibration_private.h"
#include "perfdata.h"
#include "ytree.h"

struct autosize_calibration {
	int n;
	autosize_cal_entry entries[AUTOSIZE_CAL_MAX_ENTRIES];
};

static const char *const cal_top_keys[] = {
	"version", "source", "corrections", NULL
};

static const char *const cal_entry_keys[] = {
	"partition", "gpu", "framework", "scale", "jobs", "users",
	"speed_factor", "speed_low", "speed_high", "memory_jobs",
	"memory_users", "memory_factor", "memory_high", NULL
};

static const char *const cal_scales[] = {
	"any", "small", "mid", "large", NULL
};

/* Framework names and "any". */
static int cal_framework_ok(const char *s)
{
	int i;

	if (strcmp(s, AUTOSIZE_CAL_ANY) == 0)
		return 1;
	for (i = 0; autosize_framework_names[i]; i++)
		if (strcmp(s, autosize_framework_names[i]) == 0)
			return 1;
	return 0;
}

static autosize_err cal_entry_read(const autosize_ytree *t,
				   const autosize_ynode *n,
				   autosize_cal_entry *c, autosize_error *e)
{
	const double lo = AUTOSIZE_CAL_SPEED_MIN, hi = AUTOSIZE_CAL_SPEED_MAX;
	int scale = 0;
	autosize_err rc;

	memset(c, 0, sizeof(*c));
	c->memory_factor = c->memory_high = 1;
	if ((rc = autosize_ytree_check_keys(t, n, "a correction",
					    cal_entry_keys, e)) ||
	    (rc = autosize_ytree_str(t, n, "partition", AUTOSIZE_Y_REQUIRED,
				     c->partition, sizeof(c->partition), NULL,
				     e)) ||
	    (rc = autosize_ytree_str(t, n, "gpu", AUTOSIZE_Y_REQUIRED, c->gpu,
				     sizeof(c->gpu), NULL, e)))
		return rc;
	snprintf(c->framework, sizeof(c->framework), AUTOSIZE_CAL_ANY);
	if ((rc = autosize_ytree_str(t, n, "framework", AUTOSIZE_Y_OPTIONAL,
				     c->framework, sizeof(c->framework), NULL,
				     e)))
		return rc;
	if (!cal_framework_ok(c->framework))
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
			"key 'framework': '%s' (expected any, megatron, fsdp "
			"or deepspeed)", c->framework);
	if ((rc = autosize_ytree_choice(t, n, "scale", AUTOSIZE_Y_OPTIONAL,
					cal_scales, &scale, NULL, e)) ||
	    (rc = autosize_ytree_int(t, n, "jobs", AUTOSIZE_Y_REQUIRED, 1,
				     100000000L, &c->jobs, NULL, e)) ||
	    (rc = autosize_ytree_int(t, n, "users", AUTOSIZE_Y_REQUIRED, 1,
				     100000000L, &c->users, NULL, e)) ||
	    (rc = autosize_ytree_double(t, n, "speed_factor",
					AUTOSIZE_Y_REQUIRED, lo, hi,
					&c->speed_factor, NULL, e)))
		return rc;
	snprintf(c->scale, sizeof(c->scale), "%s", cal_scales[scale]);
	c->speed_low = c->speed_high = c->speed_factor;
	if ((rc = autosize_ytree_double(t, n, "speed_low", AUTOSIZE_Y_OPTIONAL,
					lo, c->speed_factor, &c->speed_low,
					NULL, e)) ||
	    (rc = autosize_ytree_double(t, n, "speed_high",
					AUTOSIZE_Y_OPTIONAL, c->speed_factor,
					hi, &c->speed_high, NULL, e)) ||
	    (rc = autosize_ytree_int(t, n, "memory_jobs", AUTOSIZE_Y_OPTIONAL,
				     0, 100000000L, &c->memory_jobs, NULL,
				     e)) ||
	    (rc = autosize_ytree_int(t, n, "memory_users",
				     AUTOSIZE_Y_OPTIONAL, 0, 100000000L,
				     &c->memory_users, NULL, e)) ||
	    (rc = autosize_ytree_double(t, n, "memory_factor",
					AUTOSIZE_Y_OPTIONAL,
					AUTOSIZE_CAL_MEMORY_MIN,
					AUTOSIZE_CAL_MEMORY_MAX,
					&c->memory_factor, NULL, e)))
		return rc;
	c->memory_high = c->memory_factor;
	return autosize_ytree_double(t, n, "memory_high", AUTOSIZE_Y_OPTIONAL,
				     c->memory_factor, AUTOSIZE_CAL_MEMORY_MAX,
				     &c->memory_high, NULL, e);
}

static autosize_calibration *cal_from_tree(autosize_ytree *t,
					   autosize_error *e)
{
	autosize_calibration *c = NULL;
	const autosize_ynode *root, *seq = NULL, *it;
	int version = 0;

	if (!t)
		return NULL;
	root = autosize_ytree_root(t);
	c = calloc(1, sizeof(*c));
	if (!c) {
		autosize_fail(e, AUTOSIZE_ENOMEM, "%s: out of memory",
			      autosize_ytree_what(t));
		goto fail;
	}
	if (autosize_ytree_check_keys(t, root, "the calibration file",
				      cal_top_keys, e) ||
	    autosize_ytree_int(t, root, "version", AUTOSIZE_Y_REQUIRED, 1, 1,
			       &version, NULL, e) ||
	    autosize_ytree_text(t, root, "source", e) ||
	    autosize_ytree_seq(t, root, "corrections", AUTOSIZE_Y_OPTIONAL,
			       AUTOSIZE_CAL_MAX_ENTRIES, &seq, e))
		goto fail;
	for (it = seq ? seq->child : NULL; it; it = it->next)
		if (cal_entry_read(t, it, &c->entries[c->n++], e))
			goto fail;
	autosize_ytree_destroy(t);
	return c;
fail:
	autosize_ytree_destroy(t);
	free(c);
	return NULL;
}

autosize_calibration *autosize_calibration_load(const char *path,
						autosize_error *e)
{
	return cal_from_tree(autosize_ytree_load(path, e), e);
}

autosize_calibration *autosize_calibration_parse(const char *text,
						 size_t len, const char *what,
						 autosize_error *e)
{
	return cal_from_tree(autosize_ytree_parse(text, len, what, e), e);
}

void autosize_calibration_destroy(autosize_calibration *c)
{
	free(c);
}

int autosize_calibration_count(const autosize_calibration *c)
{
	return c ? c->n : 0;
}

const autosize_cal_entry *autosize_calibration_at(
	const autosize_calibration *c, int i)
{
	return c && i >= 0 && i < c->n ? &c->entries[i] : NULL;
}

/* Rank of an entry for a plan: -1 no match, else how specific. */
static int cal_match(const autosize_cal_entry *x, const char *partition,
		     const char *gpu, const char *framework,
		     const char *scale)
{
	int any_fw = strcmp(x->framework, AUTOSIZE_CAL_ANY) == 0;
	int any_scale = strcmp(x->scale, AUTOSIZE_CAL_ANY) == 0;

	/* in any case: a record sacctmgr rewrote is lowercase */
	if (strcasecmp(x->partition, partition) || strcasecmp(x->gpu, gpu))
		return -1;
	if (!any_fw && strcmp(x->framework, framework))
		return -1;
	if (!any_scale && (!scale || strcmp(x->scale, scale)))
		return -1;
	return (any_fw ? 0 : 2) + (any_scale ? 0 : 1);
}

const autosize_cal_entry *autosize_calibration_find(
	const autosize_calibration *c, const char *partition,
	const char *gpu, const char *framework, int gpus)
{
	return autosize_calibration_find_scale(c, partition, gpu, framework,
		gpus > 0 ? perfdata_scale(gpus) : NULL);
}

const autosize_cal_entry *autosize_calibration_find_scale(
	const autosize_calibration *c, const char *partition,
	const char *gpu, const char *framework, const char *scale)
{
	const autosize_cal_entry *best = NULL;
	int i, rank, best_rank = -1;

	if (!c || !partition || !gpu || !framework)
		return NULL;
	for (i = 0; i < c->n; i++) {
		rank = cal_match(&c->entries[i], partition, gpu, framework,
				 scale);
		if (rank > best_rank) {
			best_rank = rank;
			best = &c->entries[i];
		}
	}
	return best;
}

int autosize_calibration_write(const autosize_calibration *c, FILE *f,
			       const char *source)
{
	int i;

	fprintf(f, "# autosize calibration, written by `autosize calibrate`: "
		"real / predicted speed\n# and memory per partition and GPU "
		"(README \"The closed loop\").\nversion: 1\nsource: \"");
	for (; source && *source; source++)
		if (*source != '"' && *source != '\\' &&
		    (unsigned char)*source >= 0x20)
			fputc(*source, f);
	fprintf(f, "\"\ncorrections:%s\n", c && c->n ? "" : " []");
	for (i = 0; c && i < c->n; i++) {
		const autosize_cal_entry *x = &c->entries[i];

		fprintf(f, "  - partition: \"%s\"\n    gpu: \"%s\"\n"
			"    framework: %s\n    scale: %s\n    jobs: %d\n"
			"    users: %d\n    speed_factor: %.4f\n"
			"    speed_low: %.4f\n    speed_high: %.4f\n",
			x->partition, x->gpu, x->framework, x->scale, x->jobs,
			x->users, x->speed_factor, x->speed_low,
			x->speed_high);
		if (x->memory_jobs > 0)
			fprintf(f, "    memory_jobs: %d\n    memory_users: %d\n"
				"    memory_factor: %.4f\n"
				"    memory_high: %.4f\n", x->memory_jobs,
				x->memory_users, x->memory_factor,
				x->memory_high);
	}
	return ferror(f) ? -1 : 0;
}

int autosize_calibration_add_entry(autosize_calibration *c,
				   const autosize_cal_entry *x)
{
	if (c->n >= AUTOSIZE_CAL_MAX_ENTRIES)
		return -1;
	c->entries[c->n++] = *x;
	return 0;
}

autosize_calibration *autosize_calibration_empty(void)
{
	return calloc(1, sizeof(autosize_calibration));
}
