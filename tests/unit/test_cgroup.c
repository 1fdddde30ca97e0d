/* Unit tests for providers/local/local_cgroup.c on fixtures: the layout read from mountinfo and
 * /proc/self/cgroup of a pure v2 host, this hybrid v1 host, a container whose cgroup mounts are
 * sub-trees and co-mounted controllers; the launch lines (sandbox cgroups before their leaves);
 * the record round trip; and the v2 limit and counter files parsed as the kernel writes them
 * (this CI host cannot enable memory, cpu or pids on v2: v1 holds them). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/telemetry.h"
#include "core/util.h"
#include "providers/local/local.h"

static const char hybrid_mountinfo[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
    "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char hybrid_self[] = "10:net_cls,net_prio:/\n"
                                  "9:name=systemd:/user.slice\n"
                                  "8:pids:/user.slice\n"
                                  "7:blkio:/\n"
                                  "6:freezer:/\n"
                                  "5:devices:/user.slice\n"
                                  "4:memory:/user.slice/job 1\n"
                                  "3:cpuset:/\n"
                                  "2:cpu,cpuacct:/user.slice\n"
                                  "0::/user.slice\n";

static void test_hybrid_layout(void **state)
{
    (void)state;
    local_cg_layout cg;
    local_cg_parse(&cg, hybrid_mountinfo, hybrid_self, false);
    assert_int_equal(cg.version, 1);
    assert_null(cg.note);
    assert_string_equal(cg.base[CG_MEMORY], "/sys/fs/cgroup/memory/user.slice/job 1/sandman");
    assert_string_equal(cg.base[CG_CPU], "/sys/fs/cgroup/cpu,cpuacct/user.slice/sandman");
    assert_string_equal(cg.base[CG_CPUACCT], cg.base[CG_CPU]); /* co-mounted: one group */
    assert_string_equal(cg.base[CG_PIDS], "/sys/fs/cgroup/pids/user.slice/sandman");
    assert_string_equal(cg.base[CG_BLKIO], "/sys/fs/cgroup/blkio/sandman");
    assert_string_equal(cg.base[CG_UNIFIED], "/sys/fs/cgroup/unified/user.slice/sandman");
    /* every other hierarchy, named ones too, in /proc/self/cgroup's order */
    assert_string_equal(cg.base[CG_OTHER], "/sys/fs/cgroup/systemd/user.slice/sandman");
    assert_string_equal(cg.base[CG_OTHER + 1], "/sys/fs/cgroup/freezer/sandman");
    assert_string_equal(cg.base[CG_OTHER + 2], "/sys/fs/cgroup/devices/user.slice/sandman");
    assert_string_equal(cg.base[CG_OTHER + 3], "/sys/fs/cgroup/cpuset/sandman");
    assert_null(cg.base[CG_OTHER + 4]);
    /* listed but not mounted: the sandbox cannot be placed there, and the layout says so */
    assert_string_equal(cg.unplaced, "net_cls,net_prio");
    local_cg_layout_free(&cg);
}

static void test_pure_v2_layout(void **state)
{
    (void)state;
    const char *mi = "24 1 0:21 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - "
                     "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
    const char *self = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/sm.scope\n";
    local_cg_layout cg;
    local_cg_parse(&cg, mi, self, true);
    assert_int_equal(cg.version, 2);
    assert_null(cg.note);
    assert_null(cg.unplaced);
    assert_string_equal(cg.base[CG_UNIFIED], "/sys/fs/cgroup/user.slice/user-1000.slice/"
                                             "user@1000.service/app.slice/sm.scope/sandman");
    for (int c = 0; c < CG__COUNT; c++)
        if (c != CG_UNIFIED)
            assert_null(cg.base[c]);
    local_cg_layout_free(&cg);
}

/* A container that sees its own cgroup as the root of bind-mounted sub-trees. */
static void test_subtree_mounts(void **state)
{
    (void)state;
    const char *mi = "700 690 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup "
                     "rw,memory\n"
                     "701 690 0:36 /docker/abc /sys/fs/cgroup/pids ro,nosuid - cgroup cgroup "
                     "rw,pids\n"
                     "702 690 0:36 /other /mnt/pids rw - cgroup cgroup rw,pids\n"
                     /* mountinfo escapes blanks; /proc/self/cgroup does not */
                     "703 690 0:35 /a\\040b /sys/fs/cgroup/blk\\040io rw - cgroup cgroup "
                     "rw,blkio\n";
    const char *self = "8:pids:/docker/abc/job\n7:blkio:/a b/c\n4:memory:/docker/abc\n";
    local_cg_layout cg;
    local_cg_parse(&cg, mi, self, false);
    assert_int_equal(cg.version, 1);
    assert_string_equal(cg.base[CG_MEMORY], "/sys/fs/cgroup/memory/sandman");
    assert_string_equal(cg.base[CG_PIDS], "/sys/fs/cgroup/pids/job/sandman");
    assert_string_equal(cg.base[CG_BLKIO], "/sys/fs/cgroup/blk io/c/sandman");
    local_cg_layout_free(&cg);
    /* a cgroup outside every mounted sub-tree cannot be reached */
    local_cg_parse(&cg, mi, "4:memory:/elsewhere\n", false);
    assert_null(cg.base[CG_MEMORY]);
    assert_int_equal(cg.version, 0);
    assert_string_equal(cg.note, "no usable cgroup hierarchy is mounted");
    assert_string_equal(cg.unplaced, "memory");
    local_cg_layout_free(&cg);
}

