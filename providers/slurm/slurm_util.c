/* The slurm provider's plumbing: running Slurm's clients and the node-side sandman as child
 * processes (capturing or passing their output), and reading the sandbox record. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "providers/slurm/slurm.h"

extern char **environ;

#define SLURM_OUT_CAP (16u << 20)

static void append(char **buf, size_t *len, const char *data, size_t n)
{
    if (*len + n > SLURM_OUT_CAP)
        n = SLURM_OUT_CAP - *len;
    *buf = xrealloc(*buf, *len + n + 1);
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static char **child_env(char *const extra[])
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (extra && extra[k])
        k++;
    char **env = xcalloc(n + k + 1, sizeof *env);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        bool shadowed = false;
        const char *eq = strchr(environ[i], '=');
        size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        for (size_t j = 0; j < k && !shadowed; j++)
            shadowed = !strncmp(extra[j], environ[i], kl) && extra[j][kl] == '=';
        if (!shadowed)
            env[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        env[m++] = extra[j];
    return env;
}

int slurm_run(char *const argv[], char *const env[], int in_fd, int out_fd, int err_fd,
              slurm_out *o)
{
    memset(o, 0, sizeof *o);
    o->status = -1;
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    if ((out_fd < 0 && pipe2(po, O_CLOEXEC) < 0) || (err_fd < 0 && pipe2(pe, O_CLOEXEC) < 0))
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd >= 0 ? out_fd : po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_fd >= 0 ? err_fd : pe[1], 2);
    char **envp = child_env(env);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (po[1] >= 0)
        close(po[1]);
    if (pe[1] >= 0)
        close(pe[1]);
    if (rc != 0) {
        if (po[0] >= 0)
            close(po[0]);
        if (pe[0] >= 0)
            close(pe[0]);
        append(&o->err, &o->err_len, "cannot run ", 11);
        append(&o->err, &o->err_len, argv[0], strlen(argv[0]));
        return -1;
    }
    struct pollfd pf[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    char buf[65536];
    while (pf[0].fd >= 0 || pf[1].fd >= 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            ssize_t r = read(pf[i].fd, buf, sizeof buf);
            if (r > 0) {
                if (i == 0)
                    append(&o->out, &o->out_len, buf, (size_t)r);
                else
                    append(&o->err, &o->err_len, buf, (size_t)r);
            } else if (r == 0 || errno != EINTR) {
                close(pf[i].fd);
                pf[i].fd = -1;
            }
        }
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (!o->out)
        o->out = xstrdup("");
    if (!o->err)
        o->err = xstrdup("");
    return o->status;
}

void slurm_out_free(slurm_out *o)
{
    free(o->out);
    free(o->err);
    memset(o, 0, sizeof *o);
}

char *slurm_rec_dir(const slurm_provider *sp, const char *id)
{
    return xasprintf("%s/slurm/%s", sp->state_dir, id);
}

char *slurm_rec_read(const char *dir, const char *name)
{
    char *path = xasprintf("%s/%s", dir, name), *text = NULL;
    size_t len = 0;
    int rc = sm_read_file(path, &text, &len);
    free(path);
    if (rc < 0)
        return NULL;
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    return text;
}

bool slurm_rec_has(const char *dir, const char *name)
{
    char *path = xasprintf("%s/%s", dir, name);
    struct stat st;
    bool has = stat(path, &st) == 0;
    free(path);
    return has;
}

long slurm_rec_jobid(const char *dir)
{
    char *text = slurm_rec_read(dir, "meta.json");
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "job_id");
    long id = cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
    cJSON_Delete(j);
    return id;
}
