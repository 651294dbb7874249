/*
 * autosize CLI: getopt_long over a command's option table (opts.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"

/* getopt_long's val for table entry i (above any short letter). */
#define OPTS_LONG_VAL 256

void cli_opts_init(cli_opts *o, const cli_opt *table, int n, int argc,
		   char **argv)
{
	int i, k = 0, s = 0;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	o->table = table;
	o->n = n < CLI_OPTS_MAX ? n : CLI_OPTS_MAX;
	/* '-': operands in order (code 1); ':': no messages of getopt's
	 * own, ':' for a missing value */
	o->shorts[s++] = '-';
	o->shorts[s++] = ':';
	for (i = 0; i < o->n; i++) {
		if (table[i].name) {
			o->longs[k].name = table[i].name;
			o->longs[k].has_arg = table[i].has_value
					      ? required_argument
					      : no_argument;
			o->longs[k].val = OPTS_LONG_VAL + i;
			k++;
		}
		if (table[i].letter) {
			o->shorts[s++] = table[i].letter;
			if (table[i].has_value)
				o->shorts[s++] = ':';
		}
	}
	o->shorts[s] = '\0';
	optind = 0;        /* glibc: start over */
	opterr = 0;
}

/* The table entry getopt_long answered with c, or NULL. */
static const cli_opt *opts_entry(const cli_opts *o, int c)
{
	int i;

	if (c >= OPTS_LONG_VAL && c < OPTS_LONG_VAL + o->n)
		return &o->table[c - OPTS_LONG_VAL];
	for (i = 0; c > 0 && i < o->n; i++)
		if (o->table[i].letter == c)
			return &o->table[i];
	return NULL;
}

/* 1 when text is entry's form as the commands always spelled it: a long
 * name whole ("--name", "--name=..."), a short flag alone. */
static int opts_whole(const cli_opt *opt, const char *text, int c)
{
	size_t n;

	if (c >= OPTS_LONG_VAL) {
		n = strlen(opt->name);
		return text[0] == '-' && text[1] == '-' &&
		       strncmp(text + 2, opt->name, n) == 0 &&
		       (text[2 + n] == '\0' || text[2 + n] == '=');
	}
	return opt->has_value || text[2] == '\0';
}

int cli_opts_next(cli_opts *o)
{
	int at = optind > 0 ? optind : 1, c;

	o->opt = NULL;
	o->value = NULL;
	o->used = 1;
	if (o->rest) {
		if (o->rest >= o->argc)
			return CLI_OPT_END;
		o->text = o->value = o->argv[o->rest++];
		return CLI_OPT_ARG;
	}
	o->text = at < o->argc ? o->argv[at] : NULL;
	c = getopt_long(o->argc, o->argv, o->shorts, o->longs, NULL);
	if (c == -1) {
		if (at < o->argc && strcmp(o->argv[at], "--") == 0) {
			o->rest = optind;
			return CLI_OPT_DASHDASH;
		}
		return CLI_OPT_END;
	}
	if (c == 1) {
		o->value = optarg;
		return CLI_OPT_ARG;
	}
	if (c == '?')
		return CLI_OPT_UNKNOWN;
	if (c == ':') {
		o->opt = opts_entry(o, optopt);
		return CLI_OPT_NO_VALUE;
	}
	o->opt = opts_entry(o, c);
	if (!o->opt || !opts_whole(o->opt, o->text, c))
		return CLI_OPT_UNKNOWN;
	o->value = optarg;
	o->used = optind - at;
	if (o->text[1] == '-')
		snprintf(o->name, sizeof(o->name), "--%s", o->opt->name);
	else
		snprintf(o->name, sizeof(o->name), "-%c", o->opt->letter);
	return o->opt->key;
}

void cli_opts_said(const cli_opts *o, int rc, const char *cmd)
{
	if (rc == CLI_OPT_NO_VALUE)
		fprintf(stderr, "autosize: %s needs a value\n", o->text);
	else
		fprintf(stderr, "autosize: %s: unknown option '%.40s'\n", cmd,
			o->text);
}

int cli_count_arg(const char *what, const char *v, long max, long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || end == v || n < 1 || n > max) {
		fprintf(stderr, "autosize: %s: '%.40s' is not a count from 1 "
			"to %ld\n", what, v, max);
		return -1;
	}
	*out = n;
	return 0;
}
