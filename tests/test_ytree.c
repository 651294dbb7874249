/* Tests: the internal YAML tree and its typed getters (util/ytree.c). */
#include "testutil.h"
#include "ytree.h"
#include "readfile.h"
#include "ytest.h"

#define WHAT "t.yaml"

static const char *const doc =
	"num: 2.5\n"                 /* 1 */
	"int: -42\n"                 /* 2 */
	"yes_: YES\n"                /* 3 */
	"no_: false\n"               /* 4 */
	"str: \"hi there\"\n"        /* 5 */
	"nul1: ~\n"                  /* 6 */
	"nul2: null\n"               /* 7 */
	"nul3:\n"                    /* 8 */
	"qnul: \"null\"\n"           /* 9 */
	"empty: \"\"\n"              /* 10 */
	"word: NvLink\n"             /* 11 */
	"list:\n"                    /* 12 */
	"  - a\n"                    /* 13 */
	"  - {b: 1}\n"               /* 14 */
	"map: {x: 1, y: [2, 3]}\n"   /* 15 */
	"tab: \"a\\tb\"\n"           /* 16 */
	"plus: +7\n";                /* 17 */

static autosize_ytree *parse_doc(void)
{
	autosize_error e;
	autosize_ytree *t = autosize_ytree_parse(doc, strlen(doc), WHAT, &e);

	if (!t)
		fail_msg("%s", e.msg);
	return t;
}

static void test_tree_shape(void **state)
{
	autosize_ytree *t = parse_doc();
	const autosize_ynode *root = autosize_ytree_root(t), *n, *c;

	(void)state;
	assert_string_equal(autosize_ytree_what(t), WHAT);
	assert_int_equal(root->kind, AUTOSIZE_YNODE_MAP);
	assert_int_equal(root->n_children, 15);
	n = autosize_ynode_get(root, "list");
	assert_non_null(n);
	assert_int_equal(n->kind, AUTOSIZE_YNODE_SEQ);
	assert_int_equal(n->key_line, 12);
	assert_int_equal(n->n_children, 2);
	c = n->child;
	assert_int_equal(c->kind, AUTOSIZE_YNODE_SCALAR);
	assert_string_equal(c->value, "a");
	assert_int_equal(c->line, 13);
	assert_null(c->key);
	c = c->next;
	assert_int_equal(c->kind, AUTOSIZE_YNODE_MAP);
	assert_int_equal(c->line, 14);
	assert_null(c->next);
	n = autosize_ynode_get(root, "map");
	assert_int_equal(n->kind, AUTOSIZE_YNODE_MAP);
	assert_int_equal(autosize_ynode_get(n, "y")->n_children, 2);
	assert_null(autosize_ynode_get(root, "nope"));
	assert_null(autosize_ynode_get(NULL, "num"));
	assert_null(autosize_ynode_get(n->child, "x")); /* not a mapping */

	assert_true(autosize_ynode_is_null(NULL));
	assert_true(autosize_ynode_is_null(autosize_ynode_get(root, "nul1")));
	assert_true(autosize_ynode_is_null(autosize_ynode_get(root, "nul2")));
	assert_true(autosize_ynode_is_null(autosize_ynode_get(root, "nul3")));
	assert_false(autosize_ynode_is_null(autosize_ynode_get(root, "qnul")));
	assert_false(autosize_ynode_is_null(autosize_ynode_get(root,
								"empty")));
	assert_false(autosize_ynode_is_null(autosize_ynode_get(root, "map")));
	autosize_ytree_destroy(t);
	autosize_ytree_destroy(NULL);
}

