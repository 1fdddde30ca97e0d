/* The exec helper of the docker provider: one long-lived exec per handle, a shell that reads
 * commands on its stdin and runs each of them as a plain exec would, so that a command costs a
 * few milliseconds instead of an exec instance (on podman every exec start is a conmon and a
 * `runc exec`, ~150-250 ms; the engine's own floor is most of a `docker exec`).
 *
 * What each command gets is what an exec instance gives it: the keep-alive shell as
 * `<shell> -c CMD` in a new session (setsid, as runc does for an exec), stdin /dev/null, the
 * container's environment plus the request's variables and its own SANDMAN_EXEC_ID marker
 * (timeouts kill by that marker, as for a plain exec), PWD, OLDPWD and SHLVL as a fresh exec
 * would see them, default signal dispositions, the working directory. Its stdout and stderr are
 * FIFOs of its own; `cat` relays them to the session's two streams, and after the command's main
 * process ends the helper writes an end marker (a nonce the command never sees, with the exit
 * status on stdout) into each FIFO, so the marker comes after everything the command wrote
 * before it ended. When sandman has both markers it acknowledges, and the helper kills the two
 * relays: a background process still holding the old output then gets EPIPE/SIGPIPE, as it does
 * when conmon closes a finished exec's pipes, and its later output never reaches a later
 * command (each command gets fresh FIFOs). A command's output is therefore exactly what a plain
 * exec returns: binary-safe, stdout and stderr apart, no trailing newline added or taken.
 *
 * Commands the helper cannot run the same way go to a plain exec: another user, a relative or
 * unusable working directory (the engine's own error is the reference), an environment name
 * starting with '-', very long commands, a helper that is busy (another thread) or missing
 * tools (setsid, env, cat, mkfifo, rm, tr, grep, /proc, a writable /tmp or /dev/shm). The first
 * exec of a handle is a plain exec too: one-shot users (`sandman exec`) never pay for starting the
 * helper.
 *
 * Protocol. sandman -> helper, on stdin: a frame "<nonce> <marker> <nenv>\n" followed by the
 * working directory, the nenv "K=V" entries and the command, each as "<nlines>\n" and that many
 * lines (strings may hold newlines); "G\n" to run it after the helper answered GOT; "A\n" after
 * both end markers arrived. helper -> sandman: "SANDMAN-X-READY" once; per command "GOT-<nonce>"
 * on both streams (everything before it on a stream is stale) or "DECLINE-<nonce>" (nothing ran);
 * then the command's output and "END-<nonce> <status>" on stdout, "END-<nonce>" on stderr. The
 * two-step start (GOT, then G) means a frame that reaches a paused or stalled helper can be
 * withdrawn: sandman closes the session and the helper, when it runs again, finds EOF instead of
 * G. Closing the session at any point ends the helper (its stdin reaches EOF). */
#include "providers/docker/docker_executor.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"

#define X_PFX          "SANDMAN-X"
#define X_MAX_CMD      (64 * 1024) /* the helper reads its input a byte at a time */
#define X_START_WAIT_S 30.0
#define X_GOT_CHECK_S  0.5 /* no GOT by then: is the container paused or gone? */
#define X_MAX_FAILS    3   /* failed starts in a row before a handle stops trying */
#define X_MIN_BUDGET_S 5.0 /* a command with less time left does not wait for a helper start */

/* The helper. $1 = the shell for commands ("": bash when there is one, else sh, looked up for
 * each command as a plain exec does), $2 = a nonce for its FIFO directory. `w` finds a
 * program on PATH by hand: `command -v` names BusyBox applets without a path, and commands may
 * change PATH. Shells change a few variables of their own when they start (PWD, OLDPWD on cd,
 * SHLVL, bash's `_`), so the values the exec gave the helper are read back from its initial
 * environment and restored (or unset) for each command, as a fresh exec would have them; bash
 * also puts `_` into every child's environment, which env(1) undoes. Ignored signals would be
 * inherited by commands, so PIPE is caught (a no-op), never ignored. The helper's own stderr is
 * the session's and must stay silent while a command runs, so the session's stderr is kept on fd
 * 7 and the helper's own (a shell's "Terminated" after a command killed by a signal) goes to
 * /dev/null. (BusyBox ash ignores the redirections of a subshell that ends a redirected { }
 * group, so the script avoids that form.) */
