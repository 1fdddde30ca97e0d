/* Cgroups for local sandboxes: detects v1/hybrid or pure v2 at run time, creates one cgroup
 * per sandbox under the cgroup sandman itself runs in (never outside that subtree), writes
 * cpu/memory/pids limits, and reads the counters behind stats and failure attribution. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/local/launch.h"
#include "providers/local/cgfs.h"
#include "providers/local/local.h"

static const char *const v1_names[CG_UNIFIED] = {"memory", "cpu", "cpuacct", "pids", "blkio"};

/* True when every item of the comma-separated list `want` is an item of `have`. */
static bool all_in(const char *want, const char *have)
{
    char buf[1024], *save = NULL;
    snprintf(buf, sizeof buf, "%s", want);
    bool any = false;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        size_t n = strlen(w);
        bool found = false;
        for (const char *h = have; h && *h && !found;) {
            found = !strncmp(h, w, n) && (h[n] == ',' || h[n] == '\0');
            h = strchr(h, ',');
            h = h ? h + 1 : NULL;
        }
        if (!found)
            return false;
        any = true;
    }
    return any;
}

/* mountinfo escapes blanks in paths as \ooo. */
static void unescape(char *s)
{
    char *o = s;
    for (char *i = s; *i; i++) {
        if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' &&
            i[3] >= '0' && i[3] <= '7') {
            *o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
            i += 3;
        } else {
            *o++ = *i;
        }
    }
    *o = '\0';
}

/* The directory of cgroup `path` of the hierarchy with controllers `ctrls` ("" = cgroup2), from
 * the mount table: the first mount of that hierarchy whose root holds the path. malloc'd. */
