/*
 * libFuzzer harness: the closed loop's untrusted inputs. The
 * input's first byte picks the reader, the rest is its text:
 *   0: an AdminComment (autosize_record_find + decode, then re-encode and
 *      attach: a decoded record encodes and decodes to the same plan);
 *   1: a JSON line of `autosize calibrate` (then fed to a calibrator);
 *   2: an AUTOSIZE_REPORT file (median and largest within the bounds);
 *   0xe0 to 0xef: a snapshot of Slurm's limits (`autosize limits --raw`,
 *      which slurmctld's module reads): refused with one line naming
 *      its line, or every job's caps within range, typed ones folded;
 *   0xf0 and up: an entry of the node's spool (it encodes back to the
 *      same entry, and merged into an AdminComment it changes nothing
 *      but the record: the site's text before and after it stays byte
 *      for byte).
 * Invariants: errors are one non-empty line naming the input; nothing
 * decoded is out of its documented range.
 */
#include "targets.h"
#include "autosize/calibration_input.h"
#include "autosize/calibration_learn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_record_msg(const autosize_error *e, const char *what)
{
	if (!e->msg[0] || strchr(e->msg, '\n') ||
	    strncmp(e->msg, what, strlen(what)) != 0)
		FUZZ_FAIL("bad error message: '%s'", e->msg);
}

static void fuzz_record_comment(const char *s)
{
	char token[AUTOSIZE_RECORD_MAX], out[AUTOSIZE_ADMIN_COMMENT_MAX];
	autosize_record r, back;
	autosize_error e;
	size_t start, n;
	int len;

	if (!autosize_record_find(s, &start, &n))
		return;
	if (autosize_record_decode(s + start, n, "job 1", &r, &e)) {
		fuzz_record_msg(&e, "job 1");
		return;
	}
	if (!r.partition[0] || !r.gpu[0] || r.nodes < 1 || r.params < 1e6 ||
	    !(r.tokens_per_s >= 0))
		FUZZ_FAIL("decoded out of range: part '%s' nodes %d",
			  r.partition, r.nodes);
	len = autosize_record_encode(&r, token, sizeof(token));
	if (len < 0)
		return;   /* a record that does not fit again: refused */
	if (autosize_record_decode(token, (size_t)len, "again", &back, &e))
		FUZZ_FAIL("re-encoded record refused: %s", e.msg);
	if (back.nodes != r.nodes || strcmp(back.partition, r.partition))
		FUZZ_FAIL("re-encoded record differs");
	if (autosize_record_attach(s, token, out, sizeof(out)) >= 0 &&
	    !strstr(out, token))
		FUZZ_FAIL("attach lost the record");
}

static void fuzz_record_json(const char *s, size_t len)
{
	char user[AUTOSIZE_CAL_USER_MAX], state[AUTOSIZE_CAL_USER_MAX];
	autosize_calibrator *k;
	autosize_calibration *c;
	autosize_record r;
	autosize_error e;
	double elapsed;

	if (autosize_cal_json_line(s, len, "jobs:1", &r, user, state,
				   &elapsed, &e)) {
		fuzz_record_msg(&e, "jobs:1");
		return;
	}
	k = autosize_calibrator_create(NULL);
	if (!k)
		FUZZ_FAIL("out of memory");
	autosize_calibrator_add(k, user, &r, state, elapsed);
	c = autosize_calibrator_result(k, &e);
	if (!c)
		FUZZ_FAIL("calibrator failed: %s", e.msg);
	if (autosize_calibration_count(c) != 0)
		FUZZ_FAIL("one job made a correction");
	autosize_calibration_destroy(c);
	autosize_calibrator_destroy(k);
}

static void fuzz_record_report(const char *s, size_t len)
{
	autosize_record r;
	int bad, used;

	autosize_record_init(&r);
	r.tokens_per_s = 1e5;
	r.step_s = 10;
	r.alloc_bytes = 4e10;
	used = autosize_record_measure(&r, s, len, 0, &bad);
	if (used < 0 || bad < 0)
		FUZZ_FAIL("negative counts");
	if (r.m_tokens_per_s != 0 &&
	    (r.m_tokens_per_s < 1e5 * AUTOSIZE_REPORT_RATIO_MIN ||
	     r.m_tokens_per_s > 1e5 * AUTOSIZE_REPORT_RATIO_MAX))
		FUZZ_FAIL("implausible speed kept: %g", r.m_tokens_per_s);
	if (used == 0 && r.has_measured)
		FUZZ_FAIL("measured with no line used");
}

