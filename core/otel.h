/* OpenTelemetry for the sandbox facade, as the seed's observability does (seed §3.11-3.12):
 * spans gym.sandbox.start / exec / upload / download / stop with nemo.gym.sandbox.* attributes,
 * and the metrics gym.sandbox.active, gym.sandbox.startup_duration_ms,
 * gym.sandbox.exec_duration_ms and gym.sandbox.create_retry_total, each with
 * nemo.gym.sandbox.provider. Exported as OTLP JSON: files under
 * $NEMO_GYM_SANDBOX_OBSERVABILITY_DIR (traces/, metrics/) and OTLP/HTTP to the collector at
 * $NEMO_GYM_SANDBOX_OBSERVABILITY_OTEL_ENDPOINT or $OTEL_EXPORTER_OTLP_ENDPOINT (the seed's
 * variables, each falling back to its OTEL_* name). Off unless configured: then every call is a
 * flag test. Spans of one sandbox share a trace id derived from its id, so the create in one
 * process and the execs in others form one trace (a W3C TRACEPARENT in the environment puts
 * them under that trace instead). A collector that does not answer costs one bounded timeout
 * per process; it is then left alone and named once on stderr when the process ends. Command
 * lines are never recorded (they are task content); other text is redacted. Thread-safe. */
#ifndef SM_OTEL_H
#define SM_OTEL_H

#include <stdbool.h>

typedef struct cJSON cJSON;

/* True when spans or metrics go anywhere. Reads the environment on first use. */
bool sm_otel_enabled(void);

typedef struct sm_otel_span {
    bool on;
    long long start_ns;          /* epoch nanoseconds */
    const char *name, *provider; /* static strings */
    cJSON *attrs;                /* OTLP key/value objects */
} sm_otel_span;

/* Starts a span (nothing happens, and nothing is allocated, when export is off). */
void sm_otel_span_begin(sm_otel_span *sp, const char *name, const char *provider);
/* Attributes (a string is redacted; NULL skips it). */
void sm_otel_span_str(sm_otel_span *sp, const char *key, const char *value);
void sm_otel_span_int(sm_otel_span *sp, const char *key, long long value);
/* Ends it: ok or an error with its (redacted) message; sandbox_id may be NULL (a failed
 * create). */
void sm_otel_span_end(sm_otel_span *sp, const char *sandbox_id, bool ok, const char *error);

/* Metrics, aggregated in the process and exported cumulatively with the spans. */
void sm_otel_sandbox_started(const char *provider, double startup_ms);
void sm_otel_sandbox_stopped(const char *provider);
void sm_otel_exec_duration(const char *provider, double ms);
/* A provider retried a create: call from the provider's own retry loop. */
void sm_otel_create_retry(const char *provider);

/* Exports what is buffered now (also done when the buffer fills, and at exit). */
void sm_otel_flush(void);
/* Tests: forgets everything and reads the environment again on next use. */
void sm_otel_reset(void);

#endif
