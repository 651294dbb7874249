/*
 * autosize SPANK plugin: the user options (--model-params, --model,
 * --train-*, --autosize). Every context registers them; the callbacks
 * validate each value with the core and keep it, because
 * spank_option_getopt() is not available in the allocator.
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include "spank_common.h"

#define OPTIONS_MAX 64
#define OPTIONS_USAGE_LEN 160

static struct plugin_context {
	int n;                       /* options registered */
	int index[OPTIONS_MAX];      /* spank option -> autosize_options() */
	struct spank_option opts[OPTIONS_MAX];
	char usage[OPTIONS_MAX][OPTIONS_USAGE_LEN];
	autosize_request req;        /* values given so far */
	int given;                   /* any option given */
	int bad;                     /* a value refused (remote) */
} context;

/*
 * A submission refused here never reaches slurmctld (nor its log, nor
 * accounting): one line on this host's syslog, in the words of
 * job_submit.lua's refusal line with where= the command, so that the
 * admins' log collection and `autosize report --ctld-log` count them.
 * The user's own process writes it: counts are lower bounds
 * (doc/admins.md "Metrics").
 */
static void options_log_refusal(const char *name, const char *msg)
{
	char clean[256];
	size_t i;

	snprintf(clean, sizeof(clean), "%s", msg);
	for (i = 0; clean[i]; i++)
		if ((unsigned char)clean[i] < 0x20 || clean[i] == 0x7f)
			clean[i] = '?';
	syslog(LOG_USER | LOG_NOTICE, "autosize: refused: reason=input "
	       "what=--%.40s uid=%u where=%s: %s", name, (unsigned)getuid(),
	       program_invocation_short_name, clean);
}

static int options_cb(int val, const char *optarg, int remote)
{
	const autosize_option *table = autosize_options();
	autosize_request scratch;
	autosize_error err;
	const char *name;

	if (val < 0 || val >= context.n) {
		slurm_error("autosize: internal error: unknown option "
			    "callback %d", val);
		return remote ? 0 : -1;
	}
	name = table[context.index[val]].name;
	/* Validate on a scratch request so a refused value leaves the kept
	 * one untouched; applying a value twice is harmless. */
	autosize_request_init(&scratch);
	scratch.model_local = !remote;  /* sbatch, srun, salloc: the user's
					 * files; slurmstepd: presets only */
	autosize_error_clear(&err);
	if (autosize_request_set(&scratch, name, optarg ? optarg : "",
				 &err) != AUTOSIZE_OK) {
		slurm_error("autosize: %s", err.msg);
		if (!remote)
			options_log_refusal(name, err.msg);
		if (remote) {
			/* Validated at submission: a plugin version skew,
			 * not the user. Ignore it; never fail the step. */
			context.bad = 1;
			return 0;
		}
		return -1;
	}
	/* A --model that names no preset, folder, readable config.json or
	 * cached Hugging Face model is refused here, while sbatch parses
	 * options: a -1 from init_post_opt does not stop the submission
	 * when the plugin is loaded `optional`. */
	if (!remote && strcmp(name, "model") == 0 &&
	    autosize_request_finish(&scratch, &err) != AUTOSIZE_OK) {
		slurm_error("autosize: %s", err.msg);
		options_log_refusal(name, err.msg);
		return -1;
	}
	if (autosize_request_set(&context.req, name, optarg ? optarg : "",
				 &err) != AUTOSIZE_OK) {
		slurm_error("autosize: %s", err.msg);
		return remote ? 0 : -1;
	}
	context.given = 1;
	return 0;
}

int autosize_spank_options_register(spank_t sp)
{
	const autosize_option *table = autosize_options();
	int i, rc;

	if (context.n == 0)
		autosize_request_init(&context.req);
	/* Build the table once: Slurm keeps pointers to it. */
	if (context.n == 0) {
		for (i = 0; table[i].name; i++) {
			struct spank_option *o;

			if (!(table[i].where & AUTOSIZE_OPT_SPANK))
				continue;
			if (context.n >= OPTIONS_MAX) {
				slurm_error("autosize: internal error: more "
					    "than %d options", OPTIONS_MAX);
				return -1;
			}
			o = &context.opts[context.n];
			snprintf(context.usage[context.n], OPTIONS_USAGE_LEN,
				 "[autosize] %s", table[i].help);
			o->name = (char *)table[i].name;
			o->arginfo = (char *)table[i].arg;
			o->usage = context.usage[context.n];
			o->has_arg = 1;
			o->val = context.n;
			o->cb = options_cb;
			context.index[context.n] = i;
			context.n++;
		}
	}
	for (i = 0; i < context.n; i++) {
		rc = spank_option_register(sp, &context.opts[i]);
		if (rc != ESPANK_SUCCESS) {
			slurm_error("autosize: cannot register --%s: %s",
				    context.opts[i].name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

int autosize_spank_options_given(void)
{
	return context.given;
}

int autosize_spank_options_bad(void)
{
	return context.bad;
}

void autosize_spank_options_request(autosize_request *r)
{
	if (context.n == 0 && !context.given)
		autosize_request_init(r);
	else
		*r = context.req;
}

void autosize_spank_options_reset(void)
{
	memset(&context, 0, sizeof(context));
}
