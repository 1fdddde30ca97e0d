/* The contract's directory transfer (core/transfer.c over the provider's path_kind, tar_get and
 * tar_put): every provider must carry a tree with modes, links, empty directories and unicode
 * names both ways, say what a path is, keep and replay an archive byte for byte, copy between
 * two of its sandboxes, and refuse a tar-slip archive without writing anything. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/transfer.h"
#include "core/util.h"
#include "tests/contract/contract.h"

static char *tree(void)
{
    char *d = xasprintf("/tmp/sandman-ct-tree-XXXXXX");
    assert_non_null(mkdtemp(d));
    char *p = xasprintf("%s/top/empty", d);
    assert_int_equal(sm_mkdir_p(p, 0755), 0);
    free(p);
    p = xasprintf("%s/top/ünï ☃", d);
    assert_int_equal(sm_mkdir_p(p, 0755), 0);
    free(p);
    p = xasprintf("%s/top/ünï ☃/f.txt", d);
    assert_int_equal(sm_write_file_atomic(p, "uni\n", 4, 0640), 0);
    free(p);
    p = xasprintf("%s/top/run.sh", d);
    assert_int_equal(sm_write_file_atomic(p, "#!/bin/sh\n", 10, 0755), 0);
    free(p);
    p = xasprintf("%s/top/link", d);
    assert_int_equal(symlink("run.sh", p), 0);
    free(p);
    return d;
}

void test_transfer_dir(void **state)
{
    (void)state;
    sm_sandbox *s = ct_start(NULL);
    char *d = tree(), *src = xasprintf("%s/top", d), *back = xasprintf("%s/back", d);
    sm_error e;
    sm_error_clear(&e);
    sm_transfer_result r;
    if (sm_transfer_upload_dir(s, src, "/tmp/ct-dir", NULL, &r, &e) != SM_OK)
        fail_msg("upload_dir: %s", e.msg);
    assert_true(r.verified);
    ct_expect(s,
              "cat '/tmp/ct-dir/ünï ☃/f.txt'; readlink /tmp/ct-dir/link; ls -A /tmp/ct-dir/empty | "
              "wc -l; stat -c %a /tmp/ct-dir/run.sh",
              0, "uni\nrun.sh\n0\n755\n");
    sm_remote_kind k;
    assert_int_equal(sm_transfer_remote_kind(s, "/tmp/ct-dir", &k, &e), SM_OK);
    assert_int_equal(k, SM_KIND_DIR);
    assert_int_equal(sm_transfer_remote_kind(s, "/tmp/ct-dir/run.sh", &k, &e), SM_OK);
    assert_int_equal(k, SM_KIND_FILE);
    assert_int_equal(sm_transfer_remote_kind(s, "/tmp/ct-nothing", &k, &e), SM_OK);
    assert_int_equal(k, SM_KIND_ABSENT);
    if (sm_transfer_download_dir(s, "/tmp/ct-dir", back, NULL, &r, &e) != SM_OK)
        fail_msg("download_dir: %s", e.msg);
    char *p = xasprintf("%s/ünï ☃/f.txt", back), *got = NULL;
    size_t len = 0;
    assert_int_equal(sm_read_file(p, &got, &len), 0);
    assert_string_equal(got, "uni\n");
    free(got);
    free(p);
    struct stat st;
    p = xasprintf("%s/run.sh", back);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    free(p);
    p = xasprintf("%s/link", back);
    char link[64] = "";
    assert_int_equal(readlink(p, link, sizeof link - 1), 6);
    assert_string_equal(link, "run.sh");
    free(p);

    /* archive_copy keeps the stream; upload_archive replays it into another sandbox */
    char *ar = xasprintf("%s/kept.tar", d);
    if (sm_transfer_archive_copy(s, "/tmp/ct-dir", ar, NULL, &r, &e) != SM_OK)
        fail_msg("archive_copy: %s", e.msg);
    sm_sandbox *s2 = ct_start(NULL);
    if (sm_transfer_upload_archive(s2, ar, "/tmp/ct-replay", NULL, &r, &e) != SM_OK)
        fail_msg("upload_archive: %s", e.msg);
    ct_expect(s2, "cat '/tmp/ct-replay/ct-dir/ünï ☃/f.txt'", 0, "uni\n");
    /* and a copy between the two sandboxes, streamed */
    if (sm_transfer_copy(s, "/tmp/ct-dir", s2, "/tmp/ct-copied", NULL, &r, &e) != SM_OK)
        fail_msg("copy: %s", e.msg);
    assert_true(r.verified);
    ct_expect(s2, "readlink /tmp/ct-copied/link", 0, "run.sh\n");

    /* tar-slip: refused naming the entry, nothing written */
    char *slip = xasprintf("%s/slip.tar", d);
    char *cmd = xasprintf(
        "python3 -c \"import tarfile,io;t=tarfile.open('%s','w');"
        "i=tarfile.TarInfo('ok.txt');i.size=3;t.addfile(i,io.BytesIO(b'ok\\n'));"
        "i=tarfile.TarInfo('../escape.txt');i.size=3;t.addfile(i,io.BytesIO(b'no\\n'));t.close()\"",
        slip);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    sm_error_clear(&e);
    assert_int_not_equal(sm_transfer_upload_archive(s2, slip, "/tmp/ct-slip", NULL, &r, &e), SM_OK);
    if (!strstr(e.msg, "../escape.txt"))
        fail_msg("the refusal does not name the entry: %s", e.msg);
    ct_expect(s2, "ls -A /tmp/ct-slip /tmp/escape.txt 2>/dev/null | wc -l", 0, "0\n");
    ct_stop(s2);
    ct_stop(s);
    cmd = xasprintf("rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(slip), free(ar), free(src), free(back), free(d);
}
