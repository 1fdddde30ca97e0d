/* Secret redaction: config values that are credentials (api keys, tokens, passwords) are
 * registered here once, secrets of well-known forms are recognised in any text, and every
 * message, journal line, error and printed line passes through sm_redact_dup/_into so they
 * never reach output, logs or journals. Thread-safe. */
#ifndef SM_REDACT_H
#define SM_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* Remembers a secret value (values shorter than 4 characters are ignored). */
void sm_redact_register(const char *secret);
/* True if a config key names a credential: *key*, *token*, *secret*, *password*, *passwd*,
 * *auth*, *bearer*, *cookie*, *credential*, or "pat" as a word (github_pat, GH_PAT). */
bool sm_redact_key_is_secret(const char *key);
/* Remembers the values of a map (labels, default_metadata) whose keys name a credential. */
struct sm_map;
void sm_redact_register_map(const struct sm_map *m);
/* The map as a JSON object of strings with every value redacted: what providers record and
 * hand to runtimes as labels, so a secret label never lands in state. Caller owns it. */
struct cJSON;
struct cJSON *sm_redact_map_to_json(const struct sm_map *m);
/* Copies src into dst (size len), redacted as sm_redact_dup does. */
void sm_redact_into(const char *src, char *dst, size_t len);
/* Returns a malloc'd redacted copy: registered secrets, and secrets recognised by their form
 * (service token prefixes, AWS key ids, JWTs, PEM private keys, URL passwords, Bearer and
 * Authorization credentials, NAME=value where NAME names a credential). */
char *sm_redact_dup(const char *src);
/* Only the registered secrets: for a command's own output, which is data and stays as the
 * command wrote it except for sandman's own credentials. Caller frees. */
char *sm_redact_registered_dup(const char *src);
/* Forgets all secrets (tests). */
void sm_redact_reset(void);

#endif
