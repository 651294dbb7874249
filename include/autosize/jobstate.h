/*
 * autosize: whether a Slurm job is still live, the one rule the report,
 * show, calibration, probe and the accounting path of a step's figures
 * (cli/acct.c, run by the SPANK plugin's report step) share.
 */
#ifndef AUTOSIZE_JOBSTATE_H
#define AUTOSIZE_JOBSTATE_H

/*
 * 1 when a job in this state has not ended: it holds or will hold
 * resources, or slurmctld still writes its record (the end record that
 * reaches accounting later). state is a name as scontrol, squeue, sacct
 * and libslurm's job_state_string() spell it; only its first word counts
 * (sacct's "CANCELLED by 1000"), and of job_state_string_complete()'s
 * "COMPLETED,COMPLETING" any name. 0 for ended states and for names
 * Slurm does not have (or ""); squeue's short codes (CG) are not read.
 *
 * Live: PENDING, RUNNING, SUSPENDED and the flags slurmctld puts before
 * the base state while it is not done with a job (slurm.h JOB_* flags;
 * job_state_string() names a flag first): COMPLETING (epilog running:
 * base COMPLETED etc.), STAGE_OUT (burst buffer), CONFIGURING,
 * POWER_UP_NODE, EXPEDITING, RESIZING, REQUEUED (being requeued: pending
 * again next), REQUEUE_FED, REQUEUE_HOLD, SPECIAL_EXIT (requeued held),
 * RESV_DEL_HOLD, STOPPED, SIGNALING.
 *
 * A caller that reads sacct --duplicates, where REQUEUED marks an
 * earlier run of the job that ended, counts those rows itself.
 */
int autosize_job_state_live(const char *state);

#endif
