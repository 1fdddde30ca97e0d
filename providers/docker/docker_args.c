/* docker CLI flags as Engine API fields (docker_args.h). One table per command: the flag, its
 * short form, what it sets and where. Values follow the docker CLI's own forms (--flag=value,
 * --flag value, -fvalue; sizes with b/k/m/g units). */
#include "providers/docker/docker_args.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef enum {
    A_IGNORE, /* a flag that means nothing here (-d, -i, -t): named as ignored */
    A_TRUE,   /* a boolean field set to true */
    A_STRING, /* a string field */
    A_LIST,   /* a string appended to a list field */
    A_ENV,    /* K=V (K alone: the host's value) appended to Env */
    A_KV,     /* k=v into an object field (labels, sysctls) */
    A_BYTES,  /* a size: 512m, 2g */
    A_INT,    /* an integer */
    A_CPUS,   /* --cpus 1.5 -> NanoCpus */
    A_ULIMIT, /* name=soft[:hard] */
    A_TMPFS,  /* path[:options] */
    A_DEVICE, /* host[:container[:permissions]] */
} arg_kind;

typedef struct flag {
    const char *lng;
    char shrt;
    arg_kind kind;
    bool host; /* the field is in HostConfig (run) */
    const char *field;
} flag;

static const flag run_flags[] = {
    {"detach", 'd', A_IGNORE, false, NULL},
    {"interactive", 'i', A_IGNORE, false, NULL},
    {"tty", 't', A_IGNORE, false, NULL},
    {"privileged", 0, A_TRUE, true, "Privileged"},
    {"read-only", 0, A_TRUE, true, "ReadonlyRootfs"},
    {"init", 0, A_TRUE, true, "Init"},
    {"rm", 0, A_TRUE, true, "AutoRemove"},
    {"network", 0, A_STRING, true, "NetworkMode"},
    {"net", 0, A_STRING, true, "NetworkMode"},
    {"ipc", 0, A_STRING, true, "IpcMode"},
    {"pid", 0, A_STRING, true, "PidMode"},
    {"uts", 0, A_STRING, true, "UTSMode"},
    {"userns", 0, A_STRING, true, "UsernsMode"},
    {"cgroupns", 0, A_STRING, true, "CgroupnsMode"},
    {"runtime", 0, A_STRING, true, "Runtime"},
    {"cpuset-cpus", 0, A_STRING, true, "CpusetCpus"},
    {"user", 'u', A_STRING, false, "User"},
    {"hostname", 'h', A_STRING, false, "Hostname"},
    {"domainname", 0, A_STRING, false, "Domainname"},
    {"workdir", 'w', A_STRING, false, "WorkingDir"},
    {"stop-signal", 0, A_STRING, false, "StopSignal"},
    {"cap-add", 0, A_LIST, true, "CapAdd"},
    {"cap-drop", 0, A_LIST, true, "CapDrop"},
    {"security-opt", 0, A_LIST, true, "SecurityOpt"},
    {"volume", 'v', A_LIST, true, "Binds"},
    {"volumes-from", 0, A_LIST, true, "VolumesFrom"},
    {"add-host", 0, A_LIST, true, "ExtraHosts"},
    {"dns", 0, A_LIST, true, "Dns"},
    {"dns-search", 0, A_LIST, true, "DnsSearch"},
    {"dns-option", 0, A_LIST, true, "DnsOptions"},
    {"group-add", 0, A_LIST, true, "GroupAdd"},
    {"env", 'e', A_ENV, false, "Env"},
    {"label", 'l', A_KV, false, "Labels"},
    {"sysctl", 0, A_KV, true, "Sysctls"},
    {"shm-size", 0, A_BYTES, true, "ShmSize"},
    {"memory", 'm', A_BYTES, true, "Memory"},
    {"memory-swap", 0, A_BYTES, true, "MemorySwap"},
    {"memory-reservation", 0, A_BYTES, true, "MemoryReservation"},
    {"pids-limit", 0, A_INT, true, "PidsLimit"},
    {"cpu-shares", 'c', A_INT, true, "CpuShares"},
    {"oom-score-adj", 0, A_INT, true, "OomScoreAdj"},
    {"cpus", 0, A_CPUS, true, "NanoCpus"},
    {"ulimit", 0, A_ULIMIT, true, "Ulimits"},
    {"tmpfs", 0, A_TMPFS, true, "Tmpfs"},
    {"device", 0, A_DEVICE, true, "Devices"},
    {NULL, 0, A_IGNORE, false, NULL},
};

static const flag exec_flags[] = {
    {"detach", 'd', A_IGNORE, false, NULL}, {"interactive", 'i', A_IGNORE, false, NULL},
    {"tty", 't', A_IGNORE, false, NULL},    {"privileged", 0, A_TRUE, false, "Privileged"},
    {"user", 'u', A_STRING, false, "User"}, {"workdir", 'w', A_STRING, false, "WorkingDir"},
    {"env", 'e', A_ENV, false, "Env"},      {NULL, 0, A_IGNORE, false, NULL},
};

