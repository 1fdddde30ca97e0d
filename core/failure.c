/* The failure vocabulary, failure events and the rules that classify evidence into one kind. */
#include "core/failure.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

static const struct {
    const char *name;
    const char *label;
} kinds[SM_FAIL__COUNT] = {
    [SM_FAIL_NONE] = {"none", ""},
    [SM_FAIL_EXIT_NONZERO] = {"exit_nonzero", "exit"},
    [SM_FAIL_SIGNALED] = {"signaled", "killed"},
    [SM_FAIL_OOM] = {"oom_killed", "OOM killed"},
    [SM_FAIL_PIDS_LIMIT] = {"pids_limit", "pids limit"},
    [SM_FAIL_CPU_THROTTLED] = {"cpu_throttled", "CPU throttled"},
    [SM_FAIL_TTL_EXPIRED] = {"ttl_expired", "TTL expired"},
    [SM_FAIL_EXEC_TIMEOUT] = {"exec_timeout", "exec timeout"},
    [SM_FAIL_KILLED_BY_USER] = {"killed_by_user", "killed by user"},
    [SM_FAIL_CREATE_FAILED] = {"create_failed", "create failed"},
    [SM_FAIL_PROVIDER_UNREACHABLE] = {"provider_unreachable", "provider unreachable"},
    [SM_FAIL_AUTH_REJECTED] = {"auth_rejected", "auth rejected"},
    [SM_FAIL_NOT_FOUND] = {"not_found", "not found"},
    [SM_FAIL_SANDBOX_ERROR] = {"sandbox_error", "sandbox error"},
    [SM_FAIL_PTY_ERROR] = {"pty_error", "pty error"},
    [SM_FAIL_TRANSFER_FAILED] = {"transfer_failed", "transfer failed"},
    [SM_FAIL_SUPERVISOR_LOST] = {"supervisor_lost", "supervisor lost"},
    [SM_FAIL_INVALID_REQUEST] = {"invalid_request", "invalid request"},
};

void sm_failure_init(sm_failure *f)
{
    memset(f, 0, sizeof *f);
    f->exit_code = -1;
    f->signal = 0;
    f->http_status = 0;
    f->timeout_s = -1;
    f->oom_kills = f->memory_limit = f->pids_events = f->pids_limit = f->nr_throttled = -1;
}

const char *sm_failure_kind_name(sm_failure_kind k)
{
    if ((int)k < 0 || k >= SM_FAIL__COUNT)
        return "none";
    return kinds[k].name;
}

int sm_failure_kind_parse(const char *name, sm_failure_kind *out)
{
    for (int i = 0; i < SM_FAIL__COUNT; i++) {
        if (name && !strcmp(name, kinds[i].name)) {
            *out = (sm_failure_kind)i;
            return 0;
        }
    }
    return -1;
}

bool sm_failure_kind_is_failure(sm_failure_kind k)
{
    return k != SM_FAIL_NONE && k != SM_FAIL_CPU_THROTTLED && k < SM_FAIL__COUNT;
}

const char *sm_signal_name(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "SIG%d", sig);
    return buf;
}

void sm_failure_label(const sm_failure *f, char *buf, size_t len)
{
    char sig[24], dur[24];
    switch (f->kind) {
    case SM_FAIL_EXIT_NONZERO: snprintf(buf, len, "exit %d", f->exit_code); break;
    case SM_FAIL_SIGNALED:
        if (f->signal > 0)
            snprintf(buf, len, "exit %d (%s)", 128 + f->signal,
                     sm_signal_name(f->signal, sig, sizeof sig));
        else
            snprintf(buf, len, "killed");
        break;
    case SM_FAIL_EXEC_TIMEOUT:
        if (f->timeout_s >= 1) { /* in seconds, as timeouts are given (--timeout 180) */
            snprintf(buf, len, "exec timeout %gs", f->timeout_s);
        } else if (f->timeout_s >= 0) {
            sm_format_duration(f->timeout_s, dur, sizeof dur);
            snprintf(buf, len, "exec timeout %s", dur);
        } else {
            snprintf(buf, len, "exec timeout");
        }
        break;
    case SM_FAIL_PROVIDER_UNREACHABLE:
    case SM_FAIL_AUTH_REJECTED:
        if (f->http_status > 0)
            snprintf(buf, len, "%s (HTTP %d)", kinds[f->kind].label, f->http_status);
        else
            snprintf(buf, len, "%s", kinds[f->kind].label);
        break;
    default: snprintf(buf, len, "%s", kinds[f->kind < SM_FAIL__COUNT ? f->kind : 0].label); break;
    }
    size_t used = strlen(buf);
    if (f->commands_since > 0 && used < len)
        snprintf(buf + used, len - used, ", %d command%s ago", f->commands_since,
                 f->commands_since == 1 ? "" : "s");
}

