/* The headless program's `tui` verb: executes `sandman-dashboard` from the same directory as
 * this binary with the same arguments, so only the dashboard loads the dashboard's libraries.
 * The verb's options were checked here already; the dashboard parses them again. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "main/commands.h"

#define DASHBOARD "sandman-dashboard"

int sm_tui_start(sm_cli *cli, cli_call *c)
{
    (void)c;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - sizeof DASHBOARD - 1);
    if (n <= 0) {
        fprintf(cli->err, "sandman: cannot find this program's directory: %s\n", strerror(errno));
        return CLI_FAIL;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    strcpy(slash ? slash + 1 : self, DASHBOARD);
    fflush(NULL);
    execv(self, sm_main_argv);
    fprintf(cli->err, "sandman: cannot start the dashboard (%s): %s\n", self, strerror(errno));
    return CLI_FAIL;
}