static const char helper_script[] =
    "P=" X_PFX " SH=$1\n"
    "no() { printf '%s-NO %s\\n' \"$P\" \"$1\"; exit 0; }\n"
    "w() { X=; set -f; IFS=:; for p in $PATH; do [ -f \"$p/$1\" ] && [ -x \"$p/$1\" ] && "
    "{ X=$p/$1; break; }; done; unset IFS; set +f; case $X in /*=*|'') return 1;; esac; }\n"
    "w setsid || no setsid; S=$X; w env || no env; E=$X\n"
    "for t in cat mkfifo rm tr grep; do w $t || no $t; done\n"
    "[ -r /proc/$$/environ ] || no 'no /proc'\n"
    "d=; for t in \"${TMPDIR:-/tmp}\" /dev/shm; do mkdir -m 700 \"$t/.sandman-exec-$2\" "
    "2>/dev/null && { d=$t/.sandman-exec-$2; break; }; done\n"
    "[ -n \"$d\" ] || no 'no writable temporary directory'\n"
    "trap 'rm -rf \"$d\"' EXIT; trap 'exit 0' HUP INT TERM; trap : PIPE; exec 7>&2 2>/dev/null\n"
    "hP= hO= hS= hU= B=${BASH_VERSION:+1}\n"
    "while IFS= read -r l; do case $l in PWD=*) hP=1 vP=${l#PWD=};; OLDPWD=*) hO=1 "
    "vO=${l#OLDPWD=};; SHLVL=*) hS=1 vS=${l#SHLVL=};; _=*) hU=1 vU=${l#_=};; esac; done <<EOF\n"
    "$(tr '\\0' '\\n' </proc/$$/environ | grep -E '^(PWD|OLDPWD|SHLVL|_)=')\n"
    "EOF\n"
    "rs() { IFS= read -r n || exit 0; v=; i=0; while [ $i -lt \"$n\" ]; do IFS= read -r l || "
    "exit 0; if [ $i = 0 ]; then v=$l; else v=\"$v\n$l\"; fi; i=$((i+1)); done; }\n"
    "printf '%s-READY\\n' \"$P\"\n"
    "q=0 m=0 c=\n"
    "while IFS=' ' read -r t k ne; do\n"
    " case $t in A) [ -z \"$c\" ] || { kill $c 2>/dev/null; wait $c; c=; }; continue;; esac\n"
    " rs; cwd=$v; set --; j=0\n"
    " while [ $j -lt \"$ne\" ]; do rs; set -- \"$@\" \"$v\"; j=$((j+1)); done\n"
    " rs; cmd=$v\n"
    " if [ -n \"$cwd\" ] && ! (cd -P -- \"$cwd\"); then "
    "printf '%s-DECLINE-%s\\n' \"$P\" \"$t\"; continue; fi\n"
    " if [ $q -ge $m ]; then j=$m; m=$((m+16)); f=; while [ $j -lt $m ]; do f=\"$f o$j e$j\"; "
    "j=$((j+1)); done\n"
    "  (cd \"$d\" && rm -f -- o* e* && exec mkfifo -m 600 $f) || "
    "{ printf '%s-DECLINE-%s\\n' \"$P\" \"$t\"; exit 0; }; fi\n"
    " o=$d/o$q e=$d/e$q; q=$((q+1))\n"
    " [ -p \"$o\" ] && [ -p \"$e\" ] || { printf '%s-DECLINE-%s\\n' \"$P\" \"$t\"; exit 0; }\n"
    " printf '%s-GOT-%s\\n' \"$P\" \"$t\"; printf '%s-GOT-%s\\n' \"$P\" \"$t\" >&7\n"
    " IFS= read -r g || exit 0; [ \"$g\" = G ] || continue\n"
    " cat \"$o\" </dev/null 7>&- & c=$!\n"
    " cat \"$e\" </dev/null >&7 7>&- & c=\"$c $!\"\n"
    " exec 5>\"$o\" 6>\"$e\"\n"
    " C=$SH; [ -n \"$C\" ] || { C=sh; command -v bash >/dev/null 2>&1 && C=bash; }\n"
    " (if [ -n \"$cwd\" ]; then cd -P -- \"$cwd\" || exit 127; fi\n"
    "  if [ -n \"$hP\" ]; then PWD=$vP; export PWD; else unset PWD; fi\n"
    "  if [ -n \"$hO\" ]; then OLDPWD=$vO; export OLDPWD; else unset OLDPWD; fi\n"
    "  if [ -n \"$hS\" ]; then SHLVL=$vS; export SHLVL; else unset SHLVL; fi\n"
    "  SANDMAN_EXEC_ID=$k; export SANDMAN_EXEC_ID\n"
    "  if [ -n \"$B\" ]; then if [ -n \"$hU\" ]; then set -- \"_=$vU\" \"$@\"; "
    "else set -- -u _ \"$@\"; fi; fi\n"
    "  [ $# = 0 ] || exec \"$E\" \"$@\" \"$S\" \"$C\" -c \"$cmd\"\n"
    "  exec \"$S\" \"$C\" -c \"$cmd\") >&5 2>&6 5>&- 6>&- 7>&- </dev/null\n"
    " r=$?; [ $r -le 255 ] || r=$((r-128))\n"
    " printf '%s-END-%s %s\\n' \"$P\" \"$t\" $r >&5 && printf '%s-END-%s\\n' \"$P\" \"$t\" >&6 || "
    "exit 0\n"
    " exec 5>&- 6>&-\n"
    "done\n";

