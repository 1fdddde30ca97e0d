/* OpenTelemetry export of real local sandboxes: the spans of create, exec, upload, download and
 * stop and the four gym.sandbox.* metrics reach a collector stand-in (libmicrohttpd) as OTLP
 * JSON of the right shape, and the files in NEMO_GYM_SANDBOX_OBSERVABILITY_DIR read back the
 * same; the command line and the collector's credentials never appear in them; a collector
 * that never answers costs one short timeout, then nothing; export off costs nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/otel.h"
#include "core/sandbox.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "tests/testlib.h"

/* ---- the collector stand-in ----------------------------------------------------------- */

typedef struct collector {
    struct MHD_Daemon *d;
    int port;
    pthread_mutex_t mu;
    cJSON *traces, *metrics; /* every request body received, parsed */
    char auth[256];          /* the last Authorization header */
    char content_type[64];
} collector;

typedef struct upload {
    sm_strbuf body;
} upload;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **ctx)
{
    collector *col = cls;
    upload *u = *ctx;
    if (!u) {
        u = xcalloc(1, sizeof *u);
        *ctx = u;
        return MHD_YES;
    }
    if (*size) {
        sm_strbuf_append(&u->body, data, *size);
        *size = 0;
        return MHD_YES;
    }
    int status = MHD_HTTP_OK;
    cJSON *doc = cJSON_Parse(u->body.data ? u->body.data : "");
    pthread_mutex_lock(&col->mu);
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    snprintf(col->auth, sizeof col->auth, "%s", a ? a : "");
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    snprintf(col->content_type, sizeof col->content_type, "%s", ct ? ct : "");
    if (strcmp(method, "POST") || !doc)
        status = MHD_HTTP_BAD_REQUEST;
    else if (!strcmp(url, "/v1/traces"))
        cJSON_AddItemToArray(col->traces, doc), doc = NULL;
    else if (!strcmp(url, "/v1/metrics"))
        cJSON_AddItemToArray(col->metrics, doc), doc = NULL;
    else
        status = MHD_HTTP_NOT_FOUND;
    pthread_mutex_unlock(&col->mu);
    cJSON_Delete(doc);
    struct MHD_Response *r = MHD_create_response_from_buffer(2, "{}", MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **ctx,
                    enum MHD_RequestTerminationCode toe)
{
    upload *u = *ctx;
    if (u) {
        sm_strbuf_free(&u->body);
        free(u);
    }
}

static void collector_start(collector *col)
{
    memset(col, 0, sizeof *col);
    pthread_mutex_init(&col->mu, NULL);
    col->traces = cJSON_CreateArray();
    col->metrics = cJSON_CreateArray();
    col->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, on_request, col,
                              MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL, MHD_OPTION_END);
    assert_non_null(col->d);
    col->port = MHD_get_daemon_info(col->d, MHD_DAEMON_INFO_BIND_PORT)->port;
}

static void collector_stop(collector *col)
{
    MHD_stop_daemon(col->d);
    cJSON_Delete(col->traces);
    cJSON_Delete(col->metrics);
    pthread_mutex_destroy(&col->mu);
}

/* ---- the OTLP JSON shape -------------------------------------------------------------- */

