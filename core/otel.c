/* OpenTelemetry spans and metrics as OTLP JSON, to files and over OTLP/HTTP (core/otel.h).
 * Nothing here blocks a command for long: the HTTP export has a short timeout, runs when the
 * buffer fills or the process ends, and after one failure the process stops trying. */
#include "core/otel.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/http.h"
#include "core/redact.h"
#include "core/util.h"

#define ENV_PREFIX             "NEMO_GYM_SANDBOX_OBSERVABILITY_"
#define SCOPE_NAME             "sandman"
#define SCOPE_VERSION          "0.1.0"
#define FLUSH_SPANS            256  /* spans buffered before an export */
#define MAX_SPANS              4096 /* beyond this (exports failing to keep up) spans are dropped */
#define FLUSH_EVERY_S          10.0 /* a long-lived process (the dashboard) exports at least this often */
#define TIMEOUT_S              2.0 /* whole OTLP/HTTP request, unless configured */
#define SPAN_KIND_INTERNAL     1
#define STATUS_OK              1
#define STATUS_ERROR           2
#define TEMPORALITY_CUMULATIVE 2

/* Histogram bounds in milliseconds, up to thirty minutes as the seed's: a local create takes
 * ~12 ms, a remote one a minute, a command anything up to its timeout. */
static const double BOUNDS[] = {1,     2,      5,      10,     25,     50,    100,
                                250,   500,    1000,   2500,   5000,   10000, 30000,
                                60000, 120000, 300000, 600000, 1800000};
#define NBOUNDS (sizeof BOUNDS / sizeof BOUNDS[0])

typedef enum { M_UPDOWN, M_COUNTER, M_HISTOGRAM } metric_kind;

typedef struct metric_def {
    const char *name, *unit, *description;
    metric_kind kind;
} metric_def;

enum { MET_ACTIVE, MET_STARTUP, MET_EXEC, MET_RETRY, MET__COUNT };
static const metric_def DEFS[MET__COUNT] = {
    {"gym.sandbox.active", "{sandbox}", "Sandboxes this process holds: +1 on create, -1 on stop.",
     M_UPDOWN},
    {"gym.sandbox.startup_duration_ms", "ms", "Wall-clock time to provision one sandbox.",
     M_HISTOGRAM},
    {"gym.sandbox.exec_duration_ms", "ms",
     "Wall-clock time to run one command inside an already-provisioned sandbox.", M_HISTOGRAM},
    {"gym.sandbox.create_retry_total", "{retry}",
     "Count of sandbox-create retry attempts by provider.", M_COUNTER},
};

typedef struct point {
    int def;
    char provider[32];
    long long value; /* sums */
    long long count; /* histograms */
    double sum, min, max;
    long long buckets[NBOUNDS + 1];
} point;

typedef struct signal_out {
    bool file, http;
    char *url;       /* full OTLP/HTTP URL (.../v1/traces) */
    char **headers;  /* "Name: value", NULL-terminated */
    sm_http *client; /* made on first send */
} signal_out;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t send_mu = PTHREAD_MUTEX_INITIALIZER; /* see export_held */
static void export_held(void);
static struct {
    bool inited, on;
    pid_t owner; /* the process that configured it (forked children never export) */
    char *dir;
    signal_out traces, metrics;
    double timeout_s;
    char *run_id;
    char trace_parent[33], parent_span[17]; /* from TRACEPARENT */
    cJSON *resource;
    cJSON *spans; /* buffered span objects */
    long long dropped;
    point *points;
    size_t npoints;
    long long start_ns; /* of the metrics' cumulative window */
    double last_flush;
    int seq;
    char base[64];    /* "<start time>-<pid>": this process's file names */
    bool http_failed; /* a send failed: no more sends (the other signal goes to the same
                         collector, most likely as silent) */
    char *warning;    /* the first export failure, printed at exit */
} g;
static bool exit_hook; /* atexit is registered once, whatever sm_otel_reset does */

static const char *env2(const char *seed_name, const char *otel_name)
{
    char name[128];
    snprintf(name, sizeof name, ENV_PREFIX "%s", seed_name);
    const char *v = getenv(name);
    if ((!v || !*v) && otel_name)
        v = getenv(otel_name);
    return v && *v ? v : NULL;
}

