/* libFuzzer target: arbitrary bytes as a sandbox's event journal (JSON lines an agent can
 * shape through its labels, commands and failures): read whole, summarised for humans, searched
 * for the last failure, and followed across two appends split inside a line. The journal
 * lives in a private state directory made on the first input and removed at exit. */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/journal.h"
#include "core/util.h"

static char state[64];
static char *path;

static void cleanup(void)
{
    unlink(path);
    char *dir = xasprintf("%s/journal/fuzz", state);
    rmdir(dir);
    free(dir);
    dir = xasprintf("%s/journal", state);
    rmdir(dir);
    free(dir);
    rmdir(state);
}

static bool ready(void)
{
    if (path)
        return true;
    /* in memory when there is a tmpfs for it: millions of small writes */
    snprintf(state, sizeof state, "%s/sandman-fuzz-journal.XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(state) || setenv("SANDMAN_STATE_DIR", state, 1) < 0)
        return false;
    char *dir = xasprintf("%s/journal/fuzz", state);
    int rc = sm_mkdir_p(dir, 0700);
    free(dir);
    if (rc < 0)
        return false;
    path = sm_journal_path("fuzz", "sb");
    atexit(cleanup);
    return true;
}

static void append(const uint8_t *data, size_t n, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (!f)
        abort();
    fwrite(data, 1, n, f);
    fclose(f);
}

static void summarise(cJSON *events)
{
    char line[256];
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        sm_journal_event_summary(ev, line, sizeof line);
    }
    cJSON_Delete(events);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || !ready())
        return 0;
    size_t cut = 1 + (size - 1) * data[0] / 256; /* where the second append starts */
    append(data + 1, cut - 1, "w");
    sm_journal_follower *jf = sm_journal_follower_new(data[0] * 4);
    cJSON *polled = sm_journal_follower_poll(jf);
    if (polled)
        summarise(polled);
    append(data + cut, size - cut, "a");
    polled = sm_journal_follower_poll(jf);
    if (polled)
        summarise(polled);
    sm_journal_follower_free(jf);

    cJSON *events = NULL;
    sm_journal_read("fuzz", "sb", &events);
    summarise(events);
    sm_failure f;
    sm_journal_last_failure("fuzz", "sb", &f);
    return 0;
}
