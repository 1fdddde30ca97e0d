/* Secret redaction: config values that are credentials (api keys, tokens, passwords) are
 * registered here once, and every message, journal line and error passes through
 * sm_redact_into so they never reach output, logs or journals. Thread-safe. */
#ifndef SM_REDACT_H
#define SM_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* Remembers a secret value (values shorter than 4 characters are ignored). */
void sm_redact_register(const char *secret);
/* True if a config key names a credential: *key*, *token*, *secret*, *password*, *auth*. */
bool sm_redact_key_is_secret(const char *key);
/* Remembers the values of a map (labels, default_metadata) whose keys name a credential. */
struct sm_map;
void sm_redact_register_map(const struct sm_map *m);
/* The map as a JSON object of strings with every value redacted: what providers record and
 * hand to runtimes as labels, so a secret label never lands in state. Caller owns it. */
struct cJSON;
struct cJSON *sm_redact_map_to_json(const struct sm_map *m);
/* Copies src into dst (size len), replacing every registered secret with "***". */
void sm_redact_into(const char *src, char *dst, size_t len);
/* Returns a malloc'd redacted copy. */
char *sm_redact_dup(const char *src);
/* Forgets all secrets (tests). */
void sm_redact_reset(void);

#endif
