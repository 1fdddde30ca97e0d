/* Dashboard themes: YAML theme files (themes/NAME.yaml) -> per-role styles -> curses colour pairs
 * for the colour tier the terminal can show (mono, 16, 256, direct). Views only ever ask
 * tui_attr(role); this file is the one place that knows colours. No provider knowledge here. */
#include "tui/theme.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/config.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "core/util.h"

#ifndef SANDMAN_THEME_DIR_DEFAULT
#define SANDMAN_THEME_DIR_DEFAULT "/usr/share/sandman/themes"
#endif

static const char *const role_names[TH__COUNT + 1] = {
    [TH_NORMAL] = "normal",
    [TH_HEADER] = "header",
    [TH_TITLE] = "title",
    [TH_BORDER] = "border",
    [TH_DIM] = "dim",
    [TH_SELECTED] = "selected",
    [TH_MARKED] = "marked",
    [TH_KEY] = "key",
    [TH_INPUT] = "input",
    [TH_STATUS_RUNNING] = "status_running",
    [TH_STATUS_STARTING] = "status_starting",
    [TH_STATUS_STOPPED] = "status_stopped",
    [TH_STATUS_ERROR] = "status_error",
    [TH_STATUS_UNKNOWN] = "status_unknown",
    [TH_FAILURE] = "failure",
    [TH_WARNING] = "warning",
    [TH_OK] = "ok",
    [TH_GRAPH_CPU] = "graph_cpu",
    [TH_GRAPH_MEM] = "graph_mem",
    [TH_GRAPH_IO] = "graph_io",
    [TH_GRAPH_NET] = "graph_net",
    [TH_TAB] = "tab",
    [TH_TAB_ACTIVE] = "tab_active",
    [TH__COUNT] = NULL,
};

static const char *const top_keys[] = {"name", "colors", NULL};
static const char *const style_keys[] = {"fg", "bg", "bold", "underline", "reverse", "dim", NULL};

static const char *const color_names[16] = {
    "black",        "red",           "green",       "yellow",         "blue",
    "magenta",      "cyan",          "white",       "bright-black",   "bright-red",
    "bright-green", "bright-yellow", "bright-blue", "bright-magenta", "bright-cyan",
    "bright-white",
};

#define COLOR_HELP                                                                                 \
    "allowed: default, black, red, green, yellow, blue, magenta, cyan, white, bright-black .. "    \
    "bright-white, gray, an integer 0..255, or \"#rrggbb\" in quotes"

/* xterm's default palette for the 16 ANSI colours: the reference for "nearest of 16". */
static const unsigned char ansi_rgb[16][3] = {
    {0x00, 0x00, 0x00}, {0xcd, 0x00, 0x00}, {0x00, 0xcd, 0x00}, {0xcd, 0xcd, 0x00},
    {0x00, 0x00, 0xee}, {0xcd, 0x00, 0xcd}, {0x00, 0xcd, 0xcd}, {0xe5, 0xe5, 0xe5},
    {0x7f, 0x7f, 0x7f}, {0xff, 0x00, 0x00}, {0x00, 0xff, 0x00}, {0xff, 0xff, 0x00},
    {0x5c, 0x5c, 0xff}, {0xff, 0x00, 0xff}, {0x00, 0xff, 0xff}, {0xff, 0xff, 0xff},
};

static const int cube_levels[6] = {0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff};

const char *tui_role_name(tui_role r)
{
    if ((int)r < 0 || r >= TH__COUNT)
        return "?";
    return role_names[r];
}

/* ------------------------------------------------------------------ colour arithmetic */

static void index_rgb(int i, int rgb[3])
{
    if (i < 16) {
        for (int k = 0; k < 3; k++)
            rgb[k] = ansi_rgb[i][k];
    } else if (i < 232) {
        i -= 16;
        rgb[0] = cube_levels[i / 36];
        rgb[1] = cube_levels[(i / 6) % 6];
        rgb[2] = cube_levels[i % 6];
    } else {
        rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (i - 232);
    }
}

static int dist2(const int a[3], const int b[3])
{
    int d = 0;
    for (int k = 0; k < 3; k++)
        d += (a[k] - b[k]) * (a[k] - b[k]);
    return d;
}

static int nearest_cube_level(int v)
{
    int best = 0;
    for (int i = 1; i < 6; i++)
        if (abs(cube_levels[i] - v) < abs(cube_levels[best] - v))
            best = i;
    return best;
}

/* Nearest of xterm's 6x6x6 cube and 24 greys; the first 16 are left out because terminals
 * recolour them. */
