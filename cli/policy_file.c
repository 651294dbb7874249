/*
 * autosize CLI: which policy file a command reads, and loading it
 * (cli.h). The commands share these; main.c only dispatches to them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* The Makefile passes its folders (make install sysconfdir=...). */
#ifndef AUTOSIZE_POLICY_PATH
#define AUTOSIZE_POLICY_PATH "/etc/slurm/autosize/autosize.yaml"
#endif
#ifndef AUTOSIZE_PKGDATADIR
#define AUTOSIZE_PKGDATADIR "/usr/local/share/slurm-autosize"
#endif

const char *cli_installed_policy(void)
{
	return AUTOSIZE_POLICY_PATH;
}

const char *cli_example_policy(void)
{
	return AUTOSIZE_PKGDATADIR "/autosize.yaml";
}

const char *cli_policy_file(const char *file)
{
	if (!file)
		file = getenv("AUTOSIZE_POLICY");
	if (!file && access(AUTOSIZE_POLICY_PATH, R_OK) == 0)
		file = AUTOSIZE_POLICY_PATH;
	if (file && strcmp(file, "none") == 0)
		return NULL;
	return file;
}

autosize_policy *cli_load_policy(const char *file)
{
	autosize_error err;
	autosize_policy *p;

	file = cli_policy_file(file);
	if (!file)
		p = autosize_policy_default(&err);
	else
		p = autosize_policy_load(file, &err);
	if (!p)
		fprintf(stderr, "autosize: %s\n", err.msg);
	return p;
}
