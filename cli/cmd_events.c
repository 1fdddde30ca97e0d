/* `sandman events [ID] [--follow] [-l K=V] [--replay-script]`: a sandbox's journal (lifecycle,
 * exec, transfer and failure events); --follow streams the events of every sandbox of the
 * context (or of ID) as they are journaled; --replay-script prints the sandbox's spec and
 * commands as a shell script that recreates it and runs them again. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/journal.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "core/strtab.h"
#include "core/util.h"

typedef struct events_args {
    bool follow, replay;
    sm_map labels;
} events_args;

enum { V_FOLLOW = 1, V_LABEL, V_REPLAY };
static const cli_opt events_opts[] = {
    {"follow", 'f', NULL,
     "stream events as they are journaled (every sandbox of the context without ID)", V_FOLLOW},
    {"label", 'l', "K=V", "with --follow: only sandboxes with this label (repeatable)", V_LABEL},
    {"replay-script", 0, NULL,
     "print a shell script that recreates the sandbox and runs its commands again", V_REPLAY},
    {NULL, 0, NULL, NULL, 0}};

static int events_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    events_args *a = args;
    if (id == V_FOLLOW)
        a->follow = true;
    else if (id == V_REPLAY)
        a->replay = true;
    else if (id == V_LABEL && sm_map_set_kv(&a->labels, arg) < 0)
        return cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg);
    return 0;
}

static int events_check(sm_cli *cli, cli_call *c)
{
    events_args *a = c->args;
    if (a->follow && a->replay)
        return cli_usage(cli, "--follow and --replay-script do not go together");
    if (c->npos == 0 && !a->follow)
        return cli_usage(cli, "events needs a sandbox ID (or --follow for every sandbox)");
    if (a->labels.n && !a->follow)
        return cli_usage(cli, "--label filters --follow; with an ID the sandbox is chosen");
    return 0;
}

static void events_done(void *args)
{
    sm_map_free(&((events_args *)args)->labels);
}

static void print_line(sm_cli *cli, const cJSON *ev, bool with_id)
{
    char line[1024], e_line[4096], e_ts[160], e_type[160], e_id[80];
    sm_journal_event_summary(ev, line, sizeof line);
    const char *ts = sm_json_str(ev, "ts"), *type = sm_json_str(ev, "type");
    const char *id = sm_json_str(ev, "sandbox_id");
    if (with_id)
        cli_printf(cli->out, "%s  %-12.12s  %-9s  %s\n", cli_field(ts ? ts : "", e_ts, sizeof e_ts),
                   cli_field(id ? id : "", e_id, sizeof e_id),
                   cli_field(type ? type : "", e_type, sizeof e_type),
                   cli_field(line, e_line, sizeof e_line));
    else
        cli_printf(cli->out, "%s  %-9s  %s\n", cli_field(ts ? ts : "", e_ts, sizeof e_ts),
                   cli_field(type ? type : "", e_type, sizeof e_type),
                   cli_field(line, e_line, sizeof e_line));
}

/* ---- --follow ----------------------------------------------------------------------------- */

/* The sandbox's "created" event: the first line of its journal. NULL when unreadable. */
static cJSON *created_event(const char *provider, const char *id)
{
    char *path = sm_journal_path(provider, id);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return NULL;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    cJSON *ev = cJSON_Parse(buf);
    if (!cJSON_IsObject(ev) ||
        strcmp(sm_json_str(ev, "event") ? sm_json_str(ev, "event") : "", "created") != 0) {
        cJSON_Delete(ev);
        return NULL;
    }
    return ev;
}

static bool belongs(sm_cli *cli, cli_call *c, const char *id)
{
    events_args *a = c->args;
    const char *prov = sm_provider_name(c->provider);
    if (c->target)
        return strcmp(id, sm_sandbox_id(c->target)) == 0;
    cJSON *ev = created_event(prov, id);
    (void)cli;
    if (!ev) /* created before journals named their spec, or cut: keep it unless filtering */
        return a->labels.n == 0;
    bool keep = true;
    const char *ctx = sm_json_str(ev, "context"), *want = sm_provider_context(c->provider);
    if (ctx && want && strcmp(ctx, want) != 0)
        keep = false;
    const cJSON *md =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "spec"), "metadata");
    for (size_t i = 0; keep && i < a->labels.n; i++) {
        const char *v = sm_json_str(md, a->labels.items[i].key);
        keep = v && strcmp(v, a->labels.items[i].value) == 0;
    }
    cJSON_Delete(ev);
    return keep;
}

