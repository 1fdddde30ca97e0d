/* The contract's PTY sessions (SM_CAP_PTY, SM_CAP_PTY_ATTACH): typing and reading, the
 * terminal's size, a pollable descriptor, the marker protocol, ^C, signals, exit codes, sticky
 * EOF, pipe mode, and a kept session re-attached. */
#include "tests/contract/contract.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pty.h"
#include "core/util.h"

/* ---------------------------------------------------------------- PTY */

/* Output of a session read so far; read_until consumes it up to and including a match, so
 * output that arrives together with an earlier match is not lost. */
static char g_pbuf[65536];
static size_t g_plen;

static void reader_reset(void)
{
    g_plen = 0;
    g_pbuf[0] = '\0';
}

static void read_until(sm_pty *t, const char *want)
{
    double end = sm_now_mono() + 20;
    for (;;) {
        g_pbuf[g_plen] = '\0';
        char *hit = strstr(g_pbuf, want);
        if (hit) {
            size_t used = (size_t)(hit - g_pbuf) + strlen(want);
            memmove(g_pbuf, g_pbuf + used, g_plen - used);
            g_plen -= used;
            g_pbuf[g_plen] = '\0';
            return;
        }
        if (g_plen > sizeof g_pbuf - 4096) { /* keep the tail */
            memmove(g_pbuf, g_pbuf + g_plen - 1024, 1024);
            g_plen = 1024;
        }
        size_t got;
        sm_error e;
        sm_error_clear(&e);
        int rc = sm_pty_read(t, g_pbuf + g_plen, sizeof g_pbuf - g_plen - 1, 0.5, &got, &e);
        if (rc == SM_OK && got == 0)
            fail_msg("EOF before '%s' (got '%s')", want, g_pbuf);
        if (rc == SM_OK)
            g_plen += got;
        else if (rc != SM_ERR_TIMEOUT)
            fail_msg("read: %s", e.msg);
        if (sm_now_mono() > end)
            fail_msg("'%s' never appeared; got '%s'", want, g_pbuf);
    }
}

/* Waits for the session's process to end with want, then closes the session. */
static void expect_exit(sm_pty *t, int want)
{
    int code = -1;
    sm_error e;
    sm_error_clear(&e);
    if (sm_pty_wait_exit(t, 20, &code, &e) != SM_OK)
        fail_msg("wait_exit: %s", e.msg);
    assert_int_equal(code, want);
    sm_pty_close(t);
}

static void type(sm_pty *t, const char *text)
{
    sm_error e;
    sm_error_clear(&e);
    if (sm_pty_write(t, text, strlen(text), &e) != SM_OK)
        fail_msg("write: %s", e.msg);
}

/* A sandbox for a PTY test that needs cap, and a default session spec. */
static sm_sandbox *pty_start(unsigned cap, sm_pty_spec *ps)
{
    ct_need(cap);
    sm_pty_spec_init(ps);
    return ct_start(NULL);
}

/* The wanted text is computed by the shell ($((...))), so the terminal's echo of the typed
 * line never matches it. */
