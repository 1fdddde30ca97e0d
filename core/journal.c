/* The append-only JSON-lines event journal, one file per sandbox. */
#include "core/journal.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/diagnose.h"
#include "core/error.h"
#include "core/json.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/strtab.h"
#include "core/util.h"

static char *journal_dir(const char *provider)
{
    return xasprintf("%s/journal/%s", sm_state_dir(), provider);
}

char *sm_journal_path(const char *provider, const char *sandbox_id)
{
    return xasprintf("%s/journal/%s/%s.jsonl", sm_state_dir(), provider, sandbox_id);
}

int sm_journal_append(const char *provider, const char *sandbox_id, const char *type,
                      const char *event, cJSON *fields)
{
    cJSON *ev = cJSON_CreateObject();
    char ts[40];
    sm_format_time(sm_now_wall(), ts, sizeof ts);
    cJSON_AddStringToObject(ev, "ts", ts);
    cJSON_AddStringToObject(ev, "type", type);
    cJSON_AddStringToObject(ev, "event", event);
    cJSON_AddStringToObject(ev, "sandbox_id", sandbox_id);
    cJSON_AddStringToObject(ev, "provider", provider);
    if (fields) {
        cJSON *it = fields->child;
        while (it) {
            cJSON *next = it->next;
            cJSON_AddItemToObject(ev, it->string, cJSON_DetachItemViaPointer(fields, it));
            it = next;
        }
        cJSON_Delete(fields);
    }
    char *line = sm_json_print(ev);
    cJSON_Delete(ev);
    char *safe = sm_redact_dup(line);
    free(line);
    size_t n = strlen(safe);
    safe = xrealloc(safe, n + 2);
    safe[n++] = '\n';
    safe[n] = '\0';

    char *dir = journal_dir(provider);
    sm_mkdir_p(dir, 0700);
    free(dir);
    char *path = sm_journal_path(provider, sandbox_id);
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    free(path);
    int rc = SM_ERR_IO;
    if (fd >= 0) {
        /* A line a crash cut short has no newline: end it first so this event stands alone. */
        struct stat st;
        char last = '\n';
        if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
            last != '\n' && write(fd, "\n", 1) != 1)
            last = '\n';
        if (write(fd, safe, n) == (ssize_t)n)
            rc = SM_OK;
        close(fd);
    }
    free(safe);
    return rc;
}

int sm_journal_failure(const char *provider, const char *sandbox_id, const sm_failure *f)
{
    cJSON *fields = cJSON_CreateObject();
    cJSON_AddItemToObject(fields, "failure", sm_failure_to_json(f));
    return sm_journal_append(provider, sandbox_id, "failure",
                             f->operation[0] ? f->operation : "failure", fields);
}

/* One journal line as an event, or NULL. A line that a crash cut short and a later append
 * continued (no newline between them) still yields the later, whole event: every event
 * starts with its "ts" key. */
static cJSON *parse_line(const char *line)
{
    if (!*line)
        return NULL; /* (the search below starts past the first byte: not past the end) */
    cJSON *ev = cJSON_Parse(line);
    if (cJSON_IsObject(ev))
        return ev;
    cJSON_Delete(ev);
    const char *p = line, *last = NULL;
    while ((p = strstr(p + 1, "{\"ts\":")) != NULL)
        last = p;
    ev = last ? cJSON_Parse(last) : NULL;
    if (cJSON_IsObject(ev))
        return ev;
    cJSON_Delete(ev);
    return NULL;
}

/* Adds the events of text's whole lines to arr; skip_first drops a line the window cut. `only`
 * (may be NULL) keeps only lines holding it, unparsed otherwise: a cheap filter. */
