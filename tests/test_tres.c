/*
 * The GPU entry of job_desc.tres_per_node in each Slurm release's
 * spelling (core/gres.c): "gres:gpu:N" for 22.05, "gres/gpu:N" for 23.02
 * and newer, chosen from a SLURM_VERSION_NUMBER, a slurm_api_version()
 * value or the job's own entries. The spellings are the ones sbatch of
 * each release sends (src/common/slurm_opt.c) and the integration suite
 * checks each against a real slurmctld.
 */
#include "testutil.h"
#include "autosize.h"

#define VERSION_NUMBER(a, b, c) (((a) << 16) | ((b) << 8) | (c))

static void test_syntax_of_version(void **state)
{
	static const struct {
		unsigned long version;
		autosize_tres_syntax want;
	} cases[] = {
		{0, AUTOSIZE_TRES_UNKNOWN},
		{VERSION_NUMBER(22UL, 5, 8), AUTOSIZE_TRES_COLON},
		{VERSION_NUMBER(23UL, 2, 0), AUTOSIZE_TRES_SLASH},
		{VERSION_NUMBER(23UL, 11, 11), AUTOSIZE_TRES_SLASH},
		{VERSION_NUMBER(26UL, 5, 3), AUTOSIZE_TRES_SLASH},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(autosize_tres_syntax_of_version(
					 cases[i].version), cases[i].want);
}

/* slurm_api_version(): (API major << 16) | (age << 8) | revision, with
 * API major 38 for 22.05, 40 for 23.11, 45 for 26.05 (each tarball's
 * META). */
static void test_syntax_of_api(void **state)
{
	assert_int_equal(autosize_tres_syntax_of_api(38L << 16),
			 AUTOSIZE_TRES_COLON);
	assert_int_equal(autosize_tres_syntax_of_api(39L << 16),
			 AUTOSIZE_TRES_SLASH);
	assert_int_equal(autosize_tres_syntax_of_api(45L << 16),
			 AUTOSIZE_TRES_SLASH);
	/* not an API version: a SLURM_VERSION_NUMBER passed by mistake,
	 * garbage, nothing */
	assert_int_equal(autosize_tres_syntax_of_api(0),
			 AUTOSIZE_TRES_UNKNOWN);
	assert_int_equal(autosize_tres_syntax_of_api(-1),
			 AUTOSIZE_TRES_UNKNOWN);
	assert_int_equal(autosize_tres_syntax_of_api(5L << 16),
			 AUTOSIZE_TRES_UNKNOWN);
	assert_int_equal(autosize_tres_syntax_of_api(
				 VERSION_NUMBER(26L, 5, 3) << 8),
			 AUTOSIZE_TRES_UNKNOWN);
}

static void test_syntax_of_list(void **state)
{
	assert_int_equal(autosize_tres_syntax_of(NULL), AUTOSIZE_TRES_UNKNOWN);
	assert_int_equal(autosize_tres_syntax_of(""), AUTOSIZE_TRES_UNKNOWN);
	assert_int_equal(autosize_tres_syntax_of("gpu:8"),
			 AUTOSIZE_TRES_UNKNOWN);
	assert_int_equal(autosize_tres_syntax_of("license:x:1,gres/shard:1"),
			 AUTOSIZE_TRES_SLASH);
	assert_int_equal(autosize_tres_syntax_of("gres:gpu:a100:2"),
			 AUTOSIZE_TRES_COLON);
	assert_int_equal(autosize_tres_syntax_of(",,gres/gpu=4"),
			 AUTOSIZE_TRES_SLASH);
}

static void test_set_gpus_as(void **state)
{
	static const struct {
		const char *tres;
		autosize_tres_syntax syntax;
		const char *want; /* NULL: refused */
	} cases[] = {
		/* nothing given: the entry in the syntax asked for */
		{NULL, AUTOSIZE_TRES_SLASH, "gres/gpu:8"},
		{NULL, AUTOSIZE_TRES_COLON, "gres:gpu:8"},
		/* sbatch 26.05's --gpus-per-node=h100:2 --gres=shard:1 */
		{"gres/gpu:h100:2,gres/shard:1", AUTOSIZE_TRES_SLASH,
		 "gres/gpu:h100:8,gres/shard:1"},
		/* 22.05's spelling handed to a 26.05 slurmctld: respelled */
		{"gres:gpu:2", AUTOSIZE_TRES_SLASH, "gres/gpu:8"},
		/* UNKNOWN: the list's own syntax, COLON without one */
		{"gres/shard:1", AUTOSIZE_TRES_UNKNOWN,
		 "gres/gpu:8,gres/shard:1"},
		{NULL, AUTOSIZE_TRES_UNKNOWN, "gres:gpu:8"},
		/* unreadable: two GPU entries */
		{"gres/gpu:1,gres/gpu:2", AUTOSIZE_TRES_SLASH, NULL},
	};
	char out[128];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = autosize_tres_set_gpus_as(cases[i].tres, 8,
					       cases[i].syntax, out,
					       sizeof(out));
		assert_int_equal(rc, cases[i].want ? 0 : -1);
		if (cases[i].want)
			assert_string_equal(out, cases[i].want);
	}
	/* the old entry point keeps 22.05's spelling */
	assert_int_equal(autosize_tres_set_gpus("gres/gpu:2", 8, out,
						sizeof(out)), 0);
	assert_string_equal(out, "gres:gpu:8");
	/* out too small */
	assert_int_equal(autosize_tres_set_gpus_as(NULL, 8,
						   AUTOSIZE_TRES_SLASH, out,
						   10), -1);
}