static bool is_hex(const char *s, size_t n)
{
    if (!s || strlen(s) != n || strspn(s, "0") == n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return false;
    return true;
}

static bool is_digits(const cJSON *j)
{
    return cJSON_IsString(j) && *j->valuestring &&
           strspn(j->valuestring, "0123456789") == strlen(j->valuestring);
}

/* attributes: an array of {"key": string, "value": {"stringValue"|"intValue"|...}} */
static void check_attributes(const cJSON *attrs)
{
    assert_true(cJSON_IsArray(attrs));
    const cJSON *a;
    cJSON_ArrayForEach(a, attrs)
    {
        assert_true(cJSON_IsString(cJSON_GetObjectItem(a, "key")));
        const cJSON *v = cJSON_GetObjectItem(a, "value");
        assert_true(cJSON_IsObject(v));
        const cJSON *sv = cJSON_GetObjectItem(v, "stringValue");
        const cJSON *iv = cJSON_GetObjectItem(v, "intValue");
        assert_true(cJSON_IsString(sv) || is_digits(iv) ||
                    (cJSON_IsString(iv) && iv->valuestring[0] == '-'));
    }
}

static const char *attr(const cJSON *attrs, const char *key)
{
    static char num[32];
    const cJSON *a;
    cJSON_ArrayForEach(a, attrs)
    {
        if (strcmp(cJSON_GetObjectItem(a, "key")->valuestring, key))
            continue;
        const cJSON *v = cJSON_GetObjectItem(a, "value");
        const cJSON *s = cJSON_GetObjectItem(v, "stringValue");
        if (s)
            return s->valuestring;
        snprintf(num, sizeof num, "%s", cJSON_GetObjectItem(v, "intValue")->valuestring);
        return num;
    }
    return NULL;
}

/* Every span of a list of ExportTraceServiceRequest documents, checked, into one array. */
static cJSON *spans_of(const cJSON *docs)
{
    cJSON *all = cJSON_CreateArray();
    const cJSON *doc, *rs, *ss, *sp;
    cJSON_ArrayForEach(doc, docs)
    {
        const cJSON *rss = cJSON_GetObjectItem(doc, "resourceSpans");
        assert_true(cJSON_IsArray(rss));
        cJSON_ArrayForEach(rs, rss)
        {
            const cJSON *res = cJSON_GetObjectItem(rs, "resource");
            check_attributes(cJSON_GetObjectItem(res, "attributes"));
            assert_string_equal(attr(cJSON_GetObjectItem(res, "attributes"), "service.name"),
                                "sandman");
            cJSON_ArrayForEach(ss, cJSON_GetObjectItem(rs, "scopeSpans"))
            {
                assert_true(
                    cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(ss, "scope"), "name")));
                cJSON_ArrayForEach(sp, cJSON_GetObjectItem(ss, "spans"))
                {
                    assert_true(is_hex(cJSON_GetObjectItem(sp, "traceId")->valuestring, 32));
                    assert_true(is_hex(cJSON_GetObjectItem(sp, "spanId")->valuestring, 16));
                    const cJSON *t0 = cJSON_GetObjectItem(sp, "startTimeUnixNano");
                    const cJSON *t1 = cJSON_GetObjectItem(sp, "endTimeUnixNano");
                    assert_true(is_digits(t0) && is_digits(t1));
                    assert_true(strlen(t0->valuestring) == 19); /* epoch ns of this century */
                    assert_true(strtoull(t0->valuestring, NULL, 10) <=
                                strtoull(t1->valuestring, NULL, 10));
                    assert_int_equal(cJSON_GetObjectItem(sp, "kind")->valueint, 1);
                    const cJSON *st = cJSON_GetObjectItem(sp, "status");
                    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(st, "code")));
                    check_attributes(cJSON_GetObjectItem(sp, "attributes"));
                    cJSON_AddItemReferenceToArray(all, (cJSON *)sp);
                }
            }
        }
    }
    return all;
}

static const cJSON *span_named(const cJSON *spans, const char *name)
{
    const cJSON *sp;
    cJSON_ArrayForEach(sp, spans)
    {
        if (!strcmp(cJSON_GetObjectItem(sp, "name")->valuestring, name))
            return sp;
    }
    fail_msg("no span named %s", name);
    return NULL;
}