static void parse_lines(char *text, bool skip_first, const char *only, cJSON *arr)
{
    char *p = text;
    if (skip_first) {
        char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    while (*p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        cJSON *ev = only && !strstr(p, only) ? NULL : parse_line(p);
        if (ev)
            cJSON_AddItemToArray(arr, ev);
        if (!nl)
            break;
        p = nl + 1;
    }
}

int sm_journal_read(const char *provider, const char *sandbox_id, cJSON **out)
{
    return sm_journal_read_tail(provider, sandbox_id, 0, NULL, out);
}

/* NUL bytes (blocks a crash left unwritten, on some filesystems) break lines like newlines, so
 * the text after them is still read. */
static void nul_to_newline(char *buf, size_t n)
{
    for (char *p = buf; (p = memchr(p, '\0', n - (size_t)(p - buf))) != NULL; p++)
        *p = '\n';
}

/* The last max bytes of fd (all of it when max is 0) into *text; *cut says the window started
 * mid-file. */
static int read_window(int fd, long long size, long long max, char **text, bool *cut)
{
    long long from = max > 0 && size > max ? size - max : 0;
    size_t want = (size_t)(size - from);
    char *buf = xmalloc(want + 1);
    size_t got = 0;
    while (got < want) {
        ssize_t n = pread(fd, buf + got, want - got, from + (long long)got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    nul_to_newline(buf, got);
    *text = buf;
    *cut = from > 0;
    return SM_OK;
}

int sm_journal_read_tail(const char *provider, const char *sandbox_id, long long max_bytes,
                         const char *only, cJSON **out)
{
    cJSON *arr = cJSON_CreateArray();
    *out = arr;
    char *path = sm_journal_path(provider, sandbox_id);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return SM_OK;
    }
    char *text;
    bool cut;
    read_window(fd, (long long)st.st_size, max_bytes, &text, &cut);
    close(fd);
    parse_lines(text, cut, only, arr);
    free(text);
    return SM_OK;
}

/* How far back the last failure is looked for: windows growing from the end, so a journal of
 * any size costs at most this much reading. */
#define TAIL_FIRST (64 * 1024)
#define TAIL_MAX   (4 * 1024 * 1024)

/* The time of the window's first whole line (0 when unreadable). */
static double first_time(const char *text, bool cut)
{
    const char *p = text;
    if (cut) {
        p = strchr(p, '\n');
        if (!p)
            return 0;
        p++;
    }
    char ts[40];
    if (sscanf(p, "{\"ts\":\"%39[^\"]\"", ts) != 1)
        return 0;
    return sm_parse_time(ts);
}

static bool same_failure(const sm_failure *a, const sm_failure *b)
{
    return a->kind == b->kind && a->exit_code == b->exit_code && a->signal == b->signal &&
           !strcmp(a->operation, b->operation) && !strcmp(a->reason, b->reason);
}

static bool is_command(const cJSON *ev)
{
    const char *type = sm_json_str(ev, "type");
    return type && (!strcmp(type, "exec") || !strcmp(type, "transfer"));
}

/* Folds the failures of events (oldest first) into out as the dashboard does, and counts in
 * out->commands_since the commands (exec, transfer) that ran after the one picked; returns its
 * time. */
static double fold_failures(const cJSON *events, sm_failure *out)
{
    double at = 0;
    int since = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
        sm_failure f;
        if (fj)
            sm_failure_from_json(fj, &f);
        if (fj && sm_failure_kind_is_failure(f.kind)) {
            double before = at;
            sm_failure_note(out, &at, &f, sm_parse_time(sm_json_str(ev, "ts")));
            if (at != before || same_failure(out, &f))
                since = 0; /* this one is the last failure now (or said again) */
            else if (is_command(ev))
                since++; /* a weaker failure that did not replace it still ran */
        } else if (is_command(ev)) {
            since++;
        }
    }
    out->commands_since = out->kind != SM_FAIL_NONE ? since : 0;
    return at;
}

bool sm_journal_last_failure(const char *provider, const char *sandbox_id, sm_failure *out)
{
    sm_failure_init(out);
    char *path = sm_journal_path(provider, sandbox_id);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    /* The newest failure wins unless a stronger one came in the minute before it: a window is
     * enough once it holds a failure and reaches a minute further back, or the whole file. */
    for (long long win = TAIL_FIRST;; win *= 4) {
        char *text;
        bool cut;
        read_window(fd, (long long)st.st_size, win, &text, &cut);
        cJSON *events = cJSON_CreateArray();
        double start = first_time(text, cut);
        parse_lines(text, cut, NULL, events); /* every line: commands count too */
        free(text);
        sm_failure_init(out);
        double at = fold_failures(events, out);
        cJSON_Delete(events);
        if (!cut || win >= TAIL_MAX || (out->kind != SM_FAIL_NONE && start > 0 && start < at - 60))
            break;
    }
    close(fd);
    return out->kind != SM_FAIL_NONE;
}

/* Calls fn with the path of every journal file of every provider. */
static void each_journal(void (*fn)(const char *path, void *ud), void *ud)
{
    char *root = xasprintf("%s/journal", sm_state_dir());
    DIR *pd = opendir(root);
    struct dirent *p;
    while (pd && (p = readdir(pd)) != NULL) {
        if (p->d_name[0] == '.')
            continue;
        char *dir = xasprintf("%s/%s", root, p->d_name);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            size_t l = strlen(e->d_name);
            if (l < 7 || strcmp(e->d_name + l - 6, ".jsonl"))
                continue;
            char *path = xasprintf("%s/%s", dir, e->d_name);
            fn(path, ud);
            free(path);
        }
        if (d)
            closedir(d);
        free(dir);
    }
    if (pd)
        closedir(pd);
    free(root);
}