static char *hierarchy_dir(const char *mountinfo, const char *ctrls, const char *path)
{
    for (const char *line = mountinfo; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[8192];
        snprintf(buf, sizeof buf, "%.*s", (int)len, line);
        line = nl ? nl + 1 : NULL;
        char *sep = strstr(buf, " - ");
        if (!sep)
            continue;
        *sep = '\0';
        char root[4096], mnt[4096], fstype[64], src[256], opts[1024];
        if (sscanf(buf, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
            sscanf(sep + 3, "%63s %255s %1023s", fstype, src, opts) != 3)
            continue;
        if (*ctrls ? strcmp(fstype, "cgroup") || !all_in(ctrls, opts) : strcmp(fstype, "cgroup2"))
            continue;
        unescape(root);
        unescape(mnt);
        size_t rl = strcmp(root, "/") ? strlen(root) : 0;
        if (strncmp(path, root, rl) || (path[rl] != '/' && path[rl] != '\0'))
            continue;
        const char *rel = path + rl;
        return xasprintf("%s%s", mnt, strcmp(rel, "/") ? rel : "");
    }
    return NULL;
}

static void add_unplaced(local_cg_layout *cg, const char *what)
{
    char *old = cg->unplaced;
    cg->unplaced = old ? xasprintf("%s, %s", old, what) : xstrdup(what);
    free(old);
}

void local_cg_parse(local_cg_layout *cg, const char *mountinfo, const char *self_cgroup,
                    bool pure_v2)
{
    memset(cg, 0, sizeof *cg);
    int next_other = CG_OTHER;
    for (const char *line = self_cgroup; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s", (int)len, line);
        line = nl ? nl + 1 : NULL;
        char *c1 = strchr(buf, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *ctrls = c1 + 1, *path = c2 + 1;
        char *dir = hierarchy_dir(mountinfo, ctrls, path);
        if (!dir) {
            add_unplaced(cg, *ctrls ? ctrls : "cgroup2");
            continue;
        }
        int slots = 0;
        if (!*ctrls && !cg->base[CG_UNIFIED]) {
            cg->base[CG_UNIFIED] = xasprintf("%s/sandman", dir);
            slots++;
        }
        for (int c = 0; c < CG_UNIFIED && *ctrls; c++)
            if (all_in(v1_names[c], ctrls) && !cg->base[c]) {
                cg->base[c] = xasprintf("%s/sandman", dir);
                slots++;
            }
        if (!slots && *ctrls && next_other < CG__COUNT)
            cg->base[next_other++] = xasprintf("%s/sandman", dir);
        else if (!slots && *ctrls)
            add_unplaced(cg, ctrls);
        free(dir);
    }
    cg->version = pure_v2 ? 2 : (cg->base[CG_MEMORY] ? 1 : 0);
    if (cg->version == 0 && cg->base[CG_UNIFIED])
        cg->version = 2;
    if (cg->version == 0)
        cg->note = xstrdup("no usable cgroup hierarchy is mounted");
}

/* Pure v2: the limit controllers our own cgroup does not offer (bound to v1 on a hybrid host, or
 * not delegated to us), as a note; NULL when all are there. */
static char *v2_missing(const char *own)
{
    char avail[512] = "", missing[64] = "";
    char *path = xasprintf("%s/cgroup.controllers", own);
    sm_read_small(path, avail, sizeof avail);
    free(path);
    static const char *const want[] = {"cpu", "memory", "pids"};
    for (size_t i = 0; i < SM_ARRAY_LEN(want); i++) {
        bool found = false;
        for (char *w = avail; *w && !found; w += strcspn(w, " \n"), w += strspn(w, " \n"))
            found = !strncmp(w, want[i], strlen(want[i])) && strchr(" \n", w[strlen(want[i])]);
        if (!found)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
                     missing[0] ? ", " : "", want[i]);
    }
    return missing[0]
               ? xasprintf("the cgroup v2 controllers %s are not available in %s", missing, own)
               : NULL;
}

/* Whether this user may create (or use) the sandman/ group at base. */
static bool writable(const char *base)
{
    if (access(base, F_OK) == 0)
        return access(base, W_OK) == 0;
    char *parent = xstrdup(base);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    bool ok = access(parent, W_OK) == 0;
    free(parent);
    return ok;
}

void local_cg_detect(local_cg_layout *cg)
{
    char *mountinfo = NULL, *self = NULL;
    size_t len;
    sm_read_file("/proc/self/mountinfo", &mountinfo, &len);
    sm_read_file("/proc/self/cgroup", &self, &len);
    struct statfs sf;
    bool pure_v2 = statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
    local_cg_parse(cg, mountinfo ? mountinfo : "", self ? self : "", pure_v2);
    free(mountinfo);
    free(self);
    const char *probe = cg->base[cg->version == 2 ? CG_UNIFIED : CG_MEMORY];
    char *own = probe ? xstrdup(probe) : NULL; /* our own cgroup, where sandman/ goes */
    if (own)
        *strrchr(own, '/') = '\0';
    if (probe && !writable(probe))
        cg->note = xasprintf("cgroups are not writable by this user (%s)", own);
    else if (probe && cg->version == 2)
        cg->note = v2_missing(own);
    free(own);
    /* A hierarchy we cannot write stays sandman's own for the sandbox: say so. */
    bool placed = false;
    for (int c = 0; c < CG__COUNT; c++)
        if (cg->base[c] && !writable(cg->base[c])) {
            add_unplaced(cg, cg->base[c]);
            for (int o = CG__COUNT - 1; o >= c; o--)
                if (cg->base[o] && o != c && !strcmp(cg->base[o], cg->base[c])) {
                    free(cg->base[o]);
                    cg->base[o] = NULL;
                }
            free(cg->base[c]);
            cg->base[c] = NULL;
        }
    for (int c = 0; c < CG__COUNT; c++)
        placed |= cg->base[c] != NULL;
    if (!placed) { /* nothing is placed at all: the note says why */
        free(cg->unplaced);
        cg->unplaced = NULL;
    }
    if (cg->version == 1 && !cg->base[CG_MEMORY] && !cg->note)
        cg->note = xstrdup("the v1 memory controller is not mounted");
}

void local_cg_layout_free(local_cg_layout *cg)
{
    for (int c = 0; c < CG__COUNT; c++)
        free(cg->base[c]);
    free(cg->note);
    free(cg->unplaced);
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
        if (sm_write_str(sub, want) < 0 && !*note) {
            *note = xasprintf("cannot enable controllers in %s: %s", sub, strerror(errno));
            rc = -1;
        }
        free(sub);
    }
    free(parent);
    return rc;
}

