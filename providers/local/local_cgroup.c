/* Cgroups for local sandboxes: detects v1/hybrid or pure v2 at run time, creates one cgroup
 * per sandbox under the cgroup sandman itself runs in (never outside that subtree), writes
 * cpu/memory/pids limits, and reads the counters behind stats and failure attribution. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "core/util.h"
#include "providers/local/cgfs.h"
#include "providers/local/local.h"

static const char *const v1_names[CG__COUNT] = {"memory", "cpu", "cpuacct", "pids", "blkio", NULL};

/* Finds the mount point of each hierarchy in /proc/self/mountinfo. */
static void find_mounts(char *mounts[CG__COUNT])
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0) {
        char *sep = strstr(line, " - ");
        if (!sep)
            continue;
        char mnt[4096], fstype[64], src[256], opts[1024];
        char *fields = line;
        /* 5th field is the mount point */
        char *save = NULL, *tok = strtok_r(fields, " ", &save);
        for (int i = 1; tok && i < 5; i++)
            tok = strtok_r(NULL, " ", &save);
        if (!tok)
            continue;
        snprintf(mnt, sizeof mnt, "%s", tok);
        if (sscanf(sep + 3, "%63s %255s %1023s", fstype, src, opts) != 3)
            continue;
        if (!strcmp(fstype, "cgroup2")) {
            if (!mounts[CG_UNIFIED])
                mounts[CG_UNIFIED] = xstrdup(mnt);
        } else if (!strcmp(fstype, "cgroup")) {
            for (int c = 0; c < CG_UNIFIED; c++) {
                char *o, *s2 = NULL, buf[1024];
                snprintf(buf, sizeof buf, "%s", opts);
                for (o = strtok_r(buf, ",", &s2); o; o = strtok_r(NULL, ",", &s2))
                    if (!strcmp(o, v1_names[c]) && !mounts[c])
                        mounts[c] = xstrdup(mnt);
            }
        }
    }
    free(line);
    if (f)
        fclose(f);
}

/* Our own cgroup path in each hierarchy, from /proc/self/cgroup. */
static void find_self(char *self[CG__COUNT])
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (f && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[n - 1] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *ctrls = c1 + 1, *path = c2 + 1;
        if (!*ctrls) {
            if (!self[CG_UNIFIED])
                self[CG_UNIFIED] = xstrdup(path);
            continue;
        }
        for (int c = 0; c < CG_UNIFIED; c++) {
            char buf[256], *s2 = NULL;
            snprintf(buf, sizeof buf, "%s", ctrls);
            for (char *o = strtok_r(buf, ",", &s2); o; o = strtok_r(NULL, ",", &s2))
                if (!strcmp(o, v1_names[c]) && !self[c])
                    self[c] = xstrdup(path);
        }
    }
    free(line);
    if (f)
        fclose(f);
}

void local_cg_detect(local_cg_layout *cg)
{
    memset(cg, 0, sizeof *cg);
    char *mounts[CG__COUNT] = {0}, *self[CG__COUNT] = {0};
    find_mounts(mounts);
    find_self(self);
    struct statfs sf;
    bool pure_v2 = statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
    for (int c = 0; c < CG__COUNT; c++) {
        bool usable = mounts[c] && self[c] && (c == CG_UNIFIED || !pure_v2);
        if (usable) {
            const char *s = strcmp(self[c], "/") ? self[c] : "";
            cg->base[c] = xasprintf("%s%s/sandman", mounts[c], s);
        }
        free(mounts[c]);
        free(self[c]);
    }
    cg->version = pure_v2 ? 2 : (cg->base[CG_MEMORY] ? 1 : 0);
    /* Writable means this user may create the sandman/ group (or it exists and is ours). */
    const char *probe = cg->base[cg->version == 2 ? CG_UNIFIED : CG_MEMORY];
    if (probe && access(probe, W_OK) != 0) {
        char *parent = xstrdup(probe);
        char *slash = strrchr(parent, '/');
        if (slash)
            *slash = '\0';
        if (access(probe, F_OK) == 0 || access(parent, W_OK) != 0)
            cg->note = xasprintf("cgroups are not writable by this user (%s)", parent);
        free(parent);
    }
    if (cg->version == 0 && cg->base[CG_UNIFIED])
        cg->version = 2;
    if (cg->version == 0)
        cg->note = xstrdup("no usable cgroup hierarchy is mounted");
    if (cg->version == 1 && !cg->base[CG_MEMORY] && !cg->note)
        cg->note = xstrdup("the v1 memory controller is not mounted");
}