typedef struct followed {
    long long offset;
    char *partial; /* an incomplete last line, completed by the next poll */
} followed;

struct sm_journal_follower {
    size_t backlog;
    bool primed;     /* polled once: a journal that appears later is read from its start */
    sm_strtab files; /* path -> followed */
};

static void free_followed(void *v, void *ud)
{
    followed *f = v;
    free(f->partial);
    free(f);
}

sm_journal_follower *sm_journal_follower_new(size_t backlog)
{
    sm_journal_follower *f = xcalloc(1, sizeof *f);
    f->backlog = backlog;
    sm_strtab_init(&f->files, free_followed, NULL);
    return f;
}

void sm_journal_follower_free(sm_journal_follower *f)
{
    if (!f)
        return;
    sm_strtab_clear(&f->files);
    free(f);
}

static void read_new(sm_journal_follower *jf, const char *path, long long size, cJSON *out)
{
    followed *f = sm_strtab_get(&jf->files, path);
    bool first = !f;
    if (!f) {
        f = xcalloc(1, sizeof *f);
        sm_strtab_put(&jf->files, path, f);
        f->offset =
            !jf->primed && size > (long long)jf->backlog ? size - (long long)jf->backlog : 0;
    }
    if (size < f->offset) { /* replaced or truncated: start over */
        f->offset = 0;
        free(f->partial);
        f->partial = NULL;
    }
    if (size == f->offset)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t want = (size_t)(size - f->offset);
    char *buf = xmalloc(want + 1);
    ssize_t n = pread(fd, buf, want, f->offset);
    close(fd);
    if (n <= 0) {
        free(buf);
        return;
    }
    buf[n] = '\0';
    nul_to_newline(buf, (size_t)n);
    f->offset += n;
    char *start = buf;
    if (first && f->offset - n > 0) { /* started mid-file: skip to the first whole line */
        char *nl = strchr(buf, '\n');
        start = nl ? nl + 1 : buf + n;
    }
    sm_strbuf line = {0};
    if (f->partial)
        sm_strbuf_puts(&line, f->partial);
    free(f->partial);
    f->partial = NULL;
    for (char *p = start; *p;) {
        char *nl = strchr(p, '\n');
        if (!nl) {
            sm_strbuf_puts(&line, p);
            f->partial = sm_strbuf_take(&line);
            break;
        }
        sm_strbuf_append(&line, p, (size_t)(nl - p));
        cJSON *ev = parse_line(line.data ? line.data : "");
        if (ev)
            cJSON_AddItemToArray(out, ev);
        sm_strbuf_reset(&line);
        p = nl + 1;
    }
    sm_strbuf_free(&line);
    free(buf);
}

typedef struct poll_ctx {
    sm_journal_follower *jf;
    cJSON *out;
    const char **seen;
    size_t nseen, capseen;
} poll_ctx;

static void poll_one(const char *path, void *ud)
{
    poll_ctx *c = ud;
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    read_new(c->jf, path, (long long)st.st_size, c->out);
    if (c->nseen == c->capseen) {
        c->capseen = c->capseen ? c->capseen * 2 : 64;
        c->seen = xrealloc(c->seen, c->capseen * sizeof *c->seen);
    }
    c->seen[c->nseen++] = xstrdup(path);
}

typedef struct timed_event {
    double t;
    size_t seq; /* keeps the order of equal times (a file's own order) */
    cJSON *ev;
} timed_event;

