/* The one-shot `pty exec` marker protocol (seed §3.2) against a scripted fake session: the
 * script written to the shell, parsing of the marker (split reads, CRLF, late digits,
 * unreadable digits), timeouts and EOF before the marker. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pty.h"
#include "core/util.h"

/* A fake session: whatever is written is recorded; reads return scripted chunks, where the
 * token placeholder "@T@" is replaced by the token the protocol wrote. */
typedef struct fake {
    sm_pty base;
    char written[4096];
    size_t wlen;
    const char *chunks[8];
    int nchunks, next;
    char token[18];
    int eof_after; /* return EOF once chunks run out (else time out) */
} fake;

static int fake_write(sm_pty *p, const void *d, size_t n, sm_error *err)
{
    fake *f = p->impl;
    memcpy(f->written + f->wlen, d, n);
    f->wlen += n;
    f->written[f->wlen] = '\0';
    const char *t = strstr(f->written, "printf '%s%s:%s\\n' '");
    if (t) { /* recover the token from its two quoted halves */
        char a[16] = "", b[16] = "";
        sscanf(t + strlen("printf '%s%s:%s\\n' '"), "%15[^']' '%15[^']", a, b);
        snprintf(f->token, sizeof f->token, "%s%s", a, b);
    }
    return SM_OK;
}

static int fake_read(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got, sm_error *err)
{
    fake *f = p->impl;
    *got = 0;
    if (f->next >= f->nchunks)
        return f->eof_after ? SM_OK : sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_NONE, "timeout");
    const char *c = f->chunks[f->next++];
    size_t o = 0;
    for (const char *s = c; *s && o + 18 < len; s++) {
        if (!strncmp(s, "@T@", 3)) {
            memcpy(buf + o, f->token, strlen(f->token));
            o += strlen(f->token);
            s += 2;
        } else {
            buf[o++] = *s;
        }
    }
    *got = o;
    return SM_OK;
}

static void fake_close(sm_pty *p)
{
    (void)p;
}

static const sm_pty_ops fake_ops = {.read = fake_read, .write = fake_write, .close = fake_close};

static void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    f->base.ops = &fake_ops;
    f->base.impl = f;
    f->base.mode = SM_PTY_MODE_PTY;
}

static void test_script_never_contains_the_token(void **state)
{
    char token[18];
    sm_pty_marker_token(token);
    assert_int_equal(strlen(token), 17);
    assert_memory_equal(token, "NGPTY", 5);
    char *s = sm_pty_marker_script("make test", token);
    assert_non_null(strstr(s, "{ make test\n} </dev/null\n"));
    assert_null(strstr(s, token)); /* the echoed line cannot match */
    assert_non_null(strstr(s, "\"$?\""));
    free(s);
}

static void test_parse(void **state)
{
    const char *tok = "NGPTYabcdef012345";
    size_t pre;
    int code;
    assert_int_equal(sm_pty_marker_parse("out\n", 4, tok, &pre, &code), 0);
    const char *partial = "out\nNGPTYabcdef012345:4";
    assert_int_equal(sm_pty_marker_parse(partial, strlen(partial), tok, &pre, &code), 0);
    const char *crlf = "hello\r\nNGPTYabcdef012345:42\r\n";
    assert_int_equal(sm_pty_marker_parse(crlf, strlen(crlf), tok, &pre, &code), 1);
    assert_int_equal(pre, 7);
    assert_int_equal(code, 42);
    const char *bad = "NGPTYabcdef012345:x1\n";
    assert_int_equal(sm_pty_marker_parse(bad, strlen(bad), tok, &pre, &code), 1);
    assert_int_equal(code, -1);
    const char *nocolon = "NGPTYabcdef012345 and more\n";
    assert_int_equal(sm_pty_marker_parse(nocolon, strlen(nocolon), tok, &pre, &code), 0);
}

static void test_exec_over_split_reads(void **state)
{
    fake f;
    fake_init(&f);
    f.chunks[0] = "{ echo hi\r\n} </dev/null\r\nhi\r\n";
    f.chunks[1] = "@T@";
    f.chunks[2] = ":";
    f.chunks[3] = "3\r\n";
    f.nchunks = 4;
    sm_exec_result r;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_pty_exec_marker(&f.base, "echo hi", 5, &r, &e), SM_OK);
    assert_int_equal(r.return_code, 3);
    assert_null(r.error_type);
    assert_non_null(strstr(r.out, "hi\r\n"));
    assert_null(strstr(r.out, "NGPTY"));
    assert_int_equal(r.failure.kind, SM_FAIL_EXIT_NONZERO);
    sm_exec_result_free(&r);
}

static void test_unreadable_status_is_pty_error(void **state)
{
    fake f;
    fake_init(&f);
    f.chunks[0] = "@T@:oops\n";
    f.nchunks = 1;
    sm_exec_result r;
    assert_int_equal(sm_pty_exec_marker(&f.base, "true", 5, &r, NULL), SM_OK);
    assert_int_equal(r.return_code, 125);
    assert_string_equal(r.error_type, "pty");
    sm_exec_result_free(&r);
}

static void test_eof_before_marker(void **state)
{
    fake f;
    fake_init(&f);
    f.chunks[0] = "partial output";
    f.nchunks = 1;
    f.eof_after = 1;
    sm_exec_result r;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_pty_exec_marker(&f.base, "exit", 5, &r, &e), SM_ERR_RUNTIME);
    assert_int_equal(r.return_code, 125);
    assert_string_equal(r.error_type, "pty");
    assert_int_equal(e.failure.kind, SM_FAIL_PTY_ERROR);
    sm_exec_result_free(&r);
}

static void test_timeout(void **state)
{
    fake f;
    fake_init(&f);
    f.chunks[0] = "still running";
    f.nchunks = 1;
    sm_exec_result r;
    double t0 = sm_now_mono();
    assert_int_equal(sm_pty_exec_marker(&f.base, "sleep 100", 0.2, &r, NULL), SM_OK);
    assert_true(sm_now_mono() - t0 < 5);
    assert_int_equal(r.return_code, 125);
    assert_string_equal(r.error_type, "timeout");
    assert_int_equal(r.failure.kind, SM_FAIL_EXEC_TIMEOUT);
    sm_exec_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script_never_contains_the_token),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_exec_over_split_reads),
        cmocka_unit_test(test_unreadable_status_is_pty_error),
        cmocka_unit_test(test_eof_before_marker),
        cmocka_unit_test(test_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
