/*
 * The option table (core/options.c) is the one source of an option's
 * name, value form and help: every row has a reader, a choice's form in
 * --help is its accepted spellings, and the man pages give each option
 * with the form the table has.
 */
#include "testutil.h"
#include "autosize.h"

#define OPTS_PAGE_MAX (256 * 1024)

/* A man page's text with the font escapes dropped and "\-" read as "-",
 * as a reader sees it. */
static char *opts_read_page(const char *path)
{
	FILE *f = fopen(path, "r");
	char *raw, *out, *p, *q;
	size_t n;

	assert_non_null(f);
	raw = calloc(1, OPTS_PAGE_MAX);
	out = calloc(1, OPTS_PAGE_MAX);
	assert_non_null(raw);
	assert_non_null(out);
	n = fread(raw, 1, OPTS_PAGE_MAX - 1, f);
	fclose(f);
	assert_true(n < OPTS_PAGE_MAX - 1);
	for (p = raw, q = out; *p; p++) {
		if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 2;
			continue;
		}
		if (p[0] == '\\' && p[1] == '-') {
			*q++ = '-';
			p++;
			continue;
		}
		*q++ = *p;
	}
	free(raw);
	return out;
}

/* Where text has "--name" as a whole option name, or NULL. */
static const char *opts_find(const char *text, const char *name)
{
	char want[64];
	const char *p = text;
	size_t n;

	n = (size_t)snprintf(want, sizeof(want), "--%s", name);
	while ((p = strstr(p, want))) {
		char c = p[n];

		if (c != '-' && (c < 'a' || c > 'z') && (c < '0' || c > '9'))
			return p;
		p += n;
	}
	return NULL;
}

static void test_every_row_has_a_reader(void **state)
{
	const autosize_option *o;
	int n = 0;

	(void)state;
	for (o = autosize_options(); o->name; o++, n++) {
		assert_non_null(o->setter);
		assert_non_null(o->arg);
		assert_non_null(o->help);
		assert_true(o->where & (AUTOSIZE_OPT_CLI | AUTOSIZE_OPT_SPANK));
		assert_ptr_equal(autosize_option_find(o->name), o);
	}
	assert_true(n > 40);
}

/* "--train-mode=pretrain|finetune|lora|qlora" in --help is the list the
 * parser accepts, in its order; on|off options accept more spellings. */
static void test_choice_forms(void **state)
{
	const autosize_option *o;
	int n = 0;

	(void)state;
	for (o = autosize_options(); o->name; o++) {
		const char *const *c = autosize_option_choices(o);
		char form[128] = "";
		size_t i;

		if (!c)
			continue;
		n++;
		if (strcmp(c[0], "off") == 0 && strcmp(c[1], "on") == 0) {
			assert_string_equal(o->arg, "on|off");
			continue;
		}
		for (i = 0; c[i]; i++) {
			if (i)
				strcat(form, "|");
			strcat(form, c[i]);
		}
		if (strcmp(o->arg, form) != 0)
			fail_msg("--%s: --help says %s, the parser takes %s",
				 o->name, o->arg, form);
	}
	assert_true(n >= 9);
}

/* autosize(1) gives every option as --name=FORM; spank_autosize(8)
 * gives every sbatch option, with the same form where an entry's tag
 * shows one (prose may show a value: --autosize=off). */
static void test_man_pages(void **state)
{
	char *cli = opts_read_page("man/autosize.1.in");
	char *spank = opts_read_page("man/spank_autosize.8.in");
	const autosize_option *o;

	(void)state;
	for (o = autosize_options(); o->name; o++) {
		size_t n = strlen(o->name) + 2;
		const char *p;
		int formed = 0;

		for (p = cli; (p = opts_find(p, o->name)); p += n)
			if (p[n] == '=' &&
			    strncmp(p + n + 1, o->arg, strlen(o->arg)) == 0)
				formed = 1;
		if (!formed)
			fail_msg("autosize(1) lacks --%s=%s", o->name, o->arg);
		if (!(o->where & AUTOSIZE_OPT_SPANK))
			continue;
		if (!opts_find(spank, o->name))
			fail_msg("spank_autosize(8) lacks --%s", o->name);
		for (p = spank; (p = opts_find(p, o->name)); p += n)
			if (p > spank && p[-1] == '\n' && p[n] == '=' &&
			    strncmp(p + n + 1, o->arg, strlen(o->arg)) != 0)
				fail_msg("spank_autosize(8) writes --%s=%.20s, "
					 "the table --%s=%s", o->name,
					 p + n + 1, o->name, o->arg);
	}
	free(cli);
	free(spank);
}

