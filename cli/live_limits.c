/*
 * autosize: Slurm's QOS and association limits and its nodes, read from
 * slurmctld through libslurm (its association manager: what slurmctld
 * enforces, even while slurmdbd is away) and written as the snapshot
 * limits.h describes. `autosize limits --raw` is the helper slurmctld's
 * module starts (plugin/lua_limits.c): it runs outside slurmctld, so its
 * requests wait on slurmctld's locks like any client's, never the other
 * way round. Built without libslurm's headers, it says so and fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "autosize/decide.h"
#include "cli.h"
#include "opts.h"
#include "live.h"
#ifdef AUTOSIZE_HAVE_SLURM
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include <slurm/slurm_errno.h>
#endif

/* A Slurm name as the snapshot takes it ("-" for none, '?' for what a
 * reader could mistake for a separator). */
static const char *limits_name(const char *s, char *buf, size_t len)
{
	size_t i;

	if (!s || !s[0])
		return "-";
	snprintf(buf, len, "%s", s);
	for (i = 0; buf[i]; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_.-@+", buf[i]))
			buf[i] = '?';
	return buf;
}

#ifdef AUTOSIZE_HAVE_SLURM
/* libslurm's lists: List and ListIterator up to 25.11, list_t * and
 * list_itr_t * from 23.11 on (only those in 26.05). */
typedef __typeof__(((assoc_mgr_info_msg_t *)0)->qos_list) limits_list;
typedef __typeof__(slurm_list_iterator_create(NULL)) limits_iter;
/* slurm_free_ctl_conf became slurm_free_conf in 26.05. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
#define limits_free_conf slurm_free_conf
#else
#define limits_free_conf slurm_free_ctl_conf
#endif

/* Slurm's AccountingStorageEnforce bit for limits (src/common/
 * read_config.h, the same from 22.05 to 26.05; `safe` sets it too). */
#define LIMITS_ENFORCE_LIMITS (1u << 1)
/* slurmctld starting (the module starts a helper as it loads): retry
 * a refused connection this long. */
#define LIMITS_CONNECT_WAIT_S 30

typedef struct limits_tres {
	int gpu, node;          /* indexes in tres_names, -1 none */
	uint32_t cnt;
	int n_typed;            /* gres/gpu:TYPE TRES */
	int typed[AUTOSIZE_LIMITS_TYPES_MAX];  /* their indexes */
	const char *type[AUTOSIZE_LIMITS_TYPES_MAX]; /* their TYPE */
} limits_tres;

/* " key=N" for one TRES of a _ctld array (INFINITE64 and NO_VAL64 are
 * no limit). */
static void limits_tres_key(FILE *f, const char *key, const uint64_t *v,
			    int i, const limits_tres *t)
{
	if (v && i >= 0 && (uint32_t)i < t->cnt && v[i] != INFINITE64 &&
	    v[i] != NO_VAL64)
		fprintf(f, " %s=%llu", key, (unsigned long long)v[i]);
}

/* " key=N" for GPUs, then " key:TYPE=N" for each GPU type limited. */
static void limits_gpu_keys(FILE *f, const char *key, const uint64_t *v,
			    const limits_tres *t)
{
	char typed[160], n[128];
	int i;

	limits_tres_key(f, key, v, t->gpu, t);
	for (i = 0; i < t->n_typed; i++) {
		snprintf(typed, sizeof(typed), "%s:%s", key,
			 limits_name(t->type[i], n, sizeof(n)));
		limits_tres_key(f, typed, v, t->typed[i], t);
	}
}

static void limits_wall(FILE *f, uint32_t m)
{
	if (m != INFINITE && m != NO_VAL)
		fprintf(f, " wall_min=%u", m);
}

/* " key=N" for a count (INFINITE and NO_VAL are no limit). */
static void limits_count(FILE *f, const char *key, uint32_t v)
{
	if (v != INFINITE && v != NO_VAL)
		fprintf(f, " %s=%u", key, v);
}

static void limits_qos(FILE *f, const slurmdb_qos_rec_t *q,
		       const limits_tres *t)
{
	char n[128];

	fprintf(f, "qos %s", limits_name(q->name, n, sizeof(n)));
	if (q->flags & QOS_FLAG_OVER_PART_QOS)
		fprintf(f, " flags=over_part");
	limits_gpu_keys(f, "job_gpus", q->max_tres_pj_ctld, t);
	limits_tres_key(f, "job_nodes", q->max_tres_pj_ctld, t->node, t);
	limits_gpu_keys(f, "user_gpus", q->max_tres_pu_ctld, t);
	limits_tres_key(f, "user_nodes", q->max_tres_pu_ctld, t->node, t);
	limits_gpu_keys(f, "account_gpus", q->max_tres_pa_ctld, t);
	limits_tres_key(f, "account_nodes", q->max_tres_pa_ctld, t->node, t);
	limits_gpu_keys(f, "grp_gpus", q->grp_tres_ctld, t);
	limits_tres_key(f, "grp_nodes", q->grp_tres_ctld, t->node, t);
	limits_gpu_keys(f, "node_gpus", q->max_tres_pn_ctld, t);
	limits_wall(f, q->max_wall_pj);
	limits_count(f, "user_submit", q->max_submit_jobs_pu);
	limits_count(f, "account_submit", q->max_submit_jobs_pa);
	limits_count(f, "grp_submit", q->grp_submit_jobs);
	fputc('\n', f);
}

/* A QOS name by id ("" unknown). */
static const char *limits_qos_name(limits_list qos, uint32_t id)
{
	limits_iter it;
	slurmdb_qos_rec_t *q;
	const char *name = "";

	if (!qos || id == 0 || id == NO_VAL || id == INFINITE)
		return "";
	it = slurm_list_iterator_create(qos);
	while ((q = slurm_list_next(it)))
		if (q->id == id && q->name) {
			name = q->name;
			break;
		}
	slurm_list_iterator_destroy(it);
	return name;
}

/* The QOS an association may use: a list of ids (or names) as text. */
static void limits_assoc_qos(FILE *f, const slurmdb_assoc_rec_t *a,
			     limits_list qos)
{
	limits_iter it;
	const char *s, *name;
	char n[128];
	int first = 1;

	if (!a->qos_list || slurm_list_count(a->qos_list) == 0)
		return;
	it = slurm_list_iterator_create(a->qos_list);
	while ((s = slurm_list_next(it))) {
		name = s[0] >= '0' && s[0] <= '9'
		       ? limits_qos_name(qos, (uint32_t)strtoul(s, NULL, 10))
		       : s;
		if (!name[0])
			continue;
		fprintf(f, "%s%s", first ? " qos=" : ",",
			limits_name(name, n, sizeof(n)));
		first = 0;
	}
	slurm_list_iterator_destroy(it);
}

static void limits_assoc(FILE *f, const slurmdb_assoc_rec_t *a, limits_list qos,
			 const limits_tres *t)
{
	char n1[128], n2[128], n3[128];
	const char *def = limits_qos_name(qos, a->def_qos_id);

	fprintf(f, "assoc %u %u %s %s %s", a->id, a->parent_id,
		limits_name(a->acct, n1, sizeof(n1)),
		limits_name(a->user, n2, sizeof(n2)),
		limits_name(a->partition, n3, sizeof(n3)));
	limits_gpu_keys(f, "job_gpus", a->max_tres_ctld, t);
	limits_tres_key(f, "job_nodes", a->max_tres_ctld, t->node, t);
	limits_gpu_keys(f, "grp_gpus", a->grp_tres_ctld, t);
	limits_tres_key(f, "grp_nodes", a->grp_tres_ctld, t->node, t);
	limits_gpu_keys(f, "node_gpus", a->max_tres_pn_ctld, t);
	limits_wall(f, a->max_wall_pj);
	limits_count(f, "user_submit", a->max_submit_jobs);
	limits_count(f, "grp_submit", a->grp_submit_jobs);
	if (def[0])
		fprintf(f, " def_qos=%s", limits_name(def, n1, sizeof(n1)));
	limits_assoc_qos(f, a, qos);
	fputc('\n', f);
}

/* The association manager's QOS, associations and users. */
static int limits_assoc_mgr(FILE *f, char *err, size_t len)
{
	assoc_mgr_info_request_msg_t req;
	assoc_mgr_info_msg_t *msg = NULL;
	limits_tres t = { .gpu = -1, .node = -1 };
	limits_iter it;
	slurmdb_qos_rec_t *q;
	slurmdb_assoc_rec_t *a;
	slurmdb_user_rec_t *u;
	char n1[128], n2[128];
	uint32_t i;

	memset(&req, 0, sizeof(req));
	req.flags = ASSOC_MGR_INFO_FLAG_ASSOC | ASSOC_MGR_INFO_FLAG_QOS |
		    ASSOC_MGR_INFO_FLAG_USERS;
	if (slurm_load_assoc_mgr_info(&req, &msg) != 0 || !msg) {
		snprintf(err, len, "cannot read slurmctld's association "
			 "manager: %s", slurm_strerror(errno));
		return -1;
	}
	t.cnt = msg->tres_cnt;
	for (i = 0; msg->tres_names && i < msg->tres_cnt; i++) {
		if (msg->tres_names[i] &&
		    strcmp(msg->tres_names[i], "gres/gpu") == 0)
			t.gpu = (int)i;
		if (msg->tres_names[i] && strcmp(msg->tres_names[i], "node") == 0)
			t.node = (int)i;
		if (msg->tres_names[i] &&
		    strncmp(msg->tres_names[i], "gres/gpu:", 9) == 0 &&
		    msg->tres_names[i][9] &&
		    t.n_typed < AUTOSIZE_LIMITS_TYPES_MAX) {
			t.typed[t.n_typed] = (int)i;
			t.type[t.n_typed++] = msg->tres_names[i] + 9;
		}
	}
	if (msg->qos_list) {
		it = slurm_list_iterator_create(msg->qos_list);
		while ((q = slurm_list_next(it)))
			if (q->name)
				limits_qos(f, q, &t);
		slurm_list_iterator_destroy(it);
	}
	if (msg->assoc_list) {
		it = slurm_list_iterator_create(msg->assoc_list);
		while ((a = slurm_list_next(it)))
			if (a->acct)
				limits_assoc(f, a, msg->qos_list, &t);
		slurm_list_iterator_destroy(it);
	}
	if (msg->user_list) {
		it = slurm_list_iterator_create(msg->user_list);
		while ((u = slurm_list_next(it)))
			if (u->name)
				fprintf(f, "user %s%s%s\n",
					limits_name(u->name, n1, sizeof(n1)),
					u->default_acct ? " default_account="
							: "",
					u->default_acct
					? limits_name(u->default_acct, n2,
						      sizeof(n2)) : "");
		slurm_list_iterator_destroy(it);
	}
	slurm_free_assoc_mgr_info_msg(msg);
	return 0;
}

/* The smallest node of a partition (of one GPU type, or all). */
typedef struct limits_nodes {
	long cpus, mem_mb, gpus;
} limits_nodes;

static void limits_node_min(limits_nodes *m, const node_info_t *ni,
			    long gpus)
{
	if (m->cpus < 0 || ni->cpus < m->cpus)
		m->cpus = ni->cpus;
	if (m->mem_mb < 0 || (long)ni->real_memory < m->mem_mb)
		m->mem_mb = (long)ni->real_memory;
	if (gpus > 0 && (m->gpus < 0 || gpus < m->gpus))
		m->gpus = gpus;
}

/* A job default (JOB_DEF_CPU_PER_GPU, JOB_DEF_MEM_PER_GPU) of a list
 * of job_defaults_t: its value, -1 none. */
static long limits_default(limits_list defaults, uint16_t type)
{
	limits_iter it;
	job_defaults_t *d;
	long v = -1;

	if (!defaults)
		return -1;
	it = slurm_list_iterator_create(defaults);
	while ((d = slurm_list_next(it)))
		if (d->type == type && d->value > 0 && d->value < (1ULL << 40))
			v = (long)d->value;
	slurm_list_iterator_destroy(it);
	return v;
}

/* The partition's DefCpuPerGPU / DefMemPerGPU, else slurm.conf's. */
static long limits_part_default(const partition_info_t *pi,
				const slurm_conf_t *conf, uint16_t type)
{
	long v = limits_default(pi->job_defaults_list, type);

	return v > 0 ? v : limits_default(conf->job_defaults_list, type);
}

static void limits_part_line(FILE *f, const partition_info_t *pi,
			     const slurm_conf_t *conf, const char *type,
			     const limits_nodes *m)
{
	char n1[128], n2[128];
	long v;

	fprintf(f, "part %s %s", limits_name(pi->name, n1, sizeof(n1)),
		limits_name(type, n2, sizeof(n2)));
	if (pi->qos_char && pi->qos_char[0])
		fprintf(f, " qos=%s", limits_name(pi->qos_char, n1,
						  sizeof(n1)));
	if ((v = limits_part_default(pi, conf, JOB_DEF_CPU_PER_GPU)) > 0)
		fprintf(f, " def_cpus_per_gpu=%ld", v);
	if ((v = limits_part_default(pi, conf, JOB_DEF_MEM_PER_GPU)) > 0)
		fprintf(f, " def_mem_per_gpu_mb=%ld", v);
	if (pi->max_cpus_per_node != INFINITE &&
	    pi->max_cpus_per_node != NO_VAL && pi->max_cpus_per_node > 0)
		fprintf(f, " max_cpus_per_node=%u", pi->max_cpus_per_node);
	if (m->cpus >= 0)
		fprintf(f, " node_cpus=%ld", m->cpus);
	if (m->mem_mb >= 0)
		fprintf(f, " node_mem_mb=%ld", m->mem_mb);
	if (m->gpus > 0)
		fprintf(f, " node_gpus=%ld", m->gpus);
	fputc('\n', f);
}

/* One partition: its nodes, then each GPU type among them. */
static void limits_partition(FILE *f, const partition_info_t *pi,
			     const slurm_conf_t *conf,
			     const node_info_msg_t *nm)
{
	char types[16][LIVE_TYPE_MAX];
	limits_nodes all = { -1, -1, -1 }, one;
	int n_types = 0, k;
	uint32_t j;
	live_gpus g;

	for (j = 0; j < nm->record_count; j++) {
		const node_info_t *ni = &nm->node_array[j];

		if (!ni->name || !live_in_list(ni->partitions, pi->name))
			continue;
		live_parse_gres(ni->gres, &g);
		limits_node_min(&all, ni, g.count);
		for (k = 0; g.typed && !g.mixed && k < n_types; k++)
			if (strcmp(types[k], g.type) == 0)
				break;
		if (g.typed && !g.mixed && k == n_types && n_types < 16)
			snprintf(types[n_types++], LIVE_TYPE_MAX, "%s",
				 g.type);
	}
	limits_part_line(f, pi, conf, NULL, &all);
	for (k = 0; k < n_types; k++) {
		one.cpus = one.mem_mb = one.gpus = -1;
		for (j = 0; j < nm->record_count; j++) {
			const node_info_t *ni = &nm->node_array[j];

			if (!ni->name ||
			    !live_in_list(ni->partitions, pi->name))
				continue;
			live_parse_gres(ni->gres, &g);
			if (g.typed && !g.mixed && strcmp(g.type, types[k]) == 0)
				limits_node_min(&one, ni, g.count);
		}
		limits_part_line(f, pi, conf, types[k], &one);
	}
}

static int limits_partitions(FILE *f, const slurm_conf_t *conf, char *err,
			     size_t len)
{
	partition_info_msg_t *pm = NULL;
	node_info_msg_t *nm = NULL;
	uint32_t i;

	if (slurm_load_partitions((time_t)0, &pm, SHOW_ALL) != 0 ||
	    slurm_load_node((time_t)0, &nm, SHOW_ALL) != 0) {
		snprintf(err, len, "cannot read the partitions and nodes: %s",
			 slurm_strerror(errno));
		if (pm)
			slurm_free_partition_info_msg(pm);
		return -1;
	}
	slurm_populate_node_partitions(nm, pm);
	for (i = 0; i < pm->record_count; i++)
		if (pm->partition_array[i].name)
			limits_partition(f, &pm->partition_array[i], conf,
					 nm);
	slurm_free_partition_info_msg(pm);
	slurm_free_node_info_msg(nm);
	return 0;
}

int live_limits_write(FILE *f, char *err, size_t len)
{
	slurm_conf_t *conf = NULL;
	pid_t parent = getppid();
	int enforced, i, rc = -1;

	live_slurm_init();
	/* slurmctld may be starting (its module asked as it loaded); a
	 * helper whose slurmctld is gone (it is another process's child
	 * now) stops at once */
	for (i = 0; slurm_load_ctl_conf((time_t)0, &conf) != 0; i++) {
		conf = NULL;
		if (i >= LIMITS_CONNECT_WAIT_S * 2 || getppid() != parent) {
			snprintf(err, len, "cannot read slurmctld's "
				 "configuration: %s (is slurmctld up, "
				 "SLURM_CONF right?)", slurm_strerror(errno));
			goto out;
		}
		usleep(500000);
	}
	enforced = (conf->accounting_storage_enforce &
		    LIMITS_ENFORCE_LIMITS) && conf->accounting_storage_type &&
		   !strstr(conf->accounting_storage_type, "none");
	fprintf(f, "autosize-limits 1\n# Slurm's limits as slurmctld "
		"enforces them (autosize limits --raw)\nenforce %s\n",
		enforced ? "limits" : "none");
	if ((enforced && limits_assoc_mgr(f, err, len) != 0) ||
	    limits_partitions(f, conf, err, len) != 0)
		goto out;
	fprintf(f, "end\n");
	rc = 0;
out:
	if (conf)
		limits_free_conf(conf);
	return rc;
}
#else
int live_limits_write(FILE *f, char *err, size_t len)
{
	(void)f;
	(void)limits_name;
	snprintf(err, len, "this autosize was built without libslurm "
		 "(apt-get install libslurm-dev, then make)");
	return -1;
}
#endif

/* The snapshot of this cluster, read back (the caller destroys it). */
autosize_limits *live_limits_load(char *err, size_t len)
{
	autosize_limits *l = NULL;
	autosize_error e;
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	if (!f) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	if (live_limits_write(f, err, len) != 0) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	l = autosize_limits_parse(text, n, &e);
	if (!l)
		snprintf(err, len, "%s", e.msg);
	free(text);
	return l;
}

/* The limits of l, one line each, indented by lead. */
void live_limits_print(FILE *f, const autosize_limits *l, const char *lead)
{
	char line[512];
	int i;

	if (!autosize_limits_enforced(l)) {
		fprintf(f, "%sSlurm enforces no QOS or association limits "
			"(AccountingStorageEnforce without limits)\n", lead);
		return;
	}
	fprintf(f, "%sSlurm enforces QOS and association limits: jobs are "
		"planned within them\n", lead);
	for (i = 0; autosize_limits_qos_line(l, i, line, sizeof(line)); i++)
		fprintf(f, "%s  %s\n", lead, line);
	for (i = 0; autosize_limits_assoc_line(l, i, line, sizeof(line)); i++)
		fprintf(f, "%s  %s\n", lead, line);
}

static void limits_help(FILE *f)
{
	fprintf(f, "usage: autosize limits [--raw]\n\n"
		"The QOS and association limits Slurm enforces on GPUs, "
		"nodes and wall\ntime, as slurmctld's association manager "
		"holds them (SLURM_CONF).\n--raw writes the snapshot "
		"slurmctld's module reads (it runs this\ncommand itself, "
		"about every 30 s).\n");
}

/* The snapshot on stdout, whole or not at all: an error is one line
 * there too (the module reads one stream). */
static int limits_raw(void)
{
	char err[AUTOSIZE_MSG_LEN], *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	int rv = CLI_EXIT_NOFIT;

	if (!f) {
		printf("autosize: limits: out of memory\n");
		return rv;
	}
	if (live_limits_write(f, err, sizeof(err)) != 0) {
		fclose(f);
		printf("autosize: limits: %s\n", err);
		goto out;
	}
	fclose(f);
	if (fwrite(text, 1, n, stdout) == n && fflush(stdout) == 0)
		rv = CLI_EXIT_OK;
out:
	free(text);
	return rv;
}

int cli_limits(int argc, char **argv)
{
	enum { LIMITS_HELP = 1, LIMITS_RAW };
	static const cli_opt opts[] = {
		{"help", 0, 0, LIMITS_HELP},
		{"raw", 0, 0, LIMITS_RAW},
	};
	autosize_limits *l;
	char err[AUTOSIZE_MSG_LEN];
	cli_opts op;
	int k, raw = 0;

	cli_opts_init(&op, opts, CLI_N(opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		if (k == LIMITS_HELP) {
			limits_help(stdout);
			return CLI_EXIT_OK;
		} else if (k == LIMITS_RAW) {
			raw = 1;
		} else if (k != CLI_OPT_DASHDASH) {
			fprintf(stderr, "autosize: limits: unexpected argument "
				"'%.40s'\n", op.text);
			limits_help(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (raw)
		return limits_raw();
	l = live_limits_load(err, sizeof(err));
	if (!l) {
		fprintf(stderr, "autosize: limits: %s\n", err);
		return CLI_EXIT_NOFIT;
	}
	live_limits_print(stdout, l, "");
	autosize_limits_destroy(l);
	return CLI_EXIT_OK;
}
