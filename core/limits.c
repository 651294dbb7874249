/*
 * autosize: the limits Slurm enforces on a job (autosize/limits.h): a
 * snapshot in text, read strictly, and the caps of one job under Slurm's
 * order of limits (resource_limits.html, "Hierarchy": partition QOS, job
 * QOS, user association, account associations up to root; where a limit
 * is first defined, it is used).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/limits.h"
#include "autosize/parse.h"

/* A snapshot's caps: a big site has tens of thousands of associations. */
#define LIM_MAX_RECORDS 500000
#define LIM_MAX_TOKENS 64
#define LIM_NUMBER_MAX 1000000000000L

/* The kinds of limit, in the order of the snapshot's keys. */
enum {
	LIM_JOB_GPUS, LIM_JOB_NODES, LIM_USER_GPUS, LIM_USER_NODES,
	LIM_ACCOUNT_GPUS, LIM_ACCOUNT_NODES, LIM_GRP_GPUS, LIM_GRP_NODES,
	LIM_NODE_GPUS, LIM_WALL, LIM_USER_SUBMIT, LIM_ACCOUNT_SUBMIT,
	LIM_GRP_SUBMIT, LIM_N
};

static const char *const lim_keys[LIM_N] = {
	"job_gpus", "job_nodes", "user_gpus", "user_nodes", "account_gpus",
	"account_nodes", "grp_gpus", "grp_nodes", "node_gpus", "wall_min",
	"user_submit", "account_submit", "grp_submit"
};

/* Each kind as sacctmgr names it on a QOS and on an association
 * (NULL: associations have no such limit). */
static const char *const lim_qos_names[LIM_N] = {
	"MaxTRESPerJob=gres/gpu", "MaxTRESPerJob=node",
	"MaxTRESPerUser=gres/gpu", "MaxTRESPerUser=node",
	"MaxTRESPerAccount=gres/gpu", "MaxTRESPerAccount=node",
	"GrpTRES=gres/gpu", "GrpTRES=node", "MaxTRESPerNode=gres/gpu",
	"MaxWall", "MaxSubmitJobsPerUser", "MaxSubmitJobsPerAccount",
	"GrpSubmitJobs"
};

static const char *const lim_assoc_names[LIM_N] = {
	"MaxTRES=gres/gpu", "MaxTRES=node", NULL, NULL, NULL, NULL,
	"GrpTRES=gres/gpu", "GrpTRES=node", "MaxTRESPerNode=gres/gpu",
	"MaxWall", "MaxSubmitJobs", NULL, "GrpSubmitJobs"
};

typedef struct lim_qos {
	char name[AUTOSIZE_LIMITS_NAME_MAX];
	int over_part;
	long v[LIM_N];
} lim_qos;

typedef struct lim_assoc {
	long id, parent;
	char account[AUTOSIZE_LIMITS_NAME_MAX];
	char user[AUTOSIZE_LIMITS_NAME_MAX];      /* "" an account's */
	char partition[AUTOSIZE_LIMITS_NAME_MAX]; /* "" any */
	char def_qos[AUTOSIZE_LIMITS_NAME_MAX];
	char one_qos[AUTOSIZE_LIMITS_NAME_MAX];   /* its QOS when only one */
	long v[LIM_N];
} lim_assoc;

/* A limit on one GPU type's TRES (gres/gpu:h100) of a QOS (owner: its
 * index) or an association (owner: its id). */
typedef struct lim_typed {
	int of_assoc;
	long owner;
	int k;                  /* a GPU kind: LIM_*_GPUS */
	char type[AUTOSIZE_LIMITS_NAME_MAX];
	long v;
} lim_typed;

typedef struct lim_user {
	char name[AUTOSIZE_LIMITS_NAME_MAX];
	char account[AUTOSIZE_LIMITS_NAME_MAX];
} lim_user;

struct autosize_limits {
	int enforced;
	int n_qos, n_assoc, n_user, n_part;
	lim_qos *qos;
	lim_assoc *assoc;       /* sorted by account, user, partition */
	lim_assoc **by_id;      /* sorted by id */
	lim_user *user;         /* sorted by name */
	autosize_slurm_part *part;
	lim_typed *typed;       /* sorted by of_assoc, owner, k, type */
	int n_typed, cap_typed;
	char types[AUTOSIZE_LIMITS_TYPES_MAX][AUTOSIZE_LIMITS_NAME_MAX];
	int n_types;            /* the distinct types of typed */
	int cap_qos, cap_assoc, cap_user, cap_part;
};

/* ---- reading ---- */

typedef struct lim_line {
	int n;
	const char *tok[LIM_MAX_TOKENS];
	size_t len[LIM_MAX_TOKENS];
	int lineno;
} lim_line;

/* 1 when the n bytes at s are a name Slurm could have written: letters,
 * digits and _.-@+ (no spaces, '=' or ',' to confuse a reader). */
static int lim_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= AUTOSIZE_LIMITS_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_.-@+", s[i]) || !s[i])
			return 0;
	return 1;
}

