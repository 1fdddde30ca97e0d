/* Registry of secret values and the redaction applied to every message we emit: registered
 * values, plus secrets recognised by their form (service token prefixes, JWTs, PEM private
 * keys, URL passwords, Bearer and Authorization credentials, NAME=value where NAME names a
 * credential). One pass over the text; it runs on every journal line and printed line. */
#include "core/redact.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/kv.h"
#include "core/strbuf.h"
#include "core/util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **secrets;
static size_t nsecrets;
static bool starts[256]; /* first bytes of the registered secrets: where a scan must stop */

static bool first_of_secret(char c)
{
    return starts[(unsigned char)c];
}

void sm_redact_register(const char *secret)
{
    if (!secret || strlen(secret) < 4)
        return;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nsecrets; i++) {
        if (!strcmp(secrets[i], secret)) {
            pthread_mutex_unlock(&lock);
            return;
        }
    }
    secrets = xrealloc(secrets, (nsecrets + 1) * sizeof *secrets);
    secrets[nsecrets++] = xstrdup(secret);
    starts[(unsigned char)secret[0]] = true;
    pthread_mutex_unlock(&lock);
}

/* True if the lower-cased name has "pat" as a whole component (github_pat, GH_PAT), which a
 * substring test cannot tell from "path". */
static bool has_pat_component(const char *low)
{
    for (const char *p = low; (p = strstr(p, "pat")); p += 3)
        if ((p == low || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[3]))
            return true;
    return false;
}

bool sm_redact_key_is_secret(const char *key)
{
    static const char *words[] = {"key",  "token",  "secret", "password",  "passwd",
                                  "auth", "bearer", "cookie", "credential"};
    char low[128];
    size_t n = 0;
    for (; key && key[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)key[n]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(low, words[i]))
            return true;
    return has_pat_component(low);
}

void sm_redact_register_map(const sm_map *m)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (sm_redact_key_is_secret(m->items[i].key))
            sm_redact_register(m->items[i].value);
}

cJSON *sm_redact_map_to_json(const sm_map *m)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; m && i < m->n; i++) {
        char *v = sm_redact_dup(m->items[i].value);
        cJSON_AddStringToObject(o, m->items[i].key, v);
        free(v);
    }
    return o;
}

/* ---- secrets recognised by their form, whatever they are called ------------------------ */

static bool tok_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '-';
}

static size_t span(const char *p, bool (*in)(unsigned char))
{
    size_t n = 0;
    while (p[n] && in((unsigned char)p[n]))
        n++;
    return n;
}

static bool b64_char(unsigned char c)
{
    return isalnum(c) || strchr("._~+/=-", c);
}

static bool has_digit(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isdigit((unsigned char)p[i]))
            return true;
    return false;
}

static bool alnum_char(unsigned char c)
{
    return isalnum(c) != 0;
}

/* Token prefixes of well-known services, with the body each issues (random alphanumerics, or
 * with '_'/'-' too) and its least length, so that "hf_cache_dir" or "sk-learn" stay; the
 * prefix stays visible (it says which credential it was), the body becomes ***. */
static const struct {
    const char *prefix;
    size_t min_body;
    bool (*body)(unsigned char);
    bool needs_digit;
} prefixes[] = {
    {"github_pat_", 40, tok_char, false}, {"ghp_", 30, alnum_char, false},
    {"gho_", 30, alnum_char, false},      {"ghu_", 30, alnum_char, false},
    {"ghs_", 30, alnum_char, false},      {"ghr_", 30, alnum_char, false},
    {"glpat-", 20, tok_char, false},      {"xoxb-", 10, tok_char, true},
    {"xoxa-", 10, tok_char, true},        {"xoxp-", 10, tok_char, true},
    {"xoxr-", 10, tok_char, true},        {"xoxs-", 10, tok_char, true},
    {"sk-", 20, tok_char, true},          {"hf_", 30, alnum_char, false},
    {"npm_", 30, alnum_char, false},
};