static bool takes_value(arg_kind k)
{
    return k != A_IGNORE && k != A_TRUE;
}

static void note(sm_strbuf *ignored, const char *what)
{
    if (ignored)
        sm_strbuf_printf(ignored, "%s%s", ignored->len ? ", " : "", what);
}

/* 512, 512b, 64k, 512m, 2g (docker's units, binary). -1 when malformed. */
static double parse_bytes(const char *v)
{
    char *end = NULL;
    double n = strtod(v, &end);
    if (end == v || n < 0)
        return -1;
    double mult = 1;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'b':
        mult = 1;
        end++;
        break;
    case 'k':
        mult = 1024;
        end++;
        break;
    case 'm':
        mult = 1024.0 * 1024;
        end++;
        break;
    case 'g':
        mult = 1024.0 * 1024 * 1024;
        end++;
        break;
    default: return -1;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    return *end ? -1 : floor(n * mult);
}

static cJSON *field_parent(cJSON *body, const flag *f)
{
    if (!f->host)
        return body;
    cJSON *hc = cJSON_GetObjectItemCaseSensitive(body, "HostConfig");
    return hc ? hc : cJSON_AddObjectToObject(body, "HostConfig");
}

static cJSON *child_of(cJSON *parent, const char *key, bool array)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (c && (array ? cJSON_IsArray(c) : cJSON_IsObject(c)))
        return c;
    cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
    return array ? cJSON_AddArrayToObject(parent, key) : cJSON_AddObjectToObject(parent, key);
}

static void set_item(cJSON *parent, const char *key, cJSON *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
    cJSON_AddItemToObject(parent, key, v);
}

static int bad(sm_error *err, const char *what, const char *flagname, const char *val,
               const char *want)
{
    return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s: %s '%s' must be %s",
                        what, flagname, val, want);
}

static int apply(const flag *f, const char *flagname, const char *val, const char *what,
                 cJSON *body, sm_error *err)
{
    cJSON *parent = field_parent(body, f);
    switch (f->kind) {
    case A_IGNORE: return SM_OK;
    case A_TRUE: set_item(parent, f->field, cJSON_CreateTrue()); return SM_OK;
    case A_STRING: set_item(parent, f->field, cJSON_CreateString(val)); return SM_OK;
    case A_LIST:
        cJSON_AddItemToArray(child_of(parent, f->field, true), cJSON_CreateString(val));
        return SM_OK;
    case A_ENV: {
        if (!*val || *val == '=')
            return bad(err, what, flagname, val, "K=V or K");
        char *kv = NULL;
        if (!strchr(val, '=')) {
            const char *host = getenv(val); /* docker run -e K: the caller's value, if any */
            if (!host)
                return SM_OK;
            kv = xasprintf("%s=%s", val, host);
        }
        cJSON_AddItemToArray(child_of(parent, f->field, true), cJSON_CreateString(kv ? kv : val));
        free(kv);
        return SM_OK;
    }
    case A_KV: {
        const char *eq = strchr(val, '=');
        char *k = eq ? xstrndup(val, (size_t)(eq - val)) : xstrdup(val);
        if (!*k) {
            free(k);
            return bad(err, what, flagname, val, "key=value");
        }
        set_item(child_of(parent, f->field, false), k, cJSON_CreateString(eq ? eq + 1 : ""));
        free(k);
        return SM_OK;
    }
    case A_BYTES: {
        double n = parse_bytes(val);
        if (n < 0)
            return bad(err, what, flagname, val, "a size such as 512m or 2g");
        set_item(parent, f->field, cJSON_CreateNumber(n));
        return SM_OK;
    }
    case A_INT: {
        long n;
        if (sm_parse_long(val, &n) != 0)
            return bad(err, what, flagname, val, "an integer");
        set_item(parent, f->field, cJSON_CreateNumber((double)n));
        return SM_OK;
    }
    case A_CPUS: {
        double n;
        if (sm_parse_double(val, &n) != 0 || !(n > 0))
            return bad(err, what, flagname, val, "a positive number of CPUs");
        set_item(parent, f->field, cJSON_CreateNumber(floor(n * 1e9)));
        return SM_OK;
    }
    case A_ULIMIT: {
        const char *eq = strchr(val, '=');
        long soft, hard;
        char *name = eq ? xstrndup(val, (size_t)(eq - val)) : NULL;
        char *lim = eq ? xstrdup(eq + 1) : NULL;
        char *colon = lim ? strchr(lim, ':') : NULL;
        if (colon)
            *colon = '\0';
        bool ok = name && *name && lim && sm_parse_long(lim, &soft) == 0 &&
                  (colon ? sm_parse_long(colon + 1, &hard) == 0 : (hard = soft, true));
        if (ok) {
            cJSON *u = cJSON_CreateObject();
            cJSON_AddStringToObject(u, "Name", name);
            cJSON_AddNumberToObject(u, "Soft", (double)soft);
            cJSON_AddNumberToObject(u, "Hard", (double)hard);
            cJSON_AddItemToArray(child_of(parent, f->field, true), u);
        }
        free(name);
        free(lim);
        return ok ? SM_OK : bad(err, what, flagname, val, "name=soft[:hard]");
    }
    case A_TMPFS: {
        if (val[0] != '/')
            return bad(err, what, flagname, val, "an absolute path[:options]");
        const char *colon = strchr(val, ':');
        char *path = colon ? xstrndup(val, (size_t)(colon - val)) : xstrdup(val);
        set_item(child_of(parent, f->field, false), path,
                 cJSON_CreateString(colon ? colon + 1 : ""));
        free(path);
        return SM_OK;
    }
    case A_DEVICE: {
        char *copy = xstrdup(val), *save = NULL;
        const char *host = strtok_r(copy, ":", &save);
        const char *cont = strtok_r(NULL, ":", &save);
        const char *perm = strtok_r(NULL, ":", &save);
        if (!host || host[0] != '/') {
            free(copy);
            return bad(err, what, flagname, val, "a device path[:container path[:permissions]]");
        }
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "PathOnHost", host);
        cJSON_AddStringToObject(d, "PathInContainer", cont ? cont : host);
        cJSON_AddStringToObject(d, "CgroupPermissions", perm ? perm : "rwm");
        cJSON_AddItemToArray(child_of(parent, f->field, true), d);
        free(copy);
        return SM_OK;
    }
    }
    return SM_OK;
}