static bool truthy(const char *v)
{
    return v && (!strcasecmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
                 !strcasecmp(v, "on"));
}

static long long now_ns(void)
{
    struct timespec ts; /* not sm_now_wall: a double drops the last bits of epoch nanoseconds */
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Does an exporter list ("otlp,file"; the seed's aliases) name this exporter? */
static bool lists(const char *list, bool want_file)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        for (char *c = w; *c; c++)
            *c = *c == '-' ? '_' : (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        bool file = !strcmp(w, "otlp_json_file") || !strcmp(w, "json") || !strcmp(w, "file") ||
                    !strcmp(w, "local");
        bool http = !strcmp(w, "otlp") || !strcmp(w, "otlp_http") || !strcmp(w, "http") ||
                    !strcmp(w, "otlp_proto_http");
        if (want_file ? file : http)
            return true;
    }
    return false;
}

/* The signal's URL, as the seed builds it: a signal endpoint as given (with /v1/<signal> added
 * when missing), else the base endpoint + /v1/<signal>. */
static char *signal_url(const char *sig, const char *sig_seed, const char *sig_otel)
{
    const char *e = env2(sig_seed, sig_otel);
    if (!e)
        e = env2("OTEL_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT");
    if (!e)
        return NULL;
    size_t n = strlen(e);
    while (n && e[n - 1] == '/')
        n--;
    char tail[24];
    snprintf(tail, sizeof tail, "/v1/%s", sig);
    const char *v1 = NULL;
    for (const char *p = e; (p = strstr(p, "/v1/")) && p < e + n; p++)
        v1 = p;
    if (v1 && (!strncmp(v1, "/v1/traces", (size_t)(e + n - v1)) ||
               !strncmp(v1, "/v1/metrics", (size_t)(e + n - v1))))
        n = (size_t)(v1 - e); /* the other signal's path: swap it */
    return xasprintf("%.*s%s", (int)n, e, tail);
}

/* "k1=v1,k2=v2" into "k1: v1" header lines; the values are credentials (api keys), so they
 * are registered for redaction. */
static char **parse_headers(const char *spec)
{
    size_t n = 0, cap = 4;
    char **out = xcalloc(cap + 1, sizeof *out);
    if (!spec)
        return out;
    char *buf = xstrdup(spec), *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        char *k = kv, *v = eq + 1;
        while (*k == ' ')
            k++;
        while (*v == ' ')
            v++;
        for (char *e = k + strlen(k); e > k && e[-1] == ' ';)
            *--e = '\0';
        if (!*k || strpbrk(k, ":\r\n") || strpbrk(v, "\r\n"))
            continue;
        sm_redact_register(v);
        if (n == cap) {
            cap *= 2;
            out = xrealloc(out, (cap + 1) * sizeof *out);
        }
        out[n++] = xasprintf("%s: %s", k, v);
        out[n] = NULL;
    }
    free(buf);
    return out;
}

static cJSON *kv_str(const char *key, const char *value)
{
    cJSON *a = cJSON_CreateObject(), *v = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "key", key);
    cJSON_AddStringToObject(v, "stringValue", value);
    cJSON_AddItemToObject(a, "value", v);
    return a;
}

static cJSON *kv_int(const char *key, long long value)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", value);
    cJSON *a = cJSON_CreateObject(), *v = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "key", key);
    cJSON_AddStringToObject(v, "intValue", num); /* int64 is a string in OTLP JSON */
    cJSON_AddItemToObject(a, "value", v);
    return a;
}

static void hex_random(char *buf, size_t n)
{
    do
        sm_random_hex(buf, n);
    while (strspn(buf, "0") == n); /* all-zero ids are invalid */
}