static int rgb_to_256(const int rgb[3])
{
    int ri = nearest_cube_level(rgb[0]), gi = nearest_cube_level(rgb[1]),
        bi = nearest_cube_level(rgb[2]);
    int cube[3] = {cube_levels[ri], cube_levels[gi], cube_levels[bi]};
    int cube_idx = 16 + 36 * ri + 6 * gi + bi;

    int avg = (rgb[0] + rgb[1] + rgb[2]) / 3;
    int gi24 = avg <= 8 ? 0 : avg >= 238 ? 23 : (avg - 8 + 5) / 10;
    if (gi24 > 23)
        gi24 = 23;
    int grey[3] = {8 + 10 * gi24, 8 + 10 * gi24, 8 + 10 * gi24};

    return dist2(rgb, grey) < dist2(rgb, cube) ? 232 + gi24 : cube_idx;
}

static int rgb_to_16(const int rgb[3])
{
    int best = 0, bestd = INT_MAX;
    for (int i = 0; i < 16; i++) {
        int p[3] = {ansi_rgb[i][0], ansi_rgb[i][1], ansi_rgb[i][2]};
        int d = dist2(rgb, p);
        if (d < bestd) {
            bestd = d;
            best = i;
        }
    }
    return best;
}

tui_color_tier tui_color_tier_detect(const char *no_color_env, bool has_colors, int colors)
{
    if (no_color_env && *no_color_env)
        return TUI_TIER_MONO;
    if (!has_colors)
        return TUI_TIER_MONO;
    if (colors >= 0x1000000)
        return TUI_TIER_DIRECT;
    if (colors >= 256)
        return TUI_TIER_256;
    return TUI_TIER_16;
}

int tui_color_for_tier(const tui_color *c, tui_color_tier tier)
{
    if (!c || c->kind == 0 || tier == TUI_TIER_MONO)
        return -1;
    int rgb[3];
    if (c->kind == 1) {
        if (c->index < 0 || c->index > 255)
            return -1;
        if (tier == TUI_TIER_256 || (tier == TUI_TIER_16 && c->index < 16) ||
            (tier == TUI_TIER_DIRECT && c->index < 8))
            return c->index;
        index_rgb(c->index, rgb);
    } else {
        rgb[0] = c->r;
        rgb[1] = c->g;
        rgb[2] = c->b;
    }
    switch (tier) {
    case TUI_TIER_16: return rgb_to_16(rgb);
    case TUI_TIER_256: return rgb_to_256(rgb);
    case TUI_TIER_DIRECT: {
        int v = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2];
        return v < 8 ? 8 : v;
    }
    default: return -1;
    }
}

attr_t tui_color_fold8(int *fg, int *bg, tui_color_tier tier)
{
    if (tier != TUI_TIER_16 || COLORS >= 16)
        return 0;
    attr_t a = 0;
    if (*fg >= 8) {
        *fg -= 8;
        a = A_BOLD;
    }
    if (*bg >= 8)
        *bg -= 8;
    return a;
}

/* ------------------------------------------------------------------ parsing */

