/*
 * autosize: job liveness over Slurm's state names (jobstate.h).
 * Names from Slurm's job_state_string() and job_state_string_compact()
 * (src/common/slurm_protocol_defs.c, 22.05 to 26.05) and slurm.h's
 * JOB_* flags.
 */
#include <string.h>
#include "autosize/jobstate.h"

/* 1 when the n bytes at name are one of the live names. */
static int jobstate_live_name(const char *name, size_t n)
{
	static const char *const live[] = {
		"PENDING", "RUNNING", "SUSPENDED",
		"COMPLETING", "STAGE_OUT", "CONFIGURING", "POWER_UP_NODE",
		"EXPEDITING", "RESIZING", "REQUEUED", "REQUEUE_FED",
		"REQUEUE_HOLD", "SPECIAL_EXIT", "RESV_DEL_HOLD", "STOPPED",
		"SIGNALING", NULL
	};
	int i;

	for (i = 0; live[i]; i++)
		if (strlen(live[i]) == n && strncmp(name, live[i], n) == 0)
			return 1;
	return 0;
}

int autosize_job_state_live(const char *state)
{
	size_t end, n;

	if (!state)
		return 0;
	/* the first word; job_state_string_complete()'s
	 * "COMPLETED,COMPLETING": live when any of its names is */
	end = strcspn(state, " ");
	while (end) {
		n = strcspn(state, ",");
		if (n > end)
			n = end;
		if (jobstate_live_name(state, n))
			return 1;
		if (n == end)
			break;
		state += n + 1;
		end -= n + 1;
	}
	return 0;
}
