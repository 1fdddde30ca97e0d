/* -e and --env-file parsing (see env.h). */
#include "core/env.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/redact.h"
#include "core/strbuf.h"
#include "core/util.h"

#define ENV_FILE_MAX (1 << 20)

/* A credential passed to a sandbox may come back in a command line or a message: its value
 * is redacted wherever sandman prints or journals it. */
static void set(sm_map *env, const char *key, const char *value)
{
    sm_map_set(env, key, value);
    if (sm_redact_key_is_secret(key))
        sm_redact_register(value);
}

/* Sets name (length n) from this process's environment. */
static int from_environment(sm_map *env, const char *name, size_t n, const char *where,
                            sm_error *err)
{
    char *key = xstrndup(name, n);
    const char *v = getenv(key);
    int rc = SM_OK;
    if (v)
        set(env, key, v);
    else
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                          "%s%s is not set in sandman's environment (give %s=VALUE, or export "
                          "%s first)",
                          where, key, key, key);
    free(key);
    return rc;
}

int sm_env_parse_arg(sm_map *env, const char *arg, sm_error *err)
{
    const char *eq = strchr(arg, '=');
    if (eq == arg || !*arg)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "--env wants KEY=VALUE, or KEY to pass the value of KEY from "
                            "sandman's environment, not '%s'",
                            arg);
    if (!eq)
        return from_environment(env, arg, strlen(arg), "--env: ", err);
    char *key = xstrndup(arg, (size_t)(eq - arg));
    set(env, key, eq + 1);
    free(key);
    return SM_OK;
}

/* Reads at most ENV_FILE_MAX bytes; a pipe is read to its end. */
static int read_capped(const char *path, sm_strbuf *b, sm_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "--env-file %s: cannot open it: %s", path, strerror(errno));
    char buf[8192];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "--env-file %s: cannot read it: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        if (b->len + (size_t)n > ENV_FILE_MAX) {
            close(fd);
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "--env-file %s: larger than 1 MiB (an env file holds KEY=VALUE "
                                "lines)",
                                path);
        }
        sm_strbuf_append(b, buf, (size_t)n);
    }
    close(fd);
    return SM_OK;
}

int sm_env_read_file(sm_map *env, const char *path, sm_error *err)
{
    sm_strbuf b = {0};
    if (read_capped(path, &b, err) != SM_OK) {
        sm_strbuf_free(&b);
        return SM_ERR_INVALID;
    }
    const char *text = b.data ? b.data : "";
    if (memchr(text, '\0', b.len)) {
        sm_strbuf_free(&b);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "--env-file %s: holds NUL bytes (an env file is text)", path);
    }
    if (!strncmp(text, "\xef\xbb\xbf", 3)) /* a byte order mark from some editors */
        text += 3;
    int rc = SM_OK;
    for (int lineno = 1; rc == SM_OK && *text; lineno++) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        const char *next = nl ? nl + 1 : text + len;
        if (len && text[len - 1] == '\r')
            len--;
        while (len && isspace((unsigned char)*text))
            text++, len--;
        if (len && *text != '#') {
            const char *eq = memchr(text, '=', len);
            size_t klen = eq ? (size_t)(eq - text) : len;
            char *where = xasprintf("%s:%d: ", path, lineno);
            bool space = false;
            for (size_t i = 0; i < klen; i++)
                space |= isspace((unsigned char)text[i]) != 0;
            if (klen == 0)
                rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                  "%sempty variable name (lines are KEY=VALUE, KEY, blank or "
                                  "# comments)",
                                  where);
            else if (space)
                rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                  "%sthe variable name contains whitespace (lines are "
                                  "KEY=VALUE, KEY, blank or # comments)",
                                  where);
            else if (!eq)
                rc = from_environment(env, text, klen, where, err);
            else {
                char *key = xstrndup(text, klen), *val = xstrndup(eq + 1, len - klen - 1);
                set(env, key, val);
                free(key);
                free(val);
            }
            free(where);
        }
        text = next;
    }
    sm_strbuf_free(&b);
    return rc;
}