static autosize_err lim_bad(autosize_error *e, const lim_line *ln,
			    const char *what)
{
	return autosize_fail(e, AUTOSIZE_EINVAL, "Slurm's limits, line %d: %s "
			     "(autosize limits --raw writes them)", ln->lineno,
			     what);
}

/* Token i as a name into out ("-" is ""). */
static autosize_err lim_name(const lim_line *ln, int i, char *out,
			     autosize_error *e)
{
	if (i >= ln->n)
		return lim_bad(e, ln, "a name is missing");
	if (ln->len[i] == 1 && ln->tok[i][0] == '-') {
		out[0] = '\0';
		return AUTOSIZE_OK;
	}
	if (!lim_name_ok(ln->tok[i], ln->len[i]))
		return lim_bad(e, ln, "not a Slurm name");
	memcpy(out, ln->tok[i], ln->len[i]);
	out[ln->len[i]] = '\0';
	return AUTOSIZE_OK;
}

/* A whole number 0 .. LIM_NUMBER_MAX, n bytes at s; -1 when not one. */
static long lim_number(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 13)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= LIM_NUMBER_MAX ? v : -1;
}

/* Token "key=value": 1 when key is k, with the value at *val. */
static int lim_key(const lim_line *ln, int i, const char *k,
		   const char **val, size_t *val_len)
{
	size_t kl = strlen(k);

	if (ln->len[i] <= kl || strncmp(ln->tok[i], k, kl) != 0 ||
	    ln->tok[i][kl] != '=')
		return 0;
	*val = ln->tok[i] + kl + 1;
	*val_len = ln->len[i] - kl - 1;
	return 1;
}

/* A limit key into v; 1 when token i was one, -1 when its value is bad. */
static int lim_limit(const lim_line *ln, int i, long *v)
{
	const char *val;
	size_t n;
	int k;

	for (k = 0; k < LIM_N; k++) {
		if (!lim_key(ln, i, lim_keys[k], &val, &n))
			continue;
		v[k] = lim_number(val, n);
		return v[k] < 0 ? -1 : 1;
	}
	return 0;
}

/* 1 for the kinds of limit on GPUs, which may come per GPU type. */
static int lim_gpu_kind(int k)
{
	return k == LIM_JOB_GPUS || k == LIM_USER_GPUS ||
	       k == LIM_ACCOUNT_GPUS || k == LIM_GRP_GPUS || k == LIM_NODE_GPUS;
}

/* A named value key into out (a Slurm name). 1 when token i was it, -1
 * when bad. */
static int lim_text(const lim_line *ln, int i, const char *key, char *out)
{
	const char *val;
	size_t n;

	if (!lim_key(ln, i, key, &val, &n))
		return 0;
	if (!lim_name_ok(val, n))
		return -1;
	memcpy(out, val, n);
	out[n] = '\0';
	return 1;
}

/* Grow an array of size each to hold one more. */
static void *lim_grow(void *arr, int n, int *cap, size_t size)
{
	void *bigger;
	int want;

	if (n < *cap)
		return arr;
	if (n >= LIM_MAX_RECORDS)
		return NULL;
	want = *cap ? *cap * 2 : 16;
	bigger = realloc(arr, (size_t)want * size);
	if (bigger)
		*cap = want;
	return bigger;
}

/* A typed GPU limit key ("user_gpus:h100=8") of a QOS or association
 * (names: which kinds it may have) into l's typed limits: 1 when token
 * i was one, -1 when bad, 0 when not one; -2 out of memory or past the
 * records autosize reads. */
static int lim_typed_limit(autosize_limits *l, const lim_line *ln, int i,
			   int of_assoc, long owner,
			   const char *const *names)
{
	const char *tok = ln->tok[i], *eq;
	lim_typed *t;
	size_t kl, tl;
	void *g;
	int k, j;

	for (k = 0; k < LIM_N; k++) {
		kl = strlen(lim_keys[k]);
		if (!lim_gpu_kind(k) || !names[k] || ln->len[i] <= kl + 1 ||
		    strncmp(tok, lim_keys[k], kl) != 0 || tok[kl] != ':')
			continue;
		eq = memchr(tok + kl + 1, '=', ln->len[i] - kl - 1);
		if (!eq)
			return -1;
		tl = (size_t)(eq - tok) - kl - 1;
		if (!lim_name_ok(tok + kl + 1, tl))
			return -1;
		g = lim_grow(l->typed, l->n_typed, &l->cap_typed,
			     sizeof(*l->typed));
		if (!g)
			return -2;
		l->typed = g;
		t = &l->typed[l->n_typed];
		memset(t, 0, sizeof(*t));
		t->of_assoc = of_assoc;
		t->owner = owner;
		t->k = k;
		memcpy(t->type, tok + kl + 1, tl);
		t->v = lim_number(eq + 1, ln->len[i] - (size_t)(eq + 1 - tok));
		if (t->v < 0)
			return -1;
		l->n_typed++;
		for (j = 0; j < l->n_types; j++)
			if (strcmp(l->types[j], t->type) == 0)
				return 1;
		if (l->n_types < AUTOSIZE_LIMITS_TYPES_MAX)
			memcpy(l->types[l->n_types++], t->type,
			       sizeof(t->type));
		return 1;
	}
	return 0;
}

