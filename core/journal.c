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
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    free(path);
    int rc = SM_ERR_IO;
    if (fd >= 0) {
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

static void read_lines_into(const char *path, cJSON *arr)
{
    char *text;
    if (sm_read_file(path, &text, NULL) < 0)
        return;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *ev = cJSON_Parse(line);
        if (cJSON_IsObject(ev))
            cJSON_AddItemToArray(arr, ev);
        else
            cJSON_Delete(ev);
    }
    free(text);
}

int sm_journal_read(const char *provider, const char *sandbox_id, cJSON **out)
{
    cJSON *arr = cJSON_CreateArray();
    char *path = sm_journal_path(provider, sandbox_id);
    read_lines_into(path, arr);
    free(path);
    *out = arr;
    return SM_OK;
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

int sm_journal_remove(const char *provider, const char *sandbox_id)
{
    char *path = sm_journal_path(provider, sandbox_id);
    int rc = (unlink(path) == 0 || errno == ENOENT) ? SM_OK : SM_ERR_IO;
    free(path);
    return rc;
}