/* The metric of that name in the last ExportMetricsServiceRequest (values are cumulative). */
static const cJSON *metric_named(const cJSON *docs, const char *name)
{
    const cJSON *doc = cJSON_GetArrayItem(docs, cJSON_GetArraySize(docs) - 1), *rm, *sm, *m;
    assert_non_null(doc);
    cJSON_ArrayForEach(rm, cJSON_GetObjectItem(doc, "resourceMetrics"))
    {
        check_attributes(cJSON_GetObjectItem(cJSON_GetObjectItem(rm, "resource"), "attributes"));
        cJSON_ArrayForEach(sm, cJSON_GetObjectItem(rm, "scopeMetrics"))
        {
            cJSON_ArrayForEach(m, cJSON_GetObjectItem(sm, "metrics"))
            {
                if (strcmp(cJSON_GetObjectItem(m, "name")->valuestring, name))
                    continue;
                const cJSON *data = cJSON_GetObjectItem(m, "sum");
                if (!data)
                    data = cJSON_GetObjectItem(m, "histogram");
                assert_non_null(data);
                assert_int_equal(cJSON_GetObjectItem(data, "aggregationTemporality")->valueint, 2);
                const cJSON *dp = cJSON_GetArrayItem(cJSON_GetObjectItem(data, "dataPoints"), 0);
                assert_non_null(dp);
                check_attributes(cJSON_GetObjectItem(dp, "attributes"));
                assert_string_equal(
                    attr(cJSON_GetObjectItem(dp, "attributes"), "nemo.gym.sandbox.provider"),
                    "local");
                assert_true(is_digits(cJSON_GetObjectItem(dp, "timeUnixNano")));
                assert_true(is_digits(cJSON_GetObjectItem(dp, "startTimeUnixNano")));
                return dp;
            }
        }
    }
    fail_msg("no metric named %s", name);
    return NULL;
}

/* ---- a sandbox's life through the facade ---------------------------------------------- */

static void one_life(void)
{
    sm_provider *p;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_provider_new("local", NULL, &p, &e), SM_OK);
    sm_sandbox *s = sm_sandbox_new(p, true);
    sm_spec spec;
    sm_spec_init(&spec);
    if (sm_sandbox_start(s, &spec, &e) != SM_OK)
        fail_msg("start: %s", e.msg);
    sm_exec_request req = {.cmd = "echo SECRET_FLAG; exit 3"};
    sm_exec_result res;
    assert_int_equal(sm_sandbox_exec(s, &req, &res, &e), SM_OK);
    assert_int_equal(res.return_code, 3);
    sm_exec_result_free(&res);
    char *local = sm_test_write_temp("twelve bytes");
    assert_int_equal(sm_sandbox_upload(s, local, "/tmp/in.txt", &e), SM_OK);
    char out[] = "/tmp/sandman-otel-dl-XXXXXX";
    close(mkstemp(out));
    assert_int_equal(sm_sandbox_download(s, "/tmp/in.txt", out, &e), SM_OK);
    unlink(out);
    unlink(local);
    free(local);
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
}

static void clear_env(void)
{
    const char *names[] = {"NEMO_GYM_SANDBOX_OBSERVABILITY_DIR",
                           "NEMO_GYM_SANDBOX_OBSERVABILITY_OTEL_ENDPOINT",
                           "OTEL_EXPORTER_OTLP_ENDPOINT",
                           "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                           "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                           "OTEL_EXPORTER_OTLP_HEADERS",
                           "OTEL_EXPORTER_OTLP_TIMEOUT",
                           "OTEL_TRACES_EXPORTER",
                           "OTEL_METRICS_EXPORTER",
                           "OTEL_SDK_DISABLED",
                           "TRACEPARENT",
                           NULL};
    for (int i = 0; names[i]; i++)
        unsetenv(names[i]);
    sm_otel_reset();
}

