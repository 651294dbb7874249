/* Tests: a node's GRES string read by the CLI's live check
 * (cli/live.c: live_parse_gres), from what slurmctld prints;
 * the policy `autosize inventory` writes for a cluster
 * (cli/inventory.c) and check-config --live's view of it. */
#include "testutil.h"
#include "live.h"
#include "acct.h"
#ifdef AUTOSIZE_HAVE_SLURM
#include <slurm/slurm.h>
#endif

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

/* A cluster of n H100 partitions: part000, part001, ... */
static live_cluster *inv_cluster(int n)
{
	live_cluster *c = calloc(1, sizeof(*c));
	int i;

	assert_non_null(c);
	for (i = 0; i < n; i++) {
		live_part *p = &c->parts[c->n++];

		snprintf(p->name, sizeof(p->name), "part%03d", i);
		p->nodes = p->nodes_seen = 2;
		p->up = 1;
		p->gpus_min = p->gpus_max = 8;
		p->typed_nodes = 2;
		snprintf(p->gpu_type, sizeof(p->gpu_type), "h100");
		p->n_types = 1;
		snprintf(p->types[0], sizeof(p->types[0]), "h100");
		p->type_nodes[0] = 2;
		p->type_gpus[0] = 8;
	}
	return c;
}

/* What inventory writes for c, loaded back as a policy (NULL: refused,
 * the message in e). */
static autosize_policy *inv_policy(const live_cluster *c, int *active,
				   int *gpu_parts, char **text,
				   autosize_error *e)
{
	autosize_catalog *cat = autosize_catalog_default(e);
	autosize_policy *p;
	size_t len = 0;
	FILE *f;

	assert_non_null(cat);
	f = open_memstream(text, &len);
	assert_non_null(f);
	*active = live_inventory_write(f, cat, c, NULL, gpu_parts);
	assert_int_equal(fclose(f), 0);
	p = autosize_policy_parse(*text, len, "inventory", ".", e);
	autosize_catalog_destroy(cat);
	return p;
}

/* 146 GPU partitions: all written, the first 32 active, the other 114
 * commented out with the reason; check-config accepts the file, and the
 * live check finds a partition past the 128th. */
static void test_inventory_many(void **state)
{
	live_cluster *c = inv_cluster(146);
	autosize_policy *p;
	autosize_error e;
	char *text = NULL;
	int active, gpu_parts, rv, out;

	(void)state;
	p = inv_policy(c, &active, &gpu_parts, &text, &e);
	if (!p)
		fail_msg("refused: %s", e.msg);
	assert_int_equal(active, AUTOSIZE_MAX_PARTITIONS);
	assert_int_equal(gpu_parts, 146);
	assert_int_equal(autosize_policy_partition_count(p),
			 AUTOSIZE_MAX_PARTITIONS);
	assert_non_null(strstr(text, "\n  - name: \"part031\"\n"));
	assert_non_null(strstr(text, "\n  # - name: \"part032\"\n"));
	assert_non_null(strstr(text, "\n  # - name: \"part145\"\n"));
	assert_non_null(strstr(text, "the policy holds at most 32"));
	assert_non_null(live_find(c, "part140"));
	/* the live check of it: the 32 partitions agree, no error */
	out = dup(STDOUT_FILENO);
	assert_non_null(freopen("/dev/null", "w", stdout));
	rv = cli_live_compare(p, c, 0);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	close(out);
	assert_int_equal(rv, 0);
	free(text);
	autosize_policy_destroy(p);
	free(c);
}

/* Names YAML would misread, written quoted: the policy reads them back
 * as the same strings; names it cannot hold are commented out, never
 * breaking the comment (a newline in a name stays escaped). */