/* One entry as a job's tres, a node's Gres and sacct's AllocTRES spell
 * it: count, type (NULL when untyped), not-a-GPU and unreadable. */
static void test_entry_gpus(void **state)
{
	static const struct {
		const char *entry;
		long gpus;
		const char *type;
	} cases[] = {
		{"gres:gpu:8", 8, NULL},
		{"gres/gpu:a100:2", 2, "a100"},
		{"gres/gpu=4", 4, NULL},
		{"gpu:h100:8(S:0-1)", 8, "h100"},
		{"gpu:l40s(S:0)", 1, "l40s"},
		{"gpu", 1, NULL},
		{"gres/gpu:h100=8", 1, "h100=8"},
		{"gres/gpumem=80G", AUTOSIZE_JOB_UNSET, NULL},
		{"mem=512G", AUTOSIZE_JOB_UNSET, NULL},
		{"gpu:h100:many", AUTOSIZE_JOB_UNREADABLE, "h100"},
		{"gres/gpu=-1", AUTOSIZE_JOB_UNREADABLE, NULL},
		{"gpu:99999999", AUTOSIZE_JOB_UNREADABLE, NULL},
	};
	const char *type;
	size_t i, type_len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long got = autosize_gres_entry_gpus(cases[i].entry,
						    strlen(cases[i].entry),
						    &type, &type_len);

		if (got != cases[i].gpus ||
		    (cases[i].type == NULL) != (type == NULL) ||
		    (type && (strlen(cases[i].type) != type_len ||
			      memcmp(type, cases[i].type, type_len) != 0)))
			fail_msg("'%s': %ld GPUs, type '%.*s'",
				 cases[i].entry, got, (int)type_len,
				 type ? type : "");
	}
}

/* A tres list without its GPU entries: what job_submit.lua writes into
 * tres_per_job when the module sets the GPUs per node (it read them
 * itself before: one reader of GPU requests now). */
static void test_without_gpus(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"gres:gpu:16,license:foo:1", "license:foo:1"},
		{"gres/gpu=16,gres/shard:2", "gres/shard:2"},
		{"gres:gpu:h100:8", ""},
		{"gpu,gres:gpu:a100:2,mps:100", "mps:100"},
		{"gpux:8,gres:gpus:1,license:gpu:1", "gpux:8,gres:gpus:1,"
		 "license:gpu:1"},
		{"", ""},
	};
	char out[64], tiny[4];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(autosize_tres_without_gpus(cases[i].in, out,
							    sizeof(out)),
				 (int)strlen(cases[i].out));
		assert_string_equal(out, cases[i].out);
	}
	assert_int_equal(autosize_tres_without_gpus(NULL, out, sizeof(out)),
			 0);
	assert_int_equal(autosize_tres_without_gpus("license:foo:1", tiny,
						    sizeof(tiny)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax_of_version),
		cmocka_unit_test(test_syntax_of_api),
		cmocka_unit_test(test_syntax_of_list),
		cmocka_unit_test(test_set_gpus_as),
		cmocka_unit_test(test_entry_gpus),
		cmocka_unit_test(test_without_gpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
