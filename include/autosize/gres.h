/*
 * autosize: Slurm's GPU requests ("tres" strings: job_desc's
 * tres_per_node and tres_per_job, a node's Gres, sacct's AllocTRES),
 * decoded and edited: the one reader of them, in slurmctld (decide, the
 * Lua module for job_submit.lua), the SPANK plugin and the command.
 */
#ifndef AUTOSIZE_GRES_H
#define AUTOSIZE_GRES_H

#include <stddef.h>

/* A count not given, or a GPU request that cannot be read. */
#define AUTOSIZE_JOB_UNSET (-1L)
#define AUTOSIZE_JOB_UNREADABLE (-2L)

/*
 * GPUs in a tres list ("gres:gpu:8", "gres:gpu:a100:2", "gres/gpu=4",
 * "gpu:8", comma lists with other gres): the count (0 allowed), UNSET
 * when there is no GPU entry, UNREADABLE when it cannot be read (two GPU
 * entries, a count out of range). NULL is UNSET.
 */
long autosize_tres_gpus(const char *tres);

/*
 * One entry of such a list, of a node's Gres ("gpu:h100:8(S:0-1)": the
 * parenthesis is dropped) or of sacct's AllocTRES ("gres/gpu=8",
 * "gres/gpu:h100=8"), n bytes at s: its GPU count, UNSET when it is not
 * a GPU entry, UNREADABLE when it is one that cannot be read; *type and
 * *type_len its GPU type, not NUL-terminated (NULL, 0 when untyped; an
 * AllocTRES "gres/gpu:h100=8" reads as type "h100=8" and one GPU: its
 * count is in the untyped entry Slurm lists beside it).
 */
long autosize_gres_entry_gpus(const char *s, size_t n, const char **type,
			      size_t *type_len);

/*
 * How a Slurm release spells a GPU entry in job_desc's tres_per_* strings:
 * sbatch sends, and slurmctld accepts, "gres:gpu:8" up to 22.05 and
 * "gres/gpu:8" from 23.02 on (slurmctld refuses the other spelling with
 * "Invalid Trackable RESource (TRES) specification").
 */
typedef enum autosize_tres_syntax {
	AUTOSIZE_TRES_UNKNOWN = 0,
	AUTOSIZE_TRES_COLON,    /* "gres:gpu:8": Slurm 22.05 and older */
	AUTOSIZE_TRES_SLASH     /* "gres/gpu:8": Slurm 23.02 and newer */
} autosize_tres_syntax;

/*
 * The syntax of a Slurm release from its version number as
 * SLURM_VERSION_NUMBER encodes it ((major << 16) | (minor << 8) | micro);
 * UNKNOWN for 0.
 */
autosize_tres_syntax autosize_tres_syntax_of_version(unsigned long version);

/*
 * The syntax of a running libslurm from slurm_api_version()'s value
 * ((API major << 16) | (age << 8) | revision; API major 38 is 22.05, 39 is
 * 23.02); UNKNOWN for a value no release has.
 */
autosize_tres_syntax autosize_tres_syntax_of_api(long api_version);

/*
 * The syntax the entries of a tres list are written in ("gres/..." or
 * "gres:..."); UNKNOWN when NULL, empty or without a "gres" entry.
 */
autosize_tres_syntax autosize_tres_syntax_of(const char *tres);

/*
 * The tres list with its GPU count set to gpus, keeping the GPU type and
 * every other entry ("gres:gpu:a100:2,gres:shard:1" -> "gres:gpu:a100:8,
 * gres:shard:1"); "gres:gpu:N" when tres is NULL or has no GPU entry.
 * The GPU entry is written in Slurm 22.05's syntax (COLON). Returns 0, or
 * -1 when out (len bytes) is too small or tres unreadable.
 */
int autosize_tres_set_gpus(const char *tres, int gpus, char *out,
			   size_t len);

/*
 * autosize_tres_set_gpus with the GPU entry written in syntax; UNKNOWN:
 * in the list's own syntax (autosize_tres_syntax_of), COLON when it has
 * none. The other entries stay as they are.
 */
int autosize_tres_set_gpus_as(const char *tres, int gpus,
			      autosize_tres_syntax syntax, char *out,
			      size_t len);

/* autosize_tres_set_gpus_as with the GPU entry of type ("h100"; NULL or
 * "": the entry's own type, if any). */
int autosize_tres_set_gpus_typed(const char *tres, int gpus, const char *type,
				 autosize_tres_syntax syntax, char *out,
				 size_t len);

/* The GPU type of a tres list's GPU entry ("gres:gpu:a100:8" -> "a100")
 * into type (len bytes): 1 when it has one that fits, else 0 (NULL,
 * untyped, unreadable). */
int autosize_tres_gpu_type(const char *tres, char *type, size_t len);

/*
 * The tres list without its GPU entries, the others kept in order
 * ("gres:gpu:16,license:foo:1" -> "license:foo:1"; "" when none is left;
 * what counts as a GPU entry: autosize_gres_entry_gpus). job_submit.lua
 * writes it into tres_per_job when the module sets the GPUs per node.
 * Returns the length, or -1 when out (len bytes) is too small.
 */
int autosize_tres_without_gpus(const char *tres, char *out, size_t len);

#endif
