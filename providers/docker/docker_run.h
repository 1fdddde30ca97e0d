/* The docker provider's one-exec primitives: create and run one exec instance, read its exit
 * code, and kill what it started. Both exec paths (plain execs in docker_exec.c, the exec
 * helper in docker_executor.c), PTY sessions, the create probe and file transfer stand on it;
 * it stands on the engine client only. */
#ifndef SM_DOCKER_RUN_H
#define SM_DOCKER_RUN_H

#include "core/strbuf.h"
#include "providers/docker/docker_engine.h"

/* Environment variable that marks every process of one exec, so that a timeout or a signal can
 * find and kill them: the Engine API has no "kill this exec" call. */
#define DOCKER_EXEC_MARKER "SANDMAN_EXEC_ID"

/* `<keep-alive shell> -c "unset PWD SHLVL; [export PWD=$2;] [export SHLVL=$3;]" DOCKER_AUTO_SHELL
 * sh CMD PWD SHLVL` runs CMD with bash when the container has it, else sh: the seed's default
 * exec shell, decided where the command runs. The first shell's own PWD and SHLVL are dropped
 * (or put back to the request's) so that CMD's shell starts as it would in a fresh exec. */
#define DOCKER_AUTO_SHELL                                                                          \
    "if command -v bash >/dev/null 2>&1; then exec bash -c \"$1\"; fi; exec sh -c \"$1\""

/* Output kept in memory per stream (exec -o json, the dashboard), as the local provider keeps
 * it: a command that prints without end must not make this process grow until its timeout.
 * What comes after is counted in docker_run.dropped, not kept. Streamed output (fds) is not cut. */
#define DOCKER_CAPTURE_MAX (16u << 20)

/* One command in a container, demultiplexed. argv is the process; env entries are "K=V".
 * Output goes to the fds when >= 0, else into out/errb (which may be NULL to drop it). */
typedef struct docker_run {
    const char *const *argv;
    const char *cwd;
    const sm_map *env;
    const char *user;
    char *const *extra_args; /* docker exec flags (exec.extra_exec_args), applied last */
    double timeout_s;
    int stdout_fd, stderr_fd;
    bool with_stdin; /* relay stdin_fd to the command's stdin (a hijacked stream) until EOF */
    int stdin_fd;
    sm_strbuf *out, *errb;
    /* results */
    int code;
    bool timed_out;
    size_t dropped[2]; /* bytes past DOCKER_CAPTURE_MAX: stdout, stderr */
} docker_run;

/* Runs r as one exec instance. SM_OK when the command ran (its code in r->code, r->timed_out
 * when the budget ran out and the marked processes were killed); an error when the engine
 * refused it. */
int docker_exec_run(docker_provider *dp, const char *cid, docker_run *r, sm_error *err);
/* Where a docker_run's output goes (its fds or buffers); stream 1 is stdout, others stderr. */
bool docker_run_sink(void *ud, unsigned stream, const char *data, size_t len);
/* POST /containers/{id}/exec; *eid gets the exec id. */
int docker_exec_create(docker_provider *dp, const char *cid, cJSON *body, char *eid, size_t len,
                       sm_error *err);
/* GET /exec/{id}/json until it stops running; *code gets ExitCode. A command can close its
 * output and keep running, so this waits up to wait_s; SM_ERR_TIMEOUT if it still runs. */
int docker_exec_exit_code(docker_provider *dp, const char *eid, double wait_s, int *code,
                          sm_error *err);
/* An exec's Env: TERM=term when term is not NULL, env's "K=V", the marker when not NULL. */
cJSON *docker_exec_env(const sm_map *env, const char *marker, const char *term);
/* The engine's User for a request's user (root = uid 0); NULL for the container's own. */
const char *docker_exec_user(const char *user);
/* Sends sig to every process of the container that carries marker (runs as root), and to
 * every process of the session of exec eid's first process (with children: the sessions its
 * children lead, for the exec helper) when eid is not NULL and that process can be found. */
int docker_kill_marked(docker_provider *dp, const char *cid, const char *marker, const char *eid,
                       bool children, int sig, sm_error *err);

#endif
