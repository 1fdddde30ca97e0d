/* `sandman status ID`: one sandbox's status, resources, why it ended, and its last failing
 * command (from its journal, with its age once later commands ran). */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/format.h"
#include "core/journal.h"
#include "core/text.h"
#include "core/util.h"

/* "last failure: exit 3, 2 commands ago: exit code 3", then its reason; escaped whole. */
static void print_last_failure(sm_cli *cli, const sm_failure *f)
{
    char label[160], ev[512];
    sm_failure_label(f, label, sizeof label);
    sm_failure_evidence(f, ev, sizeof ev);
    char *line = xasprintf("%s%s%s", label, ev[0] ? ": " : "", ev);
    char *safe = sm_text_escape(line, 0);
    cli_printf(cli->out, "%s %s\n", "last failure:", safe);
    free(safe);
    free(line);
    if (f->reason[0]) {
        safe = sm_text_escape(f->reason, 0);
        cli_printf(cli->out, "%-14s%s\n", "", safe);
        free(safe);
    }
}

static int cmd_status(sm_cli *cli, cli_call *c)
{
    sm_sandbox *s = c->target;
    sm_sandbox_info info;
    sm_error err;
    sm_error_clear(&err);
    sm_sandbox_status(s, &info, &err);
    sm_failure last;
    bool have_last =
        info.id && info.provider && sm_journal_last_failure(info.provider, info.id, &last);
    if (cli->json) {
        cJSON *doc = sm_sandbox_info_to_json(&info);
        cJSON_AddItemToObject(doc, "last_failure",
                              have_last ? sm_failure_to_json(&last) : cJSON_CreateNull());
        cli_print_json(cli, doc);
    } else {
        cli_print_info_detail(cli->out, &info);
        if (have_last)
            print_last_failure(cli, &last);
    }
    sm_sandbox_info_free(&info);
    return CLI_OK;
}

const sm_cmd sm_cmd_status = {
    .name = "status",
    .usage = "ID",
    .summary = "show a sandbox's status, why it ended and its last failing command",
    .flags = CLI_TARGET,
    .max_pos = 1,
    .run = cmd_status,
};