/* A limit key of a QOS or an association (names: which kinds it may
 * have), untyped into v or typed into l's typed limits: 1 when token i
 * was one, -1 when its value is bad, 0 when not one, -2 when the typed
 * limits are full. */
static int lim_any_limit(autosize_limits *l, const lim_line *ln, int i,
			 long *v, int of_assoc, long owner,
			 const char *const *names)
{
	int r = lim_limit(ln, i, v);

	return r ? r : lim_typed_limit(l, ln, i, of_assoc, owner, names);
}

/* Token i of a record refused: lim_any_limit's r (bad: its words for a
 * bad value). */
static autosize_err lim_key_bad(autosize_error *e, const lim_line *ln,
				int r, const char *bad)
{
	return lim_bad(e, ln, r == -2 ? "more typed limits than autosize "
		       "reads (500000), or out of memory"
		       : r < 0 ? bad : "an unknown key");
}

#define LIM_PUSH(l, arr, n, cap, e, ln)                                      \
	do {                                                                 \
		void *g_ = lim_grow((l)->arr, (l)->n, &(l)->cap,             \
				    sizeof(*(l)->arr));                      \
		if (!g_)                                                     \
			return (l)->n >= LIM_MAX_RECORDS                     \
			       ? lim_bad(e, ln, "more records than autosize " \
					 "reads (500000)")                   \
			       : autosize_fail(e, AUTOSIZE_ENOMEM,           \
					       "out of memory");             \
		(l)->arr = g_;                                               \
	} while (0)

static void lim_unset(long *v)
{
	int k;

	for (k = 0; k < LIM_N; k++)
		v[k] = -1;
}

static autosize_err lim_qos_line(autosize_limits *l, const lim_line *ln,
				 autosize_error *e)
{
	lim_qos *q;
	const char *val;
	size_t n;
	autosize_err rc;
	int i, r;

	LIM_PUSH(l, qos, n_qos, cap_qos, e, ln);
	q = &l->qos[l->n_qos];
	memset(q, 0, sizeof(*q));
	lim_unset(q->v);
	if ((rc = lim_name(ln, 1, q->name, e)))
		return rc;
	if (!q->name[0])
		return lim_bad(e, ln, "a QOS without a name");
	for (i = 2; i < ln->n; i++) {
		if (lim_key(ln, i, "flags", &val, &n)) {
			/* deny (DenyOnLimit) is Slurm's business */
			q->over_part = n >= 9 && strstr(val, "over_part") &&
				       (size_t)(strstr(val, "over_part") - val)
				       <= n - 9;
			continue;
		}
		if ((r = lim_any_limit(l, ln, i, q->v, 0, l->n_qos,
				       lim_qos_names)) == 1)
			continue;
		return lim_key_bad(e, ln, r, "a limit that is not a number");
	}
	l->n_qos++;
	return AUTOSIZE_OK;
}

static autosize_err lim_assoc_line(autosize_limits *l, const lim_line *ln,
				   autosize_error *e)
{
	lim_assoc *a;
	const char *val;
	size_t n;
	autosize_err rc;
	int i, r;

	if (ln->n < 6)
		return lim_bad(e, ln, "an association needs ID PARENT ACCOUNT "
			       "USER PARTITION");
	LIM_PUSH(l, assoc, n_assoc, cap_assoc, e, ln);
	a = &l->assoc[l->n_assoc];
	memset(a, 0, sizeof(*a));
	lim_unset(a->v);
	a->id = lim_number(ln->tok[1], ln->len[1]);
	a->parent = lim_number(ln->tok[2], ln->len[2]);
	if (a->id < 0 || a->parent < 0)
		return lim_bad(e, ln, "an association id that is not a number");
	if ((rc = lim_name(ln, 3, a->account, e)) ||
	    (rc = lim_name(ln, 4, a->user, e)) ||
	    (rc = lim_name(ln, 5, a->partition, e)))
		return rc;
	if (!a->account[0])
		return lim_bad(e, ln, "an association without an account");
	for (i = 6; i < ln->n; i++) {
		if ((r = lim_any_limit(l, ln, i, a->v, 1, a->id,
				       lim_assoc_names)) == 1 ||
		    (r == 0 && (r = lim_text(ln, i, "def_qos",
					     a->def_qos)) == 1))
			continue;
		if (r == 0 && lim_key(ln, i, "qos", &val, &n)) {
			/* the QOS the association may use: only "exactly one"
			 * matters (Slurm's default when none is set) */
			if (!memchr(val, ',', n) && lim_name_ok(val, n)) {
				memcpy(a->one_qos, val, n);
				a->one_qos[n] = '\0';
			}
			continue;
		}
		return lim_key_bad(e, ln, r, "a value that cannot be read");
	}
	l->n_assoc++;
	return AUTOSIZE_OK;
}