static int theme_error(sm_error *err, const char *origin, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int theme_error(sm_error *err, const char *origin, const char *fmt, ...)
{
    char msg[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "%s: %s", origin, msg);
}

/* An sm_json_check_keys error, as a theme error: "<origin>: unknown key ...". */
static int key_error(sm_error *err, const char *origin)
{
    sm_error_prefix(err, "%s", origin);
    if (err)
        err->code = SM_ERR_CONFIG;
    return SM_ERR_CONFIG;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static bool parse_color_string(const char *s, tui_color *out)
{
    if (!strcmp(s, "default")) {
        *out = (tui_color){0};
        return true;
    }
    if (!strcmp(s, "gray") || !strcmp(s, "grey")) {
        *out = (tui_color){.kind = 1, .index = 8};
        return true;
    }
    for (int i = 0; i < 16; i++)
        if (!strcmp(s, color_names[i])) {
            *out = (tui_color){.kind = 1, .index = i};
            return true;
        }
    if (s[0] == '#') {
        if (strlen(s) != 7)
            return false;
        int v[6];
        for (int i = 0; i < 6; i++)
            if ((v[i] = hexval(s[1 + i])) < 0)
                return false;
        *out = (tui_color){.kind = 2,
                           .r = (unsigned char)(v[0] * 16 + v[1]),
                           .g = (unsigned char)(v[2] * 16 + v[3]),
                           .b = (unsigned char)(v[4] * 16 + v[5])};
        return true;
    }
    long n;
    if (sm_parse_long(s, &n) == 0 && n >= 0 && n <= 255) {
        *out = (tui_color){.kind = 1, .index = (int)n};
        return true;
    }
    return false;
}

static int parse_color(const cJSON *v, const char *where, const char *origin, tui_color *out,
                       sm_error *err)
{
    if (cJSON_IsNull(v))
        return theme_error(err, origin,
                           "%s is empty (a \"#rrggbb\" colour must be quoted: an unquoted # "
                           "starts a YAML comment; %s)",
                           where, COLOR_HELP);
    if (cJSON_IsString(v) && parse_color_string(v->valuestring, out))
        return SM_OK;
    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 255 &&
        v->valuedouble == (double)(int)v->valuedouble) {
        *out = (tui_color){.kind = 1, .index = (int)v->valuedouble};
        return SM_OK;
    }
    char shown[64];
    if (cJSON_IsString(v))
        snprintf(shown, sizeof shown, "'%.50s'", v->valuestring);
    else if (cJSON_IsNumber(v))
        snprintf(shown, sizeof shown, "%g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(shown, sizeof shown, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else
        snprintf(shown, sizeof shown, "%s", cJSON_IsArray(v) ? "a list" : "a mapping");
    return theme_error(err, origin, "%s: bad colour %s (%s)", where, shown, COLOR_HELP);
}

static int parse_style(const cJSON *v, const char *role, const char *origin, tui_style *st,
                       sm_error *err)
{
    char where[96];
    snprintf(where, sizeof where, "colors.%s", role);
    if (cJSON_IsNull(v))
        return SM_OK;
    if (!cJSON_IsObject(v))
        return theme_error(err, origin,
                           "%s must be a mapping of fg, bg, bold, underline, reverse, dim", where);
    if (sm_json_check_keys(v, style_keys, where, err) != SM_OK)
        return key_error(err, origin);
    static const char *const ckeys[2] = {"fg", "bg"};
    tui_color *cdst[2] = {&st->fg, &st->bg};
    for (int i = 0; i < 2; i++) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, ckeys[i]);
        if (!c)
            continue;
        char cwhere[112];
        snprintf(cwhere, sizeof cwhere, "%s.%s", where, ckeys[i]);
        if (parse_color(c, cwhere, origin, cdst[i], err) != SM_OK)
            return SM_ERR_CONFIG;
    }
    static const char *const bkeys[4] = {"bold", "underline", "reverse", "dim"};
    bool *bdst[4] = {&st->bold, &st->underline, &st->reverse, &st->dim};
    for (int i = 0; i < 4; i++) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, bkeys[i]);
        if (!b)
            continue;
        if (!cJSON_IsBool(b) || sm_json_get_bool(v, bkeys[i], bdst[i], where, NULL) != SM_OK)
            return theme_error(err, origin, "%s.%s must be true or false", where, bkeys[i]);
    }
    return SM_OK;
}

/* "themes/light.yaml" -> "light" */
static char *name_from_origin(const char *origin)
{
    const char *base = strrchr(origin, '/');
    base = base ? base + 1 : origin;
    size_t n = strlen(base);
    if (n > 5 && !strcmp(base + n - 5, ".yaml"))
        n -= 5;
    else if (n > 4 && !strcmp(base + n - 4, ".yml"))
        n -= 4;
    return xstrndup(base, n);
}

