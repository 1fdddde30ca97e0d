/* The scanner in front of libvterm (see term_impl.h): what a sandbox prints reaches libvterm
 * only through here. */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "tui/term/term_impl.h"

/* A small escape-sequence scanner in front of libvterm, which a sandbox's output must never
 * crash or hang. libvterm 0.1.4 loops forever on REP (CSI b) before any character was printed,
 * corrupts memory repeating a wide character, and overflows its argument array on a CSI with
 * 16 or more parameters. So REP never reaches it (we expand it into the repeated character:
 * xterm's terminfo has `rep`, so ncurses programs send it), CSI sequences with too many
 * parameters or too long to be real are dropped, their numbers are capped, and everything else
 * passes unchanged.
 * A DECRQSS (DCS $ q Pt ST) for a setting libvterm does not know makes it format its reply
 * with a broken printf format (a string read from an integer argument), and a DCS split across
 * two writes reaches it without its first part (so any DCS may start with "$q" there). The
 * only DCS libvterm acts on is DECRQSS, so a DCS never reaches it, except a whole DECRQSS for
 * a setting it knows; another DECRQSS is answered "invalid" here as xterm does. SOS, PM and
 * APC strings, which libvterm does not parse as strings, are dropped the same way. */

static void out_append(char **out, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n + len > *cap) {
        while (*n + len > *cap)
            *cap = *cap ? *cap * 2 : 4096;
        *out = xrealloc(*out, *cap);
    }
    memcpy(*out + *n, s, len);
    *n += len;
}

/* Where a CSI's parameters start: after its '[' (intermediates may precede it). */
static size_t csi_params(const rep_filter *f)
{
    const char *br = memchr(f->seq, '[', f->seq_len);
    return br ? (size_t)(br - f->seq) + 1 : f->seq_len;
}

/* REP: the last printed character repeated (at most a screenful); nothing when none. */
static void expand_rep(tui_term *t, char **out, size_t *n, size_t *cap)
{
    rep_filter *f = &t->filter;
    long count = 0;
    for (size_t i = csi_params(f); i + 1 < f->seq_len && f->seq[i] >= '0' && f->seq[i] <= '9'; i++)
        count = count * 10 + (f->seq[i] - '0') > 100000 ? 100000 : count * 10 + (f->seq[i] - '0');
    if (count < 1)
        count = 1;
    long max = (long)t->rows * t->cols;
    if (count > max)
        count = max;
    for (long i = 0; i < count && f->last_len; i++)
        out_append(out, n, cap, f->last, f->last_len);
}

static bool is_rep(const rep_filter *f)
{
    /* CSI Pn b: parameters only (no private markers or intermediates); libvterm takes the
     * first parameter as the count whatever follows it */
    if (f->seq[f->seq_len - 1] != 'b')
        return false;
    for (size_t i = csi_params(f); i + 1 < f->seq_len; i++)
        if ((f->seq[i] < '0' || f->seq[i] > '9') && f->seq[i] != ';' && f->seq[i] != ':')
            return false;
    return true;
}

/* A CSI on its way to libvterm, each number capped at 99999: libvterm 0.1.4 accumulates a
 * parameter in a long without bounds, and one of 19 digits overflows into a negative count
 * that its scroll and erase code moves memory by. No real sequence needs more. */
static void out_csi(const rep_filter *f, char **out, size_t *n, size_t *cap)
{
    for (size_t i = 0; i < f->seq_len;) {
        if (f->seq[i] < '0' || f->seq[i] > '9') {
            out_append(out, n, cap, f->seq + i, 1);
            i++;
            continue;
        }
        size_t end = i;
        while (end < f->seq_len && f->seq[end] >= '0' && f->seq[end] <= '9')
            end++;
        while (i + 1 < end && f->seq[i] == '0') /* leading zeros say nothing */
            i++;
        if (end - i > 5)
            out_append(out, n, cap, "99999", 5);
        else
            out_append(out, n, cap, f->seq + i, end - i);
        i = end;
    }
}

/* SGR: CSI, parameters only, m. */
static bool is_sgr(const rep_filter *f)
{
    if (f->seq_len < 3 || f->seq[1] != '[' || f->seq[f->seq_len - 1] != 'm')
        return false;
    for (size_t i = 2; i + 1 < f->seq_len; i++)
        if ((f->seq[i] < '0' || f->seq[i] > '9') && f->seq[i] != ';' && f->seq[i] != ':')
            return false;
    return true;
}

