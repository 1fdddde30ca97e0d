/* The dashboard's keys: one table per mode (the dashboard's views, the Ctrl-b prefix, a
 * terminal's scroll mode). Each row binds keys to an action and says how the footer hints at it
 * and how the help overlay explains it, so dispatch, footer and help read the same rows and
 * cannot drift. Rows without keys are help text only (":ctx NAME", the mouse). */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/state.h"

#define TUI_KEYS_PER_ROW 8

/* Views a row of the dashboard table applies in (0 = every view). */
#define TUI_IN_LIST   (1u << VIEW_LIST)
#define TUI_IN_DETAIL (1u << VIEW_DETAIL)
#define TUI_IN_EVENTS (1u << VIEW_EVENTS)

typedef struct tui_keymap tui_keymap;

typedef struct tui_binding {
    /* the keys (characters, control characters, curses KEY_ codes); 0 ends the list */
    int keys[TUI_KEYS_PER_ROW];
    unsigned views;
    void (*run)(tui_app *app, int key);
    /* footer: how the key is named and the word after it ("s", "sort"); hint NULL = named only
     * (scroll mode's "j/k"). foot is its place in the mode's footer (1 first, 0 = not shown);
     * term_foot its place in a terminal's footer ("Ctrl-b " + key), for the prefix table. */
    const char *key_name, *hint;
    signed char foot, term_foot;
    /* help overlay: the keys column and the text (NULL = no line of its own) */
    const char *help_keys, *help;
    /* a help-only row standing for another mode's help lines (the Ctrl-b prefix) */
    const tui_keymap *sub;
} tui_binding;

struct tui_keymap {
    const char *name;
    const tui_binding *rows;
    size_t n;
};

/* The dashboard's views (list, detail, events); Ctrl-b then a key; a pane in scroll mode. */
extern const tui_keymap tui_keys_dashboard, tui_keys_prefix, tui_keys_scroll;

/* Runs the action of the first row that binds key (in the current view); false when no row
 * does. */
bool tui_keys_run(const tui_keymap *m, tui_app *app, int key);

/* The rows with a place in a footer (term false: foot, true: term_foot), in that order; returns
 * how many (at most max). */
size_t tui_keys_footer(const tui_keymap *m, bool term, const tui_binding **out, size_t max);

#endif
