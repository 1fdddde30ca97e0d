/* Terminal-safe text. Agent-chosen strings (labels, env names, exec commands, failure reasons,
 * paths and names from inside a sandbox) reach the user's terminal only through here, with
 * every control character shown escaped, so a sandbox can never set the terminal's title,
 * clear it, move its cursor or reorder what it shows. Both front ends use it (the CLI escapes,
 * the dashboard blanks). Must not know about sandboxes. */
#ifndef SM_TEXT_H
#define SM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True for code points a terminal acts on instead of showing: C0 controls, DEL, C1 controls
 * (U+0080-U+009F, 8-bit CSI/OSC among them) and the bidi formatting controls that reorder a
 * line (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069). */
bool sm_text_is_control(uint32_t cp);

enum {
    SM_TEXT_KEEP_NEWLINES = 1 /* leave '\n' and '\t' as they are (whole messages, not fields) */
};

/* Copies s into dst (size len, always NUL-terminated, cut only between characters) with
 * controls escaped: \n \r \t, \xNN for other C0 bytes, DEL and bytes that are not UTF-8, and
 * \uNNNN for C1 and bidi controls. Returns the length written. Ordinary text is unchanged. */
size_t sm_text_escape_into(const char *s, char *dst, size_t len, unsigned flags);
/* The same into a malloc'd string; caller frees. */
char *sm_text_escape(const char *s, unsigned flags);
/* Display width of s in terminal columns (wide characters count 2, combining marks 0, bytes
 * that are not UTF-8 1), counting only the longest prefix that fits in max_cols; *bytes (if
 * not NULL) gets that prefix's length, so a field can be cut between characters. */
size_t sm_text_cols(const char *s, size_t max_cols, size_t *bytes);
/* JSON text (as cJSON prints it) with DEL and the UTF-8 encoded C1 and bidi controls written
 * as \u escapes: the same JSON value, but safe to show on a terminal. Only valid for JSON text,
 * where such bytes can occur inside strings only. Caller frees. */
char *sm_text_json_safe(const char *json);

#endif
