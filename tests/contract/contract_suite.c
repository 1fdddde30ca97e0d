/* The provider contract suite (DESIGN.md §7): every behaviour a provider promises through the
 * core facade, run against one real provider named on the command line:
 *
 *   contract_suite PROVIDER
 *
 * It never looks at the provider's name: what a provider needs to run here comes from the
 * environment (set by a runner script such as tests/contract/docker.sh), and what it claims
 * comes from its capability bits. A capability it does not claim is a cmocka skip that says so,
 * never a pass.
 *   SANDMAN_CONTRACT_CONFIG      the provider's config block (JSON; default {})
 *   SANDMAN_CONTRACT_NET_CONFIG  a config under which a sandbox's ports can be reached from
 *                                here (JSON; default SANDMAN_CONTRACT_CONFIG), for endpoints
 *   SANDMAN_CONTRACT_IMAGE       the image of every sandbox (default none)
 *   SANDMAN_CONTRACT_LABEL       "k=v" put on every sandbox (so a runner can clean up after it)
 *   SANDMAN_CONTRACT_FILTER      a cmocka pattern: only the matching tests
 * The tests are in contract_exec.c (the required operations), contract_caps.c and
 * contract_pty.c. Sandboxes must have a POSIX shell with printf, cat, wc, sleep, stty and an httpd
 * (BusyBox's will do) on PATH. */
#include "tests/contract/contract.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "providers/builtin.h"

const char *ct_name;
cJSON *ct_cfg, *ct_netcfg;
const char *ct_image;
unsigned ct_caps;
char ct_run_id[17];

static cJSON *env_json(const char *var)
{
    const char *text = getenv(var);
    if (!text || !*text)
        return NULL;
    cJSON *j = cJSON_Parse(text);
    if (!cJSON_IsObject(j)) {
        fprintf(stderr, "contract_suite: %s is not a JSON object: %s\n", var, text);
        exit(2);
    }
    return j;
}

sm_provider *ct_provider_with(const cJSON *cfg)
{
    sm_provider *p = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_provider_new(ct_name, cfg, &p, &e) != SM_OK)
        fail_msg("provider %s: %s", ct_name, e.msg);
    return p;
}

sm_provider *ct_provider(void)
{
    return ct_provider_with(ct_cfg);
}

/* The spec every test starts from: the run's image and labels (this run's, and the runner's
 * SANDMAN_CONTRACT_LABEL). */
void ct_spec_init(sm_spec *spec)
{
    sm_spec_init(spec);
    if (ct_image)
        spec->image = xstrdup(ct_image);
    sm_map_set(&spec->metadata, RUN_LABEL, ct_run_id);
    const char *extra = getenv("SANDMAN_CONTRACT_LABEL");
    const char *eq = extra ? strchr(extra, '=') : NULL;
    if (eq) {
        char *k = xstrndup(extra, (size_t)(eq - extra));
        sm_map_set(&spec->metadata, k, eq + 1);
        free(k);
    }
}

/* A started sandbox on its own provider (spec NULL = the default spec). */
sm_sandbox *ct_start_with(sm_provider *p, const sm_spec *spec_in)
{
    sm_spec spec;
    ct_spec_init(&spec);
    sm_sandbox *s = sm_sandbox_new(p, true);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_start(s, spec_in ? spec_in : &spec, &e) != SM_OK)
        fail_msg("start: %s", e.msg);
    sm_spec_free(&spec);
    return s;
}

sm_sandbox *ct_start(const sm_spec *spec)
{
    return ct_start_with(ct_provider(), spec);
}

void ct_stop(sm_sandbox *s)
{
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_stop(s, &e) != SM_OK)
        fail_msg("stop: %s", e.msg);
    sm_sandbox_free(s);
}

/* A sandbox made through the provider itself, without the facade (default spec). */
sm_handle *ct_raw_create(sm_provider *p)
{
    sm_spec spec;
    ct_spec_init(&spec);
    sm_handle *h = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (p->ops->create(p, &spec, &h, &e) != SM_OK)
        fail_msg("create: %s", e.msg);
    sm_spec_free(&spec);
    return h;
}

/* A second facade on the same sandbox, rebuilt from its descriptor on a provider of its own. */
sm_sandbox *ct_connect_to(sm_sandbox *s)
{
    cJSON *d = sm_sandbox_serialize(s);
    sm_sandbox *o = sm_sandbox_new(ct_provider(), true);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_connect(o, d, &e) != SM_OK)
        fail_msg("connect: %s", e.msg);
    cJSON_Delete(d);
    return o;
}

void ct_run_req(sm_sandbox *s, const sm_exec_request *rq, ct_run_out *o)
{
    sm_error_clear(&o->e);
    o->rc = sm_sandbox_exec(s, rq, &o->r, &o->e);
}

