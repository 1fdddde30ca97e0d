/* The inside of an embedded terminal's model, shared by the files that make it up: term.c
 * (libvterm, scrollback, resize, dirty rows, cursor), filter.c (the scanner in front of
 * libvterm) and term_text.c (text, search, snapshot). Internal to tui/term. */
#ifndef TUI_TERM_IMPL_H
#define TUI_TERM_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <vterm.h>

#include "tui/term/screen.h"
#include "tui/term/term.h"

/* The scanner's state (filter.c). */
enum { F_GROUND, F_ESC, F_ESC_INTER, F_CSI, F_CSI_SKIP, F_STR, F_STR_ESC, F_DCS, F_DCS_ESC };

#define MAX_CSI_PARAMS   15
#define UTF8_REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

typedef struct rep_filter {
    int state;
    char seq[64]; /* the escape sequence being collected */
    size_t seq_len;
    char last[8]; /* the last printed character, as UTF-8 */
    size_t last_len;
    char utf[8]; /* a UTF-8 character being collected */
    size_t utf_len, utf_need;
    bool dcs_drop; /* the DCS being held is no DECRQSS, or outgrew seq: dropped */
    /* G0 and G1 ('B' = ASCII when 0) and which one is in GL, as DECSC saves them with the
     * cursor and DECRC restores them (libvterm 0.1.4 saves neither) */
    char g[2], saved_g[2];
    int gl, saved_gl;
} rep_filter;

struct tui_term {
    rep_filter filter;
    char *feed_buf; /* what the filter hands to libvterm, kept between feeds */
    size_t feed_cap;
    VTerm *vt;
    tui_screen *scr; /* the cells, ours (libvterm's screen layer is not used) */
    int rows, cols;
    tui_line *sb; /* ring */
    size_t sb_cap, sb_head, sb_count;
    unsigned char *dirty; /* per screen row */
    bool any_dirty;
    VTermPos cursor;
    bool cursor_visible;
    int cursor_shape; /* VTERM_PROP_CURSORSHAPE_* */
    bool cursor_blink;
    bool shape_chosen; /* the program asked for a cursor shape (else the outer default) */
    bool altscreen;
    int mouse;
    int bells;
    char title[256];
    tui_term_output_fn out;
    void *ud;
};

/* Sequences of our own into libvterm between the program's (filter.c). */
void tui_term_inject(tui_term *t, const char *seq, size_t len);

#endif