static void add_part(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_part(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len)
        return;
    if (*used > 0) {
        int n = snprintf(buf + *used, len - *used, ", ");
        *used += (size_t)(n > 0 ? n : 0);
        if (*used >= len)
            return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    *used += (size_t)(n > 0 ? n : 0);
}

void sm_failure_evidence(const sm_failure *f, char *buf, size_t len)
{
    size_t used = 0;
    char tmp[32];
    buf[0] = '\0';
    if (f->oom_kills >= 0 && (f->oom_kills > 0 || f->kind == SM_FAIL_OOM))
        add_part(buf, len, &used, "memory.oom_kill %lld", f->oom_kills);
    if (f->memory_limit > 0 && (f->kind == SM_FAIL_OOM || f->oom_kills > 0)) {
        sm_format_bytes((double)f->memory_limit, tmp, sizeof tmp);
        add_part(buf, len, &used, "limit %s", tmp);
    }
    if (f->pids_events > 0)
        add_part(buf, len, &used, "pids.events max %lld", f->pids_events);
    if (f->pids_limit > 0 && f->kind == SM_FAIL_PIDS_LIMIT)
        add_part(buf, len, &used, "pids limit %lld", f->pids_limit);
    if (f->nr_throttled > 0)
        add_part(buf, len, &used, "nr_throttled %lld", f->nr_throttled);
    if (f->exit_code >= 0 && f->kind != SM_FAIL_NONE)
        add_part(buf, len, &used, "exit code %d", f->exit_code);
    if (f->signal > 0)
        add_part(buf, len, &used, "signal %s", sm_signal_name(f->signal, tmp, sizeof tmp));
    if (f->timeout_s >= 0 && f->kind == SM_FAIL_EXEC_TIMEOUT) {
        sm_format_duration(f->timeout_s, tmp, sizeof tmp);
        add_part(buf, len, &used, "timeout %s", tmp);
    }
    if (f->http_status > 0)
        add_part(buf, len, &used, "HTTP %d", f->http_status);
    if (f->provider_reason[0])
        add_part(buf, len, &used, "provider: %s", f->provider_reason);
}

static void put_num(cJSON *o, const char *key, long long v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, key, (double)v);
}

static void put_str(cJSON *o, const char *key, const char *v)
{
    if (v && *v)
        cJSON_AddStringToObject(o, key, v);
}

cJSON *sm_failure_to_json(const sm_failure *f)
{
    cJSON *o = cJSON_CreateObject();
    char label[128], ev[512];
    cJSON_AddStringToObject(o, "kind", sm_failure_kind_name(f->kind));
    sm_failure_label(f, label, sizeof label);
    put_str(o, "label", label);
    put_str(o, "operation", f->operation);
    put_str(o, "sandbox_id", f->sandbox_id);
    put_str(o, "provider", f->provider);
    put_str(o, "reason", f->reason);
    put_str(o, "provider_reason", f->provider_reason);
    put_num(o, "exit_code", f->exit_code);
    if (f->signal > 0) {
        char sig[24];
        cJSON_AddStringToObject(o, "signal", sm_signal_name(f->signal, sig, sizeof sig));
    }
    if (f->http_status > 0)
        cJSON_AddNumberToObject(o, "http_status", f->http_status);
    if (f->timeout_s >= 0)
        cJSON_AddNumberToObject(o, "timeout_s", f->timeout_s);
    put_num(o, "oom_kills", f->oom_kills);
    put_num(o, "memory_limit", f->memory_limit);
    put_num(o, "pids_events", f->pids_events);
    put_num(o, "pids_limit", f->pids_limit);
    put_num(o, "nr_throttled", f->nr_throttled);
    if (f->commands_since > 0)
        cJSON_AddNumberToObject(o, "commands_since", f->commands_since);
    sm_failure_evidence(f, ev, sizeof ev);
    put_str(o, "evidence", ev);
    return o;
}

static void get_str(const cJSON *j, const char *key, char *dst, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (cJSON_IsString(v))
        snprintf(dst, len, "%s", v->valuestring);
}

static long long get_num(const cJSON *j, const char *key, long long dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsNumber(v))
        return dflt;
    /* a record may hold any number (1e400 reads as inf): saturate, never convert out of range */
    double d = v->valuedouble;
    if (isnan(d))
        return dflt;
    return d >= 0x1p63 ? LLONG_MAX : d < -0x1p63 ? LLONG_MIN : (long long)d;
}

