/* Kept output of a sandbox's commands and entrypoint (the layout is in output.h). */
#include "core/output.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/json.h"
#include "core/redact.h"
#include "core/util.h"

long long sm_output_cap(void)
{
    const char *v = getenv("SANDMAN_OUTPUT_CAP");
    char *end = NULL;
    long long n = v ? strtoll(v, &end, 10) : 0;
    if (end && (*end == 'k' || *end == 'K'))
        n *= 1024;
    else if (end && (*end == 'm' || *end == 'M'))
        n *= 1024 * 1024;
    return n >= 1024 && n <= (1LL << 30) ? n : SM_OUTPUT_DEFAULT_CAP;
}

void sm_output_tail_init(sm_output_tail *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->cap = cap;
}

void sm_output_tail_feed(sm_output_tail *t, const char *buf, size_t n)
{
    if (n >= t->cap) { /* only its end can stay */
        t->dropped += (long long)(t->len + n - t->cap);
        buf += n - t->cap;
        n = t->cap;
        t->len = 0;
    }
    if (!t->data)
        t->data = xmalloc(2 * t->cap + 1);
    if (t->len + n > 2 * t->cap) { /* compact to the last cap bytes now and then */
        size_t drop = t->len + n - t->cap;
        memmove(t->data, t->data + drop, t->len - drop);
        t->len -= drop;
        t->dropped += (long long)drop;
    }
    memcpy(t->data + t->len, buf, n);
    t->len += n;
    t->data[t->len] = '\0';
}

void sm_output_tail_free(sm_output_tail *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

void sm_output_entry_free(sm_output_entry *e)
{
    free(e->cmd);
    free(e->out);
    free(e->err);
    memset(e, 0, sizeof *e);
}

static char *dir_of(const char *provider, const char *id)
{
    return xasprintf("%s/output/%s/%s", sm_state_dir(), provider, id);
}

/* The kept text of a tail: its last cap bytes, redacted. */
static char *tail_text(const sm_output_tail *t, long long *dropped)
{
    if (!t || !t->data)
        return xstrdup("");
    size_t from = t->len > t->cap ? t->len - t->cap : 0;
    *dropped += t->dropped + (long long)from;
    return sm_redact_dup(t->data + from);
}

/* Numbers of the kept execs, ascending; *out malloc'd. */
static size_t exec_numbers(const char *dir, int **out)
{
    *out = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int num;
        char tail[8];
        if (sscanf(e->d_name, "exec-%d.jso%1s", &num, tail) != 2 || num < 1)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            *out = xrealloc(*out, cap * sizeof **out);
        }
        (*out)[n++] = num;
    }
    if (d)
        closedir(d);
    for (size_t i = 1; i < n; i++) /* a few dozen: insertion sort */
        for (size_t j = i; j > 0 && (*out)[j - 1] > (*out)[j]; j--) {
            int t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    return n;
}

int sm_output_keep_exec(const char *provider, const char *id, const char *cmd, double started,
                        double duration_ms, int return_code, const sm_output_tail *out,
                        const sm_output_tail *err)
{
    char *dir = dir_of(provider, id);
    if (sm_mkdir_p(dir, 0700) < 0) {
        free(dir);
        return -1;
    }
    int *nums;
    size_t cnt = exec_numbers(dir, &nums);
    int next = cnt ? nums[cnt - 1] + 1 : 1;
    for (size_t i = 0; cnt + 1 > SM_OUTPUT_KEEP && i < cnt + 1 - SM_OUTPUT_KEEP; i++) {
        char *old = xasprintf("%s/exec-%06d.json", dir, nums[i]);
        unlink(old);
        free(old);
    }
    free(nums);

    cJSON *o = cJSON_CreateObject();
    char ts[40];
    sm_format_time(started, ts, sizeof ts);
    cJSON_AddStringToObject(o, "ts", ts);
    cJSON_AddStringToObject(o, "cmd", cmd);
    cJSON_AddNumberToObject(o, "return_code", return_code);
    cJSON_AddNumberToObject(o, "duration_ms", duration_ms);
    long long dropped = 0;
    char *so = tail_text(out, &dropped), *se = tail_text(err, &dropped);
    cJSON_AddStringToObject(o, "stdout", so);
    cJSON_AddStringToObject(o, "stderr", se);
    cJSON_AddNumberToObject(o, "dropped", (double)dropped);
    free(so);
    free(se);
    int rc = -1;
    /* Another process may keep one at the same moment: the next free number wins. */
    for (int tries = 0; tries < 16 && rc < 0; tries++, next++) {
        cJSON_DeleteItemFromObject(o, "n");
        cJSON_AddNumberToObject(o, "n", next);
        char *text = sm_json_print(o);
        char *red = sm_redact_dup(text); /* the command line too */
        free(text);
        char *path = xasprintf("%s/exec-%06d.json", dir, next);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        free(path);
        if (fd >= 0) {
            rc = sm_write_all(fd, red, strlen(red)) == 0 ? next : -1;
            if (close(fd) < 0)
                rc = -1;
            free(red);
            break;
        }
        free(red);
        if (errno != EEXIST)
            break;
    }
    cJSON_Delete(o);
    free(dir);
    return rc;
}