/* A new v1 cpuset group starts with no CPUs and no memory nodes, and no process can join it
 * until they are set: give it its parent's. */
static void cpuset_inherit(const char *dir)
{
    static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};
    for (size_t i = 0; i < SM_ARRAY_LEN(files); i++) {
        char cur[4096], up[4096];
        char *path = xasprintf("%s/%s", dir, files[i]);
        if (sm_read_small(path, cur, sizeof cur) == 0 && !cur[strspn(cur, " \n")]) {
            char *parent = xstrdup(dir);
            *strrchr(parent, '/') = '\0';
            char *ppath = xasprintf("%s/%s", parent, files[i]);
            if (sm_read_small(ppath, up, sizeof up) == 0)
                sm_write_str(path, up);
            free(ppath);
            free(parent);
        }
        free(path);
    }
}

static int make_group(const char *dir, bool top)
{
    if ((top ? sm_mkdir_p(dir, 0755) : mkdir(dir, 0755)) < 0 && errno != EEXIST)
        return -1;
    cpuset_inherit(dir);
    return 0;
}

/* Writes the limits on the sandbox's cgroup; the first one that cannot be applied goes in
 * *note (a default pids limit too: status shows it, though only asked-for limits are refused). */
static void write_limits(const local_provider *lp, const sm_resources *res,
                         const local_cgroups *out, char **note)
{
    bool v2 = out->version == 2;
    const char *mem = v2 ? out->dir[CG_UNIFIED] : out->dir[CG_MEMORY];
    const char *cpu = v2 ? out->dir[CG_UNIFIED] : out->dir[CG_CPU];
    const char *pids = v2 ? out->dir[CG_UNIFIED] : out->dir[CG_PIDS];
    char buf[64];
    if (res->set & SM_RES_MEMORY) {
        snprintf(buf, sizeof buf, "%lld", (long long)res->memory_mib << 20);
        if (!mem && !*note)
            *note = xstrdup("the memory controller is not available");
        else if (mem && put(mem, v2 ? "memory.max" : "memory.limit_in_bytes", buf, note) == 0 && v2)
            put(mem, "memory.swap.max", "0", NULL);
    }
    if (res->set & SM_RES_CPU) {
        long long quota = llround(res->cpu * 100000.0);
        if (!cpu && !*note)
            *note = xstrdup("the cpu controller is not available");
        if (cpu && v2) {
            snprintf(buf, sizeof buf, "%lld 100000", quota);
            put(cpu, "cpu.max", buf, note);
        } else if (cpu && put(cpu, "cpu.cfs_period_us", "100000", note) == 0) {
            snprintf(buf, sizeof buf, "%lld", quota);
            put(cpu, "cpu.cfs_quota_us", buf, note);
        }
    }
    if (lp->pids_limit > 0) {
        snprintf(buf, sizeof buf, "%ld", lp->pids_limit);
        if (!pids && !*note)
            *note = xstrdup("the pids controller is not available");
        else if (pids)
            put(pids, "pids.max", buf, note);
    }
}

/* The first slot holding the same directory as slot c (co-mounted controllers), or c. */
static int first_slot(char *const *dirs, int c)
{
    for (int p = 0; p < c; p++)
        if (dirs[p] && dirs[c] && !strcmp(dirs[p], dirs[c]))
            return p;
    return c;
}