static void test_inventory_quoting(void **state)
{
	static const char *const names[] = {
		"null", "true", "no", "NULL", "1e3", "0x10", "123", ".inf",
		"~", "a:b", "a#b", "a b", "it's", "q\"x", "line\nbreak",
		"-", "- x"
	};
	const size_t n = sizeof(names) / sizeof(names[0]);
	live_cluster *c = inv_cluster((int)n);
	autosize_policy *p;
	autosize_error e;
	char *text = NULL, q[64];
	int active, gpu_parts, found = 0;
	size_t i;

	(void)state;
	for (i = 0; i < n; i++)
		snprintf(c->parts[i].name, sizeof(c->parts[i].name), "%s",
			 names[i]);
	p = inv_policy(c, &active, &gpu_parts, &text, &e);
	if (!p)
		fail_msg("refused: %s\n%s", e.msg, text);
	assert_null(strstr(text, "\nbreak"));
	for (i = 0; i < n; i++) {
		const autosize_partition *pt =
			autosize_policy_find_partition(p, names[i]);

		if (strspn(names[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
			   "OPQRSTUVWXYZ0123456789_.-") == strlen(names[i])) {
			if (!pt)
				fail_msg("'%s' not read back:\n%s", names[i],
					 text);
			assert_string_equal(pt->name, names[i]);
			found++;
		} else {
			assert_null(pt);
		}
	}
	assert_int_equal(active, found);
	assert_int_equal(autosize_policy_partition_count(p), found);
	assert_string_equal(live_yaml_quote("a\"b\\c\x01\xc3", q, sizeof(q)),
			    "\"a\\\"b\\\\c\\x01\\xc3\"");
	assert_string_equal(live_yaml_quote("abcdefgh", q, 8), "\"ab\"");
	/* none writable: all commented out, none active (the CLI exits 1
	 * saying so) */
	for (i = 0; i < n; i++)
		c->parts[i].gpu_mixed = 1;
	free(text);
	autosize_policy_destroy(p);
	p = inv_policy(c, &active, &gpu_parts, &text, &e);
	assert_int_equal(active, 0);
	assert_int_equal(gpu_parts, (int)n);
	assert_null(strstr(text, "\n  - name:"));
	free(text);
	autosize_policy_destroy(p);
	free(c);
}


/* A partition of two GPU types: one entry per type, each its gres_type,
 * nodes and GPUs per node; the live check agrees; a policy entry naming
 * a type the nodes lack is an error. */
static void test_inventory_types(void **state)
{
	live_cluster *c = inv_cluster(1);
	live_part *lp = &c->parts[0];
	const autosize_partition *a, *b;
	autosize_policy *p;
	autosize_error e;
	char *text = NULL;
	int active, gpu_parts, rv, out;

	(void)state;
	lp->gpu_mixed = 1;
	lp->nodes = lp->nodes_seen = 6;
	lp->typed_nodes = 6;
	lp->n_types = 2;
	snprintf(lp->types[1], sizeof(lp->types[1]), "a100");
	lp->type_nodes[0] = 2;
	lp->type_nodes[1] = 4;
	lp->type_gpus[1] = 4;
	p = inv_policy(c, &active, &gpu_parts, &text, &e);
	if (!p)
		fail_msg("refused: %s\n%s", e.msg, text);
	assert_int_equal(active, 2);
	assert_int_equal(autosize_policy_partition_count(p), 2);
	a = autosize_policy_partition_at(p, 0);
	b = autosize_policy_partition_at(p, 1);
	assert_string_equal(a->gres_type, "h100");
	assert_string_equal(b->gres_type, "a100");
	assert_int_equal(a->nodes, 2);
	assert_int_equal(b->nodes, 4);
	assert_int_equal(b->gpus_per_node, 4);
	out = dup(STDOUT_FILENO);
	assert_non_null(freopen("/dev/null", "w", stdout));
	rv = cli_live_compare(p, c, 0);
	snprintf(lp->types[1], sizeof(lp->types[1]), "l40s");
	rv = rv * 10 + cli_live_compare(p, c, 0);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	close(out);
	assert_int_equal(rv, 1);  /* 0, then 1: gres_type a100 is not there */
	free(text);
	autosize_policy_destroy(p);
	free(c);
}

/* The accounting path's liveness over slurmctld's numeric states: a job
 * whose base state is COMPLETED but which is COMPLETING or STAGE_OUT, or
 * held after a requeue, has not ended (issue 34: the accounting record
 * of such a job was modified while slurmctld still sends its end). */
static void test_acct_state_live(void **state)
{
#ifdef AUTOSIZE_HAVE_SLURM
	assert_true(acct_state_live(JOB_PENDING));
	assert_true(acct_state_live(JOB_RUNNING));
	assert_true(acct_state_live(JOB_SUSPENDED));
	assert_true(acct_state_live(JOB_COMPLETE | JOB_COMPLETING));
	assert_true(acct_state_live(JOB_CANCELLED | JOB_COMPLETING));
	assert_true(acct_state_live(JOB_COMPLETE | JOB_STAGE_OUT));
	assert_true(acct_state_live(JOB_PENDING | JOB_REQUEUE_HOLD));
	assert_true(acct_state_live(JOB_COMPLETE | JOB_REQUEUE_HOLD));
	assert_true(acct_state_live(JOB_PREEMPTED | JOB_REQUEUE));
	assert_true(acct_state_live(JOB_RUNNING | JOB_CONFIGURING));
	assert_true(acct_state_live(JOB_RUNNING | JOB_SIGNALING));
	assert_true(acct_state_live(JOB_FAILED | JOB_SPECIAL_EXIT));
	assert_false(acct_state_live(JOB_COMPLETE));
	assert_false(acct_state_live(JOB_TIMEOUT));
	assert_false(acct_state_live(JOB_PREEMPTED));
	assert_false(acct_state_live(JOB_NODE_FAIL | JOB_LAUNCH_FAILED));
	assert_false(acct_state_live(JOB_OOM));
	assert_false(acct_state_live(JOB_CANCELLED | JOB_REVOKED));
	assert_false(acct_state_live(0xfe));    /* no such base state */
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gres),
		cmocka_unit_test(test_acct_state_live),
		cmocka_unit_test(test_inventory_many),
		cmocka_unit_test(test_inventory_types),
		cmocka_unit_test(test_inventory_quoting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