/* W3C traceparent "00-<32 hex>-<16 hex>-<2 hex>". */
static void read_traceparent(void)
{
    const char *tp = getenv("TRACEPARENT");
    if (!tp || strlen(tp) != 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-')
        return;
    if (strspn(tp + 3, "0123456789abcdef") < 32 || strspn(tp + 36, "0123456789abcdef") < 16)
        return;
    memcpy(g.trace_parent, tp + 3, 32);
    g.trace_parent[32] = '\0';
    memcpy(g.parent_span, tp + 36, 16);
    g.parent_span[16] = '\0';
    if (strspn(g.trace_parent, "0") == 32 || strspn(g.parent_span, "0") == 16)
        g.trace_parent[0] = g.parent_span[0] = '\0';
}

static cJSON *make_resource(void)
{
    cJSON *attrs = cJSON_CreateArray();
    const char *svc = env2("OTEL_SERVICE_NAME", "OTEL_SERVICE_NAME");
    cJSON_AddItemToArray(attrs, kv_str("service.name", svc ? svc : "sandman"));
    cJSON_AddItemToArray(attrs, kv_str("service.version", SCOPE_VERSION));
    char inst[33];
    hex_random(inst, 32);
    /* each process is its own instance: a backend sums gym.sandbox.active across them */
    cJSON_AddItemToArray(attrs, kv_str("service.instance.id", inst));
    cJSON_AddItemToArray(attrs, kv_int("process.pid", (long long)getpid()));
    const char *extra = getenv("OTEL_RESOURCE_ATTRIBUTES");
    if (extra) {
        char *buf = xstrdup(extra), *save = NULL;
        for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (eq && eq > kv && strncmp(kv, "service.name=", 13)) {
                *eq = '\0';
                char *v = sm_redact_dup(eq + 1);
                cJSON_AddItemToArray(attrs, kv_str(kv, v));
                free(v);
            }
        }
        free(buf);
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "attributes", attrs);
    return r;
}

static void at_exit(void);

