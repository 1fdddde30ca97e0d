/* libFuzzer target: arbitrary bytes into the embedded terminal's model (libvterm + our
 * scrollback ring), interleaved with resizes, searches, key input and text extraction. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tui/term/term.h"

static void sink(const char *d, size_t n, void *ud)
{
    (void)d;
    (void)n;
    (void)ud;
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
    tui_term_free(t);
    return 0;
}
