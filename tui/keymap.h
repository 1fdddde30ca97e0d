/* Key tables: each mode of the dashboard (its views, the Ctrl-b prefix, scroll mode, each
 * dialog) binds keys in one table of rows. A row binds keys to an action and says how the footer
 * or the dialog hints at it and how the help overlay explains it, so dispatch, hints and help
 * read the same rows and cannot drift. Rows without keys are help text only (":ctx NAME", the
 * mouse). This file is the machinery; the tables live with their modes (keys.c, the dialogs in
 * views/overlays.c). */
#ifndef TUI_KEYMAP_H
#define TUI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/state.h"

#define TUI_KEYS_PER_ROW 8

/* Views a row of the dashboard table applies in (0 = every view). */
#define TUI_IN_LIST   (1u << VIEW_LIST)
#define TUI_IN_DETAIL (1u << VIEW_DETAIL)
#define TUI_IN_EVENTS (1u << VIEW_EVENTS)
#define TUI_IN_LOGS   (1u << VIEW_LOGS)

typedef struct tui_keymap tui_keymap;

typedef struct tui_binding {
    /* the keys (characters, control characters, curses KEY_ codes); 0 ends the list */
    int keys[TUI_KEYS_PER_ROW];
    unsigned views;
    void (*run)(tui_app *app, int key);
    /* hints: how the key is named and the word after it ("s", "sort"); hint NULL = named only
     * (scroll mode's "j/k"). foot is its place in the mode's hints (1 first, 0 = not shown);
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
    /* how a line of hints is joined: between hints, and between a key and its word */
    const char *sep, *key_sep;
};

#define TUI_KEYMAP(name, rows, sep, key_sep)                                                       \
    {                                                                                              \
        name, rows, sizeof rows / sizeof rows[0], sep, key_sep                                     \
    }

/* Runs the action of the first row that binds key (in the current view) and marks the frame
 * dirty; false when no row does. */
bool tui_keys_run(const tui_keymap *m, tui_app *app, int key);

/* The rows with a place in the hints (term false: foot, true: term_foot), in that order;
 * returns how many (at most max). */
size_t tui_keys_footer(const tui_keymap *m, bool term, const tui_binding **out, size_t max);

/* The same for the hints of one view (rows whose views include view_bit, or every view). */
size_t tui_keys_footer_in(const tui_keymap *m, unsigned view_bit, const tui_binding **out,
                          size_t max);

/* The mode's hints as one line ("j/k choose   Enter attach ..."); a key named without a word
 * is followed by one space. */
void tui_keys_hints(const tui_keymap *m, char *buf, size_t len);

#endif
