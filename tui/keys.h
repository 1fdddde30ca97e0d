/* The dashboard's own key tables: its views (list, detail, events), Ctrl-b then a key, and a
 * terminal in scroll mode. The dialogs keep theirs beside them (views/overlays.c). */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include <wchar.h>

#include "tui/keymap.h"

extern const tui_keymap tui_keys_dashboard, tui_keys_prefix, tui_keys_scroll;
/* The key after "quit? (y/n)": y quits, anything else keeps the dashboard. */
void tui_keys_answer_quit(tui_app *app, wint_t ch, bool is_key);

#endif
