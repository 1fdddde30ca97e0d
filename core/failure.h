/* The failure vocabulary (a fixed list: this header is the only place it is defined) and
 * failure events: a kind plus the evidence that made us say so. Classification helpers turn
 * raw evidence (exit status, cgroup counters, HTTP status) into exactly one kind.
 * Must not depend on providers or front ends. */
#ifndef SM_FAILURE_H
#define SM_FAILURE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cJSON cJSON;

/* Keep in sync with the table in failure.c and the README's vocabulary section. */
typedef enum sm_failure_kind {
    SM_FAIL_NONE = 0,
    SM_FAIL_EXIT_NONZERO,         /* command exited with a non-zero code (data, not an error) */
    SM_FAIL_SIGNALED,             /* command killed by a signal not explained otherwise */
    SM_FAIL_OOM,                  /* the memory limit was hit and the kernel killed a process */
    SM_FAIL_PIDS_LIMIT,           /* fork/clone refused by the pids limit */
    SM_FAIL_CPU_THROTTLED,        /* CPU quota throttling (a warning, never a failure) */
    SM_FAIL_TTL_EXPIRED,          /* the sandbox reached its ttl_s and was ended */
    SM_FAIL_EXEC_TIMEOUT,         /* a command ran past its timeout and was killed */
    SM_FAIL_KILLED_BY_USER,       /* removed or killed on purpose */
    SM_FAIL_CREATE_FAILED,        /* the sandbox could not be created */
    SM_FAIL_PROVIDER_UNREACHABLE, /* the runtime/control plane did not answer */
    SM_FAIL_AUTH_REJECTED,        /* credentials refused (401/403) */
    SM_FAIL_NOT_FOUND,            /* the sandbox (or session) does not exist */
    SM_FAIL_SANDBOX_ERROR,        /* other runtime failure (exec result 125 + "sandbox") */
    SM_FAIL_PTY_ERROR,            /* PTY session broke or its exit status was unreadable */
    SM_FAIL_TRANSFER_FAILED,      /* upload/download failed */
    SM_FAIL_SUPERVISOR_LOST,      /* the sandbox's supervisor died without saying why */
    SM_FAIL_INVALID_REQUEST,      /* the request itself was wrong (bad path, bad option) */
    SM_FAIL__COUNT
} sm_failure_kind;

/* A failure event. Numeric evidence uses -1 for "not known". */
typedef struct sm_failure {
    sm_failure_kind kind;
    char operation[24]; /* create, exec, upload, download, status, close, pty, ttl, ... */
    char sandbox_id[72];
    char provider[24];
    char reason[256];          /* one human line */
    char provider_reason[128]; /* the runtime's own words (HTTP body message, state reason) */
    int exit_code;
    int signal;
    int http_status;
    double timeout_s;
    long long oom_kills;    /* memory.oom_kill counter delta / total */
    long long memory_limit; /* bytes */
    long long pids_events;  /* pids.events max counter */
    long long pids_limit;
    long long nr_throttled;
    int commands_since; /* commands that ran after this failure (a last failure that ages) */
} sm_failure;

void sm_failure_init(sm_failure *f);
const char *sm_failure_kind_name(sm_failure_kind k); /* stable JSON name, e.g. "oom_killed" */
int sm_failure_kind_parse(const char *name, sm_failure_kind *out);
/* True for kinds that describe a failure (everything but none and the throttling warning). */
bool sm_failure_kind_is_failure(sm_failure_kind k);

/* One short line for a list column: "OOM killed", "exit 3", "exec timeout 3m00s"; with
 * commands_since, how old it is: "exit 3, 2 commands ago". */
void sm_failure_label(const sm_failure *f, char *buf, size_t len);
/* The evidence in words: "memory.oom_kill 1, limit 64MiB". Empty when there is none. */
void sm_failure_evidence(const sm_failure *f, char *buf, size_t len);

/* JSON round trip; unknown evidence is omitted. */
cJSON *sm_failure_to_json(const sm_failure *f);
void sm_failure_from_json(const cJSON *j, sm_failure *f);

/* The last meaningful line of a command's stderr (blank lines and lines without a letter or
 * digit skipped, trailing CR and spaces cut, at most 160 bytes) into buf; false when none. */
bool sm_failure_last_line(const char *text, size_t len, char *buf, size_t buflen);
/* Sets f's reason to its label and the last meaningful stderr line:
 * "exit 1: ModuleNotFoundError: No module named 'numpy'". Unchanged when there is none. */
void sm_failure_reason_from_stderr(sm_failure *f, const char *text, size_t len);

/* Classification: exactly one kind for the evidence given.
 * - a process ended with wait status `status` (exit code or signal); counters are deltas
 *   observed over the command's life (-1 when unknown); timed_out wins over everything. */
sm_failure_kind sm_failure_classify_exit(int exit_code, int signal, long long oom_delta,
                                         long long pids_delta, bool timed_out);
/* - an HTTP status from a provider's control plane (0 = no answer / transport error). */
sm_failure_kind sm_failure_classify_http(int http_status, sm_failure_kind otherwise);

/* Signal name without allocation ("SIGKILL"; "SIG42" for unknown numbers). */
const char *sm_signal_name(int sig, char *buf, size_t len);

#endif