struct docker_executor {
    pthread_mutex_t lock;
    sm_http_conn *conn;
    docker_demux dm;
    bool unsupported; /* the image lacks what the helper needs: plain execs only */
    int failures;     /* failed starts in a row */
    long long uses;   /* execs on this handle (the first is a plain exec) */
    char eid[128];    /* the helper's exec: a command's session is led by its child */
};

/* ---------------------------------------------------------------- marker scanning */

/* One stream of one command: before GOT everything is stale (late output of an earlier
 * command's background processes); then output until END (stdout: then the status line). */
typedef struct xscan {
    char got[64], end[64], decline[64];
    size_t glen, elen, dlen; /* dlen 0: no DECLINE on this stream */
    int state;               /* 0 before GOT, 1 output, 2 status digits, 3 done */
    bool declined, status_line;
    sm_strbuf pend; /* bytes that may be the start of a marker */
    char status[16];
    size_t nstatus;
} xscan;

typedef struct xcmd {
    xscan s[2]; /* stdout, stderr */
    docker_run *r;
} xcmd;

/* The length of the longest tail of p that is a proper prefix of needle. */
static size_t partial(const char *p, size_t n, const char *needle, size_t nlen)
{
    size_t k = n < nlen - 1 ? n : nlen - 1;
    for (; k > 0; k--)
        if (!memcmp(p + n - k, needle, k))
            return k;
    return 0;
}

static void scan_init(xscan *s, const char *nonce, bool out)
{
    memset(s, 0, sizeof *s);
    s->glen = (size_t)snprintf(s->got, sizeof s->got, X_PFX "-GOT-%s\n", nonce);
    s->elen = (size_t)snprintf(s->end, sizeof s->end, X_PFX "-END-%s%s", nonce, out ? " " : "\n");
    if (out)
        s->dlen = (size_t)snprintf(s->decline, sizeof s->decline, X_PFX "-DECLINE-%s\n", nonce);
    s->status_line = out;
}

static void scan_feed(xscan *s, docker_run *r, unsigned stream, const char *data, size_t len)
{
    if (s->state == 3)
        return;
    sm_strbuf_append(&s->pend, data, len);
    size_t off = 0;
    while (off < s->pend.len && s->state != 3) {
        const char *p = s->pend.data + off;
        size_t n = s->pend.len - off;
        if (s->state == 0) {
            const char *hit = memmem(p, n, s->got, s->glen);
            const char *dh = s->dlen ? memmem(p, n, s->decline, s->dlen) : NULL;
            if (dh && (!hit || dh < hit)) {
                s->declined = true;
                s->state = 3;
                break;
            }
            if (hit) {
                off += (size_t)(hit - p) + s->glen;
                s->state = 1;
                continue;
            }
            size_t keep = partial(p, n, s->got, s->glen);
            if (s->dlen) {
                size_t k2 = partial(p, n, s->decline, s->dlen);
                keep = k2 > keep ? k2 : keep;
            }
            off += n - keep;
            break;
        }
        if (s->state == 1) {
            const char *hit = memmem(p, n, s->end, s->elen);
            size_t emit = hit ? (size_t)(hit - p) : n - partial(p, n, s->end, s->elen);
            if (emit)
                docker_run_sink(r, stream, p, emit);
            off += emit;
            if (!hit)
                break;
            off += s->elen;
            s->state = s->status_line ? 2 : 3;
            continue;
        }
        /* state 2: the exit status, up to the newline */
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;
        for (size_t i = 0; i < take && s->nstatus + 1 < sizeof s->status; i++)
            s->status[s->nstatus++] = p[i];
        s->status[s->nstatus] = '\0';
        off += nl ? take + 1 : take;
        if (nl)
            s->state = 3;
    }
    size_t rest = s->pend.len - off;
    memmove(s->pend.data, s->pend.data + off, rest);
    s->pend.len = rest;
    s->pend.data[rest] = '\0';
}

