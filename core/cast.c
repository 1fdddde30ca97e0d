/* asciicast v2 writer and reader. */
#include "core/cast.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/strbuf.h"
#include "core/util.h"

int sm_cast_open(sm_cast *c, const char *path, int cols, int rows, const char *title,
                 const char *term, sm_error *err)
{
    memset(c, 0, sizeof *c);
    c->f = fopen(path, "we");
    if (!c->f)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_INVALID_REQUEST,
                            "cannot write the recording %s: %s", path, strerror(errno));
    cJSON *h = cJSON_CreateObject();
    cJSON_AddNumberToObject(h, "version", 2);
    cJSON_AddNumberToObject(h, "width", cols);
    cJSON_AddNumberToObject(h, "height", rows);
    cJSON_AddNumberToObject(h, "timestamp", (double)(long long)sm_now_wall());
    if (title)
        cJSON_AddStringToObject(h, "title", title);
    cJSON *env = cJSON_AddObjectToObject(h, "env");
    cJSON_AddStringToObject(env, "TERM", term ? term : "xterm-256color");
    cJSON_AddStringToObject(env, "SHELL", "/bin/sh");
    char *line = sm_json_print(h);
    fprintf(c->f, "%s\n", line);
    free(line);
    cJSON_Delete(h);
    fflush(c->f);
    c->start = sm_now_mono();
    return SM_OK;
}

int sm_cast_is_open(const sm_cast *c)
{
    return c->f != NULL;
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 if incomplete at the end, -1 invalid. */
static int utf8_len(const unsigned char *s, size_t avail)
{
    int n;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0)
        n = 2;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3;
    else if ((s[0] & 0xF8) == 0xF0)
        n = 4;
    else
        return -1;
    for (int i = 1; i < n; i++) {
        if ((size_t)i >= avail)
            return 0;
        if ((s[i] & 0xC0) != 0x80)
            return -1;
    }
    return n;
}

static void write_event(sm_cast *c, const char *kind, const char *text)
{
    cJSON *ev = cJSON_CreateArray();
    cJSON_AddItemToArray(ev, cJSON_CreateNumber(sm_now_mono() - c->start));
    cJSON_AddItemToArray(ev, cJSON_CreateString(kind));
    cJSON_AddItemToArray(ev, cJSON_CreateString(text));
    char *line = cJSON_PrintUnformatted(ev);
    fprintf(c->f, "%s\n", line);
    free(line);
    cJSON_Delete(ev);
}

void sm_cast_output(sm_cast *c, const char *data, size_t len)
{
    if (!c->f || len == 0)
        return;
    sm_strbuf in = {0}, out = {0};
    sm_strbuf_append(&in, c->pending, c->npending);
    sm_strbuf_append(&in, data, len);
    c->npending = 0;
    const unsigned char *s = (const unsigned char *)in.data;
    size_t i = 0;
    while (i < in.len) {
        int n = utf8_len(s + i, in.len - i);
        if (n == 0) { /* wait for the rest of this character */
            c->npending = in.len - i;
            memcpy(c->pending, s + i, c->npending);
            break;
        }
        if (n < 0) {
            sm_strbuf_puts(&out, "\xEF\xBF\xBD");
            i++;
            continue;
        }
        if (s[i] == 0)
            sm_strbuf_puts(&out, "\xEF\xBF\xBD"); /* cJSON strings end at NUL */
        else
            sm_strbuf_append(&out, s + i, (size_t)n);
        i += (size_t)n;
    }
    if (out.len)
        write_event(c, "o", out.data);
    sm_strbuf_free(&in);
    sm_strbuf_free(&out);
}

void sm_cast_resize(sm_cast *c, int cols, int rows)
{
    if (!c->f)
        return;
    char size[32];
    snprintf(size, sizeof size, "%dx%d", cols, rows);
    write_event(c, "r", size);
}

void sm_cast_close(sm_cast *c)
{
    if (!c->f)
        return;
    if (c->npending) {
        write_event(c, "o", "\xEF\xBF\xBD");
        c->npending = 0;
    }
    fclose(c->f);
    c->f = NULL;
}