/* Which limits were asked for (not defaults), for refusing what cannot be applied. */
static const char *asked_limits(const local_provider *lp, const sm_resources *res, char *buf,
                                size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (res->set & SM_RES_CPU)
        used += (size_t)snprintf(buf + used, len - used, "cpu");
    if ((res->set & SM_RES_MEMORY) && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%smemory", used ? ", " : "");
    if (lp->pids_limit_set && lp->pids_limit > 0 && used < len)
        snprintf(buf + used, len - used, "%spids_limit", used ? ", " : "");
    return buf[0] ? buf : NULL;
}

int local_cg_create(const local_provider *lp, const char *id, const sm_resources *res,
                    local_cgroups *out, char **note, char **warning, sm_error *err)
{
    const local_cg_layout *cg = &lp->cg;
    memset(out, 0, sizeof *out);
    out->version = cg->version;
    *note = cg->note ? xstrdup(cg->note) : NULL;
    *warning = NULL;
    if (cg->version != 0) {
        for (int c = 0; c < CG__COUNT; c++) {
            int first = first_slot(cg->base, c);
            if (!cg->base[c] || first != c) {
                if (cg->base[c] && out->dir[first])
                    out->dir[c] = xstrdup(out->dir[first]);
                continue;
            }
            char *d = xasprintf("%s/%s", cg->base[c], id);
            char *leaf = xasprintf("%s/" LOCAL_CG_LEAF, d);
            bool v2_limits = cg->version == 2 && c == CG_UNIFIED && !cg->note;
            int rc = make_group(cg->base[c], true);
            if (rc == 0 && v2_limits && v2_enable_controllers(cg->base[c], note) < 0)
                rc = 1; /* no limits on v2, though the sandbox still gets its own group */
            const char *failed = rc < 0 ? cg->base[c] : NULL;
            if (!failed && make_group(d, false) < 0)
                failed = d;
            if (!failed)
                out->dir[c] = d;
            if (!failed && make_group(leaf, false) < 0)
                failed = leaf;
            if (failed) {
                sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                             "cannot create the sandbox's cgroup %s: %s", failed, strerror(errno));
                free(leaf);
                if (out->dir[c] != d)
                    free(d);
                local_cg_remove(out);
                local_cg_free(out);
                free(*note);
                *note = NULL;
                return SM_ERR_RUNTIME;
            }
            free(leaf);
        }
        if (!cg->note)
            write_limits(lp, res, out, note);
    }
    char asked[64];
    if (*note && asked_limits(lp, res, asked, sizeof asked)) {
        if (!lp->warn_unenforced) {
            /* Root already has every right: then the host's cgroup setup is what is missing. */
            const char *how = geteuid() == 0
                                  ? "Limits need the cpu, memory and pids controllers mounted "
                                    "(cgroup v1) or enabled (cgroup v2) on this host"
                                  : "Limits need cgroups this user can write: run sandman as "
                                    "root, or on a cgroup v2 host in a cgroup delegated to this "
                                    "user (systemd: Delegate=yes)";
            sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                         "the requested limits (%s) cannot be applied here: %s. %s. To run "
                         "without them, set unenforced_limits: warn in the local provider's block",
                         asked, *note, how);
            local_cg_remove(out);
            local_cg_free(out);
            free(*note);
            *note = NULL;
            return SM_ERR_RUNTIME;
        }
        *warning = xasprintf("limits not enforced (%s): %s", asked, *note);
    }
    return SM_OK;
}

void local_cg_launch(FILE *f, const local_cgroups *cg)
{
    char num[16];
    snprintf(num, sizeof num, "%d", cg->version);
    launch_put(f, "cg_version", num);
    for (int pass = 0; pass < 2; pass++)
        for (int c = 0; c < CG__COUNT; c++) {
            if (!cg->dir[c] || first_slot(cg->dir, c) != c)
                continue;
            char *d = pass ? xasprintf("%s/" LOCAL_CG_LEAF, cg->dir[c]) : xstrdup(cg->dir[c]);
            launch_put(f, "cg", d);
            free(d);
        }
    /* v1 counts OOM kills and refused forks in the cgroup of the process (the leaf); on v2 the
     * leaf has no controllers, so they are counted in the sandbox's cgroup. */
    const char *mem = cg->version == 2 ? cg->dir[CG_UNIFIED] : cg->dir[CG_MEMORY];
    const char *pids = cg->version == 2 ? cg->dir[CG_UNIFIED] : cg->dir[CG_PIDS];
    const char *keys[2] = {"cg_memory", "cg_pids"}, *dirs[2] = {mem, pids};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i])
            continue;
        char *d = cg->version == 2 ? xstrdup(dirs[i]) : xasprintf("%s/" LOCAL_CG_LEAF, dirs[i]);
        launch_put(f, keys[i], d);
        free(d);
    }
}

