/*
 * autosize: the policy's `rules:` (policy.h): per account, QOS and user,
 * the mode, a GPU cap per job, the default partition(s), framework and
 * stack. Read as strictly as the rest of the policy (errors name file,
 * line and key); the first rule that matches a job applies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/policy.h"
#include "names.h"
#include "perfdata.h"
#include "policy_read.h"

/* A GPU cap above this is a typo (a million GPUs). */
#define RULES_MAX_GPUS 1000000L

static const char *const rule_keys[] = {
	"accounts", "qos", "users", "mode", "max_gpus", "partition",
	"framework", "stack", NULL
};

/* The match keys, in the order of the rule's lists. */
static const char *const rule_match_keys[] = { "users", "accounts", "qos" };

/* Same order as autosize_mode. */

typedef char rule_name[AUTOSIZE_EXEMPT_NAME_MAX];

/* Names a rule's match key lists (0 when absent). */
static int rule_names_in(const autosize_ynode *m, const char *key)
{
	const autosize_ynode *seq = autosize_ynode_get(m, key), *it;
	int n = 0;

	if (!seq || seq->kind != AUTOSIZE_YNODE_SEQ)
		return 0;
	for (it = seq->child; it && n <= AUTOSIZE_RULE_NAMES_MAX;
	     it = it->next)
		n++;
	return n;
}

/* One match key's names into names (at most AUTOSIZE_RULE_NAMES_MAX);
 * a key given must name one at least. */
static autosize_err rule_list(const autosize_ytree *t,
			      const autosize_ynode *m, const char *key,
			      rule_name *names, int *n, autosize_error *e)
{
	autosize_err rc;
	int found;

	rc = policy_names(t, m, key, key, AUTOSIZE_RULE_NAMES_MAX, names, n,
			  &found, e);
	if (!rc && found && *n == 0)
		return autosize_ytree_fail(t, autosize_ynode_get(m, key)->line,
			e, AUTOSIZE_EINVAL, "key '%s': an empty list (leave "
			"the key out to match any %s)", key, key);
	return rc;
}

/* 1 when the policy has a partition of that name. */
static int rule_part_known(const policy_rules_in *in, const char *name)
{
	int i;

	for (i = 0; i < in->n_parts; i++)
		if (strcmp(in->parts[i].name, name) == 0)
			return 1;
	return 0;
}

