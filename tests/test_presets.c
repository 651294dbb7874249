/* Tests: model presets (core/presets.c, etc/models.yaml compiled in). */
#include "testutil.h"
#include <math.h>
#include <pthread.h>
#include <strings.h>
#include "autosize/model.h"

#define N_THREADS 8

static void *lookup_thread(void *arg)
{
	autosize_model m;
	autosize_error e;
	long ok = 0;
	int i;

	(void)arg;
	for (i = 0; i < 50; i++)
		if (autosize_model_preset("llama-2-7b", &m, &e) == AUTOSIZE_OK &&
		    m.layers == 32)
			ok++;
	return (void *)ok;
}

/* First use from many threads at once: the table is built exactly once. */
static void test_threads_first_use(void **state)
{
	pthread_t th[N_THREADS];
	void *ret;
	int i;

	(void)state;
	for (i = 0; i < N_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, lookup_thread,
						NULL), 0);
	for (i = 0; i < N_THREADS; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_int_equal((long)ret, 50);
	}
}

static void test_names(void **state)
{
	int i, j, n = autosize_model_preset_count();

	(void)state;
	assert_true(n >= 15);
	for (i = 0; i < n; i++) {
		const char *name = autosize_model_preset_name(i);

		assert_non_null(name);
		assert_true(strlen(name) > 0);
		assert_true(strlen(name) < AUTOSIZE_NAME_MAX);
		for (j = 0; j < i; j++)
			assert_true(strcasecmp(name,
					autosize_model_preset_name(j)) != 0);
	}
	assert_null(autosize_model_preset_name(n));
	assert_null(autosize_model_preset_name(-1));
}

/* Every preset loads, and the computed count is within 3% of the
 * published one. */
static void test_every_preset_params(void **state)
{
	int i, n = autosize_model_preset_count();

	(void)state;
	for (i = 0; i < n; i++) {
		const char *name = autosize_model_preset_name(i);
		autosize_model m;
		autosize_error e;
		double ratio;

		autosize_error_clear(&e);
		if (autosize_model_preset(name, &m, &e) != AUTOSIZE_OK)
			fail_msg("preset %s: %s", name, e.msg);
		assert_string_equal(m.name, name);
		assert_int_equal(m.has_arch, 1);
		assert_true(m.layers > 0 && m.hidden > 0 && m.heads > 0);
		assert_true(m.kv_heads > 0 && m.heads % m.kv_heads == 0);
		assert_true(m.ffn > 0 && m.vocab > 0);
		assert_true(m.params_published > 0);
		assert_true(m.params_active > 0);
		assert_true(m.params_active <= m.params);
		/* every preset knows its positions (longer sequences
		 * warn, the default stays within them) */
		assert_true(m.max_positions >= 1024);
		ratio = m.params / m.params_published;
		if (fabs(ratio - 1) > 0.03)
			fail_msg("preset %s: computed %.4g parameters, published %.4g (%.1f%% off)",
				 name, m.params, m.params_published,
				 100 * (ratio - 1));
	}
}

static void test_known_values(void **state)
{
	autosize_model m;
	autosize_error e;

	(void)state;
	assert_int_equal(autosize_model_preset("LLaMA-2-7B", &m, &e),
			 AUTOSIZE_OK);
	assert_string_equal(m.name, "llama-2-7b"); /* the preset's spelling */
	assert_int_equal(m.layers, 32);
	assert_int_equal(m.hidden, 4096);
	assert_int_equal(m.heads, 32);
	assert_int_equal(m.kv_heads, 32);
	assert_int_equal(m.ffn, 11008);
	assert_int_equal(m.vocab, 32000);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	assert_int_equal(m.tied_embeddings, 0);
	assert_true(m.params_published == 6.74e9);

	assert_int_equal(autosize_model_preset("llama-2-70b", &m, &e),
			 AUTOSIZE_OK);
	assert_int_equal(m.kv_heads, 8);  /* grouped-query attention */

	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e),
			 AUTOSIZE_OK);
	assert_int_equal(m.experts, 8);
	assert_int_equal(m.experts_active, 2);
	assert_true(m.params_active < 0.5 * m.params);

	assert_int_equal(autosize_model_preset("gpt2", &m, &e), AUTOSIZE_OK);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	assert_int_equal(m.tied_embeddings, 1);
	/* with its learned 1024 x 768 position table: the checkpoint's
	 * 124,439,808 exactly */
	assert_int_equal(m.max_positions, 1024);
	assert_int_equal(m.learned_positions, 1);
	assert_true(m.params == 124439808.0);
	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e),
			 AUTOSIZE_OK);
	assert_int_equal(m.max_positions, 8192);
	assert_int_equal(m.learned_positions, 0);
}

static void test_unknown(void **state)
{
	autosize_model m;
	autosize_error e;

	(void)state;
	autosize_error_clear(&e);
	assert_int_equal(autosize_model_preset("llama-9-7b", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_int_equal(e.code, AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "'llama-9-7b'"));
	assert_non_null(strstr(e.msg, "llama-2-7b"));
	assert_non_null(strstr(e.msg, "config.json"));
	assert_null(strchr(e.msg, '\n'));
	assert_true(strlen(e.msg) < AUTOSIZE_MSG_LEN - 1);

	/* a name that only differs in '-' is not a preset */
	assert_int_equal(autosize_model_preset("llama27b", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_int_equal(autosize_model_preset("", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_int_equal(autosize_model_preset(NULL, &m, &e),
			 AUTOSIZE_EINVAL);
	/* hostile input is echoed shortened and printable */
	assert_int_equal(autosize_model_preset(
		"\x1b[31mred\x1b[0m and a very long tail that goes on and on "
		"and on and on and on", &m, &e), AUTOSIZE_ENOTFOUND);
	assert_null(strchr(e.msg, '\x1b'));
	assert_null(strstr(e.msg, "goes on and on and on"));
	/* a NULL error pointer is fine */
	assert_int_equal(autosize_model_preset("nope", &m, NULL),
			 AUTOSIZE_ENOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_first_use),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_every_preset_params),
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
