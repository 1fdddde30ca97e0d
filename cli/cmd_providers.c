/* `sandman providers`: every registered provider, its capabilities and runtime notes. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static int cmd_providers(sm_cli *cli, cli_call *c)
{
    const char *names[32];
    size_t n = sm_provider_names(names, 32);
    cJSON *arr = cJSON_CreateArray();
    if (!cli->json)
        fprintf(cli->out, "%-12s  %-44s  %s\n", "PROVIDER", "CAPABILITIES", "NOTES");
    for (size_t i = 0; i < n; i++) {
        const char *summary = "";
        unsigned bits = 0;
        sm_provider_about(names[i], &summary, &bits);
        char caps[256];
        sm_caps_names(bits, caps, sizeof caps);
        char *note = sm_provider_describe_default(names[i]);
        if (cli->json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", names[i]);
            cJSON_AddStringToObject(o, "summary", summary);
            cJSON *ca = cJSON_AddArrayToObject(o, "capabilities");
            char *save = NULL;
            for (char *w = strtok_r(caps, ",", &save); w; w = strtok_r(NULL, ",", &save))
                cJSON_AddItemToArray(ca, cJSON_CreateString(w));
            if (note)
                cJSON_AddStringToObject(o, "notes", note);
            cJSON_AddItemToArray(arr, o);
        } else {
            cli_printf(cli->out, "%-12s  %-44s  %s%s%s\n", names[i], caps, summary,
                       note ? "; " : "", note ? note : "");
        }
        free(note);
    }
    if (cli->json)
        cli_print_json(cli, arr);
    else
        cJSON_Delete(arr);
    return CLI_OK;
}

const sm_cmd sm_cmd_providers = {
    .name = "providers",
    .usage = "",
    .summary = "list providers and their capabilities",
    .run = cmd_providers,
};