/* With mu held; sm_otel_enabled publishes the result. */
static void configure(void)
{
    g.owner = getpid();
    if (truthy(getenv("OTEL_SDK_DISABLED")))
        return;
    const char *dir = env2("DIR", NULL);
    const char *texp = env2("TRACES_EXPORTER", "OTEL_TRACES_EXPORTER");
    const char *mexp = env2("METRICS_EXPORTER", "OTEL_METRICS_EXPORTER");
    const char *export_traces = env2("EXPORT_TRACES", NULL);
    g.traces.url =
        signal_url("traces", "OTEL_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
    g.metrics.url =
        signal_url("metrics", "OTEL_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
    /* as the seed: an exporter list decides; without one a directory means files and an
     * endpoint means OTLP/HTTP; EXPORT_TRACES overrides the trace files */
    g.traces.file = dir && (texp ? lists(texp, true) : true);
    if (export_traces)
        g.traces.file = dir && truthy(export_traces);
    g.metrics.file = dir && (mexp ? lists(mexp, true) : true);
    g.traces.http = g.traces.url && (texp ? lists(texp, false) : true);
    g.metrics.http = g.metrics.url && (mexp ? lists(mexp, false) : true);
    g.on = g.traces.file || g.traces.http || g.metrics.file || g.metrics.http;
    if (!g.on)
        return;
    g.dir = dir ? xstrdup(dir) : NULL;
    const char *all = env2("OTEL_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS");
    const char *th = env2("OTEL_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS");
    const char *mh = env2("OTEL_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS");
    g.traces.headers = parse_headers(th ? th : all);
    g.metrics.headers = parse_headers(mh ? mh : all);
    g.timeout_s = TIMEOUT_S;
    double t;
    const char *ts = env2("OTEL_TIMEOUT_S", NULL);
    const char *tms = getenv("OTEL_EXPORTER_OTLP_TIMEOUT"); /* milliseconds, per OTel */
    if (ts && sm_parse_double(ts, &t) == 0 && t > 0)
        g.timeout_s = t;
    else if (tms && sm_parse_double(tms, &t) == 0 && t > 0)
        g.timeout_s = t / 1000.0;
    const char *run = env2("RUN_ID", NULL);
    g.run_id = run ? xstrdup(run) : NULL;
    read_traceparent();
    g.resource = make_resource();
    g.spans = cJSON_CreateArray();
    g.start_ns = now_ns();
    g.last_flush = sm_now_mono();
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(g.base, sizeof g.base, "%s-%d", stamp, (int)g.owner);
    if (!exit_hook) {
        exit_hook = true;
        atexit(at_exit);
    }
}

bool sm_otel_enabled(void)
{
    if (__atomic_load_n(&g.inited, __ATOMIC_ACQUIRE))
        return g.on;
    pthread_mutex_lock(&mu);
    if (!g.inited) {
        configure();
        /* other threads read the configuration without the lock once this is seen */
        __atomic_store_n(&g.inited, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&mu);
    return g.on;
}

void sm_otel_span_begin(sm_otel_span *sp, const char *name, const char *provider)
{
    memset(sp, 0, sizeof *sp);
    if (!sm_otel_enabled())
        return;
    sp->on = true;
    sp->name = name;
    sp->provider = provider;
    sp->start_ns = now_ns();
    sp->attrs = cJSON_CreateArray();
    if (provider)
        cJSON_AddItemToArray(sp->attrs, kv_str("nemo.gym.sandbox.provider", provider));
    if (g.run_id)
        cJSON_AddItemToArray(sp->attrs, kv_str("run_id", g.run_id));
}

void sm_otel_span_str(sm_otel_span *sp, const char *key, const char *value)
{
    if (!sp->on || !value)
        return;
    char *v = sm_redact_dup(value);
    cJSON_AddItemToArray(sp->attrs, kv_str(key, v));
    free(v);
}

void sm_otel_span_int(sm_otel_span *sp, const char *key, long long value)
{
    if (sp->on)
        cJSON_AddItemToArray(sp->attrs, kv_int(key, value));
}

/* 64-bit FNV-1a from a given basis. */
static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void sm_otel_span_end(sm_otel_span *sp, const char *sandbox_id, bool ok, const char *error)
{
    if (!sp->on)
        return;
    sp->on = false;
    cJSON *s = cJSON_CreateObject();
    char trace[33], span[17];
    hex_random(span, 16);
    if (g.trace_parent[0]) {
        snprintf(trace, sizeof trace, "%s", g.trace_parent);
    } else if (sandbox_id && *sandbox_id) {
        /* one sandbox, one trace, whichever process touched it */
        char key[160];
        snprintf(key, sizeof key, "%s/%s", sp->provider ? sp->provider : "", sandbox_id);
        snprintf(trace, sizeof trace, "%016llx%016llx",
                 (unsigned long long)fnv(key, 0xcbf29ce484222325ULL),
                 (unsigned long long)fnv(key, 0x84222325cbf29ce4ULL));
    } else {
        hex_random(trace, 32);
    }
    cJSON_AddStringToObject(s, "traceId", trace);
    cJSON_AddStringToObject(s, "spanId", span);
    if (g.parent_span[0])
        cJSON_AddStringToObject(s, "parentSpanId", g.parent_span);
    cJSON_AddStringToObject(s, "name", sp->name);
    cJSON_AddNumberToObject(s, "kind", SPAN_KIND_INTERNAL);
    char num[32];
    snprintf(num, sizeof num, "%lld", sp->start_ns);
    cJSON_AddStringToObject(s, "startTimeUnixNano", num);
    snprintf(num, sizeof num, "%lld", now_ns());
    cJSON_AddStringToObject(s, "endTimeUnixNano", num);
    if (sandbox_id && *sandbox_id)
        cJSON_AddItemToArray(sp->attrs, kv_str("nemo.gym.sandbox.id", sandbox_id));
    cJSON_AddItemToObject(s, "attributes", sp->attrs);
    sp->attrs = NULL;
    cJSON *st = cJSON_AddObjectToObject(s, "status");
    cJSON_AddNumberToObject(st, "code", ok ? STATUS_OK : STATUS_ERROR);
    if (!ok && error) {
        char *msg = sm_redact_dup(error);
        cJSON_AddStringToObject(st, "message", msg);
        free(msg);
    }
    pthread_mutex_lock(&mu);
    /* only a process that never exports (a forked child) can reach the cap */
    if (cJSON_GetArraySize(g.spans) < MAX_SPANS)
        cJSON_AddItemToArray(g.spans, s);
    else {
        cJSON_Delete(s);
        g.dropped++;
    }
    bool flush =
        cJSON_GetArraySize(g.spans) >= FLUSH_SPANS || sm_now_mono() - g.last_flush > FLUSH_EVERY_S;
    pthread_mutex_unlock(&mu);
    /* an export already under way takes these spans, or the next one does */
    if (flush && pthread_mutex_trylock(&send_mu) == 0) {
        export_held();
        pthread_mutex_unlock(&send_mu);
    }
}

/* ---- metrics ---------------------------------------------------------------------------- */

/* With mu held. */
static point *point_for(int def, const char *provider)
{
    for (size_t i = 0; i < g.npoints; i++)
        if (g.points[i].def == def && !strcmp(g.points[i].provider, provider ? provider : ""))
            return &g.points[i];
    g.points = xrealloc(g.points, (g.npoints + 1) * sizeof *g.points);
    point *p = &g.points[g.npoints++];
    memset(p, 0, sizeof *p);
    p->def = def;
    snprintf(p->provider, sizeof p->provider, "%s", provider ? provider : "");
    return p;
}

static void add(int def, const char *provider, long long delta)
{
    if (!sm_otel_enabled())
        return;
    pthread_mutex_lock(&mu);
    point_for(def, provider)->value += delta;
    pthread_mutex_unlock(&mu);
}

static void record(int def, const char *provider, double v)
{
    if (!sm_otel_enabled())
        return;
    pthread_mutex_lock(&mu);
    point *p = point_for(def, provider);
    if (!p->count || v < p->min)
        p->min = v;
    if (!p->count || v > p->max)
        p->max = v;
    p->count++;
    p->sum += v;
    size_t b = 0;
    while (b < NBOUNDS && v > BOUNDS[b])
        b++;
    p->buckets[b]++;
    pthread_mutex_unlock(&mu);
}

void sm_otel_sandbox_started(const char *provider, double startup_ms)
{
    add(MET_ACTIVE, provider, 1);
    record(MET_STARTUP, provider, startup_ms);
    add(MET_RETRY, provider, 0); /* the counter exists (at 0) for every provider used */
}

void sm_otel_sandbox_stopped(const char *provider)
{
    add(MET_ACTIVE, provider, -1);
}

void sm_otel_exec_duration(const char *provider, double ms)
{
    record(MET_EXEC, provider, ms);
}

void sm_otel_create_retry(const char *provider)
{
    add(MET_RETRY, provider, 1);
}

static cJSON *scope(void)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "name", SCOPE_NAME);
    cJSON_AddStringToObject(s, "version", SCOPE_VERSION);
    return s;
}

/* {"resourceSpans": [...]} of the buffered spans (moved out of the buffer). */
static cJSON *traces_doc(void)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *rs = cJSON_AddArrayToObject(doc, "resourceSpans");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "resource", cJSON_Duplicate(g.resource, 1));
    cJSON *ss = cJSON_AddArrayToObject(r, "scopeSpans");
    cJSON *one = cJSON_CreateObject();
    cJSON_AddItemToObject(one, "scope", scope());
    cJSON_AddItemToObject(one, "spans", g.spans);
    g.spans = cJSON_CreateArray();
    cJSON_AddItemToArray(ss, one);
    cJSON_AddItemToArray(rs, r);
    return doc;
}

