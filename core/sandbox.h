/* The sandbox facade (seed §3.1): one sandbox on one provider. start = create + write every
 * spec.files entry (any failure closes the sandbox and reports); exec with the seed's result
 * rules; upload/download; status; endpoint for declared ports only; stop (idempotent).
 * Every call is journaled. Not thread-safe per object; different objects may be used from
 * different threads. */
#ifndef SM_SANDBOX_H
#define SM_SANDBOX_H

#include <stdbool.h>

#include "core/provider.h"
#include "core/pty.h"

typedef struct sm_sandbox sm_sandbox;

/* owns_provider: stop()/free() also free the provider. */
sm_sandbox *sm_sandbox_new(sm_provider *p, bool owns_provider);
void sm_sandbox_free(sm_sandbox *s); /* does not stop the sandbox */

int sm_sandbox_start(sm_sandbox *s, const sm_spec *spec, sm_error *err);
/* Binds the facade to an existing sandbox by id or unique prefix (ended ones too). */
int sm_sandbox_open(sm_sandbox *s, const char *id_or_prefix, sm_error *err);
/* Serialize/connect (SM_CAP_CONNECT): a JSON descriptor another process can reconnect with. */
cJSON *sm_sandbox_serialize(sm_sandbox *s);
int sm_sandbox_connect(sm_sandbox *s, const cJSON *descriptor, sm_error *err);

const char *sm_sandbox_id(const sm_sandbox *s);
/* What the provider warned about at start (a limit it runs without), or NULL. */
const char *sm_sandbox_warning(const sm_sandbox *s);
sm_provider *sm_sandbox_provider(const sm_sandbox *s);
/* The provider's handle of the running sandbox (NULL before start or after stop). */
struct sm_handle *sm_sandbox_handle(const sm_sandbox *s);

/* Always fills *res. SM_OK when the command ran (any exit code); otherwise an error code
 * and res is 125 + error_type "timeout"/"sandbox". Default timeout 180 s. */
int sm_sandbox_exec(sm_sandbox *s, const sm_exec_request *req, sm_exec_result *res, sm_error *err);
int sm_sandbox_upload(sm_sandbox *s, const char *local, const char *remote, sm_error *err);
int sm_sandbox_download(sm_sandbox *s, const char *remote, const char *local, sm_error *err);
/* No handle -> unknown; stopped facade -> stopped; else the provider's answer. info may be
 * NULL; when given it is filled (caller frees with sm_sandbox_info_free). */
sm_status sm_sandbox_status(sm_sandbox *s, sm_sandbox_info *info, sm_error *err);
int sm_sandbox_stats(sm_sandbox *s, sm_sample *out, sm_error *err);
int sm_sandbox_endpoint(sm_sandbox *s, int port, sm_endpoint *out, sm_error *err);
int sm_sandbox_pty_open(sm_sandbox *s, const sm_pty_spec *spec, sm_pty **out, sm_error *err);
int sm_sandbox_pty_attach(sm_sandbox *s, const char *session_id, bool takeover, long long since,
                          sm_pty **out, sm_error *err);
/* The PTY sessions the sandbox holds; *out is malloc'd (free it). */
int sm_sandbox_pty_sessions(sm_sandbox *s, sm_pty_session_info **out, size_t *n, sm_error *err);
/* Freezes every process of the sandbox (pause) or lets them run again (SM_CAP_PAUSE;
 * SM_ERR_UNSUPPORTED without it). Journaled. */
int sm_sandbox_pause(sm_sandbox *s, bool pause, sm_error *err);
/* Ends the sandbox and removes every trace (provider state and journal). Idempotent. */
int sm_sandbox_stop(sm_sandbox *s, sm_error *err);

/* Brings the kept entrypoint output up to date from the runtime, for providers whose runtime
 * keeps it (docker); nothing for the others. */
void sm_sandbox_sync_entry_output(sm_sandbox *s);

#endif