static autosize_err lim_user_line(autosize_limits *l, const lim_line *ln,
				  autosize_error *e)
{
	lim_user *u;
	autosize_err rc;
	int i;

	LIM_PUSH(l, user, n_user, cap_user, e, ln);
	u = &l->user[l->n_user];
	memset(u, 0, sizeof(*u));
	if ((rc = lim_name(ln, 1, u->name, e)))
		return rc;
	for (i = 2; i < ln->n; i++)
		if (lim_text(ln, i, "default_account", u->account) != 1)
			return lim_bad(e, ln, "a user's key that cannot be read");
	if (u->name[0])
		l->n_user++;
	return AUTOSIZE_OK;
}

static autosize_err lim_part_line(autosize_limits *l, const lim_line *ln,
				  autosize_error *e)
{
	static const char *const keys[] = {
		"def_cpus_per_gpu", "def_mem_per_gpu_mb", "max_cpus_per_node",
		"node_cpus", "node_mem_mb", "node_gpus"
	};
	autosize_slurm_part *p;
	long *fields[6];
	const char *val;
	size_t n, k;
	autosize_err rc;
	int i, r;

	LIM_PUSH(l, part, n_part, cap_part, e, ln);
	p = &l->part[l->n_part];
	memset(p, 0, sizeof(*p));
	fields[0] = &p->def_cpus_per_gpu;
	fields[1] = &p->def_mem_per_gpu_mb;
	fields[2] = &p->max_cpus_per_node;
	fields[3] = &p->node_cpus;
	fields[4] = &p->node_mem_mb;
	fields[5] = &p->node_gpus;
	for (k = 0; k < 6; k++)
		*fields[k] = -1;
	if ((rc = lim_name(ln, 1, p->name, e)) ||
	    (rc = lim_name(ln, 2, p->type, e)))
		return rc;
	if (!p->name[0])
		return lim_bad(e, ln, "a partition without a name");
	for (i = 3; i < ln->n; i++) {
		if ((r = lim_text(ln, i, "qos", p->qos)) == 1)
			continue;
		for (k = 0; r == 0 && k < 6; k++)
			if (lim_key(ln, i, keys[k], &val, &n)) {
				*fields[k] = lim_number(val, n);
				r = *fields[k] < 0 ? -1 : 1;
			}
		if (r != 1)
			return lim_bad(e, ln, r < 0 ? "a value that cannot be "
				       "read" : "an unknown key");
	}
	l->n_part++;
	return AUTOSIZE_OK;
}

/* Split one line into tokens (spaces and tabs). */
static autosize_err lim_split(const char *s, size_t n, lim_line *ln,
			      autosize_error *e)
{
	size_t i = 0, start;

	ln->n = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		if (ln->n >= LIM_MAX_TOKENS)
			return lim_bad(e, ln, "too many fields");
		start = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		ln->tok[ln->n] = s + start;
		ln->len[ln->n++] = i - start;
	}
	return AUTOSIZE_OK;
}

static int lim_is(const lim_line *ln, const char *word)
{
	return ln->n > 0 && ln->len[0] == strlen(word) &&
	       strncmp(ln->tok[0], word, ln->len[0]) == 0;
}

static autosize_err lim_line_read(autosize_limits *l, const lim_line *ln,
				  int *ended, autosize_error *e)
{
	if (*ended)
		return lim_bad(e, ln, "text after 'end'");
	if (lim_is(ln, "end")) {
		*ended = 1;
		return AUTOSIZE_OK;
	}
	if (lim_is(ln, "enforce")) {
		if (ln->n != 2)
			return lim_bad(e, ln, "enforce takes one word");
		l->enforced = ln->len[1] == 6 &&
			      strncmp(ln->tok[1], "limits", 6) == 0;
		return AUTOSIZE_OK;
	}
	if (lim_is(ln, "qos"))
		return lim_qos_line(l, ln, e);
	if (lim_is(ln, "assoc"))
		return lim_assoc_line(l, ln, e);
	if (lim_is(ln, "user"))
		return lim_user_line(l, ln, e);
	if (lim_is(ln, "part"))
		return lim_part_line(l, ln, e);
	return lim_bad(e, ln, "an unknown record");
}

static int lim_assoc_cmp(const void *a, const void *b)
{
	const lim_assoc *x = a, *y = b;
	int c = strcmp(x->account, y->account);

	if (!c)
		c = strcmp(x->user, y->user);
	return c ? c : strcmp(x->partition, y->partition);
}

