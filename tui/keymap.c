/* Dispatch and hints over a key table (tui/keymap.h). */
#include "tui/keymap.h"

#include <stdio.h>

static bool binds(const tui_binding *b, int key)
{
    for (int i = 0; i < TUI_KEYS_PER_ROW && b->keys[i]; i++)
        if (b->keys[i] == key)
            return true;
    return false;
}

bool tui_keys_run(const tui_keymap *m, tui_app *app, int key)
{
    for (size_t i = 0; i < m->n; i++) {
        const tui_binding *b = &m->rows[i];
        if (!b->run || (b->views && !(b->views & (1u << app->view))) || !binds(b, key))
            continue;
        b->run(app, key);
        tui_dirty(app);
        return true;
    }
    return false;
}

static size_t footer(const tui_keymap *m, bool term, unsigned view_bit, const tui_binding **out,
                     size_t max)
{
    size_t n = 0;
    for (int place = 1; n < max; place++) {
        bool any = false;
        for (size_t i = 0; i < m->n && n < max; i++) {
            int at = term ? m->rows[i].term_foot : m->rows[i].foot;
            if (view_bit && m->rows[i].views && !(m->rows[i].views & view_bit))
                continue;
            any |= at >= place;
            if (at == place)
                out[n++] = &m->rows[i];
        }
        if (!any)
            break;
    }
    return n;
}

size_t tui_keys_footer(const tui_keymap *m, bool term, const tui_binding **out, size_t max)
{
    return footer(m, term, 0, out, max);
}

size_t tui_keys_footer_in(const tui_keymap *m, unsigned view_bit, const tui_binding **out,
                          size_t max)
{
    return footer(m, false, view_bit, out, max);
}

void tui_keys_hints(const tui_keymap *m, char *buf, size_t len)
{
    const tui_binding *b[32];
    size_t n = tui_keys_footer(m, false, b, 32), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s",
                                 !i ? "" : (b[i]->hint || b[i - 1]->hint ? m->sep : " "),
                                 b[i]->key_name, b[i]->hint ? m->key_sep : "",
                                 b[i]->hint ? b[i]->hint : "");
}