/* What every export of one_life() holds, wherever it went. */
static void check_life(const cJSON *trace_docs, const cJSON *metric_docs)
{
    cJSON *spans = spans_of(trace_docs);
    assert_int_equal(cJSON_GetArraySize(spans), 5);
    const char *names[] = {"gym.sandbox.start", "gym.sandbox.exec", "gym.sandbox.upload",
                           "gym.sandbox.download", "gym.sandbox.stop"};
    const char *trace = NULL, *id = NULL;
    for (int i = 0; i < 5; i++) {
        const cJSON *sp = span_named(spans, names[i]);
        const cJSON *attrs = cJSON_GetObjectItem(sp, "attributes");
        assert_string_equal(attr(attrs, "nemo.gym.sandbox.provider"), "local");
        assert_non_null(attr(attrs, "nemo.gym.sandbox.id"));
        if (!id)
            id = attr(attrs, "nemo.gym.sandbox.id");
        assert_string_equal(attr(attrs, "nemo.gym.sandbox.id"), id); /* one sandbox */
        const char *t = cJSON_GetObjectItem(sp, "traceId")->valuestring;
        if (!trace)
            trace = t;
        assert_string_equal(t, trace); /* one trace */
        assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "status"), "code")->valueint,
                         1);
    }
    const cJSON *ex = cJSON_GetObjectItem(span_named(spans, "gym.sandbox.exec"), "attributes");
    assert_string_equal(attr(ex, "nemo.gym.sandbox.return_code"), "3");
    assert_string_equal(attr(ex, "nemo.gym.sandbox.failure_kind"), "exit_nonzero");
    const cJSON *up = cJSON_GetObjectItem(span_named(spans, "gym.sandbox.upload"), "attributes");
    assert_string_equal(attr(up, "nemo.gym.sandbox.bytes"), "12");
    assert_string_equal(attr(up, "nemo.gym.sandbox.remote_path"), "/tmp/in.txt");
    char *text = cJSON_PrintUnformatted(trace_docs);
    assert_null(strstr(text, "SECRET_FLAG")); /* the command is task content */
    free(text);
    cJSON_Delete(spans);

    const cJSON *active = metric_named(metric_docs, "gym.sandbox.active");
    assert_string_equal(cJSON_GetObjectItem(active, "asInt")->valuestring, "0"); /* +1 -1 */
    const cJSON *startup = metric_named(metric_docs, "gym.sandbox.startup_duration_ms");
    assert_string_equal(cJSON_GetObjectItem(startup, "count")->valuestring, "1");
    assert_true(cJSON_GetObjectItem(startup, "sum")->valuedouble > 0);
    const cJSON *bc = cJSON_GetObjectItem(startup, "bucketCounts");
    assert_int_equal(cJSON_GetArraySize(bc),
                     cJSON_GetArraySize(cJSON_GetObjectItem(startup, "explicitBounds")) + 1);
    const cJSON *exd = metric_named(metric_docs, "gym.sandbox.exec_duration_ms");
    assert_string_equal(cJSON_GetObjectItem(exd, "count")->valuestring, "1");
    const cJSON *retry = metric_named(metric_docs, "gym.sandbox.create_retry_total");
    assert_string_equal(cJSON_GetObjectItem(retry, "asInt")->valuestring, "0");
}

static void test_otlp_http(void **state)
{
    collector col;
    collector_start(&col);
    clear_env();
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", col.port);
    setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url, 1);
    setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer otlp-sekrit-7f3a9", 1);
    assert_true(sm_otel_enabled());
    one_life();
    sm_otel_flush();
    pthread_mutex_lock(&col.mu);
    assert_int_equal(cJSON_GetArraySize(col.traces), 1);
    assert_true(cJSON_GetArraySize(col.metrics) >= 1);
    check_life(col.traces, col.metrics);
    assert_string_equal(col.auth, "Bearer otlp-sekrit-7f3a9");
    assert_string_equal(col.content_type, "application/json");
    char *text = cJSON_PrintUnformatted(col.traces);
    assert_null(strstr(text, "otlp-sekrit")); /* the credential is not data */
    free(text);
    pthread_mutex_unlock(&col.mu);
    clear_env();
    collector_stop(&col);
}

/* Every *.json under dir, parsed, into an array. */
static cJSON *read_docs(const char *dir)
{
    cJSON *docs = cJSON_CreateArray();
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".json"))
            continue;
        char *path = xasprintf("%s/%s", dir, de->d_name), *text = NULL;
        size_t len;
        assert_int_equal(sm_read_file(path, &text, &len), 0);
        cJSON *doc = cJSON_Parse(text);
        assert_non_null(doc);
        cJSON_AddItemToArray(docs, doc);
        free(text);
        free(path);
    }
    closedir(d);
    return docs;
}

