/* libFuzzer target: arbitrary bytes into the embedded terminal widget: its model (libvterm +
 * our scrollback ring) interleaved with resizes, searches, key input and text extraction, and
 * its curses renderer drawing it (live, scrolled back with a search highlighted, in a pane
 * narrower and wider than the terminal) onto a curses screen that writes to /dev/null, in each
 * colour tier. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tui/term/term.h"
#include "tui/term/term_render.h"

static void sink(const char *d, size_t n, void *ud)
{
    (void)d;
    (void)n;
    (void)ud;
}

/* A curses screen of 60x140 that draws into /dev/null, made once. */
static bool screen_ready(void)
{
    static int ready = -1;
    if (ready < 0) {
        FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
        ready = out && in && newterm("xterm-256color", out, in) != NULL;
        if (ready) {
            resizeterm(60, 140);
            start_color();
            use_default_colors();
        }
    }
    return ready;
}

static void draw(tui_term *t, const uint8_t *data, size_t size)
{
    if (!screen_ready())
        return;
    static const tui_color_tier tiers[] = {TUI_TIER_MONO, TUI_TIER_16, TUI_TIER_256,
                                           TUI_TIER_DIRECT};
    tui_term_render_init(tiers[data[0] % 4]);
    int rows, cols;
    tui_term_size(t, &rows, &cols);
    tui_term_draw(t, 0, 0, rows < 60 ? rows : 60, cols < 140 ? cols : 140, NULL, false);
    char needle[3] = {(char)(size > 2 ? data[2] : 'a'), size > 3 ? (char)data[3] : 0, 0};
    size_t lines = tui_term_lines(t);
    tui_term_view v = {.top = lines > 10 ? lines - 10 : 0,
                       .live = false,
                       .needle = needle,
                       .sel_from = 0,
                       .sel_to = (long)lines / 2,
                       .mark_line = 1};
    tui_term_draw(t, 2, 3, 20, 1 + data[1] % 139, &v, false);
    tui_term_draw(t, 0, 0, rows < 60 ? rows : 60, cols < 140 ? cols : 140, NULL, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int rows = 1 + data[0] % 40, cols = 1 + data[1] % 120;
    tui_term *t = tui_term_new(rows, cols, 64, sink, NULL);
    size_t i = 2;
    while (i < size) {
        /* chunks of up to 64 bytes; a 0xFF byte starts a command instead */
        if (data[i] == 0xFF && i + 2 < size) {
            switch (data[i + 1] % 4) {
            case 0: tui_term_resize(t, 1 + data[i + 2] % 50, 1 + data[i + 2] % 130); break;
            case 1: tui_term_key(t, (VTermKey)(data[i + 2] % VTERM_KEY_FUNCTION_0), 0); break;
            case 2: tui_term_paste(t, (const char *)data + i, size - i > 16 ? 16 : size - i); break;
            default: {
                size_t line;
                int col;
                char needle[3] = {(char)data[i + 2], 'a', 0};
                tui_term_search(t, needle, 0, 0, 1, &line, &col);
                break;
            }
            }
            i += 3;
            continue;
        }
        size_t n = size - i < 64 ? size - i : 64;
        tui_term_feed(t, (const char *)data + i, n);
        i += n;
    }
    char text[512];
    for (size_t l = 0; l < tui_term_lines(t); l++)
        tui_term_line_text(t, l, text, sizeof text);
    draw(t, data, size);
    tui_term_free(t);
    return 0;
}
