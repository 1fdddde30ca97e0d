/* Helpers the OpenSandbox fakes share (tests/fakes): a request context that gathers the body,
 * JSON and error answers with libmicrohttpd, and a buffered HTTP/1.0 forwarder for the proxy
 * routes. Test code only. */
#ifndef SM_FAKE_HTTP_H
#define SM_FAKE_HTTP_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct cJSON cJSON;

/* Per-request state: the body gathered over the upload callbacks. */
typedef struct fake_req {
    char *body;
    size_t len;
    bool started;
    void *user; /* a handler's own state (freed by its owner) */
    void (*user_free)(void *);
} fake_req;

/* Gathers the body; returns true once it is complete (call the handler then). */
bool fake_gather(void **con_cls, const char *data, size_t *size, fake_req **out);
void fake_req_done(void *cls, struct MHD_Connection *c, void **con_cls,
                   enum MHD_RequestTerminationCode toe);

enum MHD_Result fake_send(struct MHD_Connection *c, int status, const char *type, const void *body,
                          size_t len);
/* Sends j (deleted here); j NULL = an empty body. */
enum MHD_Result fake_json(struct MHD_Connection *c, int status, cJSON *j);
/* {"code": code, "message": msg} */
enum MHD_Result fake_error(struct MHD_Connection *c, int status, const char *code, const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));

/* Forwards method path (+ body, content type) to 127.0.0.1:port over HTTP/1.0, reads the whole
 * answer and relays its status, type and body. 502 when the upstream does not answer. */
enum MHD_Result fake_forward(struct MHD_Connection *c, int port, const char *method,
                             const char *path_and_query, const fake_req *rq);

/* The query string of a request, rebuilt ("a=1&b=2", escaped), for forwarding. */
char *fake_query(struct MHD_Connection *c);

#endif