static void entry_from_json(const cJSON *j, sm_output_entry *e, bool text)
{
    e->n = (int)sm_json_num(j, "n", 0);
    e->ts = sm_parse_time(sm_json_str(j, "ts"));
    e->duration_ms = sm_json_num(j, "duration_ms", -1);
    e->return_code = (int)sm_json_num(j, "return_code", -1);
    const char *cmd = sm_json_str(j, "cmd");
    e->cmd = xstrdup(cmd ? cmd : "");
    e->dropped = (long long)sm_json_num(j, "dropped", 0);
    if (text) {
        const char *o = sm_json_str(j, "stdout"), *r = sm_json_str(j, "stderr");
        e->out = xstrdup(o ? o : "");
        e->err = xstrdup(r ? r : "");
        e->out_len = strlen(e->out);
        e->err_len = strlen(e->err);
    }
}

static int load_exec(const char *dir, int n, sm_output_entry *e, bool text)
{
    char *path = xasprintf("%s/exec-%06d.json", dir, n), *body;
    int rc = sm_read_file(path, &body, NULL);
    free(path);
    if (rc < 0)
        return SM_ERR_NOT_FOUND;
    cJSON *j = cJSON_Parse(body);
    free(body);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return SM_ERR_NOT_FOUND; /* cut short by a crash: as if it was not kept */
    }
    entry_from_json(j, e, text);
    e->n = n;
    cJSON_Delete(j);
    return SM_OK;
}

/* The entrypoint's log: both files, the last cap bytes from a line start, redacted. */
static int load_entry(const char *dir, sm_output_entry *e, bool text)
{
    char *cur = xasprintf("%s/entry.log", dir), *old = xasprintf("%s.1", cur);
    struct stat st;
    int rc = stat(cur, &st) == 0 ? SM_OK : SM_ERR_NOT_FOUND;
    memset(e, 0, sizeof *e);
    if (rc == SM_OK) {
        e->n = 0;
        e->ts = (double)st.st_mtime;
        e->duration_ms = -1;
        e->return_code = -1;
        e->cmd = xstrdup("(entrypoint)");
        if (text) {
            char *a = NULL, *b = NULL;
            size_t al = 0, bl = 0;
            if (sm_read_file(old, &a, &al) < 0)
                a = xstrdup(""), al = 0;
            if (sm_read_file(cur, &b, &bl) < 0)
                b = xstrdup(""), bl = 0;
            size_t cap = (size_t)sm_output_cap(), all = al + bl;
            char *joined = xmalloc(all + 1);
            memcpy(joined, a, al);
            memcpy(joined + al, b, bl);
            joined[all] = '\0';
            size_t from = all > cap ? all - cap : 0;
            if (from > 0) {
                char *nl = memchr(joined + from, '\n', all - from);
                from = nl ? (size_t)(nl + 1 - joined) : from;
            }
            e->dropped = (long long)from;
            e->out = sm_redact_dup(joined + from);
            e->out_len = strlen(e->out);
            e->err = xstrdup("");
            free(a);
            free(b);
            free(joined);
        }
    }
    free(cur);
    free(old);
    return rc;
}