static void put_u64(cJSON *o, const char *k, long long v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", v);
    cJSON_AddStringToObject(o, k, num);
}

/* {"resourceMetrics": [...]}: every metric's cumulative value since the process started. */
static cJSON *metrics_doc(void)
{
    long long t = now_ns();
    cJSON *doc = cJSON_CreateObject();
    cJSON *rm = cJSON_AddArrayToObject(doc, "resourceMetrics");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "resource", cJSON_Duplicate(g.resource, 1));
    cJSON *sm = cJSON_AddArrayToObject(r, "scopeMetrics");
    cJSON *one = cJSON_CreateObject();
    cJSON_AddItemToObject(one, "scope", scope());
    cJSON *metrics = cJSON_AddArrayToObject(one, "metrics");
    for (int d = 0; d < MET__COUNT; d++) {
        cJSON *points = cJSON_CreateArray();
        for (size_t i = 0; i < g.npoints; i++) {
            const point *p = &g.points[i];
            if (p->def != d)
                continue;
            cJSON *dp = cJSON_CreateObject();
            cJSON *attrs = cJSON_AddArrayToObject(dp, "attributes");
            cJSON_AddItemToArray(attrs, kv_str("nemo.gym.sandbox.provider", p->provider));
            put_u64(dp, "startTimeUnixNano", g.start_ns);
            put_u64(dp, "timeUnixNano", t);
            if (DEFS[d].kind == M_HISTOGRAM) {
                put_u64(dp, "count", p->count);
                cJSON_AddNumberToObject(dp, "sum", p->sum);
                cJSON_AddNumberToObject(dp, "min", p->min);
                cJSON_AddNumberToObject(dp, "max", p->max);
                cJSON *bc = cJSON_AddArrayToObject(dp, "bucketCounts");
                for (size_t b = 0; b <= NBOUNDS; b++) {
                    char num[32];
                    snprintf(num, sizeof num, "%lld", p->buckets[b]);
                    cJSON_AddItemToArray(bc, cJSON_CreateString(num));
                }
                cJSON_AddItemToObject(dp, "explicitBounds",
                                      cJSON_CreateDoubleArray(BOUNDS, (int)NBOUNDS));
            } else {
                put_u64(dp, "asInt", p->value);
            }
            cJSON_AddItemToArray(points, dp);
        }
        if (!cJSON_GetArraySize(points)) {
            cJSON_Delete(points);
            continue;
        }
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "name", DEFS[d].name);
        cJSON_AddStringToObject(m, "description", DEFS[d].description);
        cJSON_AddStringToObject(m, "unit", DEFS[d].unit);
        cJSON *data = cJSON_AddObjectToObject(m, DEFS[d].kind == M_HISTOGRAM ? "histogram" : "sum");
        cJSON_AddNumberToObject(data, "aggregationTemporality", TEMPORALITY_CUMULATIVE);
        if (DEFS[d].kind != M_HISTOGRAM)
            cJSON_AddBoolToObject(data, "isMonotonic", DEFS[d].kind == M_COUNTER);
        cJSON_AddItemToObject(data, "dataPoints", points);
        cJSON_AddItemToArray(metrics, m);
    }
    cJSON_AddItemToArray(sm, one);
    cJSON_AddItemToArray(rm, r);
    if (!cJSON_GetArraySize(metrics)) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* ---- export ----------------------------------------------------------------------------- */

