/* The sandbox model of the seed API (spec/seed-api.md §1): resources, spec, PTY spec, endpoint,
 * exec request/result, with the seed's validation rules. Pure data; no I/O. */
#ifndef SM_SPEC_H
#define SM_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/kv.h"

typedef struct cJSON cJSON;

#define SM_DEFAULT_EXEC_TIMEOUT_S 180.0
#define SM_RUNTIME_RETURN_CODE    125

/* Bounds of what a spec or request may ask for. Upper: far above any real machine or run, low
 * enough that byte counts and millisecond timers cannot overflow downstream. Lower: what a
 * limit can mean at all, so that none is applied as something else or dropped. */
#define SM_MAX_CPU             1024.0 /* vCPU */
#define SM_MIN_CPU             0.01   /* vCPU: the kernel's smallest quota, 1 ms per 100 ms */
#define SM_MIN_MEMORY_MIB      6L     /* 1 MiB OOM-kills a shell as it starts; Docker's floor */
#define SM_MAX_MEMORY_MIB      (16L * 1024 * 1024) /* 16 TiB */
#define SM_MAX_DISK_GIB        (1024L * 1024)      /* 1 PiB */
#define SM_MAX_GPU             1024L
#define SM_MAX_TTL_S           (10.0 * 365 * 86400) /* 10 years */
#define SM_MAX_READY_TIMEOUT_S 86400.0              /* 1 day */
#define SM_MAX_EXEC_TIMEOUT_S  (7.0 * 86400)        /* 1 week */

/* Resources: each field is "not requested" unless its bit is in `set` (unset is never 0). */
enum {
    SM_RES_CPU = 1u << 0,
    SM_RES_MEMORY = 1u << 1,
    SM_RES_DISK = 1u << 2,
    SM_RES_GPU = 1u << 3,
    SM_RES_GPU_TYPE = 1u << 4,
};

typedef struct sm_resources {
    unsigned set;
    double cpu; /* vCPU, fractional allowed */
    long memory_mib;
    long disk_gib;
    long gpu;
    char *gpu_type;
} sm_resources;

typedef struct sm_spec {
    char *image;            /* provider-specific; NULL = provider default */
    double ttl_s;           /* < 0 = unset */
    double ready_timeout_s; /* < 0 = unset */
    char *workdir;
    sm_map env;
    sm_map files;    /* remote path -> UTF-8 text, written after create */
    sm_map metadata; /* labels */
    sm_resources resources;
    char **entrypoint;       /* NULL-terminated; NULL = image default */
    cJSON *provider_options; /* owned object or NULL */
    int *ports;
    size_t nports;
} sm_spec;

void sm_spec_init(sm_spec *s);
void sm_spec_free(sm_spec *s);
void sm_spec_copy(sm_spec *dst, const sm_spec *src); /* dst must be fresh or freed */

/* Validation of every rule in the seed: ports 1..65535 without duplicates, ttl/ready_timeout
 * positive, resources positive, files keys and workdir absolute paths without "." or ".."
 * components; and the SM_MAX_* upper bounds above. */
int sm_spec_validate(const sm_spec *s, sm_error *err);
/* A path a sandbox is set up with (workdir, file targets, paths to hide): absolute, and no
 * "." or ".." component, which could lead outside the sandbox while it is built. what names
 * it in the error: "workdir '/a/../b' must not contain '..' components ...". */
int sm_spec_check_path(const char *what, const char *path, sm_error *err);
/* Adds one port given as text (the CLI's --port) or number; rejects bad and duplicate ports. */
int sm_spec_add_port(sm_spec *s, const char *text, sm_error *err);
int sm_spec_has_port(const sm_spec *s, int port);
/* Why an endpoint for an undeclared port is refused, in one line naming the declared ports:
 * "port 9999 was not declared in the sandbox's ports (declared: 8080, 8081)". */
void sm_ports_undeclared_msg(int port, const int *ports, size_t nports, char *buf, size_t len);

