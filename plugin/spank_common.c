/*
 * autosize SPANK plugin: plugstack arguments and policy loading, shared by
 * every context.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "spank_common.h"

static autosize_spank_config config = {
	AUTOSIZE_SPANK_DEFAULT_POLICY, AUTOSIZE_SPANK_DEFAULT_TMPDIR, "",
	AUTOSIZE_SPANK_DEFAULT_SPOOL, AUTOSIZE_SPANK_DEFAULT_SPOOL_RETRY_S, 0
};

void autosize_spank_config_reset(void)
{
	memset(&config, 0, sizeof(config));
	snprintf(config.policy, sizeof(config.policy), "%s",
		 AUTOSIZE_SPANK_DEFAULT_POLICY);
	snprintf(config.tmpdir, sizeof(config.tmpdir), "%s",
		 AUTOSIZE_SPANK_DEFAULT_TMPDIR);
	snprintf(config.spool, sizeof(config.spool), "%s",
		 AUTOSIZE_SPANK_DEFAULT_SPOOL);
	config.spool_retry_s = AUTOSIZE_SPANK_DEFAULT_SPOOL_RETRY_S;
}

const autosize_spank_config *autosize_spank_config_get(void)
{
	return &config;
}

static int common_path(char *dst, size_t len, const char *key,
		       const char *value, int absolute)
{
	size_t n = strlen(value);

	if (n == 0 || n >= len) {
		slurm_error("autosize: plugstack argument %s= needs a path "
			    "of 1 to %zu characters", key, len - 1);
		return -1;
	}
	if (absolute && value[0] != '/') {
		slurm_error("autosize: plugstack argument %s=%.200s: give an "
			    "absolute path", key, value);
		return -1;
	}
	memcpy(dst, value, n + 1);
	return 0;
}

int autosize_spank_config_parse(int ac, char **av)
{
	int i;

	autosize_spank_config_reset();
	for (i = 0; i < ac; i++) {
		const char *arg = av[i], *eq = arg ? strchr(arg, '=') : NULL;
		const char *value = eq ? eq + 1 : NULL;
		size_t klen = eq ? (size_t)(eq - arg) : 0;
		int rc;

		if (!eq) {
			slurm_error("autosize: plugstack argument '%.100s': "
				    "expected key=value (policy=, tmpdir=, "
				    "hwloc_xml=, spool=, spool_retry=, "
				    "disabled=)", arg ? arg : "");
			goto fail;
		}
		if (klen == 6 && strncmp(arg, "policy", 6) == 0) {
			rc = common_path(config.policy, sizeof(config.policy),
					 "policy", value, 0);
		} else if (klen == 6 && strncmp(arg, "tmpdir", 6) == 0) {
			rc = common_path(config.tmpdir, sizeof(config.tmpdir),
					 "tmpdir", value, 1);
		} else if (klen == 9 && strncmp(arg, "hwloc_xml", 9) == 0) {
			rc = common_path(config.hwloc_xml,
					 sizeof(config.hwloc_xml), "hwloc_xml",
					 value, 0);
		} else if (klen == 5 && strncmp(arg, "spool", 5) == 0) {
			rc = common_path(config.spool, sizeof(config.spool),
					 "spool", value, 1);
		} else if (klen == 11 && strncmp(arg, "spool_retry", 11) == 0) {
			char *end;
			long v = strtol(value, &end, 10);

			rc = 0;
			if (!*value || *end || v < 0 || v > 86400) {
				slurm_error("autosize: plugstack argument "
					    "spool_retry=%.40s: expected "
					    "seconds, 0 to 86400", value);
				rc = -1;
			} else {
				config.spool_retry_s = (int)v;
			}
		} else if (klen == 8 && strncmp(arg, "disabled", 8) == 0) {
			rc = 0;
			if (strcmp(value, "0") == 0) {
				config.disabled = 0;
			} else if (strcmp(value, "1") == 0) {
				config.disabled = 1;
			} else {
				slurm_error("autosize: plugstack argument "
					    "disabled=%.40s: expected 0 or 1",
					    value);
				rc = -1;
			}
		} else {
			slurm_error("autosize: unknown plugstack argument "
				    "'%.*s' (known: policy, tmpdir, hwloc_xml, "
				    "spool, spool_retry, disabled)",
				    (int)(klen > 64 ? 64 : klen),
				    arg);
			rc = -1;
		}
		if (rc)
			goto fail;
	}
	return 0;
fail:
	/* Where a failure cannot stop anything (slurmstepd, slurmd), the
	 * plugin does nothing rather than half of what the admin meant. */
	config.disabled = 1;
	return -1;
}

autosize_policy *autosize_spank_policy_load(const char *path,
					    autosize_error *e)
{
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return autosize_policy_default(e);
	return autosize_policy_load(path, e);
}

void autosize_spank_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* At error level without the "error: " label (slurm/spank.h). */
	slurm_spank_log("autosize: warning: %s", msg);
}
