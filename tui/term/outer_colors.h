/* Which terminfo entry draws the dashboard on the outer terminal. A terminal that shows 24-bit
 * colour says so in COLORTERM (truecolor or 24bit), while TERM usually names a 256-colour
 * entry (xterm-256color), and curses only sends 24-bit colours through a direct-colour entry
 * (xterm-direct, from the ncurses-term package). So when COLORTERM asks for it and TERM's own
 * entry has fewer colours, the direct-colour entry of the same terminal is used if installed,
 * and the embedded terminals' true colours reach the outer terminal uncut. */
#ifndef TUI_TERM_OUTER_COLORS_H
#define TUI_TERM_OUTER_COLORS_H

#include <stddef.h>

#define TUI_TERM_NAME_MAX 64

/* The direct-colour entries worth trying for TERM term under COLORTERM colorterm, best first
 * (none when colorterm does not ask for 24-bit colour or term is direct already). Pure. */
size_t tui_outer_direct_candidates(const char *term, const char *colorterm,
                                   char out[][TUI_TERM_NAME_MAX], size_t max);

/* The entry to start curses with: a candidate that is installed and has 2^24 colours when
 * TERM's own entry has fewer; NULL for TERM's own. Reads TERM and COLORTERM. */
const char *tui_outer_term(void);

#endif
