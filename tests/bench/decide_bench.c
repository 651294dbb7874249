/*
 * make bench, second part: the worst-case work of one slurmctld decision
 * (autosize_decide) on hostile requests: huge explicit sizes, long and
 * repeated partition lists, every partition of a full policy, models
 * whose heads have many divisors. Reports the slowest decision and the
 * most layouts one decision evaluated (bounded by
 * AUTOSIZE_PLAN_MAX_LAYOUTS). Speed is measured here, never in tests.
 */
#include <stdlib.h>
#include <time.h>
#include "hostile.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct hostile_case {
	const char *name;
	const char *model;      /* a SPANK option entry */
	long min_nodes;
	const char *partition;  /* "" = none, "LIST" = the long list */
} hostile_case;

int main(void)
{
	static const hostile_case cases[] = {
		{"plain 70B", "model_params=70e9", AUTOSIZE_JOB_UNSET, ""},
		{"-N 1e7", "model_params=70e9", 10000000, "p0"},
		{"63 x p0", "model_params=70e9", AUTOSIZE_JOB_UNSET, "LIST"},
		{"-N 1e7 + 63 x p0", "model_params=70e9", 10000000, "LIST"},
		{"all 32 partitions", "model_params=70e9", AUTOSIZE_JOB_UNSET,
		 ""},
		{"5T model, all", "model_params=5e12", AUTOSIZE_JOB_UNSET, ""},
		{"7B, -N 4096", "model_params=7e9", 4096, "p1"},
		{"heads 2520, all", "MODEL", AUTOSIZE_JOB_UNSET, ""},
	};
	char text[16384], list[AUTOSIZE_PART_LIST_MAX], model[256];
	autosize_error e;
	autosize_policy *pol;
	autosize_decide_work *w = malloc(autosize_decide_work_size());
	autosize_decision d;
	autosize_job job;
	double worst_ms = 0;
	long worst_layouts = 0;
	size_t i, len = hostile_policy_text(text, sizeof(text));

	pol = autosize_policy_parse(text, len, "hostile.yaml", NULL, &e);
	if (!pol || !w) {
		fprintf(stderr, "autosize: decide bench setup: %s\n", e.msg);
		return 1;
	}
	/* no default partition: every partition is a candidate */
	hostile_partition_list(list, sizeof(list), "p0");
	printf("autosize decide bench: worst-case slurmctld decisions "
	       "(policy of %d partitions, budget %ld layouts)\n",
	       autosize_policy_partition_count(pol),
	       AUTOSIZE_PLAN_MAX_LAYOUTS);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *env[3];
		double t0, ms;

		if (strcmp(cases[i].model, "MODEL") == 0)
			snprintf(model, sizeof(model), "%s",
				 "AUTOSIZE_MODEL=mlp=swiglu;layers=96;"
				 "hidden=20160;heads=2520;kv_heads=2520;"
				 "ffn=53760;vocab=128000;experts=0;"
				 "experts_active=0;tied=0");
		else
			snprintf(model, sizeof(model),
				 AUTOSIZE_SPANK_OPTION_PREFIX "%s",
				 cases[i].model);
		env[0] = model;
		env[1] = AUTOSIZE_SPANK_OPTION_PREFIX "train_tokens=1e9";
		env[2] = AUTOSIZE_SPANK_OPTION_PREFIX "train_time=30d";
		autosize_job_init(&job);
		job.min_nodes = cases[i].min_nodes;
		snprintf(job.partition, sizeof(job.partition), "%s",
			 strcmp(cases[i].partition, "LIST") == 0
			 ? list : cases[i].partition);
		t0 = now_ms();
		autosize_decide(pol, env, 3, &job, w, &d);
		ms = now_ms() - t0;
		printf("  %-20s %8.1f ms %8ld layouts  %s\n", cases[i].name,
		       ms, d.evaluated, autosize_action_name(d.action));
		if (ms > worst_ms)
			worst_ms = ms;
		if (d.evaluated > worst_layouts)
			worst_layouts = d.evaluated;
	}
	printf("  worst decision: %.1f ms, %ld layouts\n", worst_ms,
	       worst_layouts);
	autosize_policy_destroy(pol);
	free(w);
	return 0;
}
