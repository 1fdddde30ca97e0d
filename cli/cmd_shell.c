/* `sandman shell`: bridges the user's own terminal to a PTY session in a sandbox (seed §3.8):
 * raw mode (always restored, also while stopped by SIGTSTP), SIGWINCH resizes the session, stdin
 * EOF sends Ctrl-D, and the exit status is the shell's (130 on SIGINT, 2 without a terminal). --new
 * creates a sandbox for the shell and removes it afterwards; --attach re-attaches to a kept
 * session, replaying its retained output; --record writes an asciicast file. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/cast.h"
#include "core/gc.h"
#include "core/util.h"

enum {
    S_NEW = 100,
    S_RECORD,
    S_ATTACH,
    S_LIST,
    S_KEEP,
    S_USER,
    S_CMD,
    S_SINCE,
    S_NO_TAKEOVER,
    S_ENTRYPOINT
};

static const cli_opt shell_opts[] = {
    {"new", 0, NULL, "create a sandbox for the shell and remove it afterwards", S_NEW},
    {"record", 0, "FILE", "record the session as an asciicast v2 file", S_RECORD},
    {"attach", 'a', "SESSION",
     "re-attach to a kept session (replays its recent output), taking\n"
     "it over from a client that holds it",
     S_ATTACH},
    {"since", 0, "BYTES",
     "with --attach: replay from this output offset on (--list shows\n"
     "a session's OUTPUT; 0, the default, replays all that is kept)",
     S_SINCE},
    {"no-takeover", 0, NULL, "with --attach: fail if another client holds the session",
     S_NO_TAKEOVER},
    {"keep", 0, NULL, "keep the session running if this client goes away", S_KEEP},
    {"list", 0, NULL, "list the sandbox's PTY sessions", S_LIST},
    {"user", 'u', "USER", "run the shell as USER", S_USER},
    {"command", 0, "CMD", "run CMD instead of the shell", S_CMD},
    /* create's, but not the shell's: its sandbox must outlive any main process */
    {"entrypoint", 0, "ARG", NULL, S_ENTRYPOINT},
    {NULL, 0, NULL, NULL, 0},
};

typedef struct shell_args {
    sm_spec spec;
    bool is_new, list, keep, no_takeover;
    long long since; /* --attach replays the output from this byte on (0: all that is kept) */
    bool since_given;
    char *record, *attach, *user, *command;
} shell_args;

static int shell_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    shell_args *a = args;
    switch (id) {
    case S_NEW: a->is_new = true; return 0;
    case S_LIST: a->list = true; return 0;
    case S_KEEP: a->keep = true; return 0;
    case S_NO_TAKEOVER: a->no_takeover = true; return 0;
    case S_SINCE: {
        long v;
        if (sm_parse_long(arg, &v) != 0 || v < 0)
            return cli_usage(cli, "--since wants a byte offset (0 or more), not '%s'", arg);
        a->since = v;
        a->since_given = true;
        return 0;
    }
    case S_RECORD:
        free(a->record);
        a->record = xstrdup(arg);
        return 0;
    case S_ATTACH:
        free(a->attach);
        a->attach = xstrdup(arg);
        return 0;
    case S_USER:
        free(a->user);
        a->user = xstrdup(arg);
        return 0;
    case S_ENTRYPOINT:
        return cli_usage(cli, "--entrypoint is for create; a shell's sandbox has no main process");
    case S_CMD:
        free(a->command);
        a->command = xstrdup(arg);
        return 0;
    default: return cli_create_opt(cli, &a->spec, id, arg);
    }
}

/* ---- the terminal bridge ------------------------------------------------------------------ */

/* Typeahead is kept, as ssh keeps it: what the user types while the sandbox starts (or the
 * shell comes up) is neither echoed by our terminal nor flushed when raw mode begins
 * (TCSANOW, never TCSAFLUSH), so `exit 5` typed at once reaches the shell. */
static struct termios saved;
static bool saved_ok, raw_on;
static int sig_pipe[2] = {-1, -1};

static void restore_terminal(void)
{
    if (raw_on || saved_ok) {
        tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
        raw_on = false;
    }
}

/* From the start of the verb: the terminal's own echo off (the remote shell echoes what it
 * reads), line editing and signals as they were, so Ctrl-C still stops a slow create. */
static void hold_typeahead(void)
{
    if (saved_ok || tcgetattr(STDIN_FILENO, &saved) != 0)
        return;
    saved_ok = true;
    atexit(restore_terminal);
    struct termios quiet = saved;
    quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
}

static void on_signal(int sig)
{
    unsigned char s = (unsigned char)sig;
    if (write(sig_pipe[1], &s, 1) < 0) {
    }
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 100);
            continue;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void term_size(int *rows, int *cols)
{
    struct winsize ws;
    *rows = 24;
    *cols = 80;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
        *rows = ws.ws_row;
        *cols = ws.ws_col;
    }
}

/* Pumps bytes both ways until the session ends. Returns the exit status to use. keep: the
 * session is to outlive this client (--keep, --attach). */
