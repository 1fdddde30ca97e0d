/* The outer terminal's terminfo entry for 24-bit colour (see outer_colors.h). */
#include "tui/term/outer_colors.h"

#include <curses.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <term.h>
#include <unistd.h>

#define DIRECT_COLORS 0x1000000

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static size_t add(char out[][TUI_TERM_NAME_MAX], size_t n, size_t max, const char *name)
{
    if (n >= max || strlen(name) >= TUI_TERM_NAME_MAX)
        return n;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(out[i], name))
            return n;
    snprintf(out[n], TUI_TERM_NAME_MAX, "%s", name);
    return n + 1;
}

size_t tui_outer_direct_candidates(const char *term, const char *colorterm,
                                   char out[][TUI_TERM_NAME_MAX], size_t max)
{
    if (!term || !*term || !colorterm ||
        (strcasecmp(colorterm, "truecolor") && strcasecmp(colorterm, "24bit")))
        return 0;
    if (ends_with(term, "-direct") || strstr(term, "-direct") || strlen(term) >= 48)
        return 0; /* direct already (xterm-direct2, ...), or no name of a terminal */
    static const char *const suffixes[] = {"-256color", "-88color", "-16color", "-color"};
    char base[TUI_TERM_NAME_MAX];
    snprintf(base, sizeof base, "%s", term);
    bool cut = false;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0] && !cut; i++)
        if (ends_with(base, suffixes[i])) {
            base[strlen(base) - strlen(suffixes[i])] = '\0';
            cut = true;
        }
    char name[TUI_TERM_NAME_MAX + 8];
    size_t n = 0;
    if (cut) {
        snprintf(name, sizeof name, "%s-direct", base); /* xterm-256color -> xterm-direct */
        n = add(out, n, max, name);
    }
    if (!cut) {
        snprintf(name, sizeof name, "%s-direct", term); /* xterm-kitty -> xterm-kitty-direct */
        n = add(out, n, max, name);
    }
    if (!strncmp(term, "xterm", 5)) /* xterm-ghostty, xterm-kitty: xterm's own */
        n = add(out, n, max, "xterm-direct");
    return n;
}

/* The colours of an installed entry; -1 when there is no such entry. */
static int entry_colors(const char *name)
{
    int err = 0;
    if (setupterm((char *)name, STDOUT_FILENO, &err) != OK)
        return -1;
    int colors = tigetnum("colors");
    del_curterm(cur_term);
    return colors;
}

const char *tui_outer_term(void)
{
    static char names[4][TUI_TERM_NAME_MAX];
    const char *term = getenv("TERM");
    size_t n = tui_outer_direct_candidates(term, getenv("COLORTERM"), names, 4);
    if (n == 0 || entry_colors(term) >= DIRECT_COLORS)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (entry_colors(names[i]) >= DIRECT_COLORS)
            return names[i];
    return NULL;
}
