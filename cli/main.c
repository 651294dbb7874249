/*
 * autosize: dry-run planning for users and admins.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "live.h"

#ifndef AUTOSIZE_VERSION
#define AUTOSIZE_VERSION "0.1.0"
#endif
static void main_usage(FILE *f)
{
	fprintf(f,
		"usage: autosize plan [OPTIONS] [--json] [--policy FILE]\n"
		"       autosize check-config [--live] [FILE|none]\n"
		"       autosize inventory [--gpu TYPE]\n"
		"       autosize limits [--raw]\n"
		"       autosize calibrate [--sacct] [-o FILE] [FILE...]\n"
		"       autosize report [--json | --html FILE] [--sacct] "
		"[FILE...]\n"
		"       autosize probe [PLAN OPTIONS] -- [SBATCH OPTIONS] "
		"SCRIPT\n"
		"       autosize show JOBID [--json | --record]\n"
		"       autosize replay --policy FILE [--json | --html FILE] "
		"[--sacct] [FILE...]\n"
		"       autosize spool [--dir DIR] [--flush [--job N]]\n"
		"       autosize gpus | presets | --version\n"
		"\n"
		"plan sizes one LLM training job (nodes, GPUs, layout, time\n"
		"limit) the way the sbatch plugin will; `autosize plan "
		"--help`\nlists the options.\n");
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
	if (strcmp(cmd, "report") == 0)
		return cli_report(argc - 1, argv + 1);
	if (strcmp(cmd, "show") == 0)
		return cli_show(argc - 1, argv + 1);
	if (strcmp(cmd, "replay") == 0)
		return cli_replay(argc - 1, argv + 1);
	if (strcmp(cmd, "probe") == 0)
		return cli_probe(argc - 1, argv + 1);
	if (strcmp(cmd, "inventory") == 0)
		return cli_inventory(argc - 1, argv + 1);
	if (strcmp(cmd, "limits") == 0)
		return cli_limits(argc - 1, argv + 1);
	if (strcmp(cmd, "spool") == 0)
		return cli_spool(argc - 1, argv + 1);
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