/* A value ends at whitespace, a quote, a backslash (a JSON escape: eating it would break the
 * document) or punctuation that separates arguments. */
static bool value_char(unsigned char c)
{
    return c > ' ' && !strchr("\"'\\,;&)}]>", c);
}

/* Not a secret but a name for one: a placeholder in a message ("KEY=VALUE") or a shell
 * reference ("TOKEN=$GITHUB_TOKEN"), both more useful shown. */
static bool placeholder(const char *v, size_t n)
{
    if (v[0] == '$')
        return true;
    for (size_t i = 0; i < n; i++)
        if (!isupper((unsigned char)v[i]) && v[i] != '_')
            return false;
    return true;
}

/* Looks for a secret of a known form starting at p (start is the beginning of the text).
 * Returns how many bytes of src it covers (0: none) after putting its redacted form in b. */
static size_t match_form(const char *start, const char *p, sm_strbuf *b)
{
    bool boundary = p == start || !isalnum((unsigned char)p[-1]);
    unsigned char c = (unsigned char)*p;
    if (boundary && strchr("ghxsnAe", c)) {
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            if (prefixes[i].prefix[0] != *p)
                continue;
            size_t pl = strlen(prefixes[i].prefix);
            if (strncmp(p, prefixes[i].prefix, pl))
                continue;
            size_t body = span(p + pl, prefixes[i].body);
            if (body < prefixes[i].min_body ||
                (prefixes[i].needs_digit && !has_digit(p + pl, body)))
                continue;
            sm_strbuf_append(b, p, pl);
            sm_strbuf_puts(b, "***");
            return pl + body;
        }
        if ((!strncmp(p, "AKIA", 4) || !strncmp(p, "ASIA", 4))) { /* AWS access key ids */
            size_t n = 4;
            while (n < 20 && (isupper((unsigned char)p[n]) || isdigit((unsigned char)p[n])))
                n++;
            if (n == 20 && !isalnum((unsigned char)p[20])) {
                sm_strbuf_append(b, p, 4);
                sm_strbuf_puts(b, "***");
                return 20;
            }
        }
        if (!strncmp(p, "eyJ", 3)) { /* a JWT: header.payload.signature, base64url */
            size_t h = span(p, tok_char);
            if (h >= 10 && p[h] == '.' && !strncmp(p + h + 1, "eyJ", 3)) {
                size_t q = span(p + h + 1, tok_char);
                if (q >= 10) {
                    size_t n = h + 1 + q;
                    if (p[n] == '.')
                        n += 1 + span(p + n + 1, tok_char);
                    sm_strbuf_puts(b, "***");
                    return n;
                }
            }
        }
    }
    if (boundary && (c == 'B' || c == 'b') && !strncasecmp(p, "bearer", 6) && p[6] == ' ') {
        size_t sp = 6;
        while (p[sp] == ' ')
            sp++;
        size_t t = span(p + sp, b64_char);
        if (t >= 8) {
            sm_strbuf_append(b, p, sp);
            sm_strbuf_puts(b, "***");
            return sp + t;
        }
    }
    if (boundary && (c == 'A' || c == 'a') && !strncasecmp(p, "authorization:", 14)) {
        /* "Authorization: Basic xyz" keeps the scheme; a lone credential goes whole */
        size_t n = 14;
        while (p[n] == ' ')
            n++;
        size_t w = span(p + n, value_char), sp = n + w;
        while (p[sp] == ' ')
            sp++;
        size_t w2 = span(p + sp, value_char);
        if (w && w2 && strncasecmp(p + n, "bearer", 6)) {
            sm_strbuf_append(b, p, sp);
            sm_strbuf_puts(b, "***");
            return sp + w2;
        }
        if (w && !w2) {
            sm_strbuf_append(b, p, n);
            sm_strbuf_puts(b, "***");
            return n + w;
        }
    }
    if (c == '-' && !strncmp(p, "-----BEGIN ", 11)) { /* a PEM private key, up to its END */
        const char *eol = p + 11;
        while (*eol && *eol != '\n' && *eol != '\\' && eol - p < 80)
            eol++;
        const char *hdr = memmem(p, (size_t)(eol - p), "PRIVATE KEY-----", 16);
        if (hdr) {
            const char *body = hdr + 16, *end = strstr(body, "-----END ");
            if (!end) /* no END: redact to the end of the text, or of a JSON string */
                for (end = body; *end && *end != '"'; end++) {
                }
            sm_strbuf_append(b, p, (size_t)(body - p));
            sm_strbuf_puts(b, "***");
            return (size_t)(end - p);
        }
    }
    if (c == ':' && p[1] == '/' && p[2] == '/') { /* scheme://user:password@host */
        const char *u = p + 3, *q = u, *colon = NULL;
        while (*q && *q > ' ' && !strchr("/?#@\"'\\<>", *q)) {
            if (*q == ':' && !colon)
                colon = q;
            q++;
        }
        if (*q == '@' && colon) {
            sm_strbuf_append(b, p, (size_t)(colon + 1 - p));
            sm_strbuf_puts(b, "***");
            return (size_t)(q - p);
        }
    }
    if (c == '=' && p > start) { /* NAME=value where NAME names a credential */
        const char *n = p;
        while (n > start && p - n < 64 && (isalnum((unsigned char)n[-1]) || strchr("_.-", n[-1])))
            n--;
        size_t v = span(p + 1, value_char);
        if (n < p && v && !placeholder(p + 1, v)) {
            char name[65];
            snprintf(name, sizeof name, "%.*s", (int)(p - n), n);
            if (sm_redact_key_is_secret(name)) {
                sm_strbuf_puts(b, "=***");
                return 1 + v;
            }
        }
    }
    return 0;
}

