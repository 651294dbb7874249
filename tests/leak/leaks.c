/*
 * make check-leaks: many plans and policy reloads in one process, as
 * slurmctld does over months, with no byte lost and flat memory.
 *
 *   leaks [PLANS [RELOADS]]      (default 1,000,000 and 10,000)
 *
 * Requests are built through the option setter like the front ends do.
 * Most plans pin the whole layout (one evaluation each, ~4 us); one in
 * 64 is a full search (half of them for a size the model cannot fit);
 * one in 32 is a bad request that must fail. Each
 * reload loads etc/autosize.yaml into a new policy and swaps it in, as the
 * Lua module does; every other one also loads a policy that fails late
 * (error paths leak more often than success paths) and a policy with its
 * own catalog file.
 *
 * Checks: the core's heap (counted through the linker's --wrap) is back
 * to its baseline after everything; the whole process's malloc heap
 * (mallinfo2, without ASan; libyaml's allocations included) has not grown
 * from 10% to 100% of the run; RSS from /proc/self/statm at
 * 10% and at 100% of the run differ by less than LEAKS_RSS_SLACK. Under
 * ASan (make check-leaks runs a reduced count there), LeakSanitizer
 * checks at exit.
 */
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "autosize.h"

#define LEAKS_POLICY "etc/autosize.yaml"
/* RSS growth allowed between 10% and 100% of the run. */
#define LEAKS_RSS_SLACK (512 * 1024L)

#if defined(__SANITIZE_ADDRESS__)
#define LEAKS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEAKS_ASAN 1
#endif
#endif
#ifndef LEAKS_ASAN
#define LEAKS_ASAN 0
#endif

/* The core's heap, counted through the linker's --wrap (libyaml's own
 * allocations are not seen here: mallinfo2 covers them). */
static long long leaks_live_bytes, leaks_live_blocks;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static void leaks_count(void *p, int sign)
{
	if (!p)
		return;
	leaks_live_bytes += sign * (long long)malloc_usable_size(p);
	leaks_live_blocks += sign;
}

void *__wrap_malloc(size_t n)
{
	void *p = __real_malloc(n);

	leaks_count(p, 1);
	return p;
}

void *__wrap_calloc(size_t n, size_t m)
{
	void *p = __real_calloc(n, m);

	leaks_count(p, 1);
	return p;
}

void *__wrap_realloc(void *p, size_t n)
{
	void *q;

	leaks_count(p, -1);
	q = __real_realloc(p, n);
	leaks_count(q ? q : p, 1);
	return q;
}

void __wrap_free(void *p)
{
	leaks_count(p, -1);
	__real_free(p);
}