int tui_theme_parse(const char *yaml_text, const char *origin, tui_theme *out, sm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!origin)
        origin = "theme";
    cJSON *doc =
        sm_yaml_parse(yaml_text ? yaml_text : "", yaml_text ? strlen(yaml_text) : 0, origin, err);
    if (!doc) {
        if (err)
            err->code = SM_ERR_CONFIG;
        return SM_ERR_CONFIG;
    }
    int rc = SM_OK;
    tui_theme t = {0};
    const cJSON *colors = NULL, *name;
    if (!cJSON_IsObject(doc)) {
        rc = theme_error(err, origin, "a theme must be a mapping with keys colors, name%s",
                         cJSON_IsNull(doc) ? " (the file is empty)" : "");
        goto out;
    }
    if (sm_json_check_keys(doc, top_keys, "theme", err) != SM_OK) {
        rc = key_error(err, origin);
        goto out;
    }
    name = cJSON_GetObjectItemCaseSensitive(doc, "name");
    if (name && !cJSON_IsNull(name)) {
        if (!cJSON_IsString(name) || !*name->valuestring) {
            rc = theme_error(err, origin, "name must be a non-empty string");
            goto out;
        }
        t.name = xstrdup(name->valuestring);
    } else {
        t.name = name_from_origin(origin);
    }
    colors = cJSON_GetObjectItemCaseSensitive(doc, "colors");
    if (colors && !cJSON_IsNull(colors) && !cJSON_IsObject(colors)) {
        rc = theme_error(err, origin, "colors must be a mapping of role -> style");
        goto out;
    }
    if (colors && cJSON_IsObject(colors)) {
        if (sm_json_check_keys(colors, role_names, "colors", err) != SM_OK) {
            rc = key_error(err, origin);
            goto out;
        }
        /* normal first: every other role starts as a copy of it. */
        const cJSON *normal = cJSON_GetObjectItemCaseSensitive(colors, "normal");
        if (normal && (rc = parse_style(normal, "normal", origin, &t.roles[TH_NORMAL], err)))
            goto out;
        for (int r = 1; r < TH__COUNT; r++) {
            t.roles[r] = t.roles[TH_NORMAL];
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(colors, role_names[r]);
            if (st && (rc = parse_style(st, role_names[r], origin, &t.roles[r], err)))
                goto out;
        }
    }
out:
    cJSON_Delete(doc);
    if (rc != SM_OK) {
        free(t.name);
        return rc;
    }
    *out = t;
    return SM_OK;
}

void tui_theme_free(tui_theme *t)
{
    if (!t)
        return;
    free(t->name);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ search path */

#define MAX_DIRS 4

/* The theme directories in search order (malloc'd; caller frees each). */
static size_t theme_dirs(char *dirs[MAX_DIRS])
{
    size_t n = 0;
    const char *env = getenv("SANDMAN_THEME_DIR");
    if (env && *env)
        dirs[n++] = xstrdup(env);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        dirs[n++] = xasprintf("%s/sandman/themes", xdg);
    else if (home && *home)
        dirs[n++] = xasprintf("%s/.config/sandman/themes", home);
    dirs[n++] = xstrdup(SANDMAN_THEME_DIR_DEFAULT);
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            dirs[n++] = xasprintf("%s/../share/sandman/themes", exe);
        }
    }
    return n;
}

static void free_dirs(char *dirs[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* All theme names (sorted, unique); *n set to the count. Caller frees each and the array. */
static char **collect_names(size_t *n)
{
    char *dirs[MAX_DIRS];
    size_t nd = theme_dirs(dirs), cap = 0;
    char **names = NULL;
    *n = 0;
    for (size_t i = 0; i < nd; i++) {
        DIR *d = opendir(dirs[i]);
        if (!d)
            continue;
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t len = strlen(de->d_name);
            if (len <= 5 || de->d_name[0] == '.' || strcmp(de->d_name + len - 5, ".yaml"))
                continue;
            char *path = xasprintf("%s/%s", dirs[i], de->d_name);
            struct stat st;
            bool regular = stat(path, &st) == 0 && S_ISREG(st.st_mode);
            free(path);
            if (!regular)
                continue;
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                names = xrealloc(names, cap * sizeof *names);
            }
            names[(*n)++] = xstrndup(de->d_name, len - 5);
        }
        closedir(d);
    }
    free_dirs(dirs, nd);
    if (*n)
        qsort(names, *n, sizeof *names, cmp_name);
    size_t w = 0;
    for (size_t i = 0; i < *n; i++) {
        if (w && !strcmp(names[w - 1], names[i])) {
            free(names[i]);
            continue;
        }
        names[w++] = names[i];
    }
    *n = w;
    return names;
}

size_t tui_theme_list(char **names, size_t max)
{
    size_t n;
    char **all = collect_names(&n);
    size_t stored = names ? (n < max ? n : max) : n;
    for (size_t i = 0; i < n; i++) {
        if (names && i < stored)
            names[i] = all[i];
        else
            free(all[i]);
    }
    free(all);
    return stored;
}

static int load_file(const char *path, tui_theme *out, sm_error *err)
{
    char *text = NULL;
    size_t len;
    if (sm_read_file(path, &text, &len) != 0) {
        int e = errno;
        return sm_error_set(err, e == ENOENT ? SM_ERR_NOT_FOUND : SM_ERR_IO,
                            SM_FAIL_INVALID_REQUEST, "theme file %s: %s", path, strerror(e));
    }
    int rc = tui_theme_parse(text, path, out, err);
    free(text);
    return rc;
}

