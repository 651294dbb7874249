/*
 * make bench, second part: the worst-case work of one slurmctld decision
 * (autosize_decide) on the hostile policy (32 partitions of 4096 nodes):
 * crafted requests (huge explicit sizes, long and repeated partition
 * lists, models whose heads have many divisors, 4096 MoE layers at a 4M
 * sequence, a quadrillion tokens) and a deterministic corpus of random
 * ones over the whole option space. Reports each crafted request, then
 * the slowest decision over all of them and the most candidates one
 * decision enumerated (bounded by AUTOSIZE_PLAN_MAX_LAYOUTS; slurmctld's
 * searches also stop at AUTOSIZE_PLAN_MAX_SEARCH_MS of CPU time). Each
 * request's time is its fastest of a few passes: neighbours on a shared
 * host only ever add time. AUTOSIZE_BENCH_PASSES=n changes the passes (1
 * under callgrind), AUTOSIZE_BENCH_RANDOM=n the random requests,
 * AUTOSIZE_BENCH_CASE=i runs only the i-th request, crafted ones first
 * (callgrind's instruction count of one request). Speed is measured
 * here, never in tests.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include "hostile.h"

#define BENCH_RANDOM 400
#define BENCH_PASSES 3
#define BENCH_MAX_OPTS 16

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One request: options as sbatch would pass them ("name=value", dashes
 * as underscores), the job's -N and partition field. */
typedef struct bench_req {
	char name[48];
	char opts[BENCH_MAX_OPTS][96];
	int n_opts;
	long min_nodes;
	char partition[AUTOSIZE_PART_LIST_MAX];
} bench_req;

typedef struct crafted {
	const char *name;
	const char *opts;       /* space-separated name=value */
	long min_nodes;
	const char *partition;  /* "" = none, "LIST" = the long list */
} crafted;

static const crafted crafted_cases[] = {
	{"plain 70B", "model_params=70e9 train_tokens=1e9 train_time=30d",
	 AUTOSIZE_JOB_UNSET, ""},
	{"-N 1e7", "model_params=70e9 train_tokens=1e9 train_time=30d",
	 10000000, "p0"},
	{"63 x p0", "model_params=70e9 train_tokens=1e9 train_time=30d",
	 AUTOSIZE_JOB_UNSET, "LIST"},
	{"-N 1e7 + 63 x p0", "model_params=70e9 train_tokens=1e9 "
	 "train_time=30d", 10000000, "LIST"},
	{"5T model, all", "model_params=5e12 train_tokens=1e9 train_time=30d",
	 AUTOSIZE_JOB_UNSET, ""},
	{"7B, -N 4096", "model_params=7e9 train_tokens=1e9 train_time=30d",
	 4096, "p1"},
	{"heads 2520, all", "layers=96 hidden=20160 heads=2520 ffn=53760 "
	 "vocab=128000 train_tokens=1e9 train_time=30d", AUTOSIZE_JOB_UNSET,
	 ""},
	/* the two requests that once took 170 ms and 25 ms in slurmctld */
	{"4096 MoE layers, 4M", "layers=4096 hidden=1024 heads=8 ffn=4096 "
	 "experts=1024 experts_active=1024 shared_experts=64 "
	 "train_seq_len=4194304", AUTOSIZE_JOB_UNSET, ""},
	{"mixtral, 1e15 tokens", "model=mixtral-8x7b train_tokens=1e15",
	 AUTOSIZE_JOB_UNSET, ""},
};

