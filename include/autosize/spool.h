/*
 * autosize: the node's spool of measured figures that have not reached
 * Slurm's records yet (doc/closed-loop.md, "When slurmctld or slurmdbd
 * does not answer"). The end of a batch step writes one entry per job
 * (slurmstepd, as root); `autosize spool --flush`, run by the step's end,
 * by every job epilog on the node and by a timer, hands each to
 * slurmctld or slurmdbd and removes it once it is there.
 *
 * The folder is root's alone (mode 0700, made so when absent; refused
 * when anyone else may write or read it). Every file in it is opened
 * relative to the folder, never through a link, and read only when it
 * is a regular file of the folder's owner, with one link, of at most
 * AUTOSIZE_SPOOL_ENTRY_MAX bytes. At most AUTOSIZE_SPOOL_MAX_ENTRIES
 * entries; one older than AUTOSIZE_SPOOL_MAX_AGE_S is dropped.
 */
#ifndef AUTOSIZE_SPOOL_H
#define AUTOSIZE_SPOOL_H

#include <time.h>
#include "autosize/error.h"
#include "autosize/jobrecord.h"

#define AUTOSIZE_SPOOL_PREFIX "autosize-spool:v1:"
#define AUTOSIZE_SPOOL_ENTRY_MAX 512
#define AUTOSIZE_SPOOL_MAX_ENTRIES 1024
/* Two weeks: an outage of slurmdbd or slurmctld is hours; a job older
 * than that has left calibration's usual window (30 days) half gone. */
#define AUTOSIZE_SPOOL_MAX_AGE_S (14L * 86400)
#define AUTOSIZE_SPOOL_CLUSTER_MAX 64

typedef struct autosize_spool_entry {
	unsigned long job_id;
	char cluster[AUTOSIZE_SPOOL_CLUSTER_MAX]; /* Slurm's ClusterName;
						   * "" not known */
	long ended_s;                /* the batch step's end (s since 1970) */
	autosize_measured m;         /* what its report said */
} autosize_spool_entry;

/* One line (no newline) into buf: its length, or -1 when it does not fit
 * or the cluster name is outside [A-Za-z0-9._-]. */
int autosize_spool_entry_encode(const autosize_spool_entry *en, char *buf,
				size_t len);

/* The line of len bytes back, strictly: `what` names it in e. */
autosize_err autosize_spool_entry_decode(const char *text, size_t len,
					 const char *what,
					 autosize_spool_entry *en,
					 autosize_error *e);

/*
 * The spool folder at path (absolute), opened without following a link
 * and made (mode 0700) when absent and create: a descriptor, or -1 with
 * e saying why in one line (not a folder, not this user's alone).
 */
int autosize_spool_open(const char *path, int create, autosize_error *e);

/* en into the spool (a file written aside, then renamed into place; an
 * entry of the same job is replaced). AUTOSIZE_ETOOBIG when the spool
 * holds AUTOSIZE_SPOOL_MAX_ENTRIES already. */
autosize_err autosize_spool_put(int dirfd, const autosize_spool_entry *en,
				autosize_error *e);

/* The job ids in the spool, ascending, at most max of them into ids;
 * returns how many there are (may exceed max). */
int autosize_spool_list(int dirfd, unsigned long *ids, int max);

/* Job id's entry into en, and when it was last tried into *tried (its
 * file's time; the time it was written when never). AUTOSIZE_ENOTFOUND
 * when there is none (another flush removed it). */
autosize_err autosize_spool_get(int dirfd, unsigned long id,
				autosize_spool_entry *en, time_t *tried,
				autosize_error *e);

/* Mark job id's entry tried now. */
void autosize_spool_tried(int dirfd, unsigned long id);

/* Remove job id's entry (delivered, or given up). */
void autosize_spool_remove(int dirfd, unsigned long id);

#endif