static void fuzz_record_spool(const char *s, size_t len)
{
	static const char site[] = "Site \"NOTE\" x ", tail[] = "  TAIL";
	char line[AUTOSIZE_SPOOL_ENTRY_MAX], comment[1024];
	char out[AUTOSIZE_ADMIN_COMMENT_MAX];
	autosize_spool_entry en, back;
	autosize_error e;
	int n;

	if (autosize_spool_entry_decode(s, len, "spool entry", &en, &e)) {
		fuzz_record_msg(&e, "spool entry");
		return;
	}
	if (en.job_id < 1 || en.m.lines < 0 || !(en.m.tokens_per_s >= 0) ||
	    !(en.m.step_s >= 0) || !(en.m.mem_bytes >= 0))
		FUZZ_FAIL("spool entry decoded out of range");
	n = autosize_spool_entry_encode(&en, line, sizeof(line));
	if (n < 0 || autosize_spool_entry_decode(line, (size_t)n, "again",
						 &back, &e) ||
	    back.job_id != en.job_id || strcmp(back.cluster, en.cluster) ||
	    back.m.lines != en.m.lines)
		FUZZ_FAIL("spool entry does not encode back: %s", line);
	snprintf(comment, sizeof(comment), "%sautosize:v1:params=7e+09,"
		 "tokens=2e+09,part=gpu,gpu=H100,fw=megatron,nodes=1,gpn=8,"
		 "tp=1,pp=1,dp=8,tok_s=%g,step_s=%g,hours=1,mem_b=6e+10,"
		 "alloc_b=%g%s", site, en.m.tokens_per_s > 0
		 ? en.m.tokens_per_s : 1e5, en.m.step_s > 0 ? en.m.step_s : 1,
		 en.m.mem_bytes > 0 ? en.m.mem_bytes : 5e10, tail);
	n = autosize_record_merge(comment, &en.m, "job 1", out, sizeof(out),
				  &e);
	if (n < 0)
		fuzz_record_msg(&e, "job 1");
	if (n == 1 && (strncmp(out, site, strlen(site)) != 0 ||
		       strlen(out) < strlen(tail) ||
		       strcmp(out + strlen(out) - strlen(tail), tail) != 0 ||
		       !strstr(out, ",m_lines=")))
		FUZZ_FAIL("merge changed the site's text: '%s'", out);
}

static void fuzz_record_cap(const autosize_cap *c)
{
	if (c->value < -1 || (c->value >= 0 && !c->who[0]) ||
	    !memchr(c->who, '\0', sizeof(c->who)))
		FUZZ_FAIL("cap out of range: %ld '%.20s'", c->value, c->who);
}

static void fuzz_record_limits(const char *s, size_t len)
{
	static const char *const names[] = { "", "u", "root", "a", "normal",
					     "gpu", "h100" };
	const size_t n = sizeof(names) / sizeof(names[0]);
	autosize_limits *l;
	autosize_caps c, t;
	autosize_error e;
	char why[256], buf[512];
	size_t i, j;
	int k;

	l = autosize_limits_parse(s, len, &e);
	if (!l) {
		fuzz_record_msg(&e, "Slurm's limits, line ");
		return;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (autosize_limits_caps(l, names[i], names[j], "",
						 names[(i + j) % n], NULL, &c,
						 why, sizeof(why)) != 0) {
				if (!why[0] || strchr(why, '\n'))
					FUZZ_FAIL("caps refused without one "
						  "line");
				continue;
			}
			if (c.n_typed < 0 || c.n_typed > AUTOSIZE_CAPS_TYPED_MAX)
				FUZZ_FAIL("%d typed caps", c.n_typed);
			autosize_caps_of_type(l, &c, names[(i + j) % n],
					      names[j], &t);
			fuzz_record_cap(&t.gpus);
			fuzz_record_cap(&t.gpus_per_node);
			fuzz_record_cap(&t.nodes);
			fuzz_record_cap(&t.wall_min);
			if (c.gpus.value >= 0 && t.gpus.value > c.gpus.value)
				FUZZ_FAIL("a typed cap raised the untyped");
		}
	for (k = 0; autosize_limits_qos_line(l, k, buf, sizeof(buf)); k++)
		;
	for (k = 0; autosize_limits_assoc_line(l, k, buf, sizeof(buf)); k++)
		;
	autosize_limits_destroy(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = fuzz_strndup(data + 1, size - 1);
	if (data[0] >= 0xf0) {
		fuzz_record_spool(s, size - 1);
		free(s);
		return 0;
	}
	if (data[0] >= 0xe0) {
		fuzz_record_limits(s, size - 1);
		free(s);
		return 0;
	}
	switch (data[0] % 3) {
	case 0:
		fuzz_record_comment(s);
		break;
	case 1:
		fuzz_record_json(s, size - 1);
		break;
	default:
		fuzz_record_report(s, size - 1);
		break;
	}
	free(s);
	return 0;
}