/* "p1, p2" of the policy's partition names, as many as fit. */
static const char *rule_part_names(const policy_rules_in *in, char *buf,
				   size_t len)
{
	size_t used = 0;
	int i, w;

	buf[0] = '\0';
	for (i = 0; i < in->n_parts; i++) {
		if (i && strcmp(in->parts[i].name, in->parts[i - 1].name) == 0)
			continue;   /* one entry per GPU type */
		w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			     in->parts[i].name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* `partition:` a partition of the policy or a comma list of them (as
 * sbatch -p takes them). */
static autosize_err rule_partition(const autosize_ytree *t,
				   const policy_rules_in *in,
				   const autosize_ynode *m,
				   autosize_rule *rule, autosize_error *e)
{
	char name[AUTOSIZE_PART_NAME_MAX], names[200];
	const char *at = rule->partition, *comma;
	autosize_err rc;
	size_t n;
	int found;

	rc = autosize_ytree_str(t, m, "partition", AUTOSIZE_Y_OPTIONAL,
				rule->partition, sizeof(rule->partition),
				&found, e);
	if (rc || !found)
		return rc;
	while (*at) {
		comma = strchr(at, ',');
		n = comma ? (size_t)(comma - at) : strlen(at);
		if (n == 0 || n >= sizeof(name))
			goto bad;
		memcpy(name, at, n);
		name[n] = '\0';
		if (!rule_part_known(in, name))
			return autosize_ytree_fail(t,
				autosize_ynode_get(m, "partition")->line, e,
				AUTOSIZE_ENOTFOUND, "key 'partition': no "
				"partition '%s' under partitions (expected one "
				"of %s, or a comma list of them)", name,
				rule_part_names(in, names, sizeof(names)));
		at += n + (comma ? 1 : 0);
		if (comma && !*at)
			goto bad;
	}
	return AUTOSIZE_OK;
bad:
	return autosize_ytree_fail(t, autosize_ynode_get(m, "partition")->line,
		e, AUTOSIZE_EINVAL, "key 'partition': expected a partition "
		"of the policy or a comma list of them (%s)",
		rule_part_names(in, names, sizeof(names)));
}

/* What a rule sets besides its partition. */
static autosize_err rule_settings(const autosize_ytree *t,
				  const policy_rules_in *in,
				  const autosize_ynode *m,
				  autosize_rule *rule, autosize_error *e)
{
	int mode = 0, framework = 0, found = 0, gpus = 0;
	autosize_err rc;

	rc = autosize_ytree_choice(t, m, "mode", AUTOSIZE_Y_OPTIONAL,
				   names_mode,
				   &mode, &rule->mode_set, e);
	rule->mode = (autosize_mode)mode;
	if (!rc)
		rc = autosize_ytree_int(t, m, "max_gpus", AUTOSIZE_Y_OPTIONAL,
					1, RULES_MAX_GPUS, &gpus, NULL, e);
	rule->max_gpus = gpus;
	if (!rc)
		rc = autosize_ytree_choice(t, m, "framework",
					   AUTOSIZE_Y_OPTIONAL,
					   autosize_framework_names,
					   &framework, &found, e);
	if (!rc && found)
		rule->framework = (autosize_framework)
				  (framework + AUTOSIZE_FRAMEWORK_MEGATRON);
	if (!rc)
		rc = autosize_ytree_str(t, m, "stack", AUTOSIZE_Y_OPTIONAL,
					rule->stack, sizeof(rule->stack),
					NULL, e);
	if (!rc && rule->stack[0] &&
	    !perfdata_stack_find(in->perf, rule->stack) &&
	    !perfdata_stack_find(perfdata_default(), rule->stack))
		rc = autosize_ytree_fail(t, autosize_ynode_get(m, "stack")->line,
					 e, AUTOSIZE_EINVAL, "key 'stack': "
					 "unknown stack '%s' (see etc/perf.yaml "
					 "stacks:)", rule->stack);
	if (!rc)
		rc = rule_partition(t, in, m, rule, e);
	return rc;
}

/* One rule; its names go to *names, which it advances. */
static autosize_err rule_read(const autosize_ytree *t,
			      const policy_rules_in *in,
			      const autosize_ynode *m, autosize_rule *rule,
			      rule_name **names, autosize_error *e)
{
	int *counts[3] = { &rule->n_users, &rule->n_accounts, &rule->n_qos };
	const char (**lists[3])[AUTOSIZE_EXEMPT_NAME_MAX] = {
		&rule->users, &rule->accounts, &rule->qos
	};
	autosize_err rc;
	int k;

	memset(rule, 0, sizeof(*rule));
	rule->line = m->line;
	if (m->kind != AUTOSIZE_YNODE_MAP)
		return autosize_ytree_fail(t, m->line, e, AUTOSIZE_EINVAL,
			"key 'rules': an item is not a mapping (expected "
			"accounts, qos or users, and what the rule sets)");
	rc = autosize_ytree_check_keys(t, m, "rule", rule_keys, e);
	for (k = 0; k < 3 && !rc; k++) {
		rc = rule_list(t, m, rule_match_keys[k], *names, counts[k], e);
		*lists[k] = (const char (*)[AUTOSIZE_EXEMPT_NAME_MAX])*names;
		*names += *counts[k];
	}
	if (!rc)
		rc = rule_settings(t, in, m, rule, e);
	if (rc)
		return rc;
	if (!rule->n_users && !rule->n_accounts && !rule->n_qos)
		return autosize_ytree_fail(t, m->line, e, AUTOSIZE_EINVAL,
			"rule: it matches no job (expected accounts, qos or "
			"users: the defaults are for every job)");
	if (!rule->mode_set && !rule->max_gpus && !rule->partition[0] &&
	    rule->framework == AUTOSIZE_FRAMEWORK_DEFAULT && !rule->stack[0])
		return autosize_ytree_fail(t, m->line, e, AUTOSIZE_EINVAL,
			"rule: it sets nothing (expected mode, max_gpus, "
			"partition, framework or stack)");
	return AUTOSIZE_OK;
}

/* 1 when names (n of them; 0: any) holds name. */
static int rule_has(const char (*names)[AUTOSIZE_EXEMPT_NAME_MAX], int n,
		    const char *name)
{
	int i;

	if (n == 0)
		return 1;
	for (i = 0; name && name[0] && i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

/* 1 when every job list b matches, list a matches too. */
static int rule_covers(const char (*a)[AUTOSIZE_EXEMPT_NAME_MAX], int na,
		       const char (*b)[AUTOSIZE_EXEMPT_NAME_MAX], int nb)
{
	int i;

	if (na == 0)
		return 1;
	if (nb == 0)
		return 0;
	for (i = 0; i < nb; i++)
		if (!rule_has(a, na, b[i]))
			return 0;
	return 1;
}

/* A rule no job reaches (an earlier one matches all its jobs): said. */
static void rule_shadowed(const autosize_ytree *t, const policy_rules_in *in,
			  const autosize_rule *rules, int n)
{
	const autosize_rule *a, *b = &rules[n];
	int i;

	for (i = 0; i < n; i++) {
		a = &rules[i];
		if (!rule_covers(a->users, a->n_users, b->users, b->n_users) ||
		    !rule_covers(a->accounts, a->n_accounts, b->accounts,
				 b->n_accounts) ||
		    !rule_covers(a->qos, a->n_qos, b->qos, b->n_qos))
			continue;
		if (*in->n_warnings >= in->max_warnings)
			return;
		snprintf(in->warnings[(*in->n_warnings)++],
			 AUTOSIZE_POLICY_WARNING_LEN, "%.100s:%d: rule: it "
			 "never applies: the rule at line %d matches every job "
			 "it matches (the first rule that matches applies: put "
			 "the narrower one first)", autosize_ytree_what(t),
			 b->line, a->line);
		return;
	}
}

autosize_err policy_rules_parse(const autosize_ytree *t,
				const policy_rules_in *in,
				autosize_rule **rules, int *n,
				autosize_error *e)
{
	const autosize_ynode *seq, *it;
	rule_name *names;
	size_t count = 0, n_names = 0;
	autosize_err rc;
	int k;

	*rules = NULL;
	*n = 0;
	rc = autosize_ytree_seq(t, autosize_ytree_root(t), "rules",
				AUTOSIZE_Y_OPTIONAL, AUTOSIZE_RULES_MAX, &seq,
				e);
	if (rc || !seq || !seq->child)
		return rc;
	for (it = seq->child; it; it = it->next) {
		count++;
		for (k = 0; k < 3; k++)
			n_names += (size_t)rule_names_in(it,
							 rule_match_keys[k]);
	}
	/* the rules, then all their names: one block */
	*rules = calloc(1, count * sizeof(**rules) +
			   n_names * sizeof(rule_name));
	if (!*rules)
		return autosize_ytree_fail(t, seq->line, e, AUTOSIZE_ENOMEM,
					   "key 'rules': out of memory");
	names = (rule_name *)(void *)(*rules + count);
	for (it = seq->child; it; it = it->next) {
		rc = rule_read(t, in, it, &(*rules)[*n], &names, e);
		if (rc)
			return rc;
		rule_shadowed(t, in, *rules, *n);
		(*n)++;
	}
	return AUTOSIZE_OK;
}

const autosize_rule *policy_rules_match(const autosize_rule *rules, int n,
					const char *user, const char *account,
					const char *qos)
{
	int i;

	for (i = 0; i < n; i++)
		if (rule_has(rules[i].users, rules[i].n_users, user) &&
		    rule_has(rules[i].accounts, rules[i].n_accounts, account) &&
		    rule_has(rules[i].qos, rules[i].n_qos, qos))
			return &rules[i];
	return NULL;
}

/* "lab", "lab or lab2", "lab, lab2 or lab3" appended at buf + *used. */
static void rule_words(char *buf, size_t len, size_t *used,
		       const char *lead,
		       const char (*names)[AUTOSIZE_EXEMPT_NAME_MAX], int n)
{
	int i, w;

	for (i = 0; i < n && *used < len; i++) {
		w = snprintf(buf + *used, len - *used, "%s%s",
			     i == 0 ? lead : i == n - 1 ? " or " : ", ",
			     names[i]);
		if (w < 0 || (size_t)w >= len - *used)
			return;
		*used += (size_t)w;
	}
}

const char *autosize_rule_match_text(const autosize_rule *rule, char *buf,
				     size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	rule_words(buf, len, &used, "account ", rule->accounts,
		   rule->n_accounts);
	rule_words(buf, len, &used, used ? ", QOS " : "QOS ", rule->qos,
		   rule->n_qos);
	rule_words(buf, len, &used, used ? ", user " : "user ", rule->users,
		   rule->n_users);
	return buf;
}

const char *autosize_rule_set_text(const autosize_rule *rule, char *buf,
				   size_t len)
{
	size_t used = 0;
	int w = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
#define RULE_PUT(...)                                                       \
	do {                                                                \
		if (used < len) {                                           \
			w = snprintf(buf + used, len - used, __VA_ARGS__);  \
			used = w < 0 ? len : used + (size_t)w;              \
		}                                                           \
	} while (0)
	if (rule->mode_set)
		RULE_PUT("mode %s", autosize_mode_name(rule->mode));
	if (rule->max_gpus > 0)
		RULE_PUT("%sat most %ld GPU%s a job", used ? ", " : "",
			 rule->max_gpus, rule->max_gpus == 1 ? "" : "s");
	if (rule->partition[0])
		RULE_PUT("%spartition %s", used ? ", " : "", rule->partition);
	if (rule->framework != AUTOSIZE_FRAMEWORK_DEFAULT)
		RULE_PUT("%sframework %s", used ? ", " : "",
			 autosize_framework_name(rule->framework));
	if (rule->stack[0])
		RULE_PUT("%sstack %s", used ? ", " : "", rule->stack);
#undef RULE_PUT
	return buf;
}
