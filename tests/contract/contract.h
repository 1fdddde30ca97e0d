/* The provider contract suite's shared part: the run's settings (from the environment, see
 * contract_suite.c), the fixtures every test uses, and the tests of each file. Nothing here
 * may depend on which provider runs. */
#ifndef SM_CONTRACT_H
#define SM_CONTRACT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/sandbox.h"
#include "tests/testlib.h"

#define RUN_LABEL "sandman-contract-run" /* on every sandbox of one run */

extern const char *ct_name; /* the provider */
extern cJSON *ct_cfg, *ct_netcfg;
extern const char *ct_image;
extern unsigned ct_caps;
extern char ct_run_id[17];

/* A provider from cfg (or the run's config). */
sm_provider *ct_provider_with(const cJSON *cfg);
sm_provider *ct_provider(void);
/* The spec every test starts from: the run's image and labels. */
void ct_spec_init(sm_spec *spec);
/* A started sandbox (spec NULL = the default spec) owning p, or a provider of its own. */
sm_sandbox *ct_start_with(sm_provider *p, const sm_spec *spec);
sm_sandbox *ct_start(const sm_spec *spec);
/* Stops (must succeed) and frees. */
void ct_stop(sm_sandbox *s);
/* A sandbox made through the provider itself, without the facade (default spec). */
sm_handle *ct_raw_create(sm_provider *p);
/* A second facade on the same sandbox, rebuilt from its descriptor on a provider of its own. */
sm_sandbox *ct_connect_to(sm_sandbox *s);

typedef struct ct_run_out {
    int rc;
    sm_exec_result r; /* the caller frees it */
    sm_error e;
} ct_run_out;

void ct_run_req(sm_sandbox *s, const sm_exec_request *rq, ct_run_out *o);
void ct_run(sm_sandbox *s, const char *cmd, ct_run_out *o);
/* Runs cmd and checks that it ran with code and stdout out (NULL: any). */
void ct_expect(sm_sandbox *s, const char *cmd, int code, const char *out);
/* Skips the test, saying so, unless the provider claims cap. */
void ct_need(unsigned cap);
/* Sandboxes of this run carrying label k=v (ended ones too); -1 without list. */
int ct_count_labelled(const char *k, const char *v);

/* contract_exec.c: the required operations */
void test_exec_codes_are_data(void **state);
void test_exec_request(void **state);
void test_exec_timeout(void **state);
void test_exec_concurrent(void **state);
void test_exec_on_gone_sandbox(void **state);
void test_spec_files(void **state);
/* contract_transfer.c: directory transfer on tar streams */
void test_transfer_dir(void **state);
void test_spec_files_rollback(void **state);
void test_upload_download(void **state);
void test_status_and_close(void **state);
void test_close_gone(void **state);
void test_ttl(void **state);
/* contract_caps.c: list, stats, endpoint, connect, pause */
void test_list_by_label(void **state);
void test_stats(void **state);
void test_endpoint(void **state);
void test_serialize_connect(void **state);
void test_pause_resume(void **state);
/* contract_pty.c */
void test_pty_session(void **state);
void test_pty_pipe_mode(void **state);
void test_pty_attach(void **state);

#endif