void local_cg_layout_free(local_cg_layout *cg)
{
    for (int c = 0; c < CG__COUNT; c++)
        free(cg->base[c]);
    free(cg->note);
    memset(cg, 0, sizeof *cg);
}

static int put(const char *dir, const char *file, const char *value, char **note)
{
    char *path = xasprintf("%s/%s", dir, file);
    int rc = sm_write_str(path, value);
    if (rc < 0 && note && !*note)
        *note = xasprintf("cannot write %s: %s", path, strerror(errno));
    free(path);
    return rc;
}

/* Pure v2: enable the controllers we need on every level from our cgroup down to sandman/. */
static int v2_enable_controllers(const char *sandman_dir, char **note)
{
    char *parent = xstrdup(sandman_dir);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    int rc = 0;
    const char *levels[2] = {parent, sandman_dir};
    for (int i = 0; i < 2 && rc == 0; i++) {
        char avail[256] = "";
        char *path = xasprintf("%s/cgroup.controllers", levels[i]);
        sm_read_small(path, avail, sizeof avail);
        free(path);
        char want[128] = "";
        size_t used = 0;
        static const char *ctl[] = {"cpu", "memory", "pids", "io"};
        for (size_t k = 0; k < SM_ARRAY_LEN(ctl); k++)
            if (strstr(avail, ctl[k]))
                used += (size_t)snprintf(want + used, sizeof want - used, "%s+%s", used ? " " : "",
                                         ctl[k]);
        if (!used)
            continue;
        char *sub = xasprintf("%s/cgroup.subtree_control", levels[i]);
        if (sm_write_str(sub, want) < 0) {
            *note = xasprintf("cannot enable controllers in %s: %s", sub, strerror(errno));
            rc = -1;
        }
        free(sub);
    }
    free(parent);
    return rc;
}

void local_cg_create(const local_provider *lp, const char *id, const sm_resources *res,
                     local_cgroups *out, char **note)
{
    const local_cg_layout *cg = &lp->cg;
    memset(out, 0, sizeof *out);
    out->version = cg->version;
    *note = cg->note ? xstrdup(cg->note) : NULL;
    if (cg->version == 0 || cg->note)
        return;
    for (int c = 0; c < CG__COUNT; c++) {
        if (!cg->base[c])
            continue;
        /* v1 may co-mount cpu and cpuacct: one directory serves both. */
        for (int prev = 0; prev < c && !out->dir[c]; prev++)
            if (cg->base[prev] && !strcmp(cg->base[prev], cg->base[c]) && out->dir[prev])
                out->dir[c] = xstrdup(out->dir[prev]);
        if (out->dir[c])
            continue;
        if (sm_mkdir_p(cg->base[c], 0755) < 0 ||
            (cg->version == 2 && c == CG_UNIFIED && v2_enable_controllers(cg->base[c], note))) {
            if (!*note)
                *note = xasprintf("cannot create cgroup %s: %s", cg->base[c], strerror(errno));
            continue;
        }
        char *d = xasprintf("%s/%s", cg->base[c], id);
        if (mkdir(d, 0755) < 0 && errno != EEXIST) {
            if (!*note)
                *note = xasprintf("cannot create cgroup %s: %s", d, strerror(errno));
            free(d);
            continue;
        }
        out->dir[c] = d;
    }
    char buf[64];
    if (cg->version == 2) {
        const char *d = out->dir[CG_UNIFIED];
        if (!d)
            return;
        if (res->set & SM_RES_MEMORY) {
            snprintf(buf, sizeof buf, "%lld", (long long)res->memory_mib << 20);
            put(d, "memory.max", buf, note);
            put(d, "memory.swap.max", "0", NULL);
        }
        if (res->set & SM_RES_CPU) {
            snprintf(buf, sizeof buf, "%lld 100000", (long long)(res->cpu * 100000.0));
            put(d, "cpu.max", buf, note);
        }
        snprintf(buf, sizeof buf, "%ld", lp->pids_limit);
        if (lp->pids_limit > 0)
            put(d, "pids.max", buf, note);
        return;
    }
    if ((res->set & SM_RES_MEMORY) && out->dir[CG_MEMORY]) {
        snprintf(buf, sizeof buf, "%lld", (long long)res->memory_mib << 20);
        put(out->dir[CG_MEMORY], "memory.limit_in_bytes", buf, note);
    }
    if ((res->set & SM_RES_CPU) && out->dir[CG_CPU]) {
        put(out->dir[CG_CPU], "cpu.cfs_period_us", "100000", note);
        snprintf(buf, sizeof buf, "%lld", (long long)(res->cpu * 100000.0));
        put(out->dir[CG_CPU], "cpu.cfs_quota_us", buf, note);
    }
    if (lp->pids_limit > 0 && out->dir[CG_PIDS]) {
        snprintf(buf, sizeof buf, "%ld", lp->pids_limit);
        put(out->dir[CG_PIDS], "pids.max", buf, note);
    }
}