void test_pty_session(void **state)
{
    sm_pty_spec ps;
    sm_sandbox *s = pty_start(SM_CAP_PTY, &ps);
    ps.rows = 20;
    ps.cols = 70;
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_pty_open(s, &ps, &t, &e) != SM_OK)
        fail_msg("pty_open: %s", e.msg);
    reader_reset();
    assert_true(strlen(t->session_id) > 0);
    assert_int_equal(t->mode, SM_PTY_MODE_PTY);
    type(t, "stty size; echo $((6*7))ok; tty; echo TERM=$TERM\n");
    read_until(t, "20 70");
    read_until(t, "42ok");
    read_until(t, "/dev/pts/");
    read_until(t, "TERM=xterm-256color");

    assert_int_equal(sm_pty_resize(t, 33, 101, &e), SM_OK);
    /* a resize may be applied asynchronously: wait for it inside */
    type(t, "for i in 1 2 3 4 5 6 7 8 9 10; do [ \"$(stty size)\" = '33 101' ] && break; "
            "sleep 0.2; done; echo size=$(stty size)\n");
    read_until(t, "size=33 101");

    /* the dashboard's way: poll the descriptor, then read with timeout 0 until TIMEOUT */
    int fd = sm_pty_fd(t);
    assert_true(fd >= 0);
    type(t, "echo polled-$((2+3))\n");
    double end = sm_now_mono() + 20;
    while (!strstr(g_pbuf, "polled-5") && sm_now_mono() < end) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, 1000) != 1)
            continue;
        for (;;) {
            size_t got = 0;
            int rc = sm_pty_read(t, g_pbuf + g_plen, sizeof g_pbuf - g_plen - 1, 0, &got, &e);
            if (rc == SM_ERR_TIMEOUT)
                break;
            assert_int_equal(rc, SM_OK);
            assert_true(got > 0);
            g_pbuf[g_plen += got] = '\0';
        }
    }
    read_until(t, "polled-5");
    assert_true(sm_pty_offset(t) > 0);

    /* the marker protocol over the live shell */
    sm_exec_result r;
    assert_int_equal(sm_pty_exec_marker(t, "echo marker-out; (exit 6)", 20, &r, &e), SM_OK);
    assert_int_equal(r.return_code, 6);
    assert_non_null(strstr(r.out, "marker-out"));
    sm_exec_result_free(&r);
    reader_reset();

    /* ^C reaches the foreground job through the terminal; the shell survives */
    type(t, "sh -c 'echo $((1+2))zz; exec sleep 30'\n");
    read_until(t, "3zz");
    type(t, "\003");
    type(t, "echo after-$((1+1))\n");
    read_until(t, "after-2");
    assert_int_equal(sm_pty_signal(t, "SIGSTOPX", &e), SM_ERR_INVALID);

    type(t, "exit 5\n");
    int code = -1;
    assert_int_equal(sm_pty_wait_exit(t, 20, &code, &e), SM_OK);
    assert_int_equal(code, 5);
    char buf[16];
    size_t got = 1;
    assert_int_equal(sm_pty_read(t, buf, sizeof buf, 1, &got, &e), SM_OK);
    assert_int_equal(got, 0); /* sticky EOF */
    assert_int_equal(sm_pty_read(t, buf, sizeof buf, 1, &got, &e), SM_OK);
    assert_int_equal(got, 0);
    sm_pty_close(t);

    /* a command session reports its own exit code */
    ps.command = "printf done; exit 9";
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    reader_reset();
    read_until(t, "done");
    expect_exit(t, 9);

    /* SIGTERM to the session's processes */
    ps.command = "echo $((3+4))go; exec sleep 60";
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    reader_reset();
    read_until(t, "7go");
    assert_int_equal(sm_pty_signal(t, "SIGTERM", &e), SM_OK);
    expect_exit(t, 128 + 15);
    ct_stop(s);
}

/* Pipe mode is not a capability bit: a provider without it says so (unsupported). */
void test_pty_pipe_mode(void **state)
{
    sm_pty_spec ps;
    sm_sandbox *s = pty_start(SM_CAP_PTY, &ps);
    ps.command = "echo to-out; echo to-err >&2; exit 4";
    ps.pty = false;
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    int rc = sm_sandbox_pty_open(s, &ps, &t, &e);
    if (rc == SM_ERR_UNSUPPORTED) {
        print_message("SKIPPED: pipe mode: %s\n", e.msg);
        ct_stop(s);
        skip();
    }
    if (rc != SM_OK)
        fail_msg("pty_open (pipe mode): %s", e.msg);
    assert_int_equal(t->mode, SM_PTY_MODE_PIPE);
    reader_reset();
    read_until(t, "to-out");
    char eb[256] = "";
    size_t elen = 0;
    double end = sm_now_mono() + 20;
    while (!strstr(eb, "to-err") && sm_now_mono() < end) {
        size_t got = 0;
        rc = sm_pty_read_stderr(t, eb + elen, sizeof eb - elen - 1, 0.5, &got, &e);
        if (rc == SM_OK && got == 0)
            break;
        if (rc == SM_OK)
            eb[elen += got] = '\0';
    }
    assert_non_null(strstr(eb, "to-err"));
    expect_exit(t, 4);
    ct_stop(s);
}

/* A kept session outlives its client: listed, re-attached with its output replayed. */
void test_pty_attach(void **state)
{
    sm_pty_spec ps;
    sm_sandbox *s = pty_start(SM_CAP_PTY_ATTACH, &ps);
    ps.keep = true;
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_pty_open(s, &ps, &t, &e) != SM_OK)
        fail_msg("pty_open: %s", e.msg);
    char id[64];
    snprintf(id, sizeof id, "%s", t->session_id);
    reader_reset();
    type(t, "echo kept-$((20+1))\n");
    read_until(t, "kept-21");
    assert_non_null(t->ops->detach); /* a provider with pty_attach keeps sessions */
    sm_pty_detach(t);

    sm_pty_session_info *list = NULL;
    size_t n = 0;
    assert_int_equal(sm_sandbox_pty_sessions(s, &list, &n, &e), SM_OK);
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found |= !strcmp(list[i].id, id) && list[i].running;
    free(list);
    assert_true(found);

    if (sm_sandbox_pty_attach(s, id, true, 0, &t, &e) != SM_OK)
        fail_msg("attach: %s", e.msg);
    reader_reset();
    read_until(t, "kept-21"); /* replayed from offset 0 */
    type(t, "exit 3\n");
    expect_exit(t, 3);
    ct_stop(s);
}
