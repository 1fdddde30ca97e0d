/* Dashboard themes (DESIGN.md §1 tui/theme.c): loads the YAML files in themes/ into styles per UI
 * role and turns them into curses colour pairs for the terminal's colour tier (mono when NO_COLOR
 * is set or the terminal has no colours, 16, 256 or direct colour). Views ask tui_attr(role) and
 * never name colours themselves. Nothing here talks to providers.
 *
 * Theme YAML:
 *   name: NAME                  (optional; else the file name without .yaml)
 *   colors:
 *     ROLE: {fg: COLOR, bg: COLOR, bold: BOOL, underline: BOOL, reverse: BOOL, dim: BOOL}
 * ROLE is tui_role_name() of a role. COLOR: default, black, red, green, yellow, blue, magenta,
 * cyan, white, bright-black .. bright-white, gray/grey (= bright-black), an integer 0..255, or
 * "#rrggbb" (quoted: an unquoted # starts a YAML comment).
 * Every role starts as a copy of "normal" and its keys override that copy; so a missing role
 * looks like normal, and a role without bg keeps normal's background. "normal" itself starts
 * as terminal default colours and no attributes. */
#ifndef TUI_THEME_H
#define TUI_THEME_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

typedef enum tui_role {
    TH_NORMAL,
    TH_HEADER,
    TH_TITLE,
    TH_BORDER,
    TH_DIM,
    TH_SELECTED,
    TH_MARKED,
    TH_KEY,
    TH_INPUT,
    TH_STATUS_RUNNING,
    TH_STATUS_STARTING,
    TH_STATUS_STOPPED,
    TH_STATUS_ERROR,
    TH_STATUS_UNKNOWN,
    TH_FAILURE,
    TH_WARNING,
    TH_OK,
    TH_GRAPH_CPU,
    TH_GRAPH_MEM,
    TH_GRAPH_IO,
    TH_GRAPH_NET,
    TH_TAB,
    TH_TAB_ACTIVE,
    TH__COUNT
} tui_role;

typedef enum tui_color_tier {
    TUI_TIER_MONO = 0,
    TUI_TIER_16,
    TUI_TIER_256,
    TUI_TIER_DIRECT
} tui_color_tier;

typedef struct tui_color {
    int kind; /* 0 default, 1 index (0..255), 2 rgb */
    int index;
    unsigned char r, g, b;
} tui_color;

typedef struct tui_style {
    tui_color fg, bg;
    bool bold, underline, reverse, dim;
} tui_style;

typedef struct tui_theme {
    char *name; /* owned; freed by tui_theme_free */
    tui_style roles[TH__COUNT];
} tui_theme;

/* "normal", "header", "status_running", ... (snake_case of the enum); "?" when out of range. */
const char *tui_role_name(tui_role r);

/* Loads a theme by name or by path (the argument contains '/' or ends in .yaml).
 * A name is looked up as NAME.yaml in, in order: $SANDMAN_THEME_DIR,
 * $XDG_CONFIG_HOME/sandman/themes (else ~/.config/sandman/themes), SANDMAN_THEME_DIR_DEFAULT
 * (compile time), then
 * ../share/sandman/themes relative to the directory of /proc/self/exe. The first file found is
 * used; a bad file is an error (SM_ERR_CONFIG), not skipped. An unknown name is SM_ERR_NOT_FOUND
 * listing the theme names found. On success *out is owned by the caller (tui_theme_free); on
 * failure *out is zeroed. */
int tui_theme_load(const char *name_or_path, tui_theme *out, sm_error *err);

/* Parses theme YAML; origin names the source in errors ("<origin>: ..." or
 * "<origin>:LINE:COL: ..." for malformed YAML) and gives the default name. Errors are
 * SM_ERR_CONFIG. Ownership as tui_theme_load. */
int tui_theme_parse(const char *yaml_text, const char *origin, tui_theme *out, sm_error *err);

/* Frees the name and zeroes *t; safe on a zeroed or already freed theme. */
void tui_theme_free(tui_theme *t);

/* Fills names with up to max theme names found in the search directories (malloc'd, caller
 * frees each), sorted and deduplicated; returns how many were stored. With names NULL returns
 * how many there are. */
size_t tui_theme_list(char **names, size_t max);

/* NO_COLOR set and non-empty -> MONO; !has_colors -> MONO; colors >= 0x1000000 -> DIRECT;
 * colors >= 256 -> 256; else 16. */
tui_color_tier tui_color_tier_detect(const char *no_color_env, bool has_colors, int colors);

/* The curses colour number showing c in the tier (-1 = terminal default; always -1 in MONO).
 * 256: rgb -> nearest xterm cube/grey index (16..255). 16: rgb and indexes >= 16 -> nearest of
 * the 16 ANSI colours (xterm's palette). DIRECT: rgb -> 0xRRGGBB, indexes 0..7 kept, other
 * indexes -> their xterm rgb (direct-colour terminfo reads values below 8 as ANSI colours, so
 * rgb values below 8 are nudged to 8). */
int tui_color_for_tier(const tui_color *c, tui_color_tier tier);

/* On a terminal with fewer than 16 colours, folds tier-16 colours 8..15 onto 0..7; returns
 * A_BOLD when a bright foreground needs it (the 8-colour way to show bright), else 0. */
attr_t tui_color_fold8(int *fg, int *bg, tui_color_tier tier);

/* Creates colour pairs 1..TH__COUNT for the roles (call after start_color() and, for default
 * colours, use_default_colors()); the tier is lowered to what the terminal reports. In MONO only
 * attributes are used: each role gets a built-in attribute (selected reverse, header/title/
 * failure bold, dim dim, ...) plus the theme's own, so the UI stays readable without colour.
 * Can be called again to switch themes. */
void tui_theme_apply(const tui_theme *t, tui_color_tier tier);

/* COLOR_PAIR | A_* for a role after tui_theme_apply (A_NORMAL before it). */
attr_t tui_attr(tui_role r);

#endif
