/*
 * autosize: dry-run planning for users and admins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "live.h"

#ifndef AUTOSIZE_VERSION
#define AUTOSIZE_VERSION "0.1.0"
#endif
/* The Makefile passes its folders (make install sysconfdir=...). */
#ifndef AUTOSIZE_POLICY_PATH
#define AUTOSIZE_POLICY_PATH "/etc/slurm/autosize/autosize.yaml"
#endif
#ifndef AUTOSIZE_PKGDATADIR
#define AUTOSIZE_PKGDATADIR "/usr/local/share/slurm-autosize"
#endif

static void main_usage(FILE *f)
{
	fprintf(f,
		"usage: autosize plan [OPTIONS] [--json] [--policy FILE]\n"
		"       autosize check-config [--live] [FILE|none]\n"
		"       autosize inventory [--gpu TYPE]\n"
		"       autosize calibrate [--sacct] [-o FILE] [FILE...]\n"
		"       autosize probe [PLAN OPTIONS] -- [SBATCH OPTIONS] "
		"SCRIPT\n"
		"       autosize gpus | presets | --version\n"
		"\n"
		"plan sizes one LLM training job (nodes, GPUs, layout, time\n"
		"limit) the way the sbatch plugin will; `autosize plan "
		"--help`\nlists the options.\n");
}

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

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		main_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(cmd, "plan") == 0)
		return cli_plan(argc - 1, argv + 1);
	if (strcmp(cmd, "check-config") == 0)
		return cli_check_config(argc - 1, argv + 1);
	if (strcmp(cmd, "gpus") == 0)
		return cli_list_gpus(argc - 1, argv + 1);
	if (strcmp(cmd, "presets") == 0)
		return cli_list_presets(argc - 1, argv + 1);
	if (strcmp(cmd, "calibrate") == 0)
		return cli_calibrate(argc - 1, argv + 1);
	if (strcmp(cmd, "probe") == 0)
		return cli_probe(argc - 1, argv + 1);
	if (strcmp(cmd, "inventory") == 0)
		return cli_inventory(argc - 1, argv + 1);
	if (strcmp(cmd, "--version") == 0) {
		printf("autosize %s\n", AUTOSIZE_VERSION);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		main_usage(stdout);
		return CLI_EXIT_OK;
	}
	fprintf(stderr, "autosize: unknown command '%.40s'\n", cmd);
	main_usage(stderr);
	return CLI_EXIT_USAGE;
}
