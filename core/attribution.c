/* Attribution (seed §3.5, §3.6, §5.12): resolves team/user/workload/run from explicit values
 * and the environment, turns them into labels, rewrites image prefixes and sanitises label
 * values. Reads the environment only; never talks to a provider. */
#include "core/attribution.h"

#include <ctype.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#define RUN_ID_LEN    12
#define LABEL_MAX_LEN 63

/* A malloc'd copy of s without surrounding whitespace; NULL when s is NULL or blank. */
static char *trimmed(const char *s)
{
    if (!s)
        return NULL;
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return n ? xstrndup(s, n) : NULL;
}

/* The first non-blank variable of a NULL-terminated list. */
static char *from_env(const char *const *vars)
{
    for (size_t i = 0; vars[i]; i++) {
        char *v = trimmed(getenv(vars[i]));
        if (v)
            return v;
    }
    return NULL;
}

/* The login as Python's getpass.getuser() finds it (the seed uses it): the first non-blank of
 * LOGNAME, USER, LNAME, USERNAME, else the password database's name for the effective uid. A
 * login of root says nothing about who ran the job: omitted. */
static char *os_login(void)
{
    static const char *const vars[] = {"LOGNAME", "USER", "LNAME", "USERNAME", NULL};
    char *name = from_env(vars);
    if (!name) {
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res)
            name = trimmed(res->pw_name);
    }
    if (name && !strcmp(name, "root")) {
        free(name);
        name = NULL;
    }
    return name;
}

/* ---------------------------------------------------------------- run id */

static pthread_once_t run_once = PTHREAD_ONCE_INIT;
static char random_run_id[RUN_ID_LEN + 1];

/* Run ids from the environment handed out so far: interned so returned pointers stay valid even
 * when the variable changes later (tests; long-lived front ends). */
static pthread_mutex_t env_ids_lock = PTHREAD_MUTEX_INITIALIZER;
static char **env_ids;
static size_t nenv_ids;

static void make_random_run_id(void)
{
    sm_random_hex(random_run_id, RUN_ID_LEN);
}

/* The run id the environment gives, malloc'd, or NULL: NEMO_GYM_RUN_ID, else the Slurm array
 * task (SLURM_ARRAY_JOB_ID "_" SLURM_ARRAY_TASK_ID: "40_3"), else the Slurm job. */
static char *env_run_id(void)
{
    char *id = trimmed(getenv("NEMO_GYM_RUN_ID"));
    if (id)
        return id;
    char *array = trimmed(getenv("SLURM_ARRAY_JOB_ID"));
    char *task = array ? trimmed(getenv("SLURM_ARRAY_TASK_ID")) : NULL;
    if (task)
        id = xasprintf("%s_%s", array, task);
    free(array);
    free(task);
    return id ? id : trimmed(getenv("SLURM_JOB_ID"));
}

const char *sm_run_id(void)
{
    char *env = env_run_id();
    if (env) {
        const char *found = NULL;
        pthread_mutex_lock(&env_ids_lock);
        for (size_t i = 0; i < nenv_ids && !found; i++)
            if (!strcmp(env_ids[i], env))
                found = env_ids[i];
        if (!found) {
            env_ids = xrealloc(env_ids, (nenv_ids + 1) * sizeof *env_ids);
            env_ids[nenv_ids++] = env;
            found = env;
            env = NULL;
        }
        pthread_mutex_unlock(&env_ids_lock);
        free(env);
        return found;
    }
    pthread_once(&run_once, make_random_run_id);
    return random_run_id;
}

/* ---------------------------------------------------------------- attribution */

static char *explicit_field(const char *v)
{
    return (v && *v) ? xstrdup(v) : NULL;
}

void sm_attribution_resolve(const sm_attribution *explicit_values, sm_attribution *out)
{
    static const char *const team_vars[] = {"NEMO_GYM_TEAM", "SLURM_JOB_ACCOUNT", NULL};
    static const char *const user_vars[] = {"NEMO_GYM_USER", "SLURM_JOB_USER", NULL};
    static const char *const workload_vars[] = {"NEMO_GYM_WORKLOAD", "SLURM_JOB_NAME",
                                                "NEMO_GYM_CONFIG_PATH", NULL};
    const sm_attribution none = {0};
    const sm_attribution *ex = explicit_values ? explicit_values : &none;
    memset(out, 0, sizeof *out);

    out->team = explicit_field(ex->team);
    if (!out->team)
        out->team = from_env(team_vars);

    /* only the OS login root is left out: a root named on purpose is kept */
    out->user = explicit_field(ex->user);
    if (!out->user)
        out->user = from_env(user_vars);
    if (!out->user)
        out->user = os_login();

    out->workload = explicit_field(ex->workload);
    if (!out->workload)
        out->workload = from_env(workload_vars);

    out->run = explicit_field(ex->run);
    if (!out->run)
        out->run = xstrdup(sm_run_id());
}

void sm_attribution_free(sm_attribution *a)
{
    if (!a)
        return;
    free(a->team);
    free(a->user);
    free(a->workload);
    free(a->run);
    memset(a, 0, sizeof *a);
}

/* Values go in as resolved; providers whose label syntax is strict sanitise them. */
void sm_attribution_to_labels(const sm_attribution *a, const char *prefix, sm_map *labels)
{
    const struct {
        const char *key;
        const char *value;
    } fields[] = {{"team", a->team}, {"user", a->user}, {"workload", a->workload}, {"run", a->run}};
    if (!prefix)
        prefix = SM_ATTRIBUTION_PREFIX;
    for (size_t i = 0; i < SM_ARRAY_LEN(fields); i++) {
        if (!fields[i].value)
            continue;
        char *key = xasprintf("%s%s", prefix, fields[i].key);
        if (!sm_map_get(labels, key))
            sm_map_set(labels, key, fields[i].value);
        free(key);
    }
}

/* ---------------------------------------------------------------- utilities */

char *sm_rewrite_image(const char *image, const sm_map *rules)
{
    if (!image)
        return NULL;
    for (size_t i = 0; rules && i < rules->n; i++) {
        const char *from = rules->items[i].key;
        if (*from && sm_str_has_prefix(image, from))
            return xasprintf("%s%s", rules->items[i].value, image + strlen(from));
    }
    return xstrdup(image);
}

static bool label_char_ok(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

static bool label_trim_char(char c)
{
    return c == '.' || c == '_' || c == '-';
}

char *sm_label_sanitize(const char *value)
{
    const char *v = value ? value : "";
    char *out = xmalloc(strlen(v) + 1);
    size_t n = 0;
    for (const char *p = v; *p; p++) {
        if (label_char_ok(*p))
            out[n++] = *p;
        else if (p == v || label_char_ok(p[-1]))
            out[n++] = '_'; /* a run of bad characters becomes one '_' */
    }
    out[n] = '\0';
    size_t start = 0;
    while (start < n && label_trim_char(out[start]))
        start++;
    while (n > start && label_trim_char(out[n - 1]))
        n--;
    if (n - start > LABEL_MAX_LEN)
        n = start + LABEL_MAX_LEN;
    /* Cutting may expose a separator at the end; label values must end alphanumeric. */
    while (n > start && label_trim_char(out[n - 1]))
        n--;
    if (n == start) {
        free(out);
        return xstrdup("metadata");
    }
    memmove(out, out + start, n - start);
    out[n - start] = '\0';
    return out;
}