static void bench_add(bench_req *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bench_add(bench_req *q, const char *fmt, ...)
{
	va_list ap;

	if (q->n_opts >= BENCH_MAX_OPTS)
		return;
	va_start(ap, fmt);
	vsnprintf(q->opts[q->n_opts++], sizeof(q->opts[0]), fmt, ap);
	va_end(ap);
}

static void bench_crafted(const crafted *c, const char *list, bench_req *q)
{
	char buf[512], *tok, *save = NULL;

	memset(q, 0, sizeof(*q));
	snprintf(q->name, sizeof(q->name), "%s", c->name);
	snprintf(buf, sizeof(buf), "%s", c->opts);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		bench_add(q, "%s", tok);
	q->min_nodes = c->min_nodes;
	snprintf(q->partition, sizeof(q->partition), "%s",
		 strcmp(c->partition, "LIST") == 0 ? list : c->partition);
}

/* xorshift64: the same corpus on every run. */
static unsigned long bench_rand(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A value log-uniform in lo..hi. */
static double bench_log(unsigned long *s, double lo, double hi)
{
	double u = (double)(bench_rand(s) % 1000001) / 1e6;

	return lo * pow(hi / lo, u);
}

/* A random request over the options a user may send: presets, sizes,
 * whole architectures up to the options' limits (dense and MoE), token
 * counts up to 1e16, deadlines, sequence lengths up to 4M, modes,
 * frameworks, pins, partitions and -N. Values may be refused: a refusal
 * is a decision too. */
static void bench_random(int i, unsigned long *s, bench_req *q)
{
	static const char *const presets[] = {"llama-3-8b", "llama-3.1-405b",
		"mixtral-8x7b", "mixtral-8x22b", "qwen2.5-72b", "gpt3-175b",
		"llama-2-70b", "gpt2"};
	static const char *const modes[] = {"pretrain", "finetune", "lora",
		"qlora"};
	static const char *const fws[] = {"megatron", "fsdp", "deepspeed"};
	unsigned long r = bench_rand(s);

	memset(q, 0, sizeof(*q));
	snprintf(q->name, sizeof(q->name), "random %d", i);
	switch (r % 3) {
	case 0:
		bench_add(q, "model=%s", presets[(r >> 2) % 8]);
		break;
	case 1:
		bench_add(q, "model_params=%.3g", bench_log(s, 1e6, 1e16));
		break;
	default: {
		int heads = 1 << (bench_rand(s) % 13);

		bench_add(q, "layers=%d", (int)bench_log(s, 1, 4096));
		bench_add(q, "heads=%d", heads);
		bench_add(q, "hidden=%d", heads * (int)bench_log(s, 8, 256));
		bench_add(q, "ffn=%d", (int)bench_log(s, 64, 65536));
		if (bench_rand(s) % 2) {
			int ex = (int)bench_log(s, 2, 4096);

			bench_add(q, "experts=%d", ex);
			bench_add(q, "experts_active=%d",
				  1 + (int)(bench_rand(s) % (unsigned long)ex));
			bench_add(q, "shared_experts=%d",
				  (int)(bench_rand(s) % 65));
		}
	}
	}
	if (bench_rand(s) % 4)
		bench_add(q, "train_tokens=%.3g", bench_log(s, 1e6, 1e16));
	if (bench_rand(s) % 2)
		bench_add(q, "train_time=%dh", (int)bench_log(s, 1, 8760));
	if (bench_rand(s) % 2)
		bench_add(q, "train_seq_len=%d", (int)bench_log(s, 128,
								4194304));
	if (bench_rand(s) % 3 == 0)
		bench_add(q, "train_mode=%s", modes[bench_rand(s) % 4]);
	if (bench_rand(s) % 3 == 0)
		bench_add(q, "train_framework=%s", fws[bench_rand(s) % 3]);
	if (bench_rand(s) % 8 == 0)
		bench_add(q, "tp=%d", 1 << (bench_rand(s) % 4));
	if (bench_rand(s) % 8 == 0)
		bench_add(q, "pp=%d", 1 << (bench_rand(s) % 6));
	q->min_nodes = bench_rand(s) % 6 == 0
		       ? (long)bench_log(s, 1, 1e7) : AUTOSIZE_JOB_UNSET;
	if (bench_rand(s) % 3 == 0)
		snprintf(q->partition, sizeof(q->partition), "p%lu",
			 bench_rand(s) % AUTOSIZE_MAX_PARTITIONS);
}

/* One decision of q; its time in ms. */
static double bench_decide(const autosize_policy *pol, const bench_req *q,
			   autosize_decide_work *w, autosize_decision *d)
{
	char env[BENCH_MAX_OPTS][128];
	const char *envp[BENCH_MAX_OPTS];
	autosize_job job;
	double t0;
	int i;

	for (i = 0; i < q->n_opts; i++) {
		snprintf(env[i], sizeof(env[i]), AUTOSIZE_SPANK_OPTION_PREFIX
			 "%s", q->opts[i]);
		envp[i] = env[i];
	}
	autosize_job_init(&job);
	job.min_nodes = q->min_nodes;
	job.batch = 1;
	snprintf(job.partition, sizeof(job.partition), "%s", q->partition);
	t0 = now_ms();
	autosize_decide(pol, envp, q->n_opts, &job, w, d);
	return now_ms() - t0;
}

static int bench_env_int(const char *name, int def, int lo, int hi)
{
	const char *v = getenv(name);
	int n = v ? atoi(v) : def;

	return n < lo || n > hi ? def : n;
}

int main(void)
{
	int n_crafted = (int)(sizeof(crafted_cases) / sizeof(crafted_cases[0]));
	int n_random = bench_env_int("AUTOSIZE_BENCH_RANDOM", BENCH_RANDOM, 0,
				     100000);
	int passes = bench_env_int("AUTOSIZE_BENCH_PASSES", BENCH_PASSES, 1, 10);
	int n = n_crafted + n_random, i, pass, worst = 0, worst_l = 0;
	char text[16384], list[AUTOSIZE_PART_LIST_MAX];
	bench_req *reqs = calloc((size_t)n, sizeof(*reqs));
	double *ms = calloc((size_t)n, sizeof(*ms));
	long *layouts = calloc((size_t)n, sizeof(*layouts));
	autosize_action *action = calloc((size_t)n, sizeof(*action));
	autosize_decide_work *w = malloc(autosize_decide_work_size());
	size_t len = hostile_policy_text(text, sizeof(text));
	unsigned long seed = 0x9e3779b97f4a7c15UL;
	autosize_decision d;
	autosize_policy *pol;
	autosize_error e;

	pol = autosize_policy_parse(text, len, "hostile.yaml", NULL, &e);
	if (!pol || !w || !reqs || !ms || !layouts || !action) {
		fprintf(stderr, "autosize: decide bench setup: %s\n",
			pol ? "out of memory" : e.msg);
		return 1;
	}
	hostile_partition_list(list, sizeof(list), "p0");
	for (i = 0; i < n_crafted; i++)
		bench_crafted(&crafted_cases[i], list, &reqs[i]);
	for (i = 0; i < n_random; i++)
		bench_random(i, &seed, &reqs[n_crafted + i]);
	if (getenv("AUTOSIZE_BENCH_CASE")) {
		i = bench_env_int("AUTOSIZE_BENCH_CASE", 0, 0, n - 1);
		reqs[0] = reqs[i];
		n = 1;
		n_crafted = i < n_crafted;
		n_random = !n_crafted;
	}
	for (pass = 0; pass < passes; pass++)
		for (i = 0; i < n; i++) {
			double t = bench_decide(pol, &reqs[i], w, &d);

			if (pass == 0 || t < ms[i])
				ms[i] = t;
			layouts[i] = d.evaluated;
			action[i] = d.action;
		}
	printf("autosize decide bench: slurmctld decisions on a policy of %d "
	       "partitions x 4096 nodes (budget %ld candidates, %.0f ms "
	       "of CPU); each request's fastest of %d passes\n",
	       autosize_policy_partition_count(pol), AUTOSIZE_PLAN_MAX_LAYOUTS,
	       AUTOSIZE_PLAN_MAX_SEARCH_MS, passes);
	for (i = 0; i < n; i++) {
		if (i < n_crafted)
			printf("  %-22s %8.2f ms %8ld candidates  %s\n",
			       reqs[i].name, ms[i], layouts[i],
			       autosize_action_name(action[i]));
		if (ms[i] > ms[worst])
			worst = i;
		if (layouts[i] > layouts[worst_l])
			worst_l = i;
	}
	printf("  worst of %d crafted and %d random: %.2f ms (%s), "
	       "%ld candidates (%s)\n", n_crafted, n_random, ms[worst],
	       reqs[worst].name, layouts[worst_l], reqs[worst_l].name);
	if (worst >= n_crafted) {
		printf("  slowest request:");
		for (i = 0; i < reqs[worst].n_opts; i++)
			printf(" --%s", reqs[worst].opts[i]);
		printf(" -N %ld -p '%s'\n", reqs[worst].min_nodes,
		       reqs[worst].partition);
	}
	autosize_policy_destroy(pol);
	free(w);
	free(reqs);
	free(ms);
	free(layouts);
	free(action);
	return 0;
}