/* Resources from a mapping: unknown keys rejected with the sorted allowed list; values are
 * coerced (numeric strings accepted); NULL/null -> nothing set. */
int sm_resources_from_json(const cJSON *obj, sm_resources *r, sm_error *err);
cJSON *sm_resources_to_json(const sm_resources *r);
/* "cpu 0.5, memory 64MiB" ("-" when nothing is requested). */
void sm_resources_describe(const sm_resources *r, char *buf, size_t len);
void sm_resources_free(sm_resources *r);

/* Whole spec from/to JSON (the seed's field names). Unknown spec keys are rejected. */
int sm_spec_from_json(const cJSON *obj, sm_spec *s, sm_error *err);
cJSON *sm_spec_to_json(const sm_spec *s, bool include_env_values);

/* PTY session request (seed SandboxPtySpec). */
typedef struct sm_pty_spec {
    const char *command; /* NULL = interactive shell */
    const char *cwd;
    const sm_map *env;
    int rows, cols; /* default 24x80 */
    const char *user;
    bool pty;         /* false = pipe mode: no TTY, separate stderr */
    const char *term; /* TERM inside; NULL = xterm-256color */
    bool keep;        /* the session survives its client (detach instead of ending) */
} sm_pty_spec;

void sm_pty_spec_init(sm_pty_spec *p);
int sm_pty_spec_validate(const sm_pty_spec *p, sm_error *err);

/* An endpoint for a declared port: absolute URL + headers the caller must send. */
typedef struct sm_endpoint {
    char *url;
    sm_map headers;
} sm_endpoint;

/* Trims the URL and checks it has a scheme and a host; error otherwise. */
int sm_endpoint_set(sm_endpoint *e, const char *url, sm_error *err);
void sm_endpoint_free(sm_endpoint *e);
int sm_port_validate(long port, sm_error *err);

/* One command. cmd is a shell string. */
typedef struct sm_exec_request {
    const char *cmd;
    const char *cwd;   /* NULL = the sandbox workdir */
    const sm_map *env; /* extra variables for this command, may be NULL */
    double timeout_s;  /* <= 0 = provider default (180 s) */
    const char *user;  /* NULL = image default; "root" or "0" = root */
    int stdout_fd;     /* >= 0: stream stdout there instead of capturing; -1 = capture */
    int stderr_fd;
    int stdin_fd; /* >= 0: relayed to the command's stdin until its EOF (never handed to the
                   * sandbox itself); -1 (the default): the command reads end of file */
} sm_exec_request;

void sm_exec_request_init(sm_exec_request *r);
/* A command's timeout: <= 0 (the default) or up to SM_MAX_EXEC_TIMEOUT_S. */
int sm_exec_timeout_validate(double timeout_s, sm_error *err);

typedef struct sm_exec_result {
    char *out; /* captured stdout (NULL when streamed or not available) */
    size_t out_len;
    char *err; /* captured stderr */
    size_t err_len;
    int return_code;        /* exit code, or 125 with error_type */
    const char *error_type; /* NULL, "timeout", "sandbox" or "pty" (static strings) */
    sm_failure failure;     /* kind none for exit 0; exit_nonzero/oom/... otherwise */
    double duration_s;
} sm_exec_result;

void sm_exec_result_init(sm_exec_result *r);
void sm_exec_result_free(sm_exec_result *r);
/* Fills r as a runtime failure: 125 + error_type ("timeout"/"sandbox"/"pty"). */
void sm_exec_result_runtime(sm_exec_result *r, const char *error_type, const sm_failure *f);
/* Fills r as a command killed at its timeout: 125 + "timeout", its failure (already naming the
 * operation and sandbox) an exec_timeout, and the reason appended to the captured stderr on a
 * line of its own. */
void sm_exec_result_timed_out(sm_exec_result *r, double timeout_s);
cJSON *sm_exec_result_to_json(const sm_exec_result *r);

#endif