static bool is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 5 && !strcmp(s + n - 5, ".yaml")) ||
           (n >= 4 && !strcmp(s + n - 4, ".yml"));
}

int tui_theme_load(const char *name_or_path, tui_theme *out, sm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!name_or_path || !*name_or_path)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "theme name must not be empty");
    if (is_path(name_or_path))
        return load_file(name_or_path, out, err);

    char *dirs[MAX_DIRS];
    size_t nd = theme_dirs(dirs);
    for (size_t i = 0; i < nd; i++) {
        char *path = xasprintf("%s/%s.yaml", dirs[i], name_or_path);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            int rc = load_file(path, out, err);
            free(path);
            free_dirs(dirs, nd);
            return rc;
        }
        free(path);
    }

    size_t n;
    char **names = collect_names(&n);
    sm_strbuf b = {0};
    if (n) {
        for (size_t i = 0; i < n; i++)
            sm_strbuf_printf(&b, "%s%s", i ? ", " : "", names[i]);
        sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_INVALID_REQUEST,
                     "unknown theme '%s' (available: %s)", name_or_path, b.data);
    } else {
        for (size_t i = 0; i < nd; i++)
            sm_strbuf_printf(&b, "%s%s", i ? ", " : "", dirs[i]);
        sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_INVALID_REQUEST,
                     "unknown theme '%s' (no theme files found in %s)", name_or_path, b.data);
    }
    sm_strbuf_free(&b);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free_dirs(dirs, nd);
    return SM_ERR_NOT_FOUND;
}

/* ------------------------------------------------------------------ curses */

static attr_t role_attrs[TH__COUNT];

/* What each role looks like without colour: enough to tell selection, headings, failures and
 * inactive text apart on a mono terminal or with NO_COLOR. */
static attr_t mono_attr(tui_role r)
{
    switch (r) {
    case TH_HEADER:
    case TH_TITLE:
    case TH_KEY:
    case TH_MARKED:
    case TH_FAILURE:
    case TH_STATUS_RUNNING: return A_BOLD;
    case TH_STATUS_ERROR: return A_BOLD | A_UNDERLINE;
    case TH_WARNING:
    case TH_INPUT: return A_UNDERLINE;
    case TH_DIM:
    case TH_BORDER:
    case TH_STATUS_STOPPED:
    case TH_STATUS_UNKNOWN: return A_DIM;
    case TH_SELECTED: return A_REVERSE;
    case TH_TAB_ACTIVE: return A_REVERSE | A_BOLD;
    default: return A_NORMAL;
    }
}

static attr_t style_attrs(const tui_style *s)
{
    return (s->bold ? A_BOLD : 0) | (s->underline ? A_UNDERLINE : 0) |
           (s->reverse ? A_REVERSE : 0) | (s->dim ? A_DIM : 0);
}

static int make_pair(int pair, int fg, int bg)
{
#ifdef NCURSES_EXT_COLORS
    if (COLORS >= 256)
        return init_extended_pair(pair, fg, bg);
#endif
    if (fg > 32767 || bg > 32767)
        return ERR;
    return init_pair((short)pair, (short)fg, (short)bg);
}

void tui_theme_apply(const tui_theme *t, tui_color_tier tier)
{
    tui_color_tier term = tui_color_tier_detect(NULL, has_colors(), COLORS);
    if (tier > term)
        tier = term;
    bool defaults = tier != TUI_TIER_MONO && use_default_colors() == OK;
    for (int r = 0; r < TH__COUNT; r++) {
        const tui_style *s = &t->roles[r];
        attr_t a = style_attrs(s);
        if (tier == TUI_TIER_MONO) {
            role_attrs[r] = a | mono_attr((tui_role)r);
            continue;
        }
        int fg = tui_color_for_tier(&s->fg, tier), bg = tui_color_for_tier(&s->bg, tier);
        a |= tui_color_fold8(&fg, &bg, tier);
        if (!defaults) {
            if (fg < 0)
                fg = COLOR_WHITE;
            if (bg < 0)
                bg = COLOR_BLACK;
        }
        if (fg < 0 && bg < 0) {
            role_attrs[r] = a;
            continue;
        }
        int pair = r + 1;
        if (pair < COLOR_PAIRS && make_pair(pair, fg, bg) == OK)
            role_attrs[r] = a | COLOR_PAIR(pair);
        else
            role_attrs[r] = a | mono_attr((tui_role)r);
    }
}

attr_t tui_attr(tui_role r)
{
    if ((int)r < 0 || r >= TH__COUNT)
        return A_NORMAL;
    return role_attrs[r];
}