static const char *const json_keys[CG_OTHER] = {"memory", "cpu",   "cpuacct",
                                                "pids",   "blkio", "unified"};

cJSON *local_cg_to_json(const local_cgroups *cg)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "version", cg->version);
    for (int c = 0; c < CG_OTHER; c++)
        if (cg->dir[c])
            cJSON_AddStringToObject(o, json_keys[c], cg->dir[c]);
    cJSON *other = NULL;
    for (int c = CG_OTHER; c < CG__COUNT; c++)
        if (cg->dir[c]) {
            if (!other)
                other = cJSON_AddArrayToObject(o, "other");
            cJSON_AddItemToArray(other, cJSON_CreateString(cg->dir[c]));
        }
    return o;
}

void local_cg_from_json(const cJSON *o, local_cgroups *cg)
{
    memset(cg, 0, sizeof *cg);
    cg->version = (int)sm_json_num(o, "version", 0);
    for (int c = 0; c < CG_OTHER; c++) {
        const char *d = sm_json_str(o, json_keys[c]);
        cg->dir[c] = d ? xstrdup(d) : NULL;
    }
    const cJSON *it;
    int c = CG_OTHER;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "other"))
    {
        if (c < CG__COUNT && cJSON_IsString(it) && it->valuestring[0] == '/')
            cg->dir[c++] = xstrdup(it->valuestring);
    }
}

void local_cg_remove(const local_cgroups *cg)
{
    for (int c = 0; c < CG__COUNT; c++)
        if (cg->dir[c] && first_slot(cg->dir, c) == c) {
            char *leaf = xasprintf("%s/" LOCAL_CG_LEAF, cg->dir[c]);
            cgfs_kill_all(leaf);
            cgfs_kill_all(cg->dir[c]);
            free(leaf);
        }
    for (int c = 0; c < CG__COUNT; c++)
        if (cg->dir[c] && first_slot(cg->dir, c) == c)
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

/* v1 counts OOM kills and refused forks in the process's own cgroup, the leaf; v2 (where the
 * leaf has no controllers) in the sandbox's cgroup. A path to free. */
static char *events_dir(const local_cgroups *cg, int ctrl)
{
    if (cg->version == 2)
        return cg->dir[CG_UNIFIED] ? xstrdup(cg->dir[CG_UNIFIED]) : NULL;
    return cg->dir[ctrl] ? xasprintf("%s/" LOCAL_CG_LEAF, cg->dir[ctrl]) : NULL;
}

void local_cg_counters(const local_cgroups *cg, long long *oom, long long *pids_events)
{
    char *mem = events_dir(cg, CG_MEMORY), *pids = events_dir(cg, CG_PIDS);
    *oom =
        cgfs_read_key(mem, cg->version == 2 ? "memory.events" : "memory.oom_control", "oom_kill");
    *pids_events = cgfs_read_key(pids, "pids.events", "max");
    free(mem);
    free(pids);
}

static const struct {
    int ctrl;
    const char *name;
    bool leaf; /* read in the leaf (v1 event counters, see events_dir) */
} v1_files[CGF__COUNT] =
    {
        [CGF_CPUACCT] = {CG_CPUACCT, "cpuacct.usage"},
        [CGF_CPU_STAT] = {CG_CPU, "cpu.stat"},
        [CGF_MEM_USAGE] = {CG_MEMORY, "memory.usage_in_bytes"},
        [CGF_MEM_STAT] = {CG_MEMORY, "memory.stat"},
        [CGF_MEM_EVENTS] = {CG_MEMORY, "memory.oom_control", true},
        [CGF_PIDS] = {CG_PIDS, "pids.current"},
        [CGF_PIDS_EVENTS] = {CG_PIDS, "pids.events", true},
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
    bool leaf = cg->version != 2 && v1_files[which].leaf;
    buf[0] = '\0';
    if (!name || !dir)
        return false;
    char path[4096];
    snprintf(path, sizeof path, "%s%s/%s", dir, leaf ? "/" LOCAL_CG_LEAF : "", name);
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
