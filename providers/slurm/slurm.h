/* Internal interface of the slurm provider. A sandbox is a batch job that runs one local
 * sandbox (the same sandman binary, local provider) on the node Slurm allocates, and stays
 * alive while it lives. Everything is kept in the shared state directory:
 *   <state_dir>/slurm/ID/   meta.json (job id, spec summary), job.sh, node.json (the node's
 *                           local provider block), env (0600), and what the job writes: node,
 *                           local_id (once ready), failed + create.err, cancelled, end.json
 *   <state_dir>/local/LID/  the node's local sandbox (SANDMAN_STATE_DIR of the job)
 * Commands reach the sandbox with `srun --jobid=N --overlap sandman ... ` (works whether or not
 * the login node can reach the node's sockets), or, with exec_path: socket, through the local
 * control socket from this host. */
#ifndef SM_SLURM_H
#define SM_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/provider_impl.h"

typedef struct slurm_provider {
    char *partition, *account, *qos;
    double default_time_limit_s; /* <= 0: the partition's default */
    char **sbatch_args;          /* extra sbatch arguments */
    size_t nsbatch_args;
    char *sandman;    /* node-side sandman binary */
    char *supervisor; /* node-side sandman-supervisor, or NULL (found next to sandman) */
    char *state_dir;  /* shared by the login and compute nodes */
    char *exec_path;  /* "srun" (default) or "socket" */
    cJSON *local;     /* the node's local provider block */
} slurm_provider;

/* One job's state as the controller reports it; state "" when it no longer knows the job. */
typedef struct slurm_job {
    char state[32];
    char reason[128];
    char node[64];
} slurm_job;

/* Output of a command run to its end. */
typedef struct slurm_out {
    char *out, *err;
    size_t out_len, err_len;
    int status; /* exit code, 128+signal, or -1 when it could not run */
} slurm_out;

/* Runs argv (PATH searched) with extra environment entries (KEY=VALUE, NULL-terminated, may be
 * NULL); stdin from in_fd (-1: /dev/null); stdout/stderr to out_fd/err_fd when >= 0, else
 * captured in o. Returns o->status. */
int slurm_run(char *const argv[], char *const env[], int in_fd, int out_fd, int err_fd,
              slurm_out *o);
void slurm_out_free(slurm_out *o);

/* The environment entries of every node-side sandman (the shared state directory as its
 * state); env must hold 4 slots; entries are malloc'd. */
void slurm_node_env(const slurm_provider *sp, char *env[4]);

char *slurm_rec_dir(const slurm_provider *sp, const char *id);
/* Reads a small file of the record (trailing newline cut), or NULL. */
char *slurm_rec_read(const char *dir, const char *name);
bool slurm_rec_has(const char *dir, const char *name);
/* The job id from meta.json, or 0 when the record is missing. */
long slurm_rec_jobid(const char *dir);

/* squeue for one job (a job the controller forgot: state ""). -1 when squeue failed. */
int slurm_job_query(long jobid, slurm_job *j);
bool slurm_job_terminal(const char *state);
/* Fills info from the record and the job state. */
void slurm_info(const slurm_provider *sp, const char *id, const char *dir, const slurm_job *j,
                sm_sandbox_info *info);
int slurm_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
               sm_error *err);

int slurm_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
               sm_error *err);
int slurm_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                 sm_error *err);
int slurm_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                   sm_error *err);

#endif