static int follow(sm_cli *cli, cli_call *c)
{
    const char *prov = sm_provider_name(c->provider);
    sm_journal_follower *jf = sm_journal_follower_new(0);
    sm_strtab seen;
    sm_strtab_init(&seen, NULL, NULL);
    cJSON_Delete(sm_journal_follower_poll(jf)); /* from now on */
    for (;;) {
        cJSON *evs = sm_journal_follower_poll(jf);
        const cJSON *ev;
        cJSON_ArrayForEach(ev, evs)
        {
            const char *id = sm_json_str(ev, "sandbox_id"), *p = sm_json_str(ev, "provider");
            if (!id || !p || strcmp(p, prov) != 0)
                continue;
            void *known = sm_strtab_get(&seen, id);
            if (!known) {
                known = belongs(cli, c, id) ? (void *)1 : (void *)2;
                sm_strtab_put(&seen, id, known);
            }
            if (known != (void *)1)
                continue;
            if (cli->json)
                cli_print_json_line(cli, cJSON_Duplicate(ev, true));
            else
                print_line(cli, ev, true);
        }
        cJSON_Delete(evs);
        fflush(cli->out);
        if (ferror(cli->out))
            break; /* the reader went away */
        sm_sleep_s(0.2, NULL);
    }
    sm_strtab_clear(&seen);
    sm_journal_follower_free(jf);
    return CLI_OK;
}

/* ---- --replay-script ------------------------------------------------------------------------ */

/* s as one single-quoted shell word. */
/* A word for the script. Text with control bytes (agent-chosen commands and paths may hold
 * ESC sequences) is written as bash's $'...' with each such byte as \xNN, so printing the
 * script to a terminal shows them instead of running them, and bash still gets the same
 * bytes. */
static void shq(sm_strbuf *b, const char *s)
{
    bool ctl = false;
    for (const char *p = s; *p && !ctl; p++)
        ctl = (unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f;
    if (ctl) {
        sm_strbuf_puts(b, "$'");
        for (; *s; s++) {
            unsigned char c = (unsigned char)*s;
            if (c < 0x20 || c == 0x7f)
                sm_strbuf_printf(b, "\\x%02x", c);
            else if (c == '\'' || c == '\\')
                sm_strbuf_printf(b, "\\%c", c);
            else
                sm_strbuf_append(b, s, 1);
        }
        sm_strbuf_puts(b, "'");
        return;
    }
    sm_strbuf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            sm_strbuf_puts(b, "'\\''");
        else
            sm_strbuf_append(b, s, 1);
    }
    sm_strbuf_puts(b, "'");
}

static void opt_num(sm_strbuf *b, const char *flag, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v))
        sm_strbuf_printf(b, " %s %g", flag, v->valuedouble);
}

static void create_line(sm_strbuf *b, const cJSON *created)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(created, "spec"), *it;
    const char *ctx = sm_json_str(created, "context");
    sm_strbuf_puts(b, "ID=$($SANDMAN");
    if (ctx) {
        sm_strbuf_puts(b, " -p ");
        shq(b, ctx);
    }
    sm_strbuf_puts(b, " create");
    const char *img = sm_json_str(spec, "image");
    if (img) {
        sm_strbuf_puts(b, " --image ");
        shq(b, img);
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(spec, "resources");
    opt_num(b, "--cpu", res, "cpu");
    opt_num(b, "--memory-mib", res, "memory_mib");
    opt_num(b, "--disk-gib", res, "disk_gib");
    opt_num(b, "--ttl", spec, "ttl_s");
    opt_num(b, "--ready-timeout", spec, "ready_timeout_s");
    const char *wd = sm_json_str(spec, "workdir");
    if (wd) {
        sm_strbuf_puts(b, " -w ");
        shq(b, wd);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "env_names"))
    {
        if (!cJSON_IsString(it))
            continue;
        sm_strbuf_puts(b, " -e ");
        shq(b, it->valuestring);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "metadata"))
    {
        /* attribution labels are the replaying user's, made again by create */
        if (!cJSON_IsString(it) || !strncmp(it->string, "nemo-gym.nvidia.com/", 20))
            continue;
        char *kv = xasprintf("%s=%s", it->string, it->valuestring);
        sm_strbuf_puts(b, " -l ");
        shq(b, kv);
        free(kv);
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "ports"))
        sm_strbuf_printf(b, " --port %d", (int)it->valuedouble);
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "entrypoint"))
    {
        if (!cJSON_IsString(it))
            continue;
        sm_strbuf_puts(b, " --entrypoint ");
        shq(b, it->valuestring);
    }
    sm_strbuf_puts(b, ") || exit 1\n");
}