static void warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn_once(const char *fmt, ...)
{
    if (g.warning)
        return;
    va_list ap;
    va_start(ap, fmt);
    g.warning = xvasprintf(fmt, ap);
    va_end(ap);
}

/* <dir>/<sub>/<name>.json, written whole (a reader never sees a part). */
static void write_file(const char *sub, const char *name, const char *text)
{
    char *dir = xasprintf("%s/%s", g.dir, sub);
    char *path = xasprintf("%s/%s.json", dir, name);
    if (sm_mkdir_p(dir, 0755) != 0)
        warn_once("OpenTelemetry: cannot create %s: %s", dir, strerror(errno));
    else if (sm_write_file_atomic(path, text, strlen(text), 0644) != 0)
        warn_once("OpenTelemetry: cannot write %s: %s", path, strerror(errno));
    free(path);
    free(dir);
}

static void send(signal_out *o, const char *text)
{
    if (!o->http || g.http_failed)
        return;
    sm_error err;
    sm_error_clear(&err);
    if (!o->client) {
        sm_http_opts opts = {.url = o->url,
                             .connect_timeout_s = g.timeout_s < 1 ? g.timeout_s : 1,
                             .retries = 0,
                             .ca_file = getenv("OTEL_EXPORTER_OTLP_CERTIFICATE"),
                             .cert_file = getenv("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"),
                             .key_file = getenv("OTEL_EXPORTER_OTLP_CLIENT_KEY"),
                             .what = "the OpenTelemetry collector"};
        if (sm_http_new(&opts, &o->client, &err) != SM_OK) {
            g.http_failed = true;
            warn_once("OpenTelemetry export off: %s", err.msg);
            return;
        }
    }
    sm_http_req req = {.method = "POST",
                       .path = "",
                       .headers = (const char *const *)o->headers,
                       .content_type = "application/json",
                       .body = text,
                       .body_len = strlen(text),
                       .timeout_s = g.timeout_s};
    sm_http_resp resp;
    sm_http_resp_init(&resp);
    int rc = sm_http_do(o->client, &req, &resp, &err);
    if (rc != SM_OK) {
        g.http_failed = true;
        warn_once("OpenTelemetry export failed, not sending again in this process: %s", err.msg);
    } else if (resp.status < 200 || resp.status > 299) {
        g.http_failed = true;
        char reason[160];
        sm_http_body_reason(resp.body.data, reason, sizeof reason);
        warn_once("OpenTelemetry export failed (%s answered HTTP %d%s%s), not sending again in "
                  "this process",
                  o->url, resp.status, reason[0] ? ": " : "", reason);
    }
    sm_http_resp_free(&resp);
}

