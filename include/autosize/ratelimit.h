/*
 * autosize: a fixed-window rate limit for log lines a daemon writes on
 * behalf of users (slurmctld's log must not grow at the pace of a user's
 * --test-only loop). Caller-allocated, no allocation, not thread-safe:
 * the caller serialises.
 */
#ifndef AUTOSIZE_RATELIMIT_H
#define AUTOSIZE_RATELIMIT_H

typedef struct autosize_ratelimit {
	int burst;            /* lines allowed per window */
	double window_s;
	double window_start_s;
	int used;             /* lines allowed in the current window */
	long missed;          /* lines refused since the last one allowed */
} autosize_ratelimit;

/* At most burst lines per window_s seconds (burst >= 1, window_s > 0). */
void autosize_ratelimit_init(autosize_ratelimit *rl, int burst,
			     double window_s);

/*
 * 1 when one more line may be written at now_s (a monotonic clock), with
 * *missed the lines refused since the last one allowed (then forgotten:
 * the caller says how many it dropped); 0 when refused (counted).
 */
int autosize_ratelimit_take(autosize_ratelimit *rl, double now_s,
			    long *missed);

#endif