static bool xcmd_sink(void *ud, unsigned stream, const char *data, size_t len)
{
    xcmd *x = ud;
    /* stream 3 would be the engine's own error text; it is stderr for a plain exec too */
    scan_feed(&x->s[stream == 2 || stream == 3 ? 1 : 0], x->r, stream == 3 ? 2 : stream, data, len);
    return true;
}

/* ---------------------------------------------------------------- the session */

static void retire(docker_executor *x)
{
    /* Closing the session is enough: the helper's stdin reaches EOF and it exits once the
     * command it may be running has ended. */
    sm_http_conn_close(x->conn);
    x->conn = NULL;
    memset(&x->dm, 0, sizeof x->dm);
}

void docker_executor_free(docker_executor *x)
{
    if (!x)
        return;
    retire(x);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

static bool collect_sink(void *ud, unsigned stream, const char *data, size_t len)
{
    if (stream == 1)
        sm_strbuf_append(ud, data, len);
    return true;
}

/* Starts the helper and waits for its READY (or its reason for declining). */
static int start(docker_provider *dp, const char *cid, docker_executor *x, double wait_s)
{
    char nonce[17], marker[17];
    sm_random_hex(nonce, 16);
    sm_random_hex(marker, 16);
    const char *sh = dp->cfg.keepalive_shell;
    cJSON *body = cJSON_CreateObject();
    cJSON_AddBoolToObject(body, "AttachStdin", true);
    cJSON_AddBoolToObject(body, "AttachStdout", true);
    cJSON_AddBoolToObject(body, "AttachStderr", true);
    cJSON_AddBoolToObject(body, "Tty", false);
    cJSON *cmd = cJSON_AddArrayToObject(body, "Cmd");
    /* the commands' shell: exec.exec_shell, else "" (the helper picks bash or sh) */
    const char *cmd_sh = dp->cfg.exec_shell ? dp->cfg.exec_shell : "";
    const char *argv[] = {sh, "-c", helper_script, "sandman-exec", cmd_sh, nonce};
    for (size_t i = 0; i < SM_ARRAY_LEN(argv); i++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
    cJSON *env = cJSON_AddArrayToObject(body, "Env");
    char *kv = xasprintf("%s=%s", DOCKER_EXEC_MARKER, marker);
    cJSON_AddItemToArray(env, cJSON_CreateString(kv));
    free(kv);
    char *eid = x->eid;
    int rc = docker_exec_create(dp, cid, body, eid, sizeof x->eid, NULL);
    cJSON_Delete(body);
    if (rc != SM_OK)
        return rc;
    char *path = docker_path(dp, NULL, "/exec/%s/start", eid);
    if (!path)
        return SM_ERR_RUNTIME;
    static const char start_body[] = "{\"Detach\":false,\"Tty\":false}";
    int status = 0;
    rc = sm_http_upgrade(dp->http, "POST", path, "tcp", "application/json", start_body,
                         sizeof start_body - 1, wait_s, &x->conn, &status, NULL, NULL);
    free(path);
    if (rc != SM_OK || !x->conn)
        return SM_ERR_RUNTIME;
    sm_strbuf out = {0};
    x->dm = (docker_demux){.sink = collect_sink, .ud = &out};
    double until = sm_now_mono() + wait_s;
    rc = SM_ERR_RUNTIME;
    while (sm_now_mono() < until) {
        char buf[4096];
        size_t got = 0;
        if (sm_http_conn_recv(x->conn, buf, sizeof buf, until - sm_now_mono(), &got, NULL) !=
                SM_OK ||
            got == 0)
            break;
        docker_demux_feed(&x->dm, buf, got);
        if (out.data && strstr(out.data, X_PFX "-READY\n")) {
            rc = SM_OK;
            break;
        }
        if (out.data && strstr(out.data, X_PFX "-NO ") && strchr(strstr(out.data, "-NO "), '\n')) {
            x->unsupported = true; /* the image cannot host it: never again for this handle */
            break;
        }
    }
    sm_strbuf_free(&out);
    x->dm.ud = NULL;
    if (rc != SM_OK)
        retire(x);
    return rc;
}

/* "<nlines>\n" and the lines of s. */
static void put_string(sm_strbuf *b, const char *s)
{
    size_t lines = 0;
    if (s && *s) {
        lines = 1;
        for (const char *p = s; *p; p++)
            lines += *p == '\n';
    }
    sm_strbuf_printf(b, "%zu\n", lines);
    if (lines)
        sm_strbuf_printf(b, "%s\n", s);
}

/* Whether the helper can run this command exactly as a plain exec would. */
static bool eligible(const char *cmd, const docker_run *r)
{
    if (r->user && *r->user)
        return false; /* the helper runs as the container's user */
    if (r->cwd && *r->cwd && r->cwd[0] != '/')
        return false; /* the engine's answer to a relative directory is the reference */
    if (strlen(cmd) > X_MAX_CMD)
        return false;
    for (size_t i = 0; r->env && i < r->env->n; i++) {
        const char *k = r->env->items[i].key;
        if (!*k || k[0] == '-') /* env(1) would read it as an option */
            return false;
    }
    return true;
}

static docker_executor *executor_of(docker_provider *dp, docker_cache *c)
{
    pthread_mutex_lock(&dp->lock);
    if (!c->executor) {
        c->executor = xcalloc(1, sizeof *c->executor);
        pthread_mutex_init(&c->executor->lock, NULL);
    }
    docker_executor *x = c->executor;
    pthread_mutex_unlock(&dp->lock);
    return x;
}

/* Is the container paused or no longer running? (Then the engine, not a session that does not
 * answer, must say what happens to an exec.) */
static bool container_stalled(docker_provider *dp, const char *cid)
{
    cJSON *insp = NULL;
    if (docker_inspect(dp, cid, &insp, NULL) != SM_OK)
        return true;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(insp, "State");
    bool stalled = !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "Running")) ||
                   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "Paused"));
    cJSON_Delete(insp);
    return stalled;
}