void local_cg_remove(const local_cgroups *cg)
{
    for (int c = 0; c < CG__COUNT; c++)
        if (cg->dir[c])
            cgfs_kill_all(cg->dir[c]);
    for (int c = 0; c < CG__COUNT; c++)
        if (cg->dir[c])
            cgfs_remove(cg->dir[c]);
}

void local_cg_free(local_cgroups *cg)
{
    for (int c = 0; c < CG__COUNT; c++)
        free(cg->dir[c]);
    memset(cg, 0, sizeof *cg);
}

long long local_cg_memory_limit(const local_cgroups *cg)
{
    long long lim = cg->version == 2 ? cgfs_read_num(cg->dir[CG_UNIFIED], "memory.max")
                                     : cgfs_read_num(cg->dir[CG_MEMORY], "memory.limit_in_bytes");
    return (lim < 0 || lim >= (1LL << 62)) ? -1 : lim;
}

void local_cg_counters(const local_cgroups *cg, long long *oom, long long *pids_events)
{
    if (cg->version == 2) {
        *oom = cgfs_read_key(cg->dir[CG_UNIFIED], "memory.events", "oom_kill");
        *pids_events = cgfs_read_key(cg->dir[CG_UNIFIED], "pids.events", "max");
    } else {
        *oom = cgfs_read_key(cg->dir[CG_MEMORY], "memory.oom_control", "oom_kill");
        *pids_events = cgfs_read_key(cg->dir[CG_PIDS], "pids.events", "max");
    }
}

static const struct {
    int ctrl;
    const char *name;
} v1_files[CGF__COUNT] =
    {
        [CGF_CPUACCT] = {CG_CPUACCT, "cpuacct.usage"},
        [CGF_CPU_STAT] = {CG_CPU, "cpu.stat"},
        [CGF_MEM_USAGE] = {CG_MEMORY, "memory.usage_in_bytes"},
        [CGF_MEM_STAT] = {CG_MEMORY, "memory.stat"},
        [CGF_MEM_EVENTS] = {CG_MEMORY, "memory.oom_control"},
        [CGF_PIDS] = {CG_PIDS, "pids.current"},
        [CGF_PIDS_EVENTS] = {CG_PIDS, "pids.events"},
        [CGF_IO] = {CG_BLKIO, "blkio.throttle.io_service_bytes_recursive"},
},
  v2_files[CGF__COUNT] = {
      [CGF_CPUACCT] = {CG_UNIFIED, NULL},
      [CGF_CPU_STAT] = {CG_UNIFIED, "cpu.stat"},
      [CGF_MEM_USAGE] = {CG_UNIFIED, "memory.current"},
      [CGF_MEM_STAT] = {CG_UNIFIED, "memory.stat"},
      [CGF_MEM_EVENTS] = {CG_UNIFIED, "memory.events"},
      [CGF_PIDS] = {CG_UNIFIED, "pids.current"},
      [CGF_PIDS_EVENTS] = {CG_UNIFIED, "pids.events"},
      [CGF_IO] = {CG_UNIFIED, "io.stat"},
};

void local_cg_files_close(local_cg_files *f)
{
    for (int i = 0; i < CGF__COUNT; i++)
        if (f->fd[i] > 0)
            close(f->fd[i]);
    memset(f, 0, sizeof *f);
}

/* Reads one counter file into buf: through a kept descriptor when f is given, else by path.
 * Returns false when the file does not exist here. */
static bool read_counter(const local_cgroups *cg, local_cg_files *f, int which, char *buf,
                         size_t len)
{
    const char *name = (cg->version == 2 ? v2_files : v1_files)[which].name;
    const char *dir = cg->dir[(cg->version == 2 ? v2_files : v1_files)[which].ctrl];
    buf[0] = '\0';
    if (!name || !dir)
        return false;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (f && f->fd[which] == 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        f->fd[which] = fd >= 0 ? fd : -1; /* out of descriptors: read by path from now on */
        if (fd < 0 && errno == ENOENT)
            return false;
    }
    ssize_t n;
    if (f && f->fd[which] > 0) {
        n = pread(f->fd[which], buf, len - 1, 0);
    } else {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return false;
        n = read(fd, buf, len - 1);
        close(fd);
    }
    if (n < 0)
        return false;
    buf[n] = '\0';
    return true;
}