static void test_files(void **state)
{
    clear_env();
    char dir[] = "/tmp/sandman-otel-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *obs = xasprintf("%s/obs", dir); /* made by the export */
    setenv("NEMO_GYM_SANDBOX_OBSERVABILITY_DIR", obs, 1);
    assert_true(sm_otel_enabled());
    one_life();
    sm_otel_flush();
    char *tdir = xasprintf("%s/traces", obs), *mdir = xasprintf("%s/metrics", obs);
    cJSON *traces = read_docs(tdir), *metrics = read_docs(mdir);
    assert_int_equal(cJSON_GetArraySize(traces), 1);
    assert_int_equal(cJSON_GetArraySize(metrics), 1);
    check_life(traces, metrics);
    cJSON_Delete(traces);
    cJSON_Delete(metrics);
    /* a second flush adds a traces file only with new spans; the metrics file is replaced */
    one_life();
    sm_otel_flush();
    traces = read_docs(tdir);
    metrics = read_docs(mdir);
    assert_int_equal(cJSON_GetArraySize(traces), 2);
    assert_int_equal(cJSON_GetArraySize(metrics), 1);
    const cJSON *exd = metric_named(metrics, "gym.sandbox.exec_duration_ms");
    assert_string_equal(cJSON_GetObjectItem(exd, "count")->valuestring, "2");
    cJSON_Delete(traces);
    cJSON_Delete(metrics);
    clear_env();
    sm_rm_rf(dir);
    free(tdir);
    free(mdir);
    free(obs);
}

/* A collector that accepts connections and never answers: one bounded wait, then none. */
static void test_silent_collector(void **state)
{
    clear_env();
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(fd, 16), 0);
    socklen_t sl = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(sa.sin_port));
    setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url, 1);
    setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "300", 1); /* milliseconds, as OTel has it */
    sm_otel_span sp;
    sm_otel_span_begin(&sp, "gym.sandbox.exec", "local");
    sm_otel_span_end(&sp, "abc", true, NULL);
    sm_otel_exec_duration("local", 1); /* metrics too: the same collector, no second wait */
    double t0 = sm_now_mono();
    sm_otel_flush();
    double first = sm_now_mono() - t0;
    sm_otel_span_begin(&sp, "gym.sandbox.exec", "local");
    sm_otel_span_end(&sp, "abc", true, NULL);
    t0 = sm_now_mono();
    sm_otel_flush();
    double second = sm_now_mono() - t0;
    printf("# silent collector: first flush %.3f s, second %.3f s\n", first, second);
    /* one timeout of 0.3 s (libcurl may overshoot it by up to its 1 s poll) */
    assert_true(first >= 0.25 && first < 1.5);
    assert_true(second < 0.05); /* given up: not another timeout per command */
    /* one connection in all: the metrics did not wait on the same silent collector again */
    fcntl(fd, F_SETFL, O_NONBLOCK);
    int conns = 0, c;
    while ((c = accept(fd, NULL, NULL)) >= 0) {
        conns++;
        close(c);
    }
    assert_int_equal(conns, 1);
    close(fd);
    clear_env();
}

/* Off: nothing is allocated or exported, and a span costs a flag test. */
static void test_disabled_costs_nothing(void **state)
{
    clear_env();
    assert_false(sm_otel_enabled());
    double t0 = sm_now_mono();
    for (int i = 0; i < 1000000; i++) {
        sm_otel_span sp;
        sm_otel_span_begin(&sp, "gym.sandbox.exec", "local");
        sm_otel_span_str(&sp, "nemo.gym.sandbox.image", "x");
        assert_null(sp.attrs);
        sm_otel_span_end(&sp, "abc", true, NULL);
        sm_otel_exec_duration("local", 1);
    }
    double per = (sm_now_mono() - t0) / 1e6;
    printf("# off: %.1f ns per span\n", per * 1e9);
    assert_true(per < 1e-6); /* exec true is ~7 ms: a microsecond would already be 0.01 % */
    setenv("OTEL_SDK_DISABLED", "true", 1);
    setenv("NEMO_GYM_SANDBOX_OBSERVABILITY_DIR", "/nonexistent/never", 1);
    sm_otel_reset();
    assert_false(sm_otel_enabled()); /* the OTel switch wins */
    clear_env();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_otlp_http),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_silent_collector),
        cmocka_unit_test(test_disabled_costs_nothing),
    };
    return cmocka_run_group_tests(tests, sm_test_group_setup, sm_test_group_teardown);
}