static int bridge(sm_cli *cli, sm_pty *t, sm_cast *cast, bool keep)
{
    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return cli_error(cli, CLI_FAIL, "pipe: %s", strerror(errno));
    static const int sigs[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP};
    enum { NSIGS = sizeof sigs / sizeof sigs[0] };
    struct sigaction sa = {.sa_handler = on_signal}, old[NSIGS];
    for (int i = 0; i < NSIGS; i++)
        sigaction(sigs[i], &sa, &old[i]);
    hold_typeahead();
    struct termios raw = saved;
    cfmakeraw(&raw);
    tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    raw_on = true;

    int status = -1;
    bool stdin_open = true;
    char buf[65536];
    for (;;) {
        struct pollfd pf[3] = {{.fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN},
                               {.fd = sm_pty_fd(t), .events = POLLIN},
                               {.fd = sig_pipe[0], .events = POLLIN}};
        if (poll(pf, 3, -1) < 0 && errno != EINTR)
            break;
        if (pf[2].revents) {
            unsigned char s;
            while (read(sig_pipe[0], &s, 1) == 1) {
                if (s == SIGTSTP) { /* stopped from outside: the terminal is the user's meanwhile */
                    restore_terminal();
                    kill(getpid(), SIGSTOP);
                    tcsetattr(STDIN_FILENO, TCSANOW, &raw); /* continued */
                    raw_on = true;
                }
                if (s == SIGWINCH || s == SIGTSTP) {
                    int rows, cols;
                    term_size(&rows, &cols);
                    sm_pty_resize(t, rows, cols, NULL);
                    sm_cast_resize(cast, cols, rows);
                } else {
                    status = s == SIGINT ? 130 : 128 + s;
                }
            }
            if (status >= 0)
                break;
        }
        if (pf[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
            if (n > 0) {
                if (sm_pty_write(t, buf, (size_t)n, NULL) != SM_OK)
                    stdin_open = false;
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                if (keep) {
                    /* stdin is a terminal in raw mode, so its end is a hang-up (the window was
                     * closed; SIGHUP may come after this): a kept session stays for a later
                     * attach instead of getting the Ctrl-D that would end its shell */
                    status = 128 + SIGHUP;
                    break;
                }
                /* stdin ended: the shell gets Ctrl-D, then we wait for it to exit */
                sm_pty_write(t, "\x04", 1, NULL);
                stdin_open = false;
            }
        }
        if (pf[1].revents) {
            bool eof = false;
            for (;;) {
                size_t got = 0;
                sm_error err;
                sm_error_clear(&err);
                int rc = sm_pty_read(t, buf, sizeof buf, 0, &got, &err);
                if (rc == SM_ERR_TIMEOUT)
                    break;
                if (rc != SM_OK) {
                    restore_terminal();
                    status = cli_error(cli, CLI_RUNTIME, "shell: %s", err.msg);
                    goto out;
                }
                if (got == 0) {
                    eof = true;
                    break;
                }
                write_all(STDOUT_FILENO, buf, got);
                sm_cast_output(cast, buf, got);
            }
            if (eof) {
                int code = 0;
                sm_error err;
                sm_error_clear(&err);
                if (sm_pty_wait_exit(t, 5, &code, &err) == SM_OK)
                    status = code;
                else
                    status = cli_error(cli, CLI_RUNTIME, "shell: %s", err.msg);
                break;
            }
        }
    }
out:
    restore_terminal();
    for (int i = 0; i < NSIGS; i++)
        sigaction(sigs[i], &old[i], NULL);
    close(sig_pipe[0]);
    close(sig_pipe[1]);
    return status < 0 ? CLI_FAIL : status;
}

static int list_sessions(sm_cli *cli, sm_sandbox *s)
{
    sm_pty_session_info *list = NULL;
    size_t n = 0;
    sm_error err;
    sm_error_clear(&err);
    if (sm_sandbox_pty_sessions(s, &list, &n, &err) != SM_OK)
        return cli_fail(cli, &err);
    cJSON *arr = cJSON_CreateArray();
    if (!cli->json)
        fprintf(cli->out, "%-14s  %-7s  %-8s  %-8s  %10s  %s\n", "SESSION", "PID", "STATE",
                "CLIENT", "OUTPUT", "COMMAND");
    for (size_t i = 0; i < n; i++) {
        if (cli->json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "session_id", list[i].id);
            cJSON_AddNumberToObject(o, "pid", list[i].pid);
            cJSON_AddBoolToObject(o, "running", list[i].running);
            cJSON_AddBoolToObject(o, "attached", list[i].attached);
            cJSON_AddNumberToObject(o, "bytes", (double)list[i].bytes);
            cJSON_AddStringToObject(o, "command", list[i].command);
            cJSON_AddItemToArray(arr, o);
        } else {
            char bytes[24];
            sm_format_bytes((double)list[i].bytes, bytes, sizeof bytes);
            char sid[64], cmd[1024];
            cli_printf(cli->out, "%-14s  %-7d  %-8s  %-8s  %10s  %s\n",
                       cli_field(list[i].id, sid, sizeof sid), list[i].pid,
                       list[i].running ? "running" : "exited",
                       list[i].attached ? "attached" : "detached", bytes,
                       cli_field(list[i].command, cmd, sizeof cmd));
        }
    }
    if (cli->json)
        cli_print_json(cli, arr);
    else
        cJSON_Delete(arr);
    free(list);
    return CLI_OK;
}