static long long num_in(const char *buf)
{
    if (!buf[0])
        return -1;
    if (!strncmp(buf, "max", 3))
        return -2;
    char *end;
    long long v = strtoll(buf, &end, 10);
    return end == buf ? -1 : v;
}

static void read_limits_into(const local_cgroups *cg, sm_sample *s)
{
    s->mem_limit = local_cg_memory_limit(cg);
    if (cg->version == 2) {
        const char *d = cg->dir[CG_UNIFIED];
        s->pids_limit = cgfs_read_num(d, "pids.max");
        char cpumax[64];
        char *path = xasprintf("%s/cpu.max", d);
        if (sm_read_small(path, cpumax, sizeof cpumax) == 0 && strncmp(cpumax, "max", 3)) {
            long long q = 0, per = 0;
            if (sscanf(cpumax, "%lld %lld", &q, &per) == 2 && per > 0)
                s->cpu_limit = (double)q / (double)per;
        }
        free(path);
    } else {
        long long q = cgfs_read_num(cg->dir[CG_CPU], "cpu.cfs_quota_us");
        long long per = cgfs_read_num(cg->dir[CG_CPU], "cpu.cfs_period_us");
        if (q > 0 && per > 0)
            s->cpu_limit = (double)q / (double)per;
        s->pids_limit = cgfs_read_num(cg->dir[CG_PIDS], "pids.max");
    }
    if (s->pids_limit == -2)
        s->pids_limit = -1;
}

void local_cg_stats(const local_cgroups *cg, local_cg_files *f, sm_sample *s, bool read_limits)
{
    char buf[8192];
    bool v2 = cg->version == 2;
    if (read_limits)
        read_limits_into(cg, s);
    if (read_counter(cg, f, CGF_MEM_EVENTS, buf, sizeof buf))
        s->oom_kills = cgfs_key_in(buf, "oom_kill");
    if (read_counter(cg, f, CGF_PIDS_EVENTS, buf, sizeof buf))
        s->pids_events = cgfs_key_in(buf, "max");
    if (read_counter(cg, f, CGF_CPU_STAT, buf, sizeof buf)) { /* one read, three keys */
        s->nr_throttled = cgfs_key_in(buf, "nr_throttled");
        long long t = cgfs_key_in(buf, v2 ? "throttled_usec" : "throttled_time");
        s->throttled_s = t >= 0 ? (double)t / (v2 ? 1e6 : 1e9) : -1;
        long long us = cgfs_key_in(buf, "usage_usec");
        if (us >= 0)
            s->cpu_time_s = (double)us / 1e6;
    }
    if (!v2 && read_counter(cg, f, CGF_CPUACCT, buf, sizeof buf)) {
        long long ns = num_in(buf);
        if (ns >= 0)
            s->cpu_time_s = (double)ns / 1e9;
    }
    if (read_counter(cg, f, CGF_MEM_USAGE, buf, sizeof buf))
        s->mem_usage = num_in(buf);
    if (s->mem_usage >= 0 && read_counter(cg, f, CGF_MEM_STAT, buf, sizeof buf)) {
        long long inactive = cgfs_key_in(buf, v2 ? "inactive_file" : "total_inactive_file");
        s->mem_working_set = s->mem_usage - (inactive > 0 ? inactive : 0);
        if (s->mem_working_set < 0)
            s->mem_working_set = 0;
    }
    if (read_counter(cg, f, CGF_PIDS, buf, sizeof buf))
        s->pids = num_in(buf);
    if (read_counter(cg, f, CGF_IO, buf, sizeof buf)) {
        s->io_read_bytes = s->io_write_bytes = 0;
        if (v2) {
            for (char *p = buf; (p = strstr(p, "rbytes=")) != NULL; p += 7)
                s->io_read_bytes += strtoll(p + 7, NULL, 10);
            for (char *p = buf; (p = strstr(p, "wbytes=")) != NULL; p += 7)
                s->io_write_bytes += strtoll(p + 7, NULL, 10);
        } else {
            for (char *line = buf; line && *line;) {
                char dev[64], op[16];
                long long v;
                if (sscanf(line, "%63s %15s %lld", dev, op, &v) == 3) {
                    if (!strcmp(op, "Read"))
                        s->io_read_bytes += v;
                    else if (!strcmp(op, "Write"))
                        s->io_write_bytes += v;
                }
                line = strchr(line, '\n');
                line = line ? line + 1 : NULL;
            }
        }
    }
}