static int lim_id_cmp(const void *a, const void *b)
{
	const lim_assoc *x = *(lim_assoc *const *)a;
	const lim_assoc *y = *(lim_assoc *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int lim_typed_cmp(const void *a, const void *b)
{
	const lim_typed *x = a, *y = b;

	if (x->of_assoc != y->of_assoc)
		return x->of_assoc - y->of_assoc;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->k != y->k)
		return x->k - y->k;
	return strcmp(x->type, y->type);
}

static int lim_user_cmp(const void *a, const void *b)
{
	return strcmp(((const lim_user *)a)->name,
		      ((const lim_user *)b)->name);
}

/* Indexes for the lookups. */
static autosize_err lim_index(autosize_limits *l, autosize_error *e)
{
	int i;

	if (l->n_assoc > 0) {
		qsort(l->assoc, (size_t)l->n_assoc, sizeof(*l->assoc),
		      lim_assoc_cmp);
		l->by_id = malloc((size_t)l->n_assoc * sizeof(*l->by_id));
		if (!l->by_id)
			return autosize_fail(e, AUTOSIZE_ENOMEM,
					     "out of memory");
		for (i = 0; i < l->n_assoc; i++)
			l->by_id[i] = &l->assoc[i];
		qsort(l->by_id, (size_t)l->n_assoc, sizeof(*l->by_id),
		      lim_id_cmp);
	}
	if (l->n_user > 0)
		qsort(l->user, (size_t)l->n_user, sizeof(*l->user),
		      lim_user_cmp);
	if (l->n_typed > 0)
		qsort(l->typed, (size_t)l->n_typed, sizeof(*l->typed),
		      lim_typed_cmp);
	return AUTOSIZE_OK;
}

autosize_limits *autosize_limits_parse(const char *text, size_t len,
				       autosize_error *e)
{
	autosize_limits *l = calloc(1, sizeof(*l));
	const char *s = text, *end = text + len, *nl;
	int ended = 0, header = 0;
	lim_line ln;
	autosize_err rc = AUTOSIZE_OK;

	if (!l) {
		autosize_fail(e, AUTOSIZE_ENOMEM, "out of memory");
		return NULL;
	}
	memset(&ln, 0, sizeof(ln));
	while (s < end && !rc) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		ln.lineno++;
		if (memchr(s, '\0', (size_t)(nl - s)))
			rc = lim_bad(e, &ln, "a NUL byte");
		else if (!(rc = lim_split(s, (size_t)(nl - s), &ln, e)) &&
			 ln.n > 0 && ln.tok[0][0] != '#') {
			if (!header) {
				if (ln.n != 2 || !lim_is(&ln, "autosize-limits") ||
				    ln.len[1] != 1 || ln.tok[1][0] != '1')
					rc = lim_bad(e, &ln, "not 'autosize-limits "
						     "1'");
				header = 1;
			} else {
				rc = lim_line_read(l, &ln, &ended, e);
			}
		}
		s = nl + 1;
	}
	if (!rc && !ended) {
		ln.lineno++;
		rc = lim_bad(e, &ln, header ? "no 'end': the snapshot was cut "
			     "short" : "empty");
	}
	if (!rc)
		rc = lim_index(l, e);
	if (rc) {
		autosize_limits_destroy(l);
		return NULL;
	}
	return l;
}

void autosize_limits_destroy(autosize_limits *l)
{
	if (!l)
		return;
	free(l->qos);
	free(l->assoc);
	free(l->by_id);
	free(l->user);
	free(l->part);
	free(l->typed);
	free(l);
}

int autosize_limits_enforced(const autosize_limits *l)
{
	return l && l->enforced;
}

int autosize_limits_qos_count(const autosize_limits *l)
{
	return l ? l->n_qos : 0;
}

int autosize_limits_assoc_count(const autosize_limits *l)
{
	return l ? l->n_assoc : 0;
}

/* ---- lookups ---- */

static const lim_qos *lim_find_qos(const autosize_limits *l, const char *name)
{
	int i;

	for (i = 0; name && name[0] && i < l->n_qos; i++)
		if (strcmp(l->qos[i].name, name) == 0)
			return &l->qos[i];
	return NULL;
}

static const lim_assoc *lim_find_assoc(const autosize_limits *l,
				       const char *account, const char *user,
				       const char *partition)
{
	lim_assoc key;

	if (strlen(account) >= sizeof(key.account) ||
	    strlen(user) >= sizeof(key.user) ||
	    strlen(partition) >= sizeof(key.partition) || !l->n_assoc)
		return NULL;
	memset(&key, 0, sizeof(key));
	strcpy(key.account, account);
	strcpy(key.user, user);
	strcpy(key.partition, partition);
	return bsearch(&key, l->assoc, (size_t)l->n_assoc, sizeof(*l->assoc),
		       lim_assoc_cmp);
}

static const lim_assoc *lim_find_id(const autosize_limits *l, long id)
{
	lim_assoc key, *kp = &key;
	lim_assoc **found;

	if (!l->n_assoc)
		return NULL;
	key.id = id;
	found = bsearch(&kp, l->by_id, (size_t)l->n_assoc, sizeof(*l->by_id),
			lim_id_cmp);
	return found ? *found : NULL;
}

static const char *lim_default_account(const autosize_limits *l,
				       const char *user)
{
	lim_user key;
	const lim_user *u;

	if (!l->n_user || strlen(user) >= sizeof(key.name))
		return NULL;
	strcpy(key.name, user);
	u = bsearch(&key, l->user, (size_t)l->n_user, sizeof(*l->user),
		    lim_user_cmp);
	return u && u->account[0] ? u->account : NULL;
}