/* Names in any case, kept as the tables spell them; other words for a
 * choice (sft) read as its name. */
static void test_names_any_case(void **state)
{
	static const char *const same[][3] = {
		{"train-mode", "SFT", "finetune"},
		{"train-mode", "sft", "finetune"},
		{"train-mode", "Full", "finetune"},
		{"train-mode", "QLoRA", "qlora"},
		{"train-framework", "FSDP", "fsdp"},
		{"train-precision", "BF16", "bf16"},
		{"autosize", "Explain", "explain"},
	};
	autosize_request r;
	autosize_error e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		autosize_request a, b;

		autosize_request_init(&a);
		autosize_request_init(&b);
		if (autosize_request_set(&a, same[i][0], same[i][1], &e))
			fail_msg("--%s=%s: %s", same[i][0], same[i][1], e.msg);
		assert_int_equal(autosize_request_set(&b, same[i][0],
						      same[i][2], &e), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "train-stack", "HF", &e), 0);
	assert_string_equal(r.stack, "hf");
	assert_int_equal(autosize_request_set(&r, "train-stack", "TorchTune",
					      &e), 0);
	assert_string_equal(r.stack, "torchtune");
	/* an unknown word still lists the names */
	assert_int_equal(autosize_request_set(&r, "train-mode", "rlhf", &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "pretrain|finetune|lora|qlora"));
}

/* What cannot both hold is refused in one line naming both, in the
 * daemons as on the command line (autosize_request_finish). */
static void test_contradictions(void **state)
{
	static const char *const bad[][5] = {
		{"train-stack", "hf", "train-framework", "megatron",
		 "--train-stack hf runs fsdp or deepspeed, not "
		 "--train-framework megatron"},
		{"train-stack", "torchtune", "train-framework", "deepspeed",
		 "--train-stack torchtune runs fsdp, not --train-framework "
		 "deepspeed"},
		{"train-stack", "nemo", "train-framework", "fsdp",
		 "--train-stack nemo runs megatron"},
		{"train-stack", "megatron", "train-mode", "qlora",
		 "--train-mode qlora: --train-stack megatron trains every "
		 "weight"},
		{"param-offload", "on", "optimizer-offload", "off",
		 "--param-offload on keeps the optimizer state"},
	};
	static const char *const good[][4] = {
		{"train-stack", "hf", "train-framework", "deepspeed"},
		{"train-stack", "axolotl", "train-framework", "fsdp"},
		{"train-stack", "nemo", "train-mode", "lora"},
		{"param-offload", "on", "optimizer-offload", "on"},
	};
	autosize_request r;
	autosize_error e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		autosize_request_init(&r);
		assert_int_equal(autosize_request_set(&r, "model-params", "7e9",
						      &e), 0);
		assert_int_equal(autosize_request_set(&r, bad[i][0], bad[i][1],
						      &e), 0);
		assert_int_equal(autosize_request_set(&r, bad[i][2], bad[i][3],
						      &e), 0);
		assert_int_equal(autosize_request_finish(&r, &e),
				 AUTOSIZE_EINVAL);
		if (!strstr(e.msg, bad[i][4]))
			fail_msg("--%s=%s --%s=%s: '%s'", bad[i][0], bad[i][1],
				 bad[i][2], bad[i][3], e.msg);
		assert_null(strchr(e.msg, '\n'));
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		autosize_request_init(&r);
		assert_int_equal(autosize_request_set(&r, "model-params", "7e9",
						      &e), 0);
		assert_int_equal(autosize_request_set(&r, good[i][0],
						      good[i][1], &e), 0);
		assert_int_equal(autosize_request_set(&r, good[i][2],
						      good[i][3], &e), 0);
		if (autosize_request_finish(&r, &e))
			fail_msg("--%s=%s --%s=%s refused: %s", good[i][0],
				 good[i][1], good[i][2], good[i][3], e.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_has_a_reader),
		cmocka_unit_test(test_choice_forms),
		cmocka_unit_test(test_man_pages),
		cmocka_unit_test(test_names_any_case),
		cmocka_unit_test(test_contradictions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
