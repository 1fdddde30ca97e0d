/* Unit tests for tui/theme.c: the shipped themes, inheritance from "normal", one-line errors for
 * bad theme files, colour tier detection, colour mapping down to 256/16/direct, the theme search
 * path, and the colour pairs and attributes curses gets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "tui/theme.h"

#define SHIPPED SANDMAN_THEME_DIR_DEFAULT

/* ---------------------------------------------------------------- helpers */

static tui_theme parse_ok(const char *yaml)
{
    tui_theme t;
    sm_error e;
    sm_error_clear(&e);
    if (tui_theme_parse(yaml, "t.yaml", &t, &e) != SM_OK)
        fail_msg("unexpected theme error: %s", e.msg);
    return t;
}

/* Parses a theme that must fail; checks the exact one-line message. */
static void parse_fails(const char *yaml, const char *expected)
{
    tui_theme t;
    sm_error e;
    sm_error_clear(&e);
    int rc = tui_theme_parse(yaml, "t.yaml", &t, &e);
    if (rc == SM_OK) {
        tui_theme_free(&t);
        fail_msg("theme should fail: %s", yaml);
    }
    assert_int_equal(rc, SM_ERR_CONFIG);
    assert_int_equal(e.code, SM_ERR_CONFIG);
    assert_null(t.name);
    assert_null(strchr(e.msg, '\n'));
    assert_string_equal(e.msg, expected);
}

static bool color_eq(tui_color a, tui_color b)
{
    if (a.kind != b.kind)
        return false;
    if (a.kind == 1)
        return a.index == b.index;
    if (a.kind == 2)
        return a.r == b.r && a.g == b.g && a.b == b.b;
    return true;
}

static bool style_eq(const tui_style *a, const tui_style *b)
{
    return color_eq(a->fg, b->fg) && color_eq(a->bg, b->bg) && a->bold == b->bold &&
           a->underline == b->underline && a->reverse == b->reverse && a->dim == b->dim;
}

static tui_color idx(int i)
{
    return (tui_color){.kind = 1, .index = i};
}

static tui_color rgb(int r, int g, int b)
{
    return (tui_color){
        .kind = 2, .r = (unsigned char)r, .g = (unsigned char)g, .b = (unsigned char)b};
}