int autosize_limits_has_account(const autosize_limits *l, const char *name)
{
	return l && name && lim_find_assoc(l, name, "", "") != NULL;
}

int autosize_limits_has_qos(const autosize_limits *l, const char *name)
{
	return l && lim_find_qos(l, name) != NULL;
}

int autosize_limits_has_user(const autosize_limits *l, const char *name)
{
	lim_user key;

	if (!l || !name || !l->n_user || strlen(name) >= sizeof(key.name))
		return 0;
	strcpy(key.name, name);
	return bsearch(&key, l->user, (size_t)l->n_user, sizeof(*l->user),
		       lim_user_cmp) != NULL;
}

/* A limit's value as Slurm writes it (minutes as D-HH:MM:SS). */
static void lim_value(int k, long v, char *buf, size_t len)
{
	if (k == LIM_WALL)
		autosize_format_duration((double)v * 60, buf, len);
	else
		snprintf(buf, len, "%ld", v);
}

static void lim_set(autosize_cap *c, int k, long v, const char *who,
		    const char *name)
{
	char val[32];

	if (v < 0 || (c->value >= 0 && c->value <= v))
		return;
	lim_value(k, v, val, sizeof(val));
	c->value = v;
	snprintf(c->who, sizeof(c->who), "%.90s %.52s=%.15s", who, name,
		 val);
}

/* Limit k on GPU type of a QOS (owner: its index) or an association
 * (its id); -1 none. */
static long lim_typed_v(const autosize_limits *l, int of_assoc, long owner,
			int k, const char *type)
{
	lim_typed key;
	const lim_typed *t;

	if (!l->n_typed || strlen(type) >= sizeof(key.type))
		return -1;
	memset(&key, 0, sizeof(key));
	key.of_assoc = of_assoc;
	key.owner = owner;
	key.k = k;
	strcpy(key.type, type);
	t = bsearch(&key, l->typed, (size_t)l->n_typed, sizeof(*l->typed),
		    lim_typed_cmp);
	return t ? t->v : -1;
}

/* Limit k of a QOS or an association, untyped (type NULL) or on GPU
 * type. */
static long lim_qos_v(const autosize_limits *l, const lim_qos *q, int k,
		      const char *type)
{
	return type ? lim_typed_v(l, 0, (long)(q - l->qos), k, type)
		    : q->v[k];
}

static long lim_assoc_v(const autosize_limits *l, const lim_assoc *a, int k,
			const char *type)
{
	return type ? lim_typed_v(l, 1, a->id, k, type) : a->v[k];
}

/* A kind's name as sacctmgr writes it, on GPU type when type is set
 * ("MaxTRESPerUser=gres/gpu:h100"). */
static const char *lim_kind_name(const char *base, const char *type,
				 char *buf, size_t len)
{
	if (!type)
		return base;
	snprintf(buf, len, "%s:%s", base, type);
	return buf;
}

void autosize_caps_none(autosize_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->gpus.value = caps->nodes.value = -1;
	caps->gpus_per_node.value = caps->wall_min.value = -1;
	caps->submit_jobs.value = -1;
}

/* Slot of the caps a kind of limit goes into. */
static autosize_cap *lim_slot(autosize_caps *caps, int k)
{
	switch (k) {
	case LIM_JOB_GPUS: case LIM_USER_GPUS: case LIM_ACCOUNT_GPUS:
	case LIM_GRP_GPUS:
		return &caps->gpus;
	case LIM_NODE_GPUS:
		return &caps->gpus_per_node;
	case LIM_WALL:
		return &caps->wall_min;
	case LIM_USER_SUBMIT: case LIM_ACCOUNT_SUBMIT: case LIM_GRP_SUBMIT:
		return &caps->submit_jobs;
	default:
		return &caps->nodes;
	}
}

/* An association's name in a message. */
static void lim_assoc_who(const lim_assoc *a, char *buf, size_t len)
{
	if (a->user[0])
		snprintf(buf, len, "the association of user %.40s in account %.40s",
			 a->user, a->account);
	else
		snprintf(buf, len, "account %s", a->account);
}

/* Each kind where first defined: the QOS in their order, then the
 * user's association and its parents up to root. type NULL: the
 * untyped limits; else the GPU kinds' limits on that GPU type (a TRES
 * of its own, so a kind of its own in Slurm's order). */