static int parse_signal(const char *name)
{
    if (!name || strncmp(name, "SIG", 3) != 0)
        return 0;
    for (int s = 1; s < 65; s++) {
        const char *a = sigabbrev_np(s);
        if (a && !strcmp(a, name + 3))
            return s;
    }
    long v;
    return sm_parse_long(name + 3, &v) == 0 ? (int)v : 0;
}

void sm_failure_from_json(const cJSON *j, sm_failure *f)
{
    sm_failure_init(f);
    if (!cJSON_IsObject(j))
        return;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "kind");
    if (cJSON_IsString(k))
        sm_failure_kind_parse(k->valuestring, &f->kind);
    get_str(j, "operation", f->operation, sizeof f->operation);
    get_str(j, "sandbox_id", f->sandbox_id, sizeof f->sandbox_id);
    get_str(j, "provider", f->provider, sizeof f->provider);
    get_str(j, "reason", f->reason, sizeof f->reason);
    get_str(j, "provider_reason", f->provider_reason, sizeof f->provider_reason);
    f->exit_code = (int)get_num(j, "exit_code", -1);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "signal");
    if (cJSON_IsString(s))
        f->signal = parse_signal(s->valuestring);
    f->http_status = (int)get_num(j, "http_status", 0);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "timeout_s");
    f->timeout_s = cJSON_IsNumber(t) ? t->valuedouble : -1;
    f->oom_kills = get_num(j, "oom_kills", -1);
    f->memory_limit = get_num(j, "memory_limit", -1);
    f->pids_events = get_num(j, "pids_events", -1);
    f->pids_limit = get_num(j, "pids_limit", -1);
    f->nr_throttled = get_num(j, "nr_throttled", -1);
    f->commands_since = (int)get_num(j, "commands_since", 0);
}

sm_failure_kind sm_failure_classify_exit(int exit_code, int signal, long long oom_delta,
                                         long long pids_delta, bool timed_out)
{
    if (timed_out)
        return SM_FAIL_EXEC_TIMEOUT;
    bool failed = signal > 0 || exit_code != 0;
    if (!failed)
        return SM_FAIL_NONE;
    /* A shell reports its child's SIGKILL as exit 137, so an OOM counter that moved during a
     * failed command is the cause whether we saw the signal or only the shell's code. */
    if (oom_delta > 0)
        return SM_FAIL_OOM;
    if (pids_delta > 0)
        return SM_FAIL_PIDS_LIMIT;
    if (signal > 0)
        return SM_FAIL_SIGNALED;
    return SM_FAIL_EXIT_NONZERO;
}

sm_failure_kind sm_failure_classify_http(int http_status, sm_failure_kind otherwise)
{
    if (http_status == 0)
        return SM_FAIL_PROVIDER_UNREACHABLE;
    if (http_status == 401 || http_status == 403)
        return SM_FAIL_AUTH_REJECTED;
    if (http_status == 404)
        return SM_FAIL_NOT_FOUND;
    if (http_status == 502 || http_status == 503)
        return SM_FAIL_PROVIDER_UNREACHABLE;
    return otherwise;
}

bool sm_failure_last_line(const char *text, size_t len, char *buf, size_t buflen)
{
    size_t end = len;
    while (end > 0) {
        size_t start = end;
        while (start > 0 && text[start - 1] != '\n')
            start--;
        size_t a = start, b = end;
        while (a < b && (text[a] == ' ' || text[a] == '\t'))
            a++;
        while (b > a && (text[b - 1] == '\r' || text[b - 1] == ' ' || text[b - 1] == '\t' ||
                         text[b - 1] == '\n'))
            b--;
        bool meaningful = false;
        for (size_t i = a; i < b && !meaningful; i++)
            meaningful = (text[i] >= 'A' && text[i] <= 'Z') || (text[i] >= 'a' && text[i] <= 'z') ||
                         (text[i] >= '0' && text[i] <= '9');
        if (meaningful) {
            size_t n = b - a;
            if (n > 160)
                n = 160;
            if (n >= buflen)
                n = buflen - 1;
            memcpy(buf, text + a, n);
            buf[n] = '\0';
            return true;
        }
        end = start > 0 ? start - 1 : 0;
    }
    return false;
}

void sm_failure_reason_from_stderr(sm_failure *f, const char *text, size_t len)
{
    char line[161], label[128];
    if (!text || !sm_failure_last_line(text, len, line, sizeof line))
        return;
    sm_failure_label(f, label, sizeof label);
    snprintf(f->reason, sizeof f->reason, "%s: %s", label, line);
}