static int cmp_timed(const void *pa, const void *pb)
{
    const timed_event *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Files are read one after the other: put the events of every sandbox in time order. */
static void sort_by_time(cJSON *arr)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), k = 0;
    if (n < 2)
        return;
    timed_event *v = xcalloc(n, sizeof *v);
    cJSON *ev;
    while ((ev = cJSON_DetachItemFromArray(arr, 0)) != NULL && k < n) {
        v[k] = (timed_event){sm_parse_time(sm_json_str(ev, "ts")), k, ev};
        k++;
    }
    qsort(v, k, sizeof *v, cmp_timed);
    for (size_t i = 0; i < k; i++)
        cJSON_AddItemToArray(arr, v[i].ev);
    free(v);
}

cJSON *sm_journal_follower_poll(sm_journal_follower *jf)
{
    poll_ctx c = {.jf = jf, .out = cJSON_CreateArray()};
    each_journal(poll_one, &c);
    jf->primed = true;
    cJSON *out = c.out;
    const char **seen = c.seen;
    size_t nseen = c.nseen;
    sm_strtab_retain(&jf->files, seen, nseen);
    for (size_t i = 0; i < nseen; i++)
        free((char *)seen[i]);
    free(seen);
    if (cJSON_GetArraySize(out) == 0) {
        cJSON_Delete(out);
        return NULL;
    }
    sort_by_time(out);
    return out;
}

void sm_journal_event_summary(const cJSON *ev, char *buf, size_t len)
{
    const char *type = sm_json_str(ev, "type"), *event = sm_json_str(ev, "event");
    const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
    char label[160] = "", evid[512] = "", dur[24] = "";
    sm_failure f;
    sm_failure_init(&f);
    if (fj) {
        sm_failure_from_json(fj, &f);
        sm_failure_label(&f, label, sizeof label);
        sm_failure_evidence(&f, evid, sizeof evid);
    }
    double ms = sm_json_num(ev, "duration_ms", -1);
    if (ms >= 0)
        sm_format_duration(ms / 1000.0, dur, sizeof dur);
    if (type && !strcmp(type, "exec")) {
        const char *cmd = sm_json_str(ev, "cmd");
        size_t ll = strlen(label);
        if (label[0] && !strncmp(f.reason, label, ll) && !strncmp(f.reason + ll, ": ", 2))
            /* the reason names the last stderr line: "exit 1: ModuleNotFoundError: ..." */
            snprintf(buf, len, "%s in %s: %s - %s", label, dur, cmd ? cmd : "", f.reason + ll + 2);
        else if (label[0])
            snprintf(buf, len, "%s in %s: %s", label, dur, cmd ? cmd : "");
        else /* %.0f: a damaged record's code may be any number, even one no int holds */
            snprintf(buf, len, "exit %.0f in %s: %s", sm_json_num(ev, "return_code", 0), dur,
                     cmd ? cmd : "");
    } else if (type && !strcmp(type, "transfer")) {
        char size[24] = "";
        double bytes = sm_json_num(ev, "bytes", -1);
        if (bytes >= 0)
            sm_format_bytes(bytes, size, sizeof size);
        bool up = event && !strcmp(event, "upload");
        snprintf(buf, len, "%s %s -> %s%s%s%s", event ? event : "",
                 up ? sm_json_str(ev, "local") : sm_json_str(ev, "remote"),
                 up ? sm_json_str(ev, "remote") : sm_json_str(ev, "local"), size[0] ? " (" : "",
                 size, size[0] ? ")" : "");
    } else if (fj) {
        snprintf(buf, len, "%s%s%s%s%s", event ? event : "", label[0] ? ": " : "", label,
                 evid[0] ? " - " : "", evid);
        /* the reason when there is no evidence, or when it names the last stderr line */
        if (f.reason[0] && (!evid[0] || strstr(f.reason, ": "))) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, " - %s", f.reason);
        }
    } else {
        snprintf(buf, len, "%s%s%s", event ? event : "", dur[0] ? " in " : "", dur);
    }
}

int sm_journal_remove(const char *provider, const char *sandbox_id)
{
    char *path = sm_journal_path(provider, sandbox_id);
    int rc = (unlink(path) == 0 || errno == ENOENT) ? SM_OK : SM_ERR_IO;
    free(path);
    return rc;
}