void ct_run(sm_sandbox *s, const char *cmd, ct_run_out *o)
{
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = cmd;
    ct_run_req(s, &rq, o);
}

/* Runs cmd and checks that it ran with code and stdout out (NULL: any). */
void ct_expect(sm_sandbox *s, const char *cmd, int code, const char *out)
{
    ct_run_out o;
    ct_run(s, cmd, &o);
    if (o.rc != SM_OK)
        fail_msg("'%s': %s", cmd, o.e.msg);
    if (o.r.return_code != code || (out && strcmp(o.r.out ? o.r.out : "", out)))
        fail_msg("'%s': code %d out '%s' err '%s'; wanted %d '%s'", cmd, o.r.return_code,
                 o.r.out ? o.r.out : "", o.r.err ? o.r.err : "", code, out ? out : "*");
    sm_exec_result_free(&o.r);
}

void ct_need(unsigned cap)
{
    if (ct_caps & cap)
        return;
    char name[64];
    sm_caps_names(cap, name, sizeof name);
    print_message("SKIPPED: provider %s does not claim %s\n", ct_name, name);
    skip();
}

/* Sandboxes of this run carrying label k=v (ended ones too); -1 without list. */
int ct_count_labelled(const char *k, const char *v)
{
    if (!(ct_caps & SM_CAP_LIST))
        return -1;
    sm_provider *p = ct_provider();
    sm_map labels = {0};
    sm_map_set(&labels, k, v);
    sm_map_set(&labels, RUN_LABEL, ct_run_id);
    int n = sm_test_count_labelled(p, &labels);
    sm_map_free(&labels);
    sm_provider_free(p);
    return n;
}

/* ---------------------------------------------------------------- the run */

/* Removes whatever a failed test left (by this run's label). */
static int teardown(void **state)
{
    sm_provider *p = NULL;
    if ((ct_caps & SM_CAP_LIST) && sm_provider_new(ct_name, ct_cfg, &p, NULL) == SM_OK) {
        sm_map labels = {0};
        sm_map_set(&labels, RUN_LABEL, ct_run_id);
        sm_test_close_labelled(p, &labels);
        sm_map_free(&labels);
        sm_provider_free(p);
    }
    return sm_test_group_teardown(state);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: contract_suite PROVIDER (with SANDMAN_CONTRACT_* set as the "
                        "comment at the top of contract_suite.c says)\n");
        return 2;
    }
    ct_name = argv[1];
    ct_cfg = env_json("SANDMAN_CONTRACT_CONFIG");
    ct_netcfg = env_json("SANDMAN_CONTRACT_NET_CONFIG");
    ct_image = getenv("SANDMAN_CONTRACT_IMAGE");
    if (ct_image && !*ct_image)
        ct_image = NULL;
    sm_random_hex(ct_run_id, 16);
    sm_builtin_register_all();
    const sm_provider_ops *ops = sm_provider_lookup(ct_name);
    if (!ops) {
        fprintf(stderr, "contract_suite: no provider named '%s'\n", ct_name);
        return 2;
    }
    ct_caps = ops->caps;
    char caps[256];
    sm_caps_names(ct_caps, caps, sizeof caps);
    printf("provider %s claims: %s\n", ct_name, caps[0] ? caps : "(nothing optional)");

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exec_codes_are_data),  cmocka_unit_test(test_exec_request),
        cmocka_unit_test(test_exec_timeout),         cmocka_unit_test(test_exec_concurrent),
        cmocka_unit_test(test_exec_on_gone_sandbox), cmocka_unit_test(test_spec_files),
        cmocka_unit_test(test_spec_files_rollback),  cmocka_unit_test(test_upload_download),
        cmocka_unit_test(test_transfer_dir),         cmocka_unit_test(test_status_and_close),
        cmocka_unit_test(test_close_gone),           cmocka_unit_test(test_ttl),
        cmocka_unit_test(test_list_by_label),        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_pty_session),          cmocka_unit_test(test_pty_pipe_mode),
        cmocka_unit_test(test_pty_attach),           cmocka_unit_test(test_endpoint),
        cmocka_unit_test(test_serialize_connect),    cmocka_unit_test(test_pause_resume),
    };
    if (getenv("SANDMAN_CONTRACT_FILTER"))
        cmocka_set_test_filter(getenv("SANDMAN_CONTRACT_FILTER"));
    int rc = cmocka_run_group_tests_name(ct_name, tests, sm_test_group_setup, teardown);
    cJSON_Delete(ct_cfg);
    cJSON_Delete(ct_netcfg);
    return rc;
}