static void test_getters(void **state)
{
	static const char *const words[] = { "nvlink", "pcie", NULL };
	autosize_ytree *t = parse_doc();
	const autosize_ynode *root = autosize_ytree_root(t), *seq, *m;
	autosize_error e;
	double d = -1;
	int i = -1, found = -1;
	char buf[16];

	(void)state;
	assert_int_equal(autosize_ytree_double(t, root, "num", 0, 0, 10, &d,
					       &found, &e), AUTOSIZE_OK);
	assert_true(d == 2.5);
	assert_int_equal(found, 1);
	d = 7;
	assert_int_equal(autosize_ytree_double(t, root, "absent", 0, 0, 10,
					       &d, &found, &e), AUTOSIZE_OK);
	assert_true(d == 7); /* untouched */
	assert_int_equal(found, 0);
	assert_int_equal(autosize_ytree_double(t, root, "nul1", 0, 0, 10,
					       &d, &found, &e), AUTOSIZE_OK);
	assert_int_equal(found, 0);
	assert_int_equal(autosize_ytree_double(t, root, "nul2",
					       AUTOSIZE_Y_REQUIRED, 0, 10,
					       &d, NULL, &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 7, "key 'nul2': no value");
	assert_int_equal(autosize_ytree_double(t, root, "absent",
					       AUTOSIZE_Y_REQUIRED, 0, 10,
					       &d, NULL, &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "key 'absent' is missing");
	assert_int_equal(autosize_ytree_double(t, root, "num",
					       AUTOSIZE_Y_GT_MIN, 2.5, 10,
					       &d, NULL, &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1,
			"key 'num': 2.5 is out of range (expected a number > 2.5 and <= 10)");
	assert_int_equal(autosize_ytree_double(t, root, "qnul", 0, 0, 10,
					       &d, NULL, &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 9, "key 'qnul': 'null' is not a number");

	assert_int_equal(autosize_ytree_int(t, root, "int", 0, -100, 100, &i,
					    &found, &e), AUTOSIZE_OK);
	assert_int_equal(i, -42);
	assert_int_equal(autosize_ytree_int(t, root, "plus", 0, 0, 100, &i,
					    NULL, &e), AUTOSIZE_OK);
	assert_int_equal(i, 7);
	assert_int_equal(autosize_ytree_int(t, root, "int", 0, 0, 100, &i,
					    NULL, &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 2, "key 'int': -42 is out of range");
	assert_int_equal(autosize_ytree_int(t, root, "num", 0, 0, 100, &i,
					    NULL, &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "key 'num': '2.5' is not a whole number");

	assert_int_equal(autosize_ytree_bool(t, root, "yes_", 0, &i, NULL,
					     &e), AUTOSIZE_OK);
	assert_int_equal(i, 1);
	assert_int_equal(autosize_ytree_bool(t, root, "no_", 0, &i, NULL,
					     &e), AUTOSIZE_OK);
	assert_int_equal(i, 0);
	assert_int_equal(autosize_ytree_bool(t, root, "str", 0, &i, NULL,
					     &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 5,
			"key 'str': 'hi there' is not a boolean (expected true or false)");

	assert_int_equal(autosize_ytree_str(t, root, "str", 0, buf,
					    sizeof(buf), &found, &e),
			 AUTOSIZE_OK);
	assert_string_equal(buf, "hi there");
	assert_int_equal(autosize_ytree_str(t, root, "qnul", 0, buf,
					    sizeof(buf), &found, &e),
			 AUTOSIZE_OK);
	assert_string_equal(buf, "null");
	assert_int_equal(autosize_ytree_str(t, root, "str", 0, buf, 8, NULL,
					    &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 5, "key 'str': 'hi there' is too long (expected at most 7 characters)");
	assert_int_equal(autosize_ytree_str(t, root, "tab", 0, buf,
					    sizeof(buf), NULL, &e),
			 AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 16, "key 'tab': 'a?b' has a control character");
	assert_int_equal(autosize_ytree_str(t, root, "empty", 0, buf,
					    sizeof(buf), NULL, &e),
			 AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 10, "key 'empty': empty text");

	assert_int_equal(autosize_ytree_choice(t, root, "word", 0, words, &i,
					       NULL, &e), AUTOSIZE_OK);
	assert_int_equal(i, 0);
	assert_int_equal(autosize_ytree_choice(t, root, "str", 0, words, &i,
					       NULL, &e), AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 5,
			"key 'str': 'hi there' is not valid (expected nvlink or pcie)");

	assert_int_equal(autosize_ytree_seq(t, root, "list", 0, 2, &seq, &e),
			 AUTOSIZE_OK);
	assert_non_null(seq);
	assert_int_equal(autosize_ytree_seq(t, root, "list", 0, 1, &seq, &e),
			 AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 12, "key 'list': 2 items (expected at most 1)");
	assert_int_equal(autosize_ytree_seq(t, root, "nul1", 0, 1, &seq, &e),
			 AUTOSIZE_OK);
	assert_null(seq);
	assert_int_equal(autosize_ytree_map(t, root, "map", 0, &m, &e),
			 AUTOSIZE_OK);
	assert_non_null(m);
	assert_int_equal(autosize_ytree_map(t, root, "list", 0, &m, &e),
			 AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 12, "key 'list': expected a mapping, got a list");
	assert_int_equal(autosize_ytree_text(t, root, "str", &e), AUTOSIZE_OK);
	assert_int_equal(autosize_ytree_text(t, root, "map", &e),
			 AUTOSIZE_EINVAL);
	autosize_ytree_destroy(t);
}

static void test_check_keys(void **state)
{
	static const char *const known[] = { "x", "y", NULL };
	static const char *const few[] = { "x", NULL };
	autosize_ytree *t = parse_doc();
	const autosize_ynode *m = autosize_ynode_get(autosize_ytree_root(t),
						     "map");
	autosize_error e;

	(void)state;
	assert_int_equal(autosize_ytree_check_keys(t, m, "thing", known, &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_ytree_check_keys(t, m, "thing", few, &e),
			 AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 15,
			"unknown key 'y' in thing; known keys: x");
	assert_string_equal(e.msg,
			    "t.yaml:15: unknown key 'y' in thing; known keys: x");
	autosize_ytree_destroy(t);
}

static void test_excerpt(void **state)
{
	char buf[64];
	const char *s = "\x1b[31m\n";

	(void)state;
	assert_string_equal(autosize_ytree_excerpt(s, strlen(s), buf,
						   sizeof(buf)), "?[31m?");
	autosize_ytree_excerpt("0123456789012345678901234567890123456789"
			       "0123456789", 50, buf, sizeof(buf));
	assert_string_equal(buf, "0123456789012345678901234567890123456789...");
	/* never cut inside a UTF-8 character: 39 x 'a' then 'é' */
	autosize_ytree_excerpt("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9zzz",
			       44, buf, sizeof(buf));
	assert_string_equal(buf, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...");
	assert_string_equal(autosize_ytree_excerpt(NULL, 0, buf, sizeof(buf)),
			    "");
}

static void test_read_file(void **state)
{
	char path[64], *buf;
	size_t len;
	autosize_error e;

	(void)state;
	test_write_tmp(path, sizeof(path), "hello\n");
	assert_int_equal(autosize_read_regular_file(path, 100, NULL, &buf,
						    &len, &e), AUTOSIZE_OK);
	assert_int_equal(len, 6);
	assert_string_equal(buf, "hello\n");
	free(buf);
	/* exactly at the cap is fine, one byte over is not */
	assert_int_equal(autosize_read_regular_file(path, 6, NULL, &buf,
						    &len, &e), AUTOSIZE_OK);
	free(buf);
	assert_int_equal(autosize_read_regular_file(path, 5, "JSON file",
						    &buf, &len, &e),
			 AUTOSIZE_ETOOBIG);
	assert_null(buf);
	ytest_check_msg(&e, path, 0, ": 6 bytes, larger than the 5-byte limit");
	unlink(path);
	assert_int_equal(autosize_read_regular_file("/tmp", 5, "JSON file",
						    &buf, &len, &e),
			 AUTOSIZE_EIO);
	assert_string_equal(e.msg, "/tmp: is a directory, expected a JSON file");
	assert_int_equal(autosize_read_regular_file("", 5, NULL, &buf, &len,
						    &e), AUTOSIZE_EIO);
}

static void test_duplicate_keys(void **state)
{
	static const char *const text =
		"a: 1\n"
		"b:\n"
		"  c: 1\n"
		"  d: 2\n"
		"  c: 3\n";
	autosize_error e;

	(void)state;
	assert_null(autosize_ytree_parse(text, strlen(text), WHAT, &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	assert_string_equal(e.msg,
			    "t.yaml:5: key 'c': duplicate key (first at line 3)");
	/* the same key in different mappings is fine */
	{
		static const char *const ok = "a: {c: 1}\nb: {c: 1}\n";
		autosize_ytree *t = autosize_ytree_parse(ok, strlen(ok), WHAT,
							 &e);

		assert_non_null(t);
		autosize_ytree_destroy(t);
	}
	/* a mapping as a key */
	assert_null(autosize_ytree_parse("? {a: 1}\n: 2\n", 13, WHAT, &e));
	ytest_check_msg(&e, WHAT, 1, "as a mapping key is not allowed");
}

/* The node cap of site and user files (AUTOSIZE_YTREE_MAX_NODES) holds
 * for autosize_ytree_load; the project's own data files
 * (autosize_ytree_load_data: tests/validation/runs.yaml) get the larger
 * data cap, and still a cap. */
static void test_data_cap(void **state)
{
	/* "- 1\n" is one node a line */
	size_t line = 4, n = AUTOSIZE_YTREE_MAX_NODES + 10;
	char path[64], *text = malloc(n * line + 1);
	autosize_ytree *t;
	autosize_error e;
	size_t i;
	FILE *f;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		memcpy(text + i * line, "- 1\n", line);
	text[n * line] = '\0';
	test_write_tmp(path, sizeof(path), text);
	free(text);
	assert_null(autosize_ytree_load(path, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	assert_non_null(strstr(e.msg, "more than 20000 YAML nodes"));
	t = autosize_ytree_load_data(path, &e);
	assert_non_null(t);
	assert_int_equal(autosize_ytree_root(t)->n_children, (int)n);
	autosize_ytree_destroy(t);
	/* past the data cap too: refused, not read */
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i < (size_t)AUTOSIZE_YTREE_DATA_MAX_NODES + 1; i++)
		assert_int_equal(fputs("- 1\n", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_null(autosize_ytree_load_data(path, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_shape),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_check_keys),
		cmocka_unit_test(test_excerpt),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_data_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
