/*
 * autosize: fixed-window rate limit for log lines (ratelimit.h).
 */
#include "autosize/ratelimit.h"

void autosize_ratelimit_init(autosize_ratelimit *rl, int burst,
			     double window_s)
{
	rl->burst = burst > 0 ? burst : 1;
	rl->window_s = window_s > 0 ? window_s : 1;
	rl->window_start_s = 0;
	rl->used = 0;
	rl->missed = 0;
}

int autosize_ratelimit_take(autosize_ratelimit *rl, double now_s,
			    long *missed)
{
	/* A new window (or a clock that went back: start over). */
	if (rl->used == 0 || now_s < rl->window_start_s ||
	    now_s - rl->window_start_s >= rl->window_s) {
		rl->window_start_s = now_s;
		rl->used = 0;
	}
	if (rl->used >= rl->burst) {
		rl->missed++;
		return 0;
	}
	rl->used++;
	*missed = rl->missed;
	rl->missed = 0;
	return 1;
}