static int run_locked(docker_provider *dp, const char *cid, docker_executor *x, const char *cmd,
                      docker_run *r, double t0, sm_error *err)
{
    double deadline = r->timeout_s > 0 ? t0 + r->timeout_s : -1;
    if (!x->conn) {
        /* Starting it costs about one exec: not for a command whose budget is nearly spent. */
        if (deadline > 0 && deadline - sm_now_mono() < X_MIN_BUDGET_S)
            return DOCKER_EXECUTOR_DECLINED;
        double wait = X_START_WAIT_S;
        if (deadline > 0 && deadline - sm_now_mono() < wait)
            wait = deadline - sm_now_mono();
        if (wait < 0.05 || start(dp, cid, x, wait) != SM_OK) {
            if (!x->unsupported && ++x->failures >= X_MAX_FAILS)
                x->unsupported = true;
            return DOCKER_EXECUTOR_DECLINED;
        }
        x->failures = 0;
    }
    char nonce[33], marker[17];
    sm_random_hex(nonce, 32);
    sm_random_hex(marker, 16);
    sm_strbuf frame = {0};
    sm_strbuf_printf(&frame, "%s %s %zu\n", nonce, marker, r->env ? r->env->n : 0);
    put_string(&frame, r->cwd);
    for (size_t i = 0; r->env && i < r->env->n; i++) {
        char *kv = xasprintf("%s=%s", r->env->items[i].key, r->env->items[i].value);
        put_string(&frame, kv);
        free(kv);
    }
    put_string(&frame, cmd);
    int rc = sm_http_conn_send(x->conn, frame.data, frame.len, NULL);
    sm_strbuf_free(&frame);
    if (rc != SM_OK) {
        retire(x);
        return DOCKER_EXECUTOR_DECLINED; /* nothing can have started without a G */
    }
    xcmd xc = {.r = r};
    scan_init(&xc.s[0], nonce, true);
    scan_init(&xc.s[1], nonce, false);
    x->dm.sink = xcmd_sink;
    x->dm.ud = &xc;
    bool go_sent = false, checked = false, eof = false, timed_out = false;
    double got_check = sm_now_mono() + X_GOT_CHECK_S;
    char buf[65536];
    rc = SM_OK;
    for (;;) {
        if (xc.s[0].declined)
            break;
        if (!go_sent && xc.s[0].state >= 1) {
            if (sm_http_conn_send(x->conn, "G\n", 2, NULL) != SM_OK) {
                eof = true;
                break;
            }
            go_sent = true;
        }
        if (xc.s[0].state == 3 && xc.s[1].state == 3)
            break;
        double now = sm_now_mono();
        if (deadline > 0 && now >= deadline) {
            timed_out = true;
            break;
        }
        double wait = deadline > 0 ? deadline - now : -1;
        if (!go_sent && !checked) {
            if (now >= got_check) {
                /* A paused (or ended) container: withdraw the frame; the engine answers. */
                checked = true;
                if (container_stalled(dp, cid))
                    break;
                continue;
            }
            if (wait < 0 || got_check - now < wait)
                wait = got_check - now;
        }
        size_t got = 0;
        int rr = sm_http_conn_recv(x->conn, buf, sizeof buf, wait, &got, NULL);
        if (rr == SM_ERR_TIMEOUT)
            continue;
        if (rr != SM_OK || got == 0) {
            eof = true;
            break;
        }
        docker_demux_feed(&x->dm, buf, got);
    }
    x->dm.ud = NULL;
    if (xc.s[0].declined) {
        rc = DOCKER_EXECUTOR_DECLINED; /* the helper is fine; this command is not for it */
    } else if (!go_sent) {
        /* Nothing ran: the helper gets EOF instead of G. Out of time, or stalled. */
        retire(x);
        if (timed_out)
            r->timed_out = true;
        else
            rc = DOCKER_EXECUTOR_DECLINED;
    } else if (timed_out) {
        r->timed_out = true;
        /* The command may still run inside: end it and everything it started (the helper
         * waits for it, so it is still the parent of the command's session leader). */
        char eid[sizeof x->eid];
        snprintf(eid, sizeof eid, "%s", x->eid);
        retire(x);
        docker_kill_marked(dp, cid, marker, eid, true, SIGKILL, NULL);
    } else if (xc.s[0].state == 3) {
        long code = -1;
        if (sm_parse_long(xc.s[0].status, &code) != 0 || code < 0 || code > 255)
            code = -1;
        r->code = (int)code;
        if (eof || xc.s[1].state != 3 || sm_http_conn_send(x->conn, "A\n", 2, NULL) != SM_OK)
            retire(x); /* its stderr relay was lost (killed); start afresh next time */
        if (code < 0)
            rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                              "the exec helper in %.12s sent a malformed exit status '%s'", cid,
                              xc.s[0].status);
    } else {
        /* The helper died while the command ran (a command that kills it, the OOM killer):
         * the command's exit status is lost. */
        retire(x);
        rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                          "the command's exec session in %.12s ended before it reported an exit "
                          "status (was the session's shell killed?)",
                          cid);
    }
    sm_strbuf_free(&xc.s[0].pend);
    sm_strbuf_free(&xc.s[1].pend);
    return rc;
}

int docker_executor_run(docker_provider *dp, sm_handle *h, const char *cmd, docker_run *r,
                        sm_error *err)
{
    double t0 = sm_now_mono();
    r->code = -1;
    r->timed_out = false;
    if (!eligible(cmd, r))
        return DOCKER_EXECUTOR_DECLINED;
    docker_executor *x = executor_of(dp, docker_cache_of(h));
    /* Busy with another thread's command: that one keeps it, this one takes a plain exec. */
    if (pthread_mutex_trylock(&x->lock) != 0)
        return DOCKER_EXECUTOR_DECLINED;
    int rc = DOCKER_EXECUTOR_DECLINED;
    if (!x->unsupported && x->uses++ > 0)
        rc = run_locked(dp, h->id, x, cmd, r, t0, err);
    pthread_mutex_unlock(&x->lock);
    return rc;
}