static void shell_init(void *args)
{
    sm_spec_init(&((shell_args *)args)->spec);
}

static void shell_done(void *args)
{
    shell_args *a = args;
    sm_spec_free(&a->spec);
    free(a->record);
    free(a->attach);
    free(a->user);
    free(a->command);
}

static int shell_check(sm_cli *cli, cli_call *c)
{
    shell_args *a = c->args;
    if (a->is_new == (c->npos == 1))
        return cli_usage(cli, a->is_new ? "give either an id or --new, not both"
                                        : "missing sandbox id (or --new to create one)");
    if (!a->attach && (a->since_given || a->no_takeover))
        return cli_usage(cli, "%s only goes with --attach SESSION",
                         a->since_given ? "--since" : "--no-takeover");
    if (!a->list && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
        return cli_error(cli, CLI_USAGE,
                         "shell needs a terminal: stdin and stdout must be TTYs (use "
                         "'sandman exec' from scripts)");
    return 0;
}

static int cmd_shell(sm_cli *cli, cli_call *c)
{
    shell_args *a = c->args;
    int status = CLI_OK, rc;
    sm_sandbox *s = c->target;
    bool created = false;
    sm_error err;
    sm_error_clear(&err);
    if (!a->list)
        hold_typeahead();
    if (a->is_new) {
        if (a->spec.ttl_s < 0)
            a->spec.ttl_s = 1800; /* as NeMo Gym's shell: a forgotten one ends by itself */
        sm_map_set(&a->spec.metadata, "purpose", "interactive-shell");
        sm_gc_claim(&a->spec.metadata); /* removed on exit; if we die first, gc --orphaned */
        s = sm_sandbox_new(c->provider, false);
        if (sm_sandbox_start(s, &a->spec, &err) != SM_OK) {
            status = cli_fail(cli, &err);
            goto done;
        }
        created = true;
    }
    if (a->list) {
        status = list_sessions(cli, s);
        goto done;
    }
    int rows, cols;
    term_size(&rows, &cols);
    sm_pty *t = NULL;
    if (a->attach) {
        rc = sm_sandbox_pty_attach(s, a->attach, !a->no_takeover, a->since, &t, &err);
    } else {
        sm_pty_spec ps;
        sm_pty_spec_init(&ps);
        ps.rows = rows;
        ps.cols = cols;
        ps.command = a->command;
        ps.user = a->user;
        ps.env = &a->spec.env;
        ps.cwd = a->spec.workdir;
        ps.keep = a->keep;
        ps.term = getenv("TERM");
        rc = sm_sandbox_pty_open(s, &ps, &t, &err);
    }
    if (rc != SM_OK) {
        status = err.code == SM_ERR_UNSUPPORTED
                     ? cli_error(cli, CLI_FAIL, "provider does not support interactive PTY")
                     : cli_fail(cli, &err);
        goto done;
    }
    if (a->attach) /* the program may need to redraw for the new client's size */
        sm_pty_resize(t, rows, cols, NULL);
    sm_cast cast;
    memset(&cast, 0, sizeof cast);
    if (a->record && sm_cast_open(&cast, a->record, cols, rows, sm_sandbox_id(s), getenv("TERM"),
                                  &err) != SM_OK) {
        sm_pty_close(t);
        status = cli_fail(cli, &err);
        goto done;
    }
    status = bridge(cli, t, &cast, a->keep || a->attach);
    sm_cast_close(&cast);
    if (a->keep || a->attach)
        sm_pty_detach(t); /* a kept or attached session stays unless it ended */
    else
        sm_pty_close(t);
done:
    restore_terminal();
    if (created) {
        sm_error ignore;
        sm_error_clear(&ignore);
        sm_sandbox_stop(s, &ignore);
    }
    if (s != c->target)
        sm_sandbox_free(s); /* the runner frees the target it opened */
    return status;
}

const sm_cmd sm_cmd_shell = {
    .name = "shell",
    .usage = "ID | --new [create options]  [--record FILE] [--attach SESSION] [--keep] [--list]",
    .summary = "an interactive shell in a sandbox, in your own terminal",
    .flags = CLI_TARGET_OPTIONAL,
    .max_pos = 1,
    .opts = shell_opts,
    .more_opts = cli_create_opts,
    .more_title = "create options (with --new; -w, -e, --env-file also for an ID)",
    .args_size = sizeof(shell_args),
    .init = shell_init,
    .opt = shell_opt,
    .check = shell_check,
    .run = cmd_shell,
    .done = shell_done,
};
