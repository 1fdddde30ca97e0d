/* The headless program's `tui` verb: executes `sandman-dashboard` from the same directory as
 * this binary with the same arguments, so only the dashboard loads the dashboard's libraries.
 * The verb's options were checked here already; the dashboard parses them again. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "main/commands.h"

#define DASHBOARD "sandman-dashboard"

int sm_tui_start(sm_cli *cli, cli_call *c)
{
    (void)c;
    static const char *const rel[] = {DASHBOARD};
    char *path = sm_find_beside_self(rel, 1);
    int e = ENOENT;
    if (path) {
        fflush(NULL);
        execv(path, sm_main_argv);
        e = errno;
    } else { /* name where it was looked for */
        char *self = realpath("/proc/self/exe", NULL), *slash = self ? strrchr(self, '/') : NULL;
        if (slash)
            *slash = '\0';
        path = xasprintf("%s/%s", self ? self : ".", DASHBOARD);
        free(self);
    }
    fprintf(cli->err, "sandman: cannot start the dashboard (%s): %s\n", path, strerror(e));
    free(path);
    return CLI_FAIL;
}
