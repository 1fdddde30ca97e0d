/* The OpenSandbox fakes' shared HTTP helpers (fake_http.h). */
#include "tests/fakes/fake_http.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/http.h"
#include "core/strbuf.h"
#include "core/util.h"

bool fake_gather(void **con_cls, const char *data, size_t *size, fake_req **out)
{
    fake_req *r = *con_cls;
    if (!r) {
        r = xcalloc(1, sizeof *r);
        *con_cls = r;
        *out = r;
        return false; /* MHD calls again with the body (or none) */
    }
    *out = r;
    if (*size) {
        r->body = xrealloc(r->body, r->len + *size + 1);
        memcpy(r->body + r->len, data, *size);
        r->len += *size;
        r->body[r->len] = '\0';
        *size = 0;
        return false;
    }
    return true;
}

void fake_req_done(void *cls, struct MHD_Connection *c, void **con_cls,
                   enum MHD_RequestTerminationCode toe)
{
    fake_req *r = *con_cls;
    if (!r)
        return;
    if (r->user_free)
        r->user_free(r->user);
    free(r->body);
    free(r);
    *con_cls = NULL;
}

enum MHD_Result fake_send(struct MHD_Connection *c, int status, const char *type, const void *body,
                          size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(body ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (type)
        MHD_add_response_header(r, "Content-Type", type);
    const char *rid = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Request-ID");
    char gen[33];
    if (!rid) {
        sm_random_hex(gen, 32);
        rid = gen;
    }
    MHD_add_response_header(r, "X-Request-ID", rid);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

enum MHD_Result fake_json(struct MHD_Connection *c, int status, cJSON *j)
{
    if (!j)
        return fake_send(c, status, NULL, "", 0);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    enum MHD_Result ret = fake_send(c, status, "application/json", text, strlen(text));
    free(text);
    return ret;
}

enum MHD_Result fake_error(struct MHD_Connection *c, int status, const char *code, const char *fmt,
                           ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "code", code);
    cJSON_AddStringToObject(j, "message", msg);
    free(msg);
    return fake_json(c, status, j);
}

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    sm_strbuf *b = cls;
    char *k = sm_http_escape(key), *v = sm_http_escape(value ? value : "");
    sm_strbuf_printf(b, "%s%s=%s", b->len ? "&" : "", k, v);
    free(k);
    free(v);
    return MHD_YES;
}

char *fake_query(struct MHD_Connection *c)
{
    sm_strbuf b = {0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, &b);
    return b.len ? sm_strbuf_take(&b) : xstrdup("");
}

enum MHD_Result fake_forward(struct MHD_Connection *c, int port, const char *method,
                             const char *path_and_query, const fake_req *rq)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        if (fd >= 0)
            close(fd);
        return fake_error(c, 502, "GENERAL::PROXY_ERROR", "upstream port %d refused", port);
    }
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    const char *range = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range");
    sm_strbuf req = {0};
    sm_strbuf_printf(&req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nContent-Length: %zu\r\n",
                     method, path_and_query, port, rq ? rq->len : 0);
    if (ct)
        sm_strbuf_printf(&req, "Content-Type: %s\r\n", ct);
    if (range)
        sm_strbuf_printf(&req, "Range: %s\r\n", range);
    sm_strbuf_puts(&req, "\r\n");
    if (rq && rq->len)
        sm_strbuf_append(&req, rq->body, rq->len);
    sm_write_all(fd, req.data, req.len);
    sm_strbuf_free(&req);
    sm_strbuf ans = {0};
    char buf[16384];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sm_strbuf_append(&ans, buf, (size_t)n);
    close(fd);
    int status = 0;
    char *hend = ans.data ? strstr(ans.data, "\r\n\r\n") : NULL;
    if (!hend || sscanf(ans.data, "HTTP/%*s %d", &status) != 1) {
        sm_strbuf_free(&ans);
        return fake_error(c, 502, "GENERAL::PROXY_ERROR", "upstream port %d gave no answer", port);
    }
    *hend = '\0';
    char type[256] = "";
    for (char *l = strstr(ans.data, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
        if (!strncasecmp(l + 2, "Content-Type:", 13)) {
            const char *v = l + 15;
            while (*v == ' ')
                v++;
            snprintf(type, sizeof type, "%.*s", (int)strcspn(v, "\r\n"), v);
        }
    }
    const char *body = hend + 4;
    size_t blen = ans.len - (size_t)(body - ans.data);
    enum MHD_Result ret = fake_send(c, status, type[0] ? type : NULL, body, blen);
    sm_strbuf_free(&ans);
    return ret;
}