static int translate(const flag *table, char *const *args, const char *what, cJSON *body,
                     sm_strbuf *ignored, sm_error *err)
{
    for (size_t i = 0; args && args[i]; i++) {
        const char *a = args[i];
        const flag *f = NULL;
        const char *val = NULL;
        char name[80];
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            const char *eq = strchr(a + 2, '=');
            size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            for (const flag *t = table; t->lng && !f; t++)
                if (strlen(t->lng) == n && !strncmp(t->lng, a + 2, n))
                    f = t;
            snprintf(name, sizeof name, "--%.*s", (int)(n < 60 ? n : 60), a + 2);
            val = eq ? eq + 1 : NULL;
        } else if (a[0] == '-' && a[1] && a[1] != '-') {
            for (const flag *t = table; t->lng && !f; t++)
                if (t->shrt && t->shrt == a[1])
                    f = t;
            snprintf(name, sizeof name, "-%c", a[1]);
            val = a[2] ? a + 2 : NULL;
            if (f && !takes_value(f->kind) && val) {
                f = NULL; /* grouped short flags (-it): none of them means anything here */
                snprintf(name, sizeof name, "%.60s", a);
            }
        }
        if (!f) {
            /* an unknown --flag followed by a word: the word is its value (run and exec args
             * hold no positionals; sandman places the image and the command) */
            if (a[0] == '-' && a[1] == '-' && !strchr(a, '=') && args[i + 1] &&
                args[i + 1][0] != '-') {
                char both[200];
                snprintf(both, sizeof both, "%s %.100s", name, args[++i]);
                note(ignored, both);
            } else {
                note(ignored, a[0] == '-' ? name : a);
            }
            continue;
        }
        if (f->kind == A_IGNORE) {
            note(ignored, name);
            continue;
        }
        if (takes_value(f->kind) && !val) {
            if (!args[i + 1])
                return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                    "%s: %s needs a value", what, name);
            val = args[++i];
        }
        int rc = apply(f, name, val ? val : "", what, body, err);
        if (rc != SM_OK)
            return rc;
    }
    return SM_OK;
}

int docker_args_run(char *const *args, const char *what, cJSON *body, sm_strbuf *ignored,
                    sm_error *err)
{
    return translate(run_flags, args, what, body, ignored, err);
}

int docker_args_exec(char *const *args, const char *what, cJSON *body, sm_strbuf *ignored,
                     sm_error *err)
{
    return translate(exec_flags, args, what, body, ignored, err);
}

char **docker_args_from_json(const cJSON *v, const char *what, sm_error *err)
{
    size_t n = 0;
    char **out = xcalloc(1, sizeof *out);
    if (!v || cJSON_IsNull(v))
        return out;
    if (cJSON_IsString(v)) {
        char *copy = xstrdup(v->valuestring), *save = NULL;
        for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
            out = xrealloc(out, (n + 2) * sizeof *out);
            out[n++] = xstrdup(w);
            out[n] = NULL;
        }
        free(copy);
        return out;
    }
    const cJSON *it;
    bool ok = cJSON_IsArray(v);
    const cJSON *list = ok ? v : NULL;
    cJSON_ArrayForEach(it, list)
    {
        if (!cJSON_IsString(it)) {
            ok = false;
            break;
        }
        out = xrealloc(out, (n + 2) * sizeof *out);
        out[n++] = xstrdup(it->valuestring);
        out[n] = NULL;
    }
    if (!ok) {
        docker_args_free(out);
        sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                     "%s must be a string or a list of strings", what);
        return NULL;
    }
    return out;
}

void docker_args_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}
