/* Attribution (seed §3.5): who and what a sandbox belongs to. team/user/workload/run come from
 * explicit values, then NEMO_GYM_* variables, then SLURM_*, then the login (LOGNAME, USER, ...
 * then the password database, as getpass.getuser(); a login of root is ignored, a NEMO_GYM_USER
 * or SLURM_JOB_USER of root is kept).
 * The run id is stable for the life of the process. Labels use the seed's key prefix so
 * cleanup-by-run tools find sandman's sandboxes too. */
#ifndef SM_ATTRIBUTION_H
#define SM_ATTRIBUTION_H

#include "core/kv.h"

#define SM_ATTRIBUTION_PREFIX "nemo-gym.nvidia.com/"
/* The labels a rollout is selected by (ls/top/rm --run, --user; NeMo Gym's cleanup tool). */
#define SM_LABEL_RUN  SM_ATTRIBUTION_PREFIX "run"
#define SM_LABEL_USER SM_ATTRIBUTION_PREFIX "user"

typedef struct sm_attribution {
    char *team;
    char *user;
    char *workload;
    char *run;
} sm_attribution;

/* explicit may be NULL; its non-empty fields win. Unresolvable fields stay NULL. */
void sm_attribution_resolve(const sm_attribution *explicit_values, sm_attribution *out);
void sm_attribution_free(sm_attribution *a);
/* NEMO_GYM_RUN_ID, else SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID for an array task (e.g. "40_3"),
 * else SLURM_JOB_ID, else a random 12-hex id generated once per process. */
const char *sm_run_id(void);
/* Adds prefix+key labels for every resolved field, unless the label is already present
 * (explicit metadata wins). */
void sm_attribution_to_labels(const sm_attribution *a, const char *prefix, sm_map *labels);

/* seed §3.6 rewrite_image: the first rule whose `from` prefixes image replaces that prefix.
 * Returns a malloc'd string (a copy when nothing matched); NULL image -> NULL. */
char *sm_rewrite_image(const char *image, const sm_map *rules);

/* Label value sanitising (seed §5.12): runs outside [A-Za-z0-9_.-] -> '_', trimmed of
 * "._-" at both ends, at most 63 characters, empty -> "metadata". Caller frees. */
char *sm_label_sanitize(const char *value);

#endif
