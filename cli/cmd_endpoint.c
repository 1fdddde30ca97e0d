/* `sandman endpoint ID [PORT]`: how to reach a port the sandbox declared (seed §3.1): its URL
 * on the first line, then the headers a caller must send, one "Name: value" line each (the
 * form curl -H takes). Without PORT, one "PORT  URL" line per declared port. A port that was
 * not declared is refused by core (sm_sandbox_endpoint) with the ports that were. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "core/util.h"

static cJSON *endpoint_json(int port, const sm_endpoint *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "port", port);
    cJSON_AddStringToObject(o, "url", e->url);
    cJSON_AddItemToObject(o, "headers", sm_map_to_json(&e->headers));
    return o;
}

static int one_port(sm_cli *cli, sm_sandbox *s, int port)
{
    sm_endpoint e = {0};
    sm_error err;
    sm_error_clear(&err);
    if (sm_sandbox_endpoint(s, port, &e, &err) != SM_OK)
        return cli_fail(cli, &err);
    if (cli->json) {
        cli_print_json(cli, endpoint_json(port, &e));
    } else {
        char buf[1024], vbuf[1024];
        cli_printf(cli->out, "%s\n", cli_field(e.url, buf, sizeof buf));
        for (size_t i = 0; i < e.headers.n; i++)
            cli_printf(cli->out, "%s: %s\n", cli_field(e.headers.items[i].key, buf, sizeof buf),
                       cli_field(e.headers.items[i].value, vbuf, sizeof vbuf));
    }
    sm_endpoint_free(&e);
    return CLI_OK;
}

/* Every declared port; one that cannot be reached says why and the others still print. */
static int every_port(sm_cli *cli, sm_sandbox *s)
{
    sm_sandbox_info info;
    sm_error err;
    sm_error_clear(&err);
    sm_sandbox_status(s, &info, &err);
    int status = CLI_OK;
    cJSON *list = cJSON_CreateArray();
    if (info.nports == 0)
        cli_printf(cli->err, "sandman: sandbox %s declares no ports (create --port N)\n",
                   sm_sandbox_id(s));
    for (size_t i = 0; i < info.nports; i++) {
        sm_endpoint e = {0};
        sm_error_clear(&err);
        if (sm_sandbox_endpoint(s, info.ports[i], &e, &err) != SM_OK) {
            cli_printf(cli->err, "sandman: port %d: %s\n", info.ports[i], err.msg);
            status = CLI_FAIL;
            continue;
        }
        if (cli->json) {
            cJSON_AddItemToArray(list, endpoint_json(info.ports[i], &e));
        } else {
            char buf[1024], vbuf[1024];
            cli_printf(cli->out, "%-5d  %s\n", info.ports[i], cli_field(e.url, buf, sizeof buf));
            for (size_t k = 0; k < e.headers.n; k++)
                cli_printf(cli->out, "       %s: %s\n",
                           cli_field(e.headers.items[k].key, buf, sizeof buf),
                           cli_field(e.headers.items[k].value, vbuf, sizeof vbuf));
        }
        sm_endpoint_free(&e);
    }
    sm_sandbox_info_free(&info);
    if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "endpoints", list);
        cli_print_json(cli, doc);
    } else {
        cJSON_Delete(list);
    }
    return status;
}

static int cmd_endpoint(sm_cli *cli, cli_call *c)
{
    if (c->npos < 2)
        return every_port(cli, c->target);
    long port;
    if (sm_parse_long(c->pos[1], &port) < 0 || port < 1 || port > 65535)
        return cli_usage(cli, "PORT wants a number from 1 to 65535, not '%s'", c->pos[1]);
    return one_port(cli, c->target, (int)port);
}

const sm_cmd sm_cmd_endpoint = {
    .name = "endpoint",
    .usage = "ID [PORT]",
    .summary = "the URL (and headers) that reach a port the sandbox declared",
    .flags = CLI_PROVIDER | CLI_TARGET,
    .max_pos = 2,
    .run = cmd_endpoint,
};