static void exec_line(sm_strbuf *b, const cJSON *ev)
{
    const char *cmd = sm_json_str(ev, "cmd");
    if (!cmd)
        return;
    size_t n = strlen(cmd);
    if (n > 4096 && !strcmp(cmd + n - 3, "..."))
        sm_strbuf_puts(b, "# the next command was longer than the journal keeps: cut short\n");
    sm_strbuf_puts(b, "$SANDMAN exec");
    double t = sm_json_num(ev, "timeout_s", -1);
    if (t > 0)
        sm_strbuf_printf(b, " --timeout %g", t);
    const char *cwd = sm_json_str(ev, "cwd"), *user = sm_json_str(ev, "user");
    if (cwd) {
        sm_strbuf_puts(b, " -w ");
        shq(b, cwd);
    }
    if (user) {
        sm_strbuf_puts(b, " -u ");
        shq(b, user);
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ev, "env"))
    {
        if (!cJSON_IsString(it))
            continue;
        sm_strbuf_puts(b, " -e ");
        shq(b, it->valuestring);
    }
    sm_strbuf_puts(b, " \"$ID\" -- ");
    shq(b, cmd);
    sm_strbuf_printf(b, "  # was: exit %.0f\n", sm_json_num(ev, "return_code", 0));
}

static void transfer_line(sm_strbuf *b, const cJSON *ev)
{
    const char *local = sm_json_str(ev, "local"), *remote = sm_json_str(ev, "remote");
    const char *event = sm_json_str(ev, "event");
    if (!local || !remote || !event)
        return;
    bool up = !strcmp(event, "upload");
    sm_strbuf_puts(b, "$SANDMAN cp ");
    if (up)
        shq(b, local);
    else
        sm_strbuf_puts(b, "\"$ID\":");
    if (!up)
        shq(b, remote);
    sm_strbuf_puts(b, " ");
    if (up) {
        sm_strbuf_puts(b, "\"$ID\":");
        shq(b, remote);
    } else {
        shq(b, local);
    }
    sm_strbuf_puts(b, "\n");
}

static int replay(sm_cli *cli, sm_sandbox *s)
{
    const char *prov = sm_provider_name(sm_sandbox_provider(s)), *id = sm_sandbox_id(s);
    cJSON *events = NULL;
    sm_journal_read(prov, id, &events);
    const cJSON *ev, *created = NULL;
    cJSON_ArrayForEach(ev, events)
    {
        const char *e = sm_json_str(ev, "event");
        if (e && !strcmp(e, "created")) {
            created = ev;
            break;
        }
    }
    if (!created) {
        cJSON_Delete(events);
        return cli_error(cli, CLI_FAIL,
                         "sandbox %s has no created event in its journal: nothing to replay", id);
    }
    sm_strbuf b = {0};
    char ts[64];
    const char *cts = sm_json_str(created, "ts");
    snprintf(ts, sizeof ts, "%s", cts ? cts : "?");
    sm_strbuf_printf(&b,
                     "#!/bin/bash\n"
                     "# Replays sandbox %s (created %s): a new sandbox with its spec, then its\n"
                     "# commands and copies in the order they ran. Environment values are not\n"
                     "# recorded: each -e NAME takes NAME's value from this shell's environment.\n"
                     "# Files written at create (--file) are not recorded either.\n"
                     "SANDMAN=${SANDMAN:-sandman}\n",
                     id, ts);
    create_line(&b, created);
    sm_strbuf_puts(&b, "echo \"replaying in $ID\" >&2\n");
    cJSON_ArrayForEach(ev, events)
    {
        const char *type = sm_json_str(ev, "type");
        if (type && !strcmp(type, "exec"))
            exec_line(&b, ev);
        else if (type && !strcmp(type, "transfer"))
            transfer_line(&b, ev);
    }
    sm_strbuf_puts(&b, "echo \"$ID\"  # sandman rm \"$ID\" when done\n");
    cJSON_Delete(events);
    /* The script is for a shell: printed as it is (already redacted in the journal). */
    fputs(b.data, cli->out);
    sm_strbuf_free(&b);
    return CLI_OK;
}

static int cmd_events(sm_cli *cli, cli_call *c)
{
    events_args *a = c->args;
    if (a->follow)
        return follow(cli, c);
    sm_sandbox *s = c->target;
    if (a->replay)
        return replay(cli, s);
    sm_error err;
    sm_error_clear(&err);
    sm_sandbox_status(s, NULL, &err); /* journals an end only the provider knows of */
    cJSON *events = NULL;
    sm_journal_read(sm_provider_name(sm_sandbox_provider(s)), sm_sandbox_id(s), &events);
    if (cli->json) {
        cli_print_json(cli, events);
    } else {
        const cJSON *ev;
        cJSON_ArrayForEach(ev, events) print_line(cli, ev, false);
        cJSON_Delete(events);
    }
    return CLI_OK;
}

const sm_cmd sm_cmd_events = {
    .name = "events",
    .usage = "[ID] [--follow [-l K=V]...] [--replay-script]",
    .summary = "a sandbox's journal; --follow streams every sandbox's events as they happen",
    .flags = CLI_PROVIDER | CLI_TARGET_OPTIONAL,
    .max_pos = 1,
    .opts = events_opts,
    .args_size = sizeof(events_args),
    .opt = events_opt,
    .check = events_check,
    .run = cmd_events,
    .done = events_done,
    .stream_opt = V_FOLLOW,
};