int sm_output_list(const char *provider, const char *id, sm_output_entry **out, size_t *n)
{
    char *dir = dir_of(provider, id);
    int *nums;
    size_t cnt = exec_numbers(dir, &nums), k = 0;
    *out = xcalloc(cnt + 1, sizeof **out);
    if (load_entry(dir, &(*out)[k], false) == SM_OK)
        k++;
    for (size_t i = 0; i < cnt; i++)
        if (load_exec(dir, nums[i], &(*out)[k], false) == SM_OK)
            k++;
    *n = k;
    free(nums);
    free(dir);
    return SM_OK;
}

int sm_output_read(const char *provider, const char *id, int n, sm_output_entry *out)
{
    memset(out, 0, sizeof *out);
    char *dir = dir_of(provider, id);
    int rc;
    if (n == 0) {
        rc = load_entry(dir, out, true);
    } else {
        if (n < 0) {
            int *nums;
            size_t cnt = exec_numbers(dir, &nums);
            n = cnt ? nums[cnt - 1] : 0;
            free(nums);
        }
        rc = n > 0 ? load_exec(dir, n, out, true) : SM_ERR_NOT_FOUND;
    }
    free(dir);
    return rc;
}

/* Appends the bytes of path from offset on to buf; returns how many. */
static size_t read_from(const char *path, long long offset, char **buf, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t added = 0;
    char chunk[16384];
    ssize_t r;
    while ((r = pread(fd, chunk, sizeof chunk, offset + (long long)added)) > 0) {
        *buf = xrealloc(*buf, *len + (size_t)r + 1);
        memcpy(*buf + *len, chunk, (size_t)r);
        *len += (size_t)r;
        (*buf)[*len] = '\0';
        added += (size_t)r;
    }
    close(fd);
    return added;
}

size_t sm_output_follow_entry(const char *provider, const char *id, long long *offset,
                              unsigned long long *inode, char **buf, size_t *len)
{
    char *dir = dir_of(provider, id);
    char *cur = xasprintf("%s/entry.log", dir), *old = xasprintf("%s.1", cur);
    free(dir);
    size_t start = *len, added = 0;
    struct stat st;
    if (stat(cur, &st) == 0) {
        if (*inode && *inode != (unsigned long long)st.st_ino) {
            /* rotated: the rest of the file we were reading is entry.log.1 now */
            struct stat so;
            if (stat(old, &so) == 0 && (unsigned long long)so.st_ino == *inode)
                added += read_from(old, *offset, buf, len);
            *offset = 0;
        }
        *inode = (unsigned long long)st.st_ino;
        size_t got = read_from(cur, *offset, buf, len);
        *offset += (long long)got;
        added += got;
    }
    free(cur);
    free(old);
    if (added) { /* redacted in place of what was appended */
        char *red = sm_redact_dup(*buf + start);
        size_t rl = strlen(red);
        *buf = xrealloc(*buf, start + rl + 1);
        memcpy(*buf + start, red, rl + 1);
        *len = start + rl;
        free(red);
        added = rl;
    }
    return added;
}

int sm_output_remove(const char *provider, const char *id)
{
    char *dir = dir_of(provider, id);
    int rc = sm_rm_rf(dir) == 0 ? SM_OK : SM_ERR_IO;
    free(dir);
    return rc;
}

void sm_output_put_entry(const char *provider, const char *id, const char *text, size_t len)
{
    char *dir = dir_of(provider, id);
    if (sm_mkdir_p(dir, 0700) < 0) {
        free(dir);
        return;
    }
    char *raw = xstrndup(text, len), *red = sm_redact_dup(raw);
    size_t rlen = strlen(red);
    char *path = xasprintf("%s/entry.log", dir), *kept = NULL;
    size_t klen = 0;
    if (sm_read_file(path, &kept, &klen) < 0)
        klen = 0;
    if (kept && klen <= rlen && !memcmp(kept, red, klen)) {
        if (rlen > klen) { /* only the new part, so a follower's offset stays right */
            int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (fd >= 0) {
                sm_write_all(fd, red + klen, rlen - klen);
                close(fd);
            }
        }
    } else if (rlen) { /* the runtime's copy moved on (cut at its start): replace ours */
        sm_write_file_atomic(path, red, rlen, 0600);
    }
    free(kept);
    free(path);
    free(red);
    free(raw);
    free(dir);
}
