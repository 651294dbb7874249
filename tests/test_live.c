/* Tests: a node's GRES string read by the CLI's live check
 * (contrib/cli/live.c: live_parse_gres), from what slurmctld prints. */
#include "testutil.h"
#include "live.h"

static void test_gres(void **state)
{
	static const struct {
		const char *gres;
		int count, typed, mixed, unreadable;
		const char *type;
	} cases[] = {
		{ "gpu:8", 8, 0, 0, 0, "" },
		{ "gpu:h100:8(S:0-1)", 8, 1, 0, 0, "h100" },
		{ "gpu:h100:4(S:0,2),mps:400", 4, 1, 0, 0, "h100" },
		{ "mps:100,gpu:a100:2(S:1)", 2, 1, 0, 0, "a100" },
		{ "gpu:a100:4,gpu:v100:2", 6, 1, 1, 0, "a100" },
		{ "gpu:h100:2,gpu:h100:2", 4, 1, 0, 0, "h100" },
		{ "gpu", 1, 0, 0, 0, "" },
		{ "gpu:l40s", 1, 1, 0, 0, "l40s" },
		{ "gpu:h100:many", 0, 1, 0, 1, "h100" },
		{ "gpu:h100:9999999", 0, 1, 0, 1, "h100" },
		{ "gpux:8,gp:1,shard:4", 0, 0, 0, 0, "" },
		{ "(null)", 0, 0, 0, 0, "" },
		{ "", 0, 0, 0, 0, "" },
		{ "gpu:h100:8(S:0-1", 8, 1, 0, 0, "h100" },
		{ "gpu:a-very-long-gres-type-name-that-goes-past-the-sixty-"
		  "four-byte-buffer:2", 2, 1, 0, 0,
		  "a-very-long-gres-type-name-that-goes-past-the-sixty-four-"
		  "byte-b" },
	};
	live_gpus g;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		live_parse_gres(cases[i].gres, &g);
		if (g.count != cases[i].count || g.typed != cases[i].typed ||
		    g.mixed != cases[i].mixed ||
		    g.unreadable != cases[i].unreadable ||
		    strcmp(g.type, cases[i].type) != 0)
			fail_msg("'%s': count %d typed %d mixed %d unreadable "
				 "%d type '%s'", cases[i].gres, g.count,
				 g.typed, g.mixed, g.unreadable, g.type);
	}
	live_parse_gres(NULL, &g);
	assert_int_equal(g.count, 0);
	assert_int_equal(g.typed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gres),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