/* Where match_form could find something: the forms that start with a letter start a word. */
static bool may_start_form(const char *q)
{
    switch (*q) {
    case '=': return true;
    case '-': return q[1] == '-';
    case ':': return q[1] == '/';
    default: return !isalnum((unsigned char)q[-1]) && strchr("ghxsnAeBba", *q);
    }
}

static char *redact(const char *src, bool forms)
{
    sm_strbuf b = {0};
    pthread_mutex_lock(&lock);
    const char *start = src ? src : "", *p = start;
    while (*p) {
        size_t best = 0;
        for (size_t i = 0; i < nsecrets; i++) {
            if (secrets[i][0] != *p)
                continue;
            size_t l = strlen(secrets[i]);
            if (l > best && strncmp(p, secrets[i], l) == 0)
                best = l;
        }
        if (best) {
            sm_strbuf_puts(&b, "***");
            p += best;
            continue;
        }
        size_t n = forms ? match_form(start, p, &b) : 0;
        if (n) {
            p += n;
            continue;
        }
        /* copy the run up to the next byte where a secret could begin */
        const char *q = p + 1;
        while (*q && !first_of_secret(*q) && !(forms && may_start_form(q)))
            q++;
        sm_strbuf_append(&b, p, (size_t)(q - p));
        p = q;
    }
    pthread_mutex_unlock(&lock);
    return sm_strbuf_take(&b);
}

char *sm_redact_dup(const char *src)
{
    return redact(src, true);
}

char *sm_redact_registered_dup(const char *src)
{
    return redact(src, false);
}

void sm_redact_into(const char *src, char *dst, size_t len)
{
    if (!len)
        return;
    char *r = sm_redact_dup(src);
    size_t n = strlen(r);
    if (n >= len)
        n = len - 1;
    memcpy(dst, r, n);
    dst[n] = '\0';
    free(r);
}

void sm_redact_reset(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nsecrets; i++)
        free(secrets[i]);
    free(secrets);
    secrets = NULL;
    nsecrets = 0;
    memset(starts, 0, sizeof starts);
    pthread_mutex_unlock(&lock);
}