static void lim_apply(const autosize_limits *l, const lim_qos *first,
		      const lim_qos *second, const lim_assoc *a,
		      const char *type, autosize_caps *caps)
{
	const lim_qos *qs[2] = { first, second };
	char who[AUTOSIZE_CAP_WHO_MAX], name[AUTOSIZE_CAP_WHO_MAX];
	const lim_assoc *up;
	long v;
	int k, i, depth, done, grp;

	for (k = 0; k < LIM_N; k++) {
		if (type && !lim_gpu_kind(k))
			continue;
		done = 0;
		for (i = 0; i < 2 && !done; i++) {
			if (!qs[i] || (v = lim_qos_v(l, qs[i], k, type)) < 0)
				continue;
			snprintf(who, sizeof(who), "QOS %s", qs[i]->name);
			lim_set(lim_slot(caps, k), k, v, who,
				lim_kind_name(lim_qos_names[k], type, name,
					      sizeof(name)));
			done = 1;
		}
		if (done || !lim_assoc_names[k])
			continue;
		/* a Max limit is inherited: the first level up that sets
		 * it; a group limit holds at every level (bounded: a
		 * snapshot whose parents loop ends) */
		grp = k == LIM_GRP_GPUS || k == LIM_GRP_NODES ||
		      k == LIM_GRP_SUBMIT;
		for (up = a, depth = 0; up && depth < 64;
		     up = up->parent && up->parent != up->id
			  ? lim_find_id(l, up->parent) : NULL, depth++) {
			if ((v = lim_assoc_v(l, up, k, type)) < 0)
				continue;
			lim_assoc_who(up, who, sizeof(who));
			lim_set(lim_slot(caps, k), k, v, who,
				lim_kind_name(lim_assoc_names[k], type, name,
					      sizeof(name)));
			if (!grp)
				break;
		}
	}
}

/* The association of user's job in account ("": the user's default) in
 * partition ("": any), and the QOS it runs under when it names qos ("":
 * the association's default, else its only QOS, else normal); NULL with
 * why when the snapshot does not know the association. */
static const lim_assoc *lim_job_assoc(const autosize_limits *l,
				      const char *user, const char *account,
				      const char *qos, const char *partition,
				      const char **qos_name, char *why,
				      size_t len)
{
	const lim_assoc *a;

	if (!account || !account[0])
		account = lim_default_account(l, user);
	if (!account) {
		snprintf(why, len, "user %.64s has no default account in "
			 "Slurm's associations", user[0] ? user : "?");
		return NULL;
	}
	a = lim_find_assoc(l, account, user, partition);
	if (!a)
		a = lim_find_assoc(l, account, user, "");
	if (!a) {
		snprintf(why, len, "no association of user %.64s in account "
			 "%.64s%s%.64s is among Slurm's limits", user, account,
			 partition[0] ? " for partition " : "", partition);
		return NULL;
	}
	*qos_name = qos && qos[0] ? qos : a->def_qos[0] ? a->def_qos
		    : a->one_qos[0] ? a->one_qos : "normal";
	return a;
}

int autosize_limits_job_names(const autosize_limits *l, const char *user,
			      const char *account, const char *qos,
			      const char *partition, char *account_out,
			      char *qos_out)
{
	const lim_assoc *a = NULL;
	const char *name = "";
	char why[8];

	account_out[0] = qos_out[0] = '\0';
	if (l)
		a = lim_job_assoc(l, user ? user : "", account, qos,
				  partition ? partition : "", &name, why,
				  sizeof(why));
	if (!a)
		return -1;
	snprintf(account_out, AUTOSIZE_LIMITS_NAME_MAX, "%s", a->account);
	snprintf(qos_out, AUTOSIZE_LIMITS_NAME_MAX, "%s", name);
	return 0;
}

int autosize_limits_caps(const autosize_limits *l, const char *user,
			 const char *account, const char *qos,
			 const char *partition, const char *part_qos,
			 autosize_caps *caps, char *why, size_t len)
{
	const autosize_slurm_part *sp;
	const lim_assoc *a;
	const lim_qos *q, *pq = NULL, *first, *second;
	struct autosize_typed_cap *tc;
	autosize_caps typed;
	const char *name = "";
	int t;

	autosize_caps_none(caps);
	if (why && len)
		why[0] = '\0';
	if (!l || !l->enforced)
		return 0;
	user = user ? user : "";
	partition = partition ? partition : "";
	a = lim_job_assoc(l, user, account, qos, partition, &name, why, len);
	if (!a)
		return -1;
	q = lim_find_qos(l, name);
	if (!q) {
		snprintf(why, len, "QOS %.64s is not among Slurm's QOS", name);
		return -1;
	}
	if (!part_qos) {
		sp = autosize_limits_partition(l, partition, NULL);
		part_qos = sp ? sp->qos : "";
	}
	if (part_qos[0] && strcmp(part_qos, q->name) != 0) {
		pq = lim_find_qos(l, part_qos);
		if (!pq) {
			snprintf(why, len, "partition %.64s's QOS %.64s is not "
				 "among Slurm's QOS", partition, part_qos);
			return -1;
		}
	}
	snprintf(caps->qos, sizeof(caps->qos), "%s", q->name);
	snprintf(caps->account, sizeof(caps->account), "%s", a->account);
	/* the partition's QOS first, unless the job's has OverPartQOS */
	if (pq && q->over_part) {
		first = q;
		second = pq;
	} else {
		first = pq;
		second = q;
	}
	lim_apply(l, first, second, a, NULL, caps);
	for (t = 0; t < l->n_types && caps->n_typed < AUTOSIZE_CAPS_TYPED_MAX;
	     t++) {
		autosize_caps_none(&typed);
		lim_apply(l, first, second, a, l->types[t], &typed);
		if (typed.gpus.value < 0 && typed.gpus_per_node.value < 0)
			continue;
		tc = &caps->typed[caps->n_typed++];
		snprintf(tc->type, sizeof(tc->type), "%s", l->types[t]);
		tc->gpus = typed.gpus;
		tc->gpus_per_node = typed.gpus_per_node;
	}
	return 0;
}

