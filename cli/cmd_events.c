/* `sandman events ID`: a sandbox's journal (lifecycle, exec, transfer and failure events). */
#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "core/journal.h"
#include "core/json.h"

static int cmd_events(sm_cli *cli, cli_call *c)
{
    sm_sandbox *s = c->target;
    cJSON *events = NULL;
    sm_journal_read(sm_provider_name(sm_sandbox_provider(s)), sm_sandbox_id(s), &events);
    if (cli->json) {
        cli_print_json(cli, events);
    } else {
        const cJSON *ev;
        cJSON_ArrayForEach(ev, events)
        {
            char line[1024], e_line[4096], e_ts[160], e_type[160];
            sm_journal_event_summary(ev, line, sizeof line);
            const char *ts = sm_json_str(ev, "ts"), *type = sm_json_str(ev, "type");
            cli_printf(cli->out, "%s  %-9s  %s\n", cli_field(ts ? ts : "", e_ts, sizeof e_ts),
                       cli_field(type ? type : "", e_type, sizeof e_type),
                       cli_field(line, e_line, sizeof e_line));
        }
        cJSON_Delete(events);
    }
    return CLI_OK;
}

const sm_cmd sm_cmd_events = {
    .name = "events",
    .usage = "ID",
    .summary = "a sandbox's journal: lifecycle, exec, transfer and failure events",
    .flags = CLI_TARGET,
    .max_pos = 1,
    .run = cmd_events,
};