static long leaks_rss_bytes(void)
{
	long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

static long long leaks_heap_bytes(void)
{
#if LEAKS_ASAN
	return 0;
#else
	struct mallinfo2 mi = mallinfo2();

	return (long long)mi.uordblks + (long long)mi.hblkhd;
#endif
}

static int leaks_set(autosize_request *r, const char *name,
		     const char *value)
{
	autosize_error e;

	return autosize_request_set(r, name, value, &e) == AUTOSIZE_OK;
}

/* Plan i: pinned (most), full search (1/64) or bad (1/32). Returns the
 * core's result code. */
static autosize_err leaks_plan(unsigned i, const autosize_policy *pol,
			       autosize_plan *plan)
{
	static const char *const presets[] = {"llama-2-7b", "llama-3-8b",
		"qwen2.5-7b", "llama-2-70b", "mixtral-8x7b", "gpt3-175b"};
	static const char *const gpus[] = {"h100", "a100-80gb", "l40s",
					   "mi300x", "h200", "a100-40gb"};
	static const char *const bad[][2] = {
		{"model-params", "-7e9"}, {"train-time", "1e400d"},
		{"model", "no-such-model"}, {"model", "/nonexistent/config.json"},
		{"tp", "0x10"}, {"train-mode", "sleep"},
	};
	unsigned h = i * 2654435761u;
	autosize_request r;
	autosize_error e;
	char buf[32];

	autosize_request_init(&r);
	if (i % 32 == 31) {
		const char *const *b = bad[(h >> 4) % 6];

		if (leaks_set(&r, b[0], b[1]) &&
		    autosize_request_finish(&r, &e) == AUTOSIZE_OK)
			return autosize_plan_compute(pol, &r, plan, &e);
		return AUTOSIZE_EINVAL;
	}
	/* pinned layouts with models that fit them; any for the searches */
	leaks_set(&r, "model", presets[(h >> 3) % (i % 64 ? 3 : 6)]);
	snprintf(buf, sizeof(buf), "%ue9", 1 + (h >> 7) % 500);
	leaks_set(&r, "train-tokens", buf);
	if (i % 64 == 0)
		leaks_set(&r, "train-time", "30d");
	if (i % 128 == 64) { /* does not fit: advice on what would */
		leaks_set(&r, "model", "gpt3-175b");
		leaks_set(&r, "gpu", "l40s");
		leaks_set(&r, "gpus", "8");
	}
	if (autosize_policy_partition_count(pol) == 0 || i % 2)
		leaks_set(&r, "gpu", gpus[(h >> 11) % 6]);
	if (i % 64 != 0) {
		/* the whole layout pinned: one evaluation (a pinned node
		 * count would also search, to warn about oversizing) */
		leaks_set(&r, "dp", (h >> 13) % 2 ? "2" : "1");
		leaks_set(&r, "tp", "8");
		leaks_set(&r, "pp", (h >> 17) % 2 ? "2" : "1");
		leaks_set(&r, "zero", "1");
		leaks_set(&r, "recompute", "full");
		leaks_set(&r, "micro-batch", "1");
	}
	if (autosize_request_finish(&r, &e))
		return e.code;
	return autosize_plan_compute(pol, &r, plan, &e);
}

static char leaks_bad_path[64], leaks_cat_path[64];

/* A policy that fails at its last line, and one with its own catalog. */
static int leaks_write_files(void)
{
	char cwd[PATH_MAX], text[PATH_MAX + 256];
	FILE *f;
	int fd;

	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(leaks_bad_path, sizeof(leaks_bad_path),
		 "/tmp/autosize-leaks-XXXXXX");
	fd = mkstemp(leaks_bad_path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fputs("defaults:\n  mode: rewrite\n  memory_reserve: 0.2\n"
	      "partitions:\n  - name: a\n    gpu: h100\n    gpus_per_node: 8\n"
	      "    nodes: 4\n    network: ib\n    network_gbps_per_node: 1600\n"
	      "  - name: b\n    gpu: h100\n"
	      "    gpus_per_node: 8\n    nodes: 4\n    network: ib\n"
	      "    network_gbps_per_node: 1600\n"
	      "    price_per_gpu_hour: -1\n", f);
	fclose(f);
	snprintf(leaks_cat_path, sizeof(leaks_cat_path),
		 "/tmp/autosize-leaks-XXXXXX");
	fd = mkstemp(leaks_cat_path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	snprintf(text, sizeof(text),
		 "catalog: %s/etc/gpus.yaml\npartitions:\n  - name: a\n"
		 "    gpu: a100-80gb\n    gpus_per_node: 8\n    nodes: 16\n"
		 "    network: roce\n    network_gbps_per_node: 800\n",
		 cwd);
	fputs(text, f);
	fclose(f);
	return 0;
}

/* One reload as a daemon does it: a new policy, swapped in on success. */
static autosize_policy *leaks_reload(autosize_policy *cur, unsigned k)
{
	autosize_error e;
	autosize_policy *p, *extra;

	p = autosize_policy_load(LEAKS_POLICY, &e);
	if (!p) {
		fprintf(stderr, "leaks: reload %u: %s\n", k, e.msg);
		exit(1);
	}
	if (k % 2) {
		extra = autosize_policy_load(leaks_bad_path, &e);
		if (extra || e.code == AUTOSIZE_OK) {
			fprintf(stderr, "leaks: bad policy accepted\n");
			exit(1);
		}
		extra = autosize_policy_load(leaks_cat_path, &e);
		if (!extra) {
			fprintf(stderr, "leaks: %s\n", e.msg);
			exit(1);
		}
		autosize_policy_destroy(extra);
	}
	autosize_policy_destroy(cur);
	return p;
}

int main(int argc, char **argv)
{
	long plans = argc > 1 ? atol(argv[1]) : 1000000;
	long reloads = argc > 2 ? atol(argv[2]) : 10000;
	long i, every, ok = 0, nofit = 0, bad = 0, done_reloads = 0;
	long rss10 = -1, rss100;
	long long core0, heap0, core_end, heap_end;
	autosize_policy *site, *bare;
	autosize_plan *plan = malloc(sizeof(*plan));
	autosize_error e;
	struct timespec t0, t1;
	int fail = 0;

	if (plans < 10 || reloads < 1 || !plan || leaks_write_files()) {
		fprintf(stderr, "usage: leaks [PLANS>=10 [RELOADS>=1]] (from "
			"the repository root)\n");
		return 2;
	}
	site = autosize_policy_load(LEAKS_POLICY, &e);
	bare = autosize_policy_default(&e);
	if (!site || !bare) {
		fprintf(stderr, "leaks: %s\n", e.msg);
		return 1;
	}
	/* warm up: preset table, stdio, malloc arenas */
	for (i = 0; i < 256; i++)
		leaks_plan((unsigned)i, i % 2 ? site : bare, plan);
	site = leaks_reload(site, 1);
	leaks_rss_bytes();
	core0 = leaks_live_bytes;
	heap0 = leaks_heap_bytes();
	every = plans / reloads > 0 ? plans / reloads : 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < plans; i++) {
		switch (leaks_plan((unsigned)i, i % 2 ? site : bare, plan)) {
		case AUTOSIZE_OK: ok++; break;
		case AUTOSIZE_ENOFIT: nofit++; break;
		default: bad++; break;
		}
		if (i % every == every - 1 && done_reloads < reloads)
			site = leaks_reload(site, (unsigned)done_reloads++);
		if (i == plans / 10) {
			/* libc's one-time allocations (locale, stdio) are
			 * done by now: the process heap is compared from
			 * here, the core's own heap from the start. */
			rss10 = leaks_rss_bytes();
			heap0 = leaks_heap_bytes();
		}
	}
	while (done_reloads < reloads)
		site = leaks_reload(site, (unsigned)done_reloads++);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rss100 = leaks_rss_bytes();
	core_end = leaks_live_bytes;
	heap_end = leaks_heap_bytes();

	printf("leaks: %ld plans (%ld feasible, %ld not feasible, %ld bad "
	       "requests refused) and %ld policy reloads in %.1f s\n", plans,
	       ok, nofit, bad, done_reloads,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	printf("leaks: core heap %+lld bytes (%lld blocks live, as at "
	       "start)\n", core_end - core0, leaks_live_blocks);
	if (!LEAKS_ASAN)
		printf("leaks: process heap (mallinfo2) %+lld bytes from 10%%\n",
		       heap_end - heap0);
	printf("leaks: RSS %ld KiB at 10%%, %ld KiB at 100%% (%+ld KiB)\n",
	       rss10 / 1024, rss100 / 1024, (rss100 - rss10) / 1024);
	if (ok == 0 || nofit + ok == 0 || bad == 0) {
		fprintf(stderr, "leaks: FAILED: the mix did not exercise plans "
			"and errors\n");
		fail = 1;
	}
	if (core_end != core0) {
		fprintf(stderr, "leaks: FAILED: %lld bytes of the core's heap "
			"not freed\n", core_end - core0);
		fail = 1;
	}
	if (!LEAKS_ASAN && heap_end > heap0) {
		fprintf(stderr, "leaks: FAILED: the heap grew by %lld bytes\n",
			heap_end - heap0);
		fail = 1;
	}
	/* ASan's quarantine and valgrind make RSS meaningless */
	if (!LEAKS_ASAN && !getenv("AUTOSIZE_LEAKS_NO_RSS") &&
	    (rss10 < 0 || rss100 < 0 || rss100 - rss10 > LEAKS_RSS_SLACK)) {
		fprintf(stderr, "leaks: FAILED: RSS grew by %ld bytes (at most "
			"%ld)\n", rss100 - rss10, LEAKS_RSS_SLACK);
		fail = 1;
	}
	autosize_policy_destroy(site);
	autosize_policy_destroy(bare);
	free(plan);
	unlink(leaks_bad_path);
	unlink(leaks_cat_path);
	if (leaks_live_blocks != 0) {
		fprintf(stderr, "leaks: FAILED: %lld blocks still live at "
			"exit\n", leaks_live_blocks);
		fail = 1;
	}
	printf("leaks: %s\n", fail ? "FAILED" : "ok: zero bytes lost, flat "
	       "memory");
	return fail;
}