static int first_number(const char *s, size_t len)
{
    int v = 0;
    for (size_t i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        v = v > 9999 ? v : v * 10 + (s[i] - '0');
    return v;
}

/* An SGR with what libvterm 0.1.4 gets wrong done here. It takes the arguments of 58/59
 * (underline colour, which it does not know) for attributes of their own (58;5;n turned on
 * blink), so those go with their arguments; it has no dim, conceal or overline, so 2/22, 8/28
 * and 53/55 set our pen's extras (libvterm gets 22 still, which ends bold too). The text
 * before a change of extras goes to libvterm first, so it keeps the old ones. */
static void out_sgr(tui_term *t, char **out, size_t *n, size_t *cap)
{
    const rep_filter *f = &t->filter;
    size_t start[MAX_CSI_PARAMS + 1], len[MAX_CSI_PARAMS + 1];
    int ng = 0;
    for (size_t i = 2; ng <= MAX_CSI_PARAMS;) {
        size_t j = i;
        while (j + 1 < f->seq_len && f->seq[j] != ';')
            j++;
        start[ng] = i;
        len[ng++] = j - i;
        if (j + 1 >= f->seq_len)
            break;
        i = j + 1;
    }
    rep_filter sgr = {.seq = "\033["};
    sgr.seq_len = 2;
    uint16_t extra = tui_screen_extra(t->scr);
    bool any = false;
    for (int g = 0; g < ng; g++) {
        const char *p = f->seq + start[g];
        int v = first_number(p, len[g]);
        int span = 1;
        if ((v == 38 || v == 48 || v == 58) && !memchr(p, ':', len[g]) && g + 1 < ng) {
            int kind = first_number(f->seq + start[g + 1], len[g + 1]);
            span = kind == 5 ? 3 : kind == 2 ? 5 : 2;
            if (g + span > ng)
                span = ng - g;
        }
        bool keep = v != 58 && v != 59;
        switch (v) {
        case 0: extra = 0; break;
        case 2: extra |= TUI_A_DIM; break;
        case 22: extra &= (uint16_t)~TUI_A_DIM; break;
        case 8: extra |= TUI_A_CONCEAL; break;
        case 28: extra &= (uint16_t)~TUI_A_CONCEAL; break;
        case 53: extra |= TUI_A_OVERLINE; break;
        case 55: extra &= (uint16_t)~TUI_A_OVERLINE; break;
        default: break;
        }
        keep = keep && v != 2 && v != 8 && v != 28 && v != 53 && v != 55;
        if (keep) {
            size_t from = start[g], to = start[g + span - 1] + len[g + span - 1];
            if (any)
                sgr.seq[sgr.seq_len++] = ';';
            memcpy(sgr.seq + sgr.seq_len, f->seq + from, to - from);
            sgr.seq_len += to - from;
            any = true;
        }
        g += span - 1;
    }
    if (extra != tui_screen_extra(t->scr)) {
        if (*n)
            vterm_input_write(t->vt, *out, *n);
        *n = 0;
        tui_screen_set_extra(t->scr, extra);
    }
    if (!any)
        return; /* nothing for libvterm (an empty SGR would reset its pen) */
    sgr.seq[sgr.seq_len++] = 'm';
    out_csi(&sgr, out, n, cap);
}

static bool is_rqss(const rep_filter *f)
{
    return f->seq_len >= 4 && !memcmp(f->seq + 2, "$q", 2);
}

/* The settings libvterm 0.1.4 answers a DECRQSS for: SGR, DECSTBM, DECSLRM, DECSCUSR, DECSCA. */
static bool rqss_known(const rep_filter *f)
{
    const char *s = f->seq + 4;
    size_t len = f->seq_len - 4;
    return (len == 1 && (s[0] == 'm' || s[0] == 'r' || s[0] == 's')) ||
           (len == 2 && (!memcmp(s, " q", 2) || !memcmp(s, "\"q", 2)));
}

static void filter_byte(tui_term *t, unsigned char c, char **out, size_t *n, size_t *cap);

static void save_charsets(rep_filter *f)
{
    memcpy(f->saved_g, f->g, sizeof f->g);
    f->saved_gl = f->gl;
}

/* After libvterm's own DECRC: the character sets saved with the cursor, designated again. */
static void restore_charsets(rep_filter *f, char **out, size_t *n, size_t *cap)
{
    memcpy(f->g, f->saved_g, sizeof f->g);
    f->gl = f->saved_gl;
    char seq[8] = {0x1B,
                   '(',
                   f->g[0] ? f->g[0] : 'B',
                   0x1B,
                   ')',
                   f->g[1] ? f->g[1] : 'B',
                   f->gl ? 0x0E : 0x0F};
    out_append(out, n, cap, seq, 7);
}

/* A private mode (CSI ? ... h/l) with this number among its parameters. */
static bool private_mode(const rep_filter *f, int mode)
{
    if (f->seq_len < 4 || f->seq[1] != '[' || f->seq[2] != '?' ||
        (f->seq[f->seq_len - 1] != 'h' && f->seq[f->seq_len - 1] != 'l'))
        return false;
    for (size_t i = 3; i + 1 < f->seq_len;) {
        size_t j = i;
        while (j + 1 < f->seq_len && f->seq[j] != ';')
            j++;
        if (j > i && first_number(f->seq + i, j - i) == mode && j - i < 6)
            return true;
        i = j + 1;
    }
    return false;
}

/* What libvterm 0.1.4 leaves out of a few sequences, added after them: DECCOLM (80/132
 * columns; the pane keeps its width) clears the screen, homes the cursor and resets the
 * margins, as the standard says; saving and restoring the cursor (DECSC/DECRC, modes 1048 and
 * 1049) takes the character sets along. */
static void after_csi(tui_term *t, rep_filter *f, char **out, size_t *n, size_t *cap)
{
    bool set = f->seq[f->seq_len - 1] == 'h';
    if (private_mode(f, 7)) /* DECAWM, for the screen's resize */
        tui_screen_set_autowrap(t->scr, set);
    if (f->seq_len == 4 && !memcmp(f->seq + 2, "!p", 2)) /* DECSTR turns autowrap on */
        tui_screen_set_autowrap(t->scr, true);
    if (private_mode(f, 3)) {
        static const char clear[] = "\033[r\033[H\033[2J";
        out_append(out, n, cap, clear, sizeof clear - 1);
    }
    if (private_mode(f, 1048) || private_mode(f, 1049)) {
        if (set)
            save_charsets(f);
        else
            restore_charsets(f, out, n, cap);
    }
}

/* The held DCS ended with terminator: a known DECRQSS goes whole to libvterm (in one
 * write), another is answered here, any other DCS is dropped. */
static void dcs_end(tui_term *t, const char *terminator, char **out, size_t *n, size_t *cap)
{
    rep_filter *f = &t->filter;
    if (!is_rqss(f)) {
    } else if (!f->dcs_drop && rqss_known(f)) {
        out_append(out, n, cap, f->seq, f->seq_len);
        out_append(out, n, cap, terminator, strlen(terminator));
    } else {
        /* after libvterm has answered whatever came before it, so replies keep their order */
        if (*n)
            vterm_input_write(t->vt, *out, *n);
        *n = 0;
        if (t->out)
            t->out("\033P0$r\033\\", 7, t->ud);
    }
    f->seq_len = 0;
    f->dcs_drop = false;
    f->state = F_GROUND;
}

/* Inside a DCS being held (ESC P seen): collects it while it may be a DECRQSS. */
static void filter_dcs(tui_term *t, unsigned char c, char **out, size_t *n, size_t *cap)
{
    rep_filter *f = &t->filter;
    char ch = (char)c;
    if (f->state == F_DCS_ESC) {
        dcs_end(t, "\033\\", out, n, cap);
        if (c != '\\') { /* the escape ended the string and starts a sequence of its own */
            f->seq[0] = 0x1B;
            f->seq_len = 1;
            f->state = F_ESC;
            filter_byte(t, c, out, n, cap);
        }
        return;
    }
    if (c == 0x18 || c == 0x1A) { /* CAN, SUB: the string is void */
        f->seq_len = 0;
        f->dcs_drop = false;
        f->state = F_GROUND;
        out_append(out, n, cap, &ch, 1);
    } else if (c == 0x07) {
        dcs_end(t, "\a", out, n, cap);
    } else if (c == 0x1B) {
        f->state = F_DCS_ESC;
    } else if (c == 0 || c == 0x7F) { /* ignored inside strings */
    } else if (c < 0x20) {            /* C0 controls inside a string run at once */
        out_append(out, n, cap, &ch, 1);
    } else if (f->dcs_drop || f->seq_len >= sizeof f->seq) {
        f->dcs_drop = true;
    } else {
        f->seq[f->seq_len++] = ch;
        if (f->seq_len == 4 && !is_rqss(f))
            f->dcs_drop = true; /* another DCS: libvterm would do nothing with it */
    }
}

static void filter_byte(tui_term *t, unsigned char c, char **out, size_t *n, size_t *cap)
{
    rep_filter *f = &t->filter;
    char ch = (char)c;
    switch (f->state) {
    case F_DCS:
    case F_DCS_ESC: filter_dcs(t, c, out, n, cap); return;
    case F_GROUND:
        if (f->utf_need && (c & 0xC0) != 0x80) {
            /* a broken UTF-8 sequence: a replacement character for it, and this byte read
             * afresh. Never its bytes: libvterm 0.1.4's decoder keeps a lead byte across the
             * control that follows and writes a code point past its stack array for the next
             * character. */
            out_append(out, n, cap, UTF8_REPLACEMENT, sizeof UTF8_REPLACEMENT - 1);
            f->utf_len = f->utf_need = 0;
            filter_byte(t, c, out, n, cap);
            return;
        }
        if (f->utf_need) { /* inside a UTF-8 character */
            f->utf[f->utf_len++] = ch;
            if (f->utf_len == f->utf_need) {
                bool csi = f->utf_len == 2 && (unsigned char)f->utf[0] == 0xC2 && c == 0x9B;
                if (csi) { /* the C1 CSI, spelled in UTF-8 */
                    memcpy(f->seq, "\033[", 2);
                    f->seq_len = 2;
                    f->state = F_CSI;
                } else {
                    out_append(out, n, cap, f->utf, f->utf_len);
                    memcpy(f->last, f->utf, f->utf_len);
                    f->last_len = f->utf_len;
                }
                f->utf_len = f->utf_need = 0;
            }
            return;
        }
        if (c == 0x1B) {
            f->seq[0] = ch;
            f->seq_len = 1;
            f->state = F_ESC;
        } else if (c >= 0xC0 && c < 0xF8) {
            f->utf[0] = ch;
            f->utf_len = 1;
            f->utf_need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        } else if (c >= 0xF8) { /* no UTF-8 (libvterm would wait for 4 or 5 more bytes) */
            out_append(out, n, cap, UTF8_REPLACEMENT, sizeof UTF8_REPLACEMENT - 1);
        } else {
            out_append(out, n, cap, &ch, 1);
            if (c == 0x0E || c == 0x0F) /* SO, SI: G1 or G0 into GL */
                f->gl = c == 0x0E;
            if (c >= 0x20 && c < 0x7F) {
                f->last[0] = ch;
                f->last_len = 1;
            }
        }
        return;
    case F_ESC:
    case F_ESC_INTER:
    case F_CSI:
    case F_CSI_SKIP:
        if (c == 0x1B || c == 0x18 || c == 0x1A) {
            /* cancelled (or restarted): the sequence is void and never reaches libvterm */
            f->seq_len = 0;
            f->state = F_GROUND;
            if (c != 0x1B)
                out_append(out, n, cap, &ch, 1);
            else
                filter_byte(t, c, out, n, cap);
            return;
        }
        if (c < 0x20) { /* C0 controls inside a sequence run at once; the sequence goes on */
            out_append(out, n, cap, &ch, 1);
            return;
        }
        if (c >= 0x7F) { /* not part of any sequence: drop what we had, read it as text */
            f->seq_len = 0;
            f->state = F_GROUND;
            filter_byte(t, c, out, n, cap);
            return;
        }
        if (f->state == F_ESC) {
            f->seq[f->seq_len++] = ch;
            if (c == '[') {
                f->state = F_CSI;
            } else if (c == 'P') {
                f->state = F_DCS;
            } else if (c == 'X' || c == '^' || c == '_') {
                /* SOS, PM, APC: libvterm 0.1.4 takes them for one-byte controls and their
                 * contents for text, unchecked here; terminals ignore them: dropped whole */
                f->seq_len = 0;
                f->dcs_drop = true;
                f->state = F_DCS;
            } else if (c == ']') {
                out_append(out, n, cap, f->seq, f->seq_len); /* strings stream through */
                f->seq_len = 0;
                f->state = F_STR;
            } else if (c <= 0x2F) {
                f->state = F_ESC_INTER;
            } else {
                out_append(out, n, cap, f->seq, f->seq_len);
                if (c == '7')
                    save_charsets(f);
                else if (c == '8')
                    restore_charsets(f, out, n, cap);
                else if (c == 'c') { /* RIS: ASCII everywhere, autowrap on */
                    tui_screen_set_autowrap(t->scr, true);
                    memset(f->g, 0, sizeof f->g);
                    f->gl = 0;
                    save_charsets(f);
                }
                f->seq_len = 0;
                f->state = F_GROUND;
            }
            return;
        }
        if (f->state == F_ESC_INTER && c == '[') {
            f->seq[f->seq_len++] = ch; /* libvterm starts a CSI here even after intermediates */
            f->state = F_CSI;
            return;
        }
        if (f->state == F_ESC_INTER && c == 'P') { /* and a DCS, its intermediates ignored */
            memcpy(f->seq, "\033P", 2);
            f->seq_len = 2;
            f->state = F_DCS;
            return;
        }
        if (f->seq_len + 1 >= sizeof f->seq)
            f->state = F_CSI_SKIP; /* longer than any real sequence: drop it whole */
        if (f->state != F_CSI_SKIP)
            f->seq[f->seq_len++] = ch;
        bool final = f->state == F_ESC_INTER ? c >= 0x30 : c >= 0x40;
        if (!final)
            return;
        int params = 0;
        for (size_t i = csi_params(f); i < f->seq_len; i++)
            params += f->seq[i] == ';' || f->seq[i] == ':';
        if (f->state == F_ESC_INTER) {
            out_append(out, n, cap, f->seq, f->seq_len);
            if (f->seq_len == 3 && (f->seq[1] == '(' || f->seq[1] == ')'))
                f->g[f->seq[1] == ')'] = f->seq[2];
        } else if (f->state == F_CSI && params < MAX_CSI_PARAMS && is_rep(f))
            expand_rep(t, out, n, cap);
        else if (f->state == F_CSI && params < MAX_CSI_PARAMS && is_sgr(f))
            out_sgr(t, out, n, cap);
        else if (f->state == F_CSI && params < MAX_CSI_PARAMS) {
            out_csi(f, out, n, cap);
            after_csi(t, f, out, n, cap);
        }
        f->seq_len = 0;
        f->state = F_GROUND;
        return;
    case F_STR:
        if (c == 0x1B) {
            f->state = F_STR_ESC;
            return;
        }
        out_append(out, n, cap, &ch, 1);
        if (c == 0x07 || c == 0x18 || c == 0x1A)
            f->state = F_GROUND;
        return;
    case F_STR_ESC:
        if (c == '\\') {
            out_append(out, n, cap, "\033\\", 2);
            f->state = F_GROUND;
            return;
        }
        /* any other escape ends the string (we close it for libvterm with ST, since the escape
         * itself may never reach it) and starts itself */
        out_append(out, n, cap, "\033\\", 2);
        f->seq[0] = 0x1B;
        f->seq_len = 1;
        f->state = F_ESC;
        filter_byte(t, c, out, n, cap);
        return;
    }
}

void tui_term_feed(tui_term *t, const char *data, size_t len)
{
    size_t n = 0;
    rep_filter *f = &t->filter;
    for (size_t i = 0; i < len;) {
        /* plain ASCII outside any sequence goes through in one copy */
        if (f->state == F_GROUND && !f->utf_need) {
            size_t j = i;
            while (j < len && (unsigned char)data[j] < 0x80 && data[j] != 0x1B && data[j] != 0x0E &&
                   data[j] != 0x0F)
                j++;
            if (j > i) {
                out_append(&t->feed_buf, &n, &t->feed_cap, data + i, j - i);
                for (size_t k = j; k-- > i;) {
                    if (data[k] >= 0x20 && data[k] < 0x7F) {
                        f->last[0] = data[k];
                        f->last_len = 1;
                        break;
                    }
                }
                i = j;
                continue;
            }
        }
        filter_byte(t, (unsigned char)data[i], &t->feed_buf, &n, &t->feed_cap);
        i++;
    }
    if (n)
        vterm_input_write(t->vt, t->feed_buf, n);
}

/* Sequences of our own into libvterm between the program's. A string the program has open
 * (streamed through as an OSC) would be cut by them in libvterm but not in the scanner, whose
 * next bytes would then reach libvterm's text decoder unchecked: so the string is closed for
 * libvterm first and the scanner drops the rest of it (controls inside still run). */
void tui_term_inject(tui_term *t, const char *seq, size_t len)
{
    rep_filter *f = &t->filter;
    if (f->state == F_STR || f->state == F_STR_ESC) {
        vterm_input_write(t->vt, "\033\\", 2);
        f->state = f->state == F_STR ? F_DCS : F_DCS_ESC;
        f->seq_len = 0; /* no DECRQSS: dropped */
        f->dcs_drop = true;
    }
    vterm_input_write(t->vt, seq, len);
}