/* The xterm palette, written out independently of theme.c, to check what a colour looks like. */
static void xterm_rgb(tui_color c, int out[3])
{
    static const int ansi[16][3] = {
        {0, 0, 0},       {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
        {0, 0, 238},     {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
        {127, 127, 127}, {255, 0, 0},   {0, 255, 0},   {255, 255, 0},
        {92, 92, 255},   {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
    };
    static const int lv[6] = {0, 95, 135, 175, 215, 255};
    if (c.kind == 2) {
        out[0] = c.r, out[1] = c.g, out[2] = c.b;
    } else if (c.index < 16) {
        memcpy(out, ansi[c.index], sizeof ansi[0]);
    } else if (c.index < 232) {
        int i = c.index - 16;
        out[0] = lv[i / 36], out[1] = lv[(i / 6) % 6], out[2] = lv[i % 6];
    } else {
        out[0] = out[1] = out[2] = 8 + 10 * (c.index - 232);
    }
}

/* WCAG relative luminance and contrast ratio (1..21). */
static double channel(int v)
{
    double c = v / 255.0;
    return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double luminance(tui_color c)
{
    int v[3];
    xterm_rgb(c, v);
    return 0.2126 * channel(v[0]) + 0.7152 * channel(v[1]) + 0.0722 * channel(v[2]);
}

static double contrast(tui_color a, tui_color b)
{
    double la = luminance(a), lb = luminance(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

static char tmp_root[64];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Fresh theme directories: $SANDMAN_THEME_DIR = ROOT/env, $XDG_CONFIG_HOME = ROOT/xdg. */
static int setup_dirs(void **state)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/sm-theme-XXXXXX");
    if (!mkdtemp(tmp_root))
        return -1;
    char *env = xasprintf("%s/env", tmp_root);
    char *xdg = xasprintf("%s/xdg/sandman/themes", tmp_root);
    char *xdg_home = xasprintf("%s/xdg", tmp_root);
    sm_mkdir_p(env, 0755);
    sm_mkdir_p(xdg, 0755);
    setenv("SANDMAN_THEME_DIR", env, 1);
    setenv("XDG_CONFIG_HOME", xdg_home, 1);
    free(env);
    free(xdg);
    free(xdg_home);
    return 0;
}

static int teardown_dirs(void **state)
{
    sm_rm_rf(tmp_root);
    unsetenv("SANDMAN_THEME_DIR");
    unsetenv("XDG_CONFIG_HOME");
    return 0;
}

/* ---------------------------------------------------------------- shipped themes */

static void test_role_names(void **state)
{
    assert_string_equal(tui_role_name(TH_NORMAL), "normal");
    assert_string_equal(tui_role_name(TH_STATUS_RUNNING), "status_running");
    assert_string_equal(tui_role_name(TH_TAB_ACTIVE), "tab_active");
    assert_string_equal(tui_role_name(TH_GRAPH_NET), "graph_net");
    assert_string_equal(tui_role_name(TH__COUNT), "?");
    /* Each name is accepted as a key in colors and sets exactly that role. */
    for (int r = 0; r < TH__COUNT; r++) {
        char *yaml = xasprintf("colors:\n  %s: {fg: 5}\n", tui_role_name((tui_role)r));
        tui_theme t = parse_ok(yaml);
        for (int o = 0; o < TH__COUNT; o++) {
            bool set = o == r || r == TH_NORMAL; /* normal is inherited by all */
            assert_int_equal(t.roles[o].fg.kind, set ? 1 : 0);
        }
        assert_int_equal(t.roles[r].fg.index, 5);
        tui_theme_free(&t);
        free(yaml);
    }
}

static void test_shipped_themes_parse(void **state)
{
    static const char *names[] = {"default", "light", "high-contrast", "mono"};
    for (size_t i = 0; i < 4; i++) {
        char *path = xasprintf("%s/%s.yaml", SHIPPED, names[i]);
        tui_theme t;
        sm_error e;
        sm_error_clear(&e);
        if (tui_theme_load(path, &t, &e) != SM_OK)
            fail_msg("%s: %s", path, e.msg);
        assert_string_equal(t.name, names[i]);
        /* Every shipped theme sets the selection apart from normal text. */
        assert_false(style_eq(&t.roles[TH_SELECTED], &t.roles[TH_NORMAL]));
        tui_theme_free(&t);
        assert_null(t.name);
        free(path);
    }
}

static void test_shipped_themes_listed(void **state)
{
    /* The theme dirs of setup_dirs are empty: only the shipped ones are found. */
    char *names[16];
    size_t n = tui_theme_list(names, 16);
    assert_int_equal(n, 4);
    assert_string_equal(names[0], "default");
    assert_string_equal(names[1], "high-contrast");
    assert_string_equal(names[2], "light");
    assert_string_equal(names[3], "mono");
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

static tui_theme load_shipped(const char *name)
{
    tui_theme t;
    sm_error e;
    sm_error_clear(&e);
    char *path = xasprintf("%s/%s.yaml", SHIPPED, name);
    if (tui_theme_load(path, &t, &e) != SM_OK)
        fail_msg("%s: %s", path, e.msg);
    free(path);
    return t;
}

static void test_mono_theme_has_no_colours(void **state)
{
    tui_theme t = load_shipped("mono");
    for (int r = 0; r < TH__COUNT; r++) {
        assert_int_equal(t.roles[r].fg.kind, 0);
        assert_int_equal(t.roles[r].bg.kind, 0);
    }
    assert_true(t.roles[TH_SELECTED].reverse);
    assert_true(t.roles[TH_HEADER].bold);
    assert_true(t.roles[TH_FAILURE].bold);
    assert_true(t.roles[TH_DIM].dim);
    tui_theme_free(&t);
}

static void test_light_theme_has_no_light_text_on_default_bg(void **state)
{
    /* On a white background every coloured text keeps at least 3:1 (no white or yellow). */
    tui_theme t = load_shipped("light");
    for (int r = 0; r < TH__COUNT; r++) {
        const tui_style *s = &t.roles[r];
        if (s->bg.kind != 0 || s->fg.kind == 0)
            continue;
        double c = contrast(s->fg, rgb(255, 255, 255));
        if (c < 3)
            fail_msg("light theme: role %s has contrast %.2f on white", tui_role_name((tui_role)r),
                     c);
    }
    assert_true(contrast(idx(3), rgb(255, 255, 255)) < 3); /* the check catches yellow */
    tui_theme_free(&t);
}

static void test_high_contrast_backgrounds(void **state)
{
    /* Every role has an explicit black/white/yellow background and text at WCAG AAA (7:1). */
    tui_theme t = load_shipped("high-contrast");
    for (int r = 0; r < TH__COUNT; r++) {
        const tui_style *s = &t.roles[r];
        assert_int_equal(s->bg.kind, 1);
        assert_true(s->bg.index == 0 || s->bg.index == 11 || s->bg.index == 15);
        double c = contrast(s->fg, s->bg);
        if (c < 7)
            fail_msg("high-contrast: role %s has contrast %.2f", tui_role_name((tui_role)r), c);
    }
    tui_theme_free(&t);
}

/* ---------------------------------------------------------------- parsing */

static void test_missing_roles_inherit_normal(void **state)
{
    tui_theme t = parse_ok("colors:\n"
                           "  normal: {fg: red, bg: black, bold: true}\n"
                           "  header: {fg: green, bold: false}\n"
                           "  selected: {bg: \"#FF8700\", reverse: true}\n");
    assert_string_equal(t.name, "t"); /* from the origin, without .yaml */
    assert_true(color_eq(t.roles[TH_NORMAL].fg, idx(1)));
    assert_true(color_eq(t.roles[TH_NORMAL].bg, idx(0)));
    /* a missing role is normal */
    assert_true(style_eq(&t.roles[TH_TITLE], &t.roles[TH_NORMAL]));
    assert_true(style_eq(&t.roles[TH_GRAPH_IO], &t.roles[TH_NORMAL]));
    /* a given role overrides only what it says */
    assert_true(color_eq(t.roles[TH_HEADER].fg, idx(2)));
    assert_true(color_eq(t.roles[TH_HEADER].bg, idx(0)));
    assert_false(t.roles[TH_HEADER].bold);
    assert_true(color_eq(t.roles[TH_SELECTED].fg, idx(1)));
    assert_true(color_eq(t.roles[TH_SELECTED].bg, rgb(0xff, 0x87, 0x00)));
    assert_true(t.roles[TH_SELECTED].bold);
    assert_true(t.roles[TH_SELECTED].reverse);
    tui_theme_free(&t);

    /* no colors at all: terminal defaults everywhere */
    t = parse_ok("name: plain\n");
    assert_string_equal(t.name, "plain");
    for (int r = 0; r < TH__COUNT; r++) {
        tui_style none = {0};
        assert_true(style_eq(&t.roles[r], &none));
    }
    tui_theme_free(&t);
}

static void test_colour_spellings(void **state)
{
    tui_theme t = parse_ok("colors:\n"
                           "  header: {fg: gray, bg: grey}\n"
                           "  title: {fg: bright-white, bg: 255}\n"
                           "  border: {fg: default, bg: \"42\"}\n"
                           "  dim: {fg: \"#0a0B0c\", bg: bright-magenta}\n");
    assert_true(color_eq(t.roles[TH_HEADER].fg, idx(8)));
    assert_true(color_eq(t.roles[TH_HEADER].bg, idx(8)));
    assert_true(color_eq(t.roles[TH_TITLE].fg, idx(15)));
    assert_true(color_eq(t.roles[TH_TITLE].bg, idx(255)));
    assert_int_equal(t.roles[TH_BORDER].fg.kind, 0);
    assert_true(color_eq(t.roles[TH_BORDER].bg, idx(42)));
    assert_true(color_eq(t.roles[TH_DIM].fg, rgb(10, 11, 12)));
    assert_true(color_eq(t.roles[TH_DIM].bg, idx(13)));
    tui_theme_free(&t);
}

#define ROLES                                                                                      \
    "border, dim, failure, graph_cpu, graph_io, graph_mem, graph_net, header, input, key, "        \
    "marked, normal, ok, selected, status_error, status_running, status_starting, "                \
    "status_stopped, status_unknown, tab, tab_active, title, warning"

static void test_unknown_keys(void **state)
{
    parse_fails("colors:\n  headr: {fg: red}\n",
                "t.yaml: unknown key 'headr' in colors (allowed: " ROLES ")");
    parse_fails("colors:\n  header: {fg: red, italic: true}\n",
                "t.yaml: unknown key 'italic' in colors.header (allowed: bg, bold, dim, fg, "
                "reverse, underline)");
    parse_fails("name: x\ncolours: {}\n",
                "t.yaml: unknown key 'colours' in theme (allowed: colors, name)");
}

#define COLOUR_HELP                                                                                \
    "(allowed: default, black, red, green, yellow, blue, magenta, cyan, white, bright-black .. "   \
    "bright-white, gray, an integer 0..255, or \"#rrggbb\" in quotes)"

static void test_bad_colours(void **state)
{
    parse_fails("colors:\n  header: {fg: \"#12345\"}\n",
                "t.yaml: colors.header.fg: bad colour '#12345' " COLOUR_HELP);
    parse_fails("colors:\n  header: {fg: \"#12345g\"}\n",
                "t.yaml: colors.header.fg: bad colour '#12345g' " COLOUR_HELP);
    parse_fails("colors:\n  ok: {bg: purple}\n",
                "t.yaml: colors.ok.bg: bad colour 'purple' " COLOUR_HELP);
    parse_fails("colors:\n  ok: {fg: 300}\n", "t.yaml: colors.ok.fg: bad colour 300 " COLOUR_HELP);
    parse_fails("colors:\n  ok: {fg: -1}\n", "t.yaml: colors.ok.fg: bad colour -1 " COLOUR_HELP);
    parse_fails("colors:\n  ok: {fg: 1.5}\n", "t.yaml: colors.ok.fg: bad colour 1.5 " COLOUR_HELP);
    parse_fails("colors:\n  ok: {fg: true}\n",
                "t.yaml: colors.ok.fg: bad colour true " COLOUR_HELP);
    parse_fails("colors:\n  ok: {fg: [1]}\n",
                "t.yaml: colors.ok.fg: bad colour a list " COLOUR_HELP);
    /* the classic: an unquoted # starts a comment, so the value is empty */
    parse_fails("colors:\n  ok:\n    fg: #ff0000\n",
                "t.yaml: colors.ok.fg is empty (a \"#rrggbb\" colour must be quoted: an unquoted "
                "# starts a YAML comment; allowed: default, black, red, green, yellow, blue, "
                "magenta, cyan, white, bright-black .. bright-white, gray, an integer 0..255, or "
                "\"#rrggbb\" in quotes)");
}

static void test_wrong_types(void **state)
{
    parse_fails("colors:\n  header: {bold: yes}\n",
                "t.yaml: colors.header.bold must be true or false");
    parse_fails("colors:\n  header: {dim: 1}\n", "t.yaml: colors.header.dim must be true or false");
    parse_fails("colors:\n  header: red\n",
                "t.yaml: colors.header must be a mapping of fg, bg, bold, underline, reverse, dim");
    parse_fails("colors: [header]\n", "t.yaml: colors must be a mapping of role -> style");
    parse_fails("name: [a]\n", "t.yaml: name must be a non-empty string");
    parse_fails("- a\n- b\n", "t.yaml: a theme must be a mapping with keys colors, name");
    parse_fails("", "t.yaml: a theme must be a mapping with keys colors, name (the file is empty)");
}

static void test_malformed_yaml_has_position(void **state)
{
    tui_theme t;
    sm_error e;
    sm_error_clear(&e);
    int rc =
        tui_theme_parse("name: x\ncolors:\n  header: {fg: red\n  title: {}\n", "t.yaml", &t, &e);
    assert_int_equal(rc, SM_ERR_CONFIG);
    assert_null(t.name);
    unsigned line = 0, col = 0;
    int used = 0;
    if (sscanf(e.msg, "t.yaml:%u:%u: %n", &line, &col, &used) != 2 || used == 0)
        fail_msg("no line:col in '%s'", e.msg);
    assert_true(line >= 3 && line <= 5);
    assert_true(col >= 1);
    assert_null(strchr(e.msg, '\n'));
}

/* ---------------------------------------------------------------- tiers and mapping */

static void test_tier_detection(void **state)
{
    assert_int_equal(tui_color_tier_detect(NULL, true, 256), TUI_TIER_256);
    assert_int_equal(tui_color_tier_detect("", true, 256), TUI_TIER_256); /* empty: ignored */
    assert_int_equal(tui_color_tier_detect("1", true, 256), TUI_TIER_MONO);
    assert_int_equal(tui_color_tier_detect("1", true, 16777216), TUI_TIER_MONO);
    assert_int_equal(tui_color_tier_detect(NULL, false, 256), TUI_TIER_MONO);
    assert_int_equal(tui_color_tier_detect(NULL, true, 8), TUI_TIER_16);
    assert_int_equal(tui_color_tier_detect(NULL, true, 16), TUI_TIER_16);
    assert_int_equal(tui_color_tier_detect(NULL, true, 88), TUI_TIER_16);
    assert_int_equal(tui_color_tier_detect(NULL, true, 16777216), TUI_TIER_DIRECT);
    assert_int_equal(tui_color_tier_detect(NULL, true, 0x7fff), TUI_TIER_256);
}

static int map(tui_color c, tui_color_tier tier)
{
    return tui_color_for_tier(&c, tier);
}

static void test_rgb_to_256(void **state)
{
    assert_int_equal(map(rgb(0xff, 0, 0), TUI_TIER_256), 196);
    assert_int_equal(map(rgb(0, 0, 0), TUI_TIER_256), 16);
    assert_int_equal(map(rgb(0x80, 0x80, 0x80), TUI_TIER_256), 244); /* grey #808080 exactly */
    assert_int_equal(map(rgb(0xff, 0xff, 0xff), TUI_TIER_256), 231);
    assert_int_equal(map(rgb(0x5f, 0x87, 0xaf), TUI_TIER_256), 67); /* cube (1,2,3) exactly */
    assert_int_equal(map(rgb(0xee, 0xee, 0xee), TUI_TIER_256), 255);
    assert_int_equal(map(rgb(0x08, 0x08, 0x08), TUI_TIER_256), 232);
    assert_int_equal(map(rgb(0x76, 0x76, 0x76), TUI_TIER_256), 243);
    assert_int_equal(map(rgb(0xfe, 0x01, 0x02), TUI_TIER_256), 196); /* near red */
    assert_int_equal(map(rgb(0x30, 0x30, 0x31), TUI_TIER_256), 236); /* #303030 grey */

    /* every index maps to itself through its own rgb, checked against the palette */
    for (int i = 16; i < 256; i++) {
        int v[3];
        xterm_rgb(idx(i), v);
        int got = map(rgb(v[0], v[1], v[2]), TUI_TIER_256);
        int g[3];
        xterm_rgb(idx(got), g);
        if (memcmp(v, g, sizeof v))
            fail_msg("index %d -> rgb -> %d", i, got);
    }

    /* indexes and defaults pass through; mono shows no colour */
    assert_int_equal(map(idx(114), TUI_TIER_256), 114);
    assert_int_equal(map(idx(3), TUI_TIER_256), 3);
    assert_int_equal(map((tui_color){0}, TUI_TIER_256), -1);
    assert_int_equal(map(idx(196), TUI_TIER_MONO), -1);
    assert_int_equal(map(rgb(1, 2, 3), TUI_TIER_MONO), -1);
}

static void test_to_16(void **state)
{
    assert_int_equal(map(idx(196), TUI_TIER_16), 9);  /* ff0000 -> bright red */
    assert_int_equal(map(idx(16), TUI_TIER_16), 0);   /* 000000 -> black */
    assert_int_equal(map(idx(231), TUI_TIER_16), 15); /* ffffff -> bright white */
    assert_int_equal(map(idx(244), TUI_TIER_16), 8);  /* 808080 -> 7f7f7f */
    assert_int_equal(map(idx(21), TUI_TIER_16), 4);   /* 0000ff -> 0000ee blue */
    assert_int_equal(map(idx(46), TUI_TIER_16), 10);  /* 00ff00 */
    assert_int_equal(map(idx(226), TUI_TIER_16), 11); /* ffff00 */
    assert_int_equal(map(idx(160), TUI_TIER_16), 1);  /* d70000 -> cd0000 red */
    assert_int_equal(map(idx(28), TUI_TIER_16), 2);   /* 008700 -> 00cd00 green */
    assert_int_equal(map(idx(252), TUI_TIER_16), 7);  /* d0d0d0 -> e5e5e5 white */
    assert_int_equal(map(idx(236), TUI_TIER_16), 0);  /* 303030 -> black */
    assert_int_equal(map(idx(5), TUI_TIER_16), 5);
    assert_int_equal(map(idx(13), TUI_TIER_16), 13);
    assert_int_equal(map(rgb(0xcd, 0, 0), TUI_TIER_16), 1);
    assert_int_equal(map(rgb(0x5c, 0x5c, 0xff), TUI_TIER_16), 12);
}

static void test_direct(void **state)
{
    assert_int_equal(map(rgb(0xff, 0x87, 0x00), TUI_TIER_DIRECT), 0xff8700);
    assert_int_equal(map(idx(2), TUI_TIER_DIRECT), 2);
    assert_int_equal(map(idx(9), TUI_TIER_DIRECT), 0xff0000);
    assert_int_equal(map(idx(196), TUI_TIER_DIRECT), 0xff0000);
    assert_int_equal(map(idx(244), TUI_TIER_DIRECT), 0x808080);
    /* values below 8 would be read as ANSI colours */
    assert_int_equal(map(rgb(0, 0, 0), TUI_TIER_DIRECT), 8);
    assert_int_equal(map((tui_color){0}, TUI_TIER_DIRECT), -1);
}

/* ---------------------------------------------------------------- search path */

static void test_load_by_name_and_path(void **state)
{
    char *mine = xasprintf("%s/env/mytheme.yaml", tmp_root);
    write_text(mine, "colors:\n  header: {fg: 33, bold: true}\n");
    char *xdg = xasprintf("%s/xdg/sandman/themes/light.yaml", tmp_root);
    write_text(xdg, "name: my-light\n");

    tui_theme t;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(tui_theme_load("mytheme", &t, &e), SM_OK);
    assert_string_equal(t.name, "mytheme");
    assert_true(color_eq(t.roles[TH_HEADER].fg, idx(33)));
    assert_true(t.roles[TH_HEADER].bold);
    tui_theme_free(&t);

    /* the user's config dir comes before the shipped themes */
    assert_int_equal(tui_theme_load("light", &t, &e), SM_OK);
    assert_string_equal(t.name, "my-light");
    tui_theme_free(&t);
    /* and a shipped theme the user did not shadow is still found */
    assert_int_equal(tui_theme_load("high-contrast", &t, &e), SM_OK);
    assert_string_equal(t.name, "high-contrast");
    tui_theme_free(&t);

    assert_int_equal(tui_theme_load(mine, &t, &e), SM_OK);
    assert_string_equal(t.name, "mytheme");
    tui_theme_free(&t);

    /* list: union of all directories, sorted, "light" once */
    char *names[16];
    size_t n = tui_theme_list(names, 16);
    assert_int_equal(n, 5);
    const char *want[] = {"default", "high-contrast", "light", "mono", "mytheme"};
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(names[i], want[i]);
        free(names[i]);
    }
    assert_int_equal(tui_theme_list(NULL, 0), 5);
    n = tui_theme_list(names, 2);
    assert_int_equal(n, 2);
    assert_string_equal(names[1], "high-contrast");
    free(names[0]);
    free(names[1]);
    free(mine);
    free(xdg);
}

static void test_load_errors(void **state)
{
    tui_theme t;
    sm_error e;
    sm_error_clear(&e);
    char *mine = xasprintf("%s/env/mytheme.yaml", tmp_root);
    write_text(mine, "name: mine\n");

    assert_int_equal(tui_theme_load("nope", &t, &e), SM_ERR_NOT_FOUND);
    assert_null(t.name);
    assert_string_equal(e.msg,
                        "unknown theme 'nope' (available: default, high-contrast, light, mono, "
                        "mytheme)");

    /* a broken theme is reported, not skipped in favour of the shipped one */
    char *bad = xasprintf("%s/env/default.yaml", tmp_root);
    write_text(bad, "colors:\n  header: {fg: purple}\n");
    assert_int_equal(tui_theme_load("default", &t, &e), SM_ERR_CONFIG);
    char *want = xasprintf("%s: colors.header.fg: bad colour 'purple' " COLOUR_HELP, bad);
    assert_string_equal(e.msg, want);
    free(want);

    char *missing = xasprintf("%s/env/none.yaml", tmp_root);
    assert_int_equal(tui_theme_load(missing, &t, &e), SM_ERR_NOT_FOUND);
    want = xasprintf("theme file %s: No such file or directory", missing);
    assert_string_equal(e.msg, want);
    free(want);

    assert_int_equal(tui_theme_load("", &t, &e), SM_ERR_INVALID);
    free(mine);
    free(bad);
    free(missing);
}

/* ---------------------------------------------------------------- curses */

/* A screen on /dev/null for terminal type term; NULL (test skipped) without its terminfo. */
static SCREEN *open_screen(const char *term, FILE **out, FILE **in)
{
    *out = fopen("/dev/null", "w");
    *in = fopen("/dev/null", "r");
    SCREEN *s = newterm(term, *out, *in);
    if (!s) {
        fclose(*out);
        fclose(*in);
    }
    return s;
}

static void close_screen(SCREEN *s, FILE *out, FILE *in)
{
    endwin();
    delscreen(s);
    fclose(out);
    fclose(in);
}

static void pair_colours(attr_t a, int *fg, int *bg)
{
    int pair = PAIR_NUMBER(a);
    assert_true(pair > 0);
    assert_int_equal(extended_pair_content(pair, fg, bg), OK);
}

static void test_apply_256(void **state)
{
    FILE *out, *in;
    SCREEN *s = open_screen("xterm-256color", &out, &in);
    if (!s)
        skip();
    start_color();
    use_default_colors();
    tui_theme t = load_shipped("default");
    tui_theme_apply(&t, tui_color_tier_detect(NULL, has_colors(), COLORS));

    int fg, bg;
    assert_int_equal(PAIR_NUMBER(tui_attr(TH_NORMAL)), 0); /* terminal defaults: no pair */
    pair_colours(tui_attr(TH_SELECTED), &fg, &bg);
    assert_int_equal(fg, COLOR_BLACK);
    assert_int_equal(bg, COLOR_CYAN);
    pair_colours(tui_attr(TH_GRAPH_CPU), &fg, &bg);
    assert_int_equal(fg, 114);
    assert_int_equal(bg, -1);
    pair_colours(tui_attr(TH_HEADER), &fg, &bg);
    assert_int_equal(fg, COLOR_BLACK);
    assert_int_equal(bg, COLOR_GREEN);
    assert_true(tui_attr(TH_HEADER) & A_BOLD);
    assert_false(tui_attr(TH_SELECTED) & A_REVERSE);

    /* NO_COLOR: attributes only, still readable */
    tui_theme_apply(&t, tui_color_tier_detect("1", has_colors(), COLORS));
    assert_int_equal(tui_attr(TH_SELECTED), A_REVERSE);
    assert_int_equal(PAIR_NUMBER(tui_attr(TH_HEADER)), 0);
    assert_true(tui_attr(TH_HEADER) & A_BOLD);
    assert_true(tui_attr(TH_TITLE) & A_BOLD);
    assert_true(tui_attr(TH_FAILURE) & A_BOLD);
    assert_true(tui_attr(TH_DIM) & A_DIM);
    assert_true(tui_attr(TH_TAB_ACTIVE) & A_REVERSE);
    assert_int_equal(tui_attr(TH_NORMAL), A_NORMAL);
    tui_theme_free(&t);
    close_screen(s, out, in);
    assert_int_equal(tui_attr(TH__COUNT), A_NORMAL);
}

static void test_apply_8_colours(void **state)
{
    FILE *out, *in;
    SCREEN *s = open_screen("xterm", &out, &in);
    if (!s)
        skip();
    start_color();
    use_default_colors();
    assert_int_equal(COLORS, 8);
    tui_theme t = load_shipped("default");
    /* asking for more than the terminal has is lowered to what it has */
    tui_theme_apply(&t, TUI_TIER_256);
    int fg, bg;
    pair_colours(tui_attr(TH_FAILURE), &fg, &bg); /* bright-red: red + bold on 8 colours */
    assert_int_equal(fg, COLOR_RED);
    assert_true(tui_attr(TH_FAILURE) & A_BOLD);
    pair_colours(tui_attr(TH_GRAPH_IO), &fg, &bg); /* 75 = #5fafff -> nearest 12 -> 4 */
    assert_int_equal(fg, COLOR_BLUE);
    assert_true(tui_attr(TH_GRAPH_IO) & A_BOLD);
    pair_colours(tui_attr(TH_TAB), &fg, &bg); /* bg 236 -> black */
    assert_int_equal(fg, COLOR_WHITE);
    assert_int_equal(bg, COLOR_BLACK);
    tui_theme_free(&t);
    close_screen(s, out, in);
}

int main(void)
{
    unsetenv("SANDMAN_THEME_DIR");
    unsetenv("NO_COLOR");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_role_names),
        cmocka_unit_test(test_shipped_themes_parse),
        cmocka_unit_test_setup_teardown(test_shipped_themes_listed, setup_dirs, teardown_dirs),
        cmocka_unit_test(test_mono_theme_has_no_colours),
        cmocka_unit_test(test_light_theme_has_no_light_text_on_default_bg),
        cmocka_unit_test(test_high_contrast_backgrounds),
        cmocka_unit_test(test_missing_roles_inherit_normal),
        cmocka_unit_test(test_colour_spellings),
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_bad_colours),
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_malformed_yaml_has_position),
        cmocka_unit_test(test_tier_detection),
        cmocka_unit_test(test_rgb_to_256),
        cmocka_unit_test(test_to_16),
        cmocka_unit_test(test_direct),
        cmocka_unit_test_setup_teardown(test_load_by_name_and_path, setup_dirs, teardown_dirs),
        cmocka_unit_test_setup_teardown(test_load_errors, setup_dirs, teardown_dirs),
        cmocka_unit_test(test_apply_256),
        cmocka_unit_test(test_apply_8_colours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