static char *launch_text(const local_cgroups *cg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    local_cg_launch(f, cg);
    fclose(f);
    return buf;
}

static void test_launch_and_record(void **state)
{
    (void)state;
    local_cgroups cg = {.version = 1};
    cg.dir[CG_MEMORY] = xstrdup("/cg/memory/sandman/X");
    cg.dir[CG_CPU] = xstrdup("/cg/cpu,cpuacct/sandman/X");
    cg.dir[CG_CPUACCT] = xstrdup("/cg/cpu,cpuacct/sandman/X");
    cg.dir[CG_PIDS] = xstrdup("/cg/pids/sandman/X");
    cg.dir[CG_OTHER] = xstrdup("/cg/freezer/sandman/X");
    char *text = launch_text(&cg);
    /* each group once, the sandbox's groups before their leaves: the supervisor joins in
     * order, so the init ends in the leaves */
    assert_string_equal(text, "cg_version=1\n"
                              "cg=/cg/memory/sandman/X\n"
                              "cg=/cg/cpu,cpuacct/sandman/X\n"
                              "cg=/cg/pids/sandman/X\n"
                              "cg=/cg/freezer/sandman/X\n"
                              "cg=/cg/memory/sandman/X/sandbox\n"
                              "cg=/cg/cpu,cpuacct/sandman/X/sandbox\n"
                              "cg=/cg/pids/sandman/X/sandbox\n"
                              "cg=/cg/freezer/sandman/X/sandbox\n"
                              "cg_memory=/cg/memory/sandman/X/sandbox\n"
                              "cg_pids=/cg/pids/sandman/X/sandbox\n");
    free(text);
    cJSON *j = local_cg_to_json(&cg);
    local_cgroups back;
    local_cg_from_json(j, &back);
    cJSON_Delete(j);
    assert_int_equal(back.version, 1);
    for (int c = 0; c < CG__COUNT; c++) {
        if (cg.dir[c])
            assert_string_equal(back.dir[c], cg.dir[c]);
        else
            assert_null(back.dir[c]);
    }
    local_cg_free(&back);
    local_cg_free(&cg);

    local_cgroups v2 = {.version = 2};
    v2.dir[CG_UNIFIED] = xstrdup("/cg/sandman/Y");
    text = launch_text(&v2);
    /* on v2 the leaf has no controllers: the counters are the sandbox group's */
    assert_string_equal(text, "cg_version=2\ncg=/cg/sandman/Y\ncg=/cg/sandman/Y/sandbox\n"
                              "cg_memory=/cg/sandman/Y\ncg_pids=/cg/sandman/Y\n");
    free(text);
    local_cg_free(&v2);
}

static void put_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The v2 files as the kernel writes them, read through the same code as real ones. */
static void test_v2_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/sm-cgtest-XXXXXX";
    assert_non_null(mkdtemp(dir));
    put_file(dir, "memory.max", "67108864\n");
    put_file(dir, "memory.current", "10485760\n");
    put_file(dir, "memory.stat",
             "anon 4194304\nfile 6291456\nactive_file 2097152\n"
             "inactive_file 4194304\n");
    put_file(dir, "memory.events", "low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\noom_group_kill 0\n");
    put_file(dir, "pids.max", "64\n");
    put_file(dir, "pids.current", "3\n");
    put_file(dir, "pids.events", "max 5\n");
    put_file(dir, "cpu.max", "50000 100000\n");
    put_file(dir, "cpu.stat",
             "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n"
             "nr_periods 40\nnr_throttled 12\nthrottled_usec 1500000\n");
    put_file(dir, "io.stat",
             "8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n"
             "8:16 rbytes=1024 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
    local_cgroups cg = {.version = 2};
    cg.dir[CG_UNIFIED] = xstrdup(dir);
    sm_sample s;
    sm_sample_init(&s);
    local_cg_stats(&cg, NULL, &s, true);
    assert_int_equal(s.mem_limit, 67108864);
    assert_int_equal(s.mem_usage, 10485760);
    assert_int_equal(s.mem_working_set, 10485760 - 4194304);
    assert_int_equal(s.oom_kills, 2);
    assert_int_equal(s.pids_limit, 64);
    assert_int_equal(s.pids, 3);
    assert_int_equal(s.pids_events, 5);
    assert_true(s.cpu_limit == 0.5);
    assert_true(s.cpu_time_s == 2.5);
    assert_int_equal(s.nr_throttled, 12);
    assert_true(s.throttled_s == 1.5);
    assert_int_equal(s.io_read_bytes, 5120);
    assert_int_equal(s.io_write_bytes, 8192);
    long long oom, pids;
    local_cg_counters(&cg, &oom, &pids);
    assert_int_equal(oom, 2);
    assert_int_equal(pids, 5);
    /* "max" means no limit */
    put_file(dir, "memory.max", "max\n");
    put_file(dir, "pids.max", "max\n");
    put_file(dir, "cpu.max", "max 100000\n");
    sm_sample_init(&s);
    local_cg_stats(&cg, NULL, &s, true);
    assert_int_equal(s.mem_limit, -1);
    assert_int_equal(s.pids_limit, -1);
    assert_true(s.cpu_limit == -1);
    local_cg_free(&cg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hybrid_layout),  cmocka_unit_test(test_pure_v2_layout),
        cmocka_unit_test(test_subtree_mounts), cmocka_unit_test(test_launch_and_record),
        cmocka_unit_test(test_v2_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