/* Spans go in a new file per export; the metrics file of the process is replaced (the values
 * are cumulative: the last export holds them all). The documents are built under mu and sent
 * after it is released, so a slow collector never holds up a thread that records a span or a
 * metric; send_mu keeps exports in order (a later metrics file is never replaced by an
 * earlier one) and owns the HTTP clients and the warning. With send_mu held. */
static void export_held(void)
{
    char *traces = NULL, *metrics = NULL;
    char tname[96], mname[96];
    pthread_mutex_lock(&mu);
    if (getpid() != g.owner) { /* a forked child (a supervisor) never exports the parent's */
        pthread_mutex_unlock(&mu);
        return;
    }
    g.last_flush = sm_now_mono();
    if (cJSON_GetArraySize(g.spans)) {
        cJSON *doc = traces_doc();
        traces = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
        snprintf(tname, sizeof tname, "otel_traces-%s-%d", g.base, g.seq++);
    }
    cJSON *doc = metrics_doc();
    if (doc) {
        metrics = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
        snprintf(mname, sizeof mname, "otel_metrics-%s", g.base);
    }
    pthread_mutex_unlock(&mu);
    if (traces) {
        if (g.traces.file)
            write_file("traces", tname, traces);
        send(&g.traces, traces);
    }
    if (metrics) {
        if (g.metrics.file)
            write_file("metrics", mname, metrics);
        send(&g.metrics, metrics);
    }
    free(traces);
    free(metrics);
}

void sm_otel_flush(void)
{
    if (!sm_otel_enabled())
        return;
    pthread_mutex_lock(&send_mu);
    export_held();
    pthread_mutex_unlock(&send_mu);
}

static void at_exit(void)
{
    pthread_mutex_lock(&send_mu);
    if (g.on && getpid() == g.owner) {
        export_held();
        if (g.dropped)
            fprintf(stderr, "sandman: OpenTelemetry: %lld spans dropped (export too slow)\n",
                    g.dropped);
        if (g.warning) {
            char *w = sm_redact_dup(g.warning);
            fprintf(stderr, "sandman: %s\n", w);
            free(w);
        }
    }
    pthread_mutex_unlock(&send_mu);
}

static void free_signal(signal_out *o)
{
    free(o->url);
    for (char **h = o->headers; h && *h; h++)
        free(*h);
    free(o->headers);
    sm_http_free(o->client);
    memset(o, 0, sizeof *o);
}

void sm_otel_reset(void)
{
    pthread_mutex_lock(&send_mu);
    pthread_mutex_lock(&mu);
    free(g.dir);
    free(g.run_id);
    free(g.warning);
    free(g.points);
    free_signal(&g.traces);
    free_signal(&g.metrics);
    cJSON_Delete(g.resource);
    cJSON_Delete(g.spans);
    memset(&g, 0, sizeof g);
    pthread_mutex_unlock(&mu);
    pthread_mutex_unlock(&send_mu);
}