/* *c the smaller of *c and *by (c on a tie: the untyped). */
static void lim_fold(autosize_cap *c, const autosize_cap *by)
{
	if (by->value >= 0 && (c->value < 0 || by->value < c->value))
		*c = *by;
}

void autosize_caps_of_type(const autosize_limits *l,
			   const autosize_caps *caps, const char *partition,
			   const char *type, autosize_caps *out)
{
	const autosize_slurm_part *sp;
	const char *t;
	int i;

	*out = *caps;
	for (i = 0; i < caps->n_typed && i < AUTOSIZE_CAPS_TYPED_MAX; i++) {
		t = caps->typed[i].type;
		if (type && type[0]) {
			if (strcmp(t, type) != 0)
				continue;
		} else {
			/* does the partition have nodes of this type? */
			sp = autosize_limits_partition(l, partition, t);
			if (!sp || strcmp(sp->type, t) != 0)
				continue;
		}
		lim_fold(&out->gpus, &caps->typed[i].gpus);
		lim_fold(&out->gpus_per_node, &caps->typed[i].gpus_per_node);
	}
}

const autosize_slurm_part *autosize_limits_partition(const autosize_limits *l,
						     const char *partition,
						     const char *type)
{
	const autosize_slurm_part *whole = NULL;
	int i;

	if (!l || !partition)
		return NULL;
	for (i = 0; i < l->n_part; i++) {
		if (strcmp(l->part[i].name, partition) != 0)
			continue;
		if (!l->part[i].type[0])
			whole = &l->part[i];
		else if (type && type[0] && strcmp(l->part[i].type, type) == 0)
			return &l->part[i];
	}
	return whole;
}

/* The limits of v, then the typed ones of owner, as
 * "MaxTRESPerUser=gres/gpu=16, MaxWall=04:00:00,
 * MaxTRESPerUser=gres/gpu:h100=8". */
static void lim_list(const autosize_limits *l, const long *v, int of_assoc,
		     long owner, const char *const *names, char *buf,
		     size_t len)
{
	char val[32];
	const lim_typed *t;
	size_t used = 0;
	int k, i, n;

	buf[0] = '\0';
	for (k = 0; k < LIM_N; k++) {
		if (v[k] < 0 || !names[k])
			continue;
		lim_value(k, v[k], val, sizeof(val));
		n = snprintf(buf + used, len - used, "%s%s=%s",
			     used ? ", " : "", names[k], val);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
	for (i = 0; i < l->n_typed; i++) {
		t = &l->typed[i];
		if (t->of_assoc != of_assoc || t->owner != owner)
			continue;
		n = snprintf(buf + used, len - used, "%s%s:%s=%ld",
			     used ? ", " : "", names[t->k], t->type, t->v);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

const char *autosize_limits_qos_line(const autosize_limits *l, int i,
				     char *buf, size_t len)
{
	char list[400];

	if (!l || i < 0 || i >= l->n_qos)
		return NULL;
	lim_list(l, l->qos[i].v, 0, i, lim_qos_names, list, sizeof(list));
	snprintf(buf, len, "QOS %s: %s%s", l->qos[i].name,
		 list[0] ? list : "no limit on GPUs, nodes or time",
		 l->qos[i].over_part ? " (OverPartQOS)" : "");
	return buf;
}

/* 1 when association a sets a limit autosize plans within. */
static int lim_assoc_limited(const autosize_limits *l, const lim_assoc *a)
{
	int k, i;

	for (k = 0; k < LIM_N; k++)
		if (a->v[k] >= 0 && lim_assoc_names[k])
			return 1;
	for (i = 0; i < l->n_typed; i++)
		if (l->typed[i].of_assoc && l->typed[i].owner == a->id)
			return 1;
	return 0;
}

const char *autosize_limits_assoc_line(const autosize_limits *l, int i,
				       char *buf, size_t len)
{
	char list[400], who[AUTOSIZE_CAP_WHO_MAX];
	int k, seen = -1;

	if (!l || i < 0)
		return NULL;
	for (k = 0; k < l->n_assoc; k++) {
		if (!lim_assoc_limited(l, &l->assoc[k]) || ++seen != i)
			continue;
		lim_list(l, l->assoc[k].v, 1, l->assoc[k].id,
			 lim_assoc_names, list, sizeof(list));
		lim_assoc_who(&l->assoc[k], who, sizeof(who));
		snprintf(buf, len, "%.110s%s%.63s: %.400s", who,
			 l->assoc[k].partition[0] ? ", partition " : "",
			 l->assoc[k].partition, list);
		return buf;
	}
	return NULL;
}
