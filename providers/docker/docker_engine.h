/* The docker provider's Engine API client: one provider's connection to the engine (core/http.h
 * over the unix socket or TCP+TLS of DOCKER_HOST), API version negotiation, the JSON calls and
 * their errors, and the engine's conventions (labels, times, exit codes, multiplexed streams).
 * Above docker_config.h; below everything that runs or reads containers. */
#ifndef SM_DOCKER_ENGINE_H
#define SM_DOCKER_ENGINE_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"
#include "core/http.h"
#include "core/kv.h"
#include "providers/docker/docker_config.h"

/* Labels sandman puts on its containers (beside the spec's metadata). */
#define DOCKER_LABEL_PROVIDER "sandman.provider" /* = "docker": what `ls` shows without --all */
#define DOCKER_LABEL_ATTEMPT  "sandman.attempt"  /* unique per create attempt (lost replies) */
#define DOCKER_LABEL_CONTEXT  "sandman.context"  /* the config block that made it */
#define DOCKER_LABEL_TTL      "sandman.ttl_s"    /* the enforced TTL (keep-alive sleep) */
/* NeMo Gym's docker provider marks its containers so: they are sandboxes too (ls without --all),
 * and sandman's carry it so that NeMo Gym's tooling sees them. */
#define DOCKER_LABEL_NEMO_GYM "nemo-gym.sandbox"

#define DOCKER_CONTROL_TIMEOUT_S 60.0 /* inspect, list, remove, ... */

typedef struct docker_provider {
    docker_cfg cfg;
    sm_http *http;
    bool tls;
    pthread_mutex_t lock;
    sem_t slots;    /* exec.concurrency: engine calls of this provider at once */
    char api[16];   /* "1.41" once known */
    char *tcp_host; /* the engine's host for endpoints on wildcard addresses (TCP only) */
} docker_provider;

/* exec.concurrency, as the seed's semaphore on its docker CLI calls: every operation of the
 * provider (create, exec, status, stats, list, transfer, close, a PTY session's resize, signal
 * and exit, ...) holds one slot while it talks to the engine. A thread that already holds a
 * slot of dp does not take another (an exec's timeout runs a kill exec within its slot), so
 * nesting cannot deadlock. */
void docker_slot_enter(docker_provider *dp);
void docker_slot_leave(docker_provider *dp);

/* Parses a config block and builds its client (nothing is sent yet). *out is owned by the
 * caller (docker_engine_free); on failure SM_ERR_CONFIG naming the key. */
int docker_engine_new(const cJSON *config, docker_provider **out, sm_error *err);
void docker_engine_free(docker_provider *dp);

/* "/v1.41<path>", negotiating the API version on first use. Caller frees; NULL + err when
 * the engine cannot be reached. */
char *docker_path(docker_provider *dp, sm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A JSON call: SM_OK with *status on any answer; transport failures fill err. */
int docker_call(docker_provider *dp, const char *method, const char *path, const cJSON *body,
                double timeout_s, bool idempotent, int *status, cJSON **reply, sm_error *err);
/* GET path: SM_OK with *out (the caller's) when the engine answers 200 with JSON of the wanted
 * type (cJSON_Object or cJSON_Array). Else an error from the answer: "<gone>" with kind
 * not_found for a 404 when gone is not NULL, otherwise "<what>: <daemon message> (HTTP n)". */
int docker_get_json(docker_provider *dp, const char *path, int type, double timeout_s,
                    const char *what, const char *gone, cJSON **out, sm_error *err);
/* Sets err from a non-2xx answer: "<op> <id>: <daemon message> (HTTP n)". */
int docker_http_error(sm_error *err, int status, const char *body_or_null, const cJSON *reply,
                      sm_failure_kind otherwise, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* GET /containers/{id}/json. SM_ERR_NOT_FOUND (kind not_found) when it does not exist. */
int docker_inspect(docker_provider *dp, const char *id, cJSON **out, sm_error *err);
/* Removes a container (force, with its anonymous volumes); gone already = SM_OK. */
int docker_remove(docker_provider *dp, const char *id, sm_error *err);
/* GET /containers/json with every label of labels (and extra_label "k=v") as a filter; all
 * includes ended ones. *out is the engine's array (the caller's). */
int docker_list_raw(docker_provider *dp, bool all, const sm_map *labels, const char *extra_label,
                    cJSON **out, sm_error *err);

/* Epoch seconds of an RFC 3339 time with any fraction and zone; -1 for Go's zero time. */
double docker_parse_time(const char *s);
/* The signal behind an exit code of 129..192 (the engines report a process killed by signal N
 * as 128 + N, as shells do); 0 for other codes. */
int docker_exit_signal(int code);

/* Frames of Docker's multiplexed stream (8-byte header: stream, 0, 0, 0, big-endian size). */
typedef struct docker_demux {
    unsigned char hdr[8];
    size_t hdr_len;
    unsigned stream;
    size_t left; /* payload bytes left in the current frame */
    /* sinks: stream 1 -> out, 2 and 3 (the engine's own errors) -> err */
    bool (*sink)(void *ud, unsigned stream, const char *data, size_t len);
    void *ud;
} docker_demux;

/* Feeds bytes; returns false when a sink refused them. */
bool docker_demux_feed(docker_demux *d, const char *data, size_t len);

/* The container's output as the engine keeps it (both streams in the order they came; the
 * last tail lines, or all when tail is NULL) appended to out. */
int docker_logs(docker_provider *dp, const char *id, const char *tail, sm_strbuf *out,
                sm_error *err);

#endif
