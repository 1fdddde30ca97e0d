/* Manifests of tar streams and the check of each untrusted entry (core/archive_int.h): every
 * reader of a stream, core/archive.c and core/archive_extract.c, runs sm_ar_check on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/archive_int.h"
#include "core/util.h"

/* ---------------------------------------------------------------- manifests */

sm_manifest_entry *sm_ar_manifest_add(sm_manifest *m, const char *path, char type,
                                      unsigned long long size, const char *link)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->v = xrealloc(m->v, m->cap * sizeof *m->v);
    }
    sm_manifest_entry *e = &m->v[m->n++];
    *e = (sm_manifest_entry){.path = xstrdup(path), .type = type, .size = size};
    e->link = link ? xstrdup(link) : NULL;
    if (type == 'f') {
        m->files++;
        m->bytes += size;
    }
    return e;
}

void sm_manifest_free(sm_manifest *m)
{
    for (size_t i = 0; m && i < m->n; i++) {
        free(m->v[i].path);
        free(m->v[i].link);
    }
    if (m)
        free(m->v), *m = (sm_manifest){0};
}

static const char *strip_top(const char *p, bool strip)
{
    if (!strip)
        return p;
    const char *s = strchr(p, '/');
    return s ? s + 1 : "";
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const sm_manifest_entry *const *)a)[0]->path,
                  ((const sm_manifest_entry *const *)b)[0]->path);
}

/* The entries of m, sorted by their (stripped) path; a later duplicate wins (as on disk). */
static sm_manifest_entry **sorted(const sm_manifest *m, bool strip, sm_manifest_entry *keys)
{
    sm_manifest_entry **v = xcalloc(m->n + 1, sizeof *v);
    for (size_t i = 0; i < m->n; i++) {
        keys[i] = m->v[i];
        keys[i].path = (char *)strip_top(m->v[i].path, strip);
        keys[i].size = i; /* order, for duplicates */
        v[i] = &keys[i];
    }
    qsort(v, m->n, sizeof *v, by_path);
    return v;
}

static const sm_manifest_entry *find(sm_manifest_entry **v, size_t n, const char *path)
{
    size_t lo = 0, hi = n;
    const sm_manifest_entry *hit = NULL;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(v[mid]->path, path);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n && !strcmp(v[lo]->path, path); lo++)
        hit = v[lo];
    return hit;
}

int sm_manifest_compare(const sm_manifest *want, const sm_manifest *got, bool strip, char *why,
                        size_t len)
{
    sm_manifest_entry *keys = xcalloc(got->n + 1, sizeof *keys);
    sm_manifest_entry **v = sorted(got, strip, keys);
    int rc = 0;
    for (size_t i = 0; i < want->n && rc == 0; i++) {
        const sm_manifest_entry *w = &want->v[i];
        if (w->type == 'd')
            continue;
        const char *p = strip_top(w->path, strip);
        const sm_manifest_entry *g = find(v, got->n, p);
        const sm_manifest_entry *gi = g ? &got->v[g->size] : NULL;
        if (!gi) {
            snprintf(why, len, "%s is missing on the receiving side", w->path);
            rc = -1;
        } else if (w->type == 'l' && (gi->type != 'l' || strcmp(w->link, gi->link))) {
            snprintf(why, len, "the link %s arrived changed", w->path);
            rc = -1;
        } else if (w->type == 'f' && gi->type == 'f' &&
                   (w->size != gi->size || w->crc != gi->crc)) {
            snprintf(why, len,
                     "%s arrived with other content (%llu bytes, crc32 %08x; sent %llu bytes, "
                     "crc32 %08x)",
                     w->path, gi->size, gi->crc, w->size, w->crc);
            rc = -1;
        }
    }
    free(v);
    free(keys);
    return rc;
}

/* ---------------------------------------------------------------- checking entries */

int sm_ar_normalize(const char *name, char *out, size_t len, const char **rule)
{
    size_t o = 0;
    out[0] = '\0';
    if (name[0] == '/') {
        *rule = "an absolute path";
        return -1;
    }
    for (const char *p = name; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            *rule = "a '..' component";
            return -1;
        }
        if (n && !(n == 1 && p[0] == '.')) {
            if (o + n + 2 > len) {
                *rule = "a name too long";
                return -1;
            }
            if (o)
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
            out[o] = '\0';
        }
        p += n;
        while (*p == '/')
            p++;
    }
    return 0;
}

/* Whether the relative target of a link at path stays beneath the extraction directory. */
static bool link_inside(const char *path, const char *target)
{
    if (target[0] == '/')
        return false;
    int depth = 0;
    for (const char *p = path; (p = strchr(p, '/')) != NULL; p++)
        depth++;
    for (const char *p = target; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return false;
        } else if (n && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n;
        while (*p == '/')
            p++;
    }
    return true;
}

sm_ar_verdict sm_ar_check(struct archive_entry *e, const sm_manifest *m, char *path, size_t plen,
                          char *type, char *why, size_t wlen)
{
    const char *name = archive_entry_pathname(e), *rule = NULL;
    char shown[200];
    if (!name || !*name) {
        snprintf(why, wlen, "the archive has an entry without a name");
        return SM_AR_BAD;
    }
    char *clean = sm_utf8_clean(name, strlen(name));
    snprintf(shown, sizeof shown, "%s", clean);
    free(clean);
    if (sm_ar_normalize(name, path, plen, &rule) < 0) {
        snprintf(why, wlen, "refused entry '%s': %s (entries must stay inside the target)", shown,
                 rule);
        return SM_AR_BAD;
    }
    const char *hard = archive_entry_hardlink(e);
    mode_t ft = archive_entry_filetype(e);
    if (hard) {
        char tgt[4096];
        bool known = false;
        if (sm_ar_normalize(hard, tgt, sizeof tgt, &rule) == 0)
            for (size_t i = m->n; i-- > 0 && !known;)
                known = m->v[i].type == 'f' && !strcmp(m->v[i].path, tgt);
        if (!known) {
            snprintf(why, wlen,
                     "refused entry '%s': a hard link to something that is not an earlier "
                     "file of the archive",
                     shown);
            return SM_AR_BAD;
        }
        *type = 'h';
        return SM_AR_OK;
    }
    switch (ft) {
    case AE_IFREG: *type = 'f'; break;
    case AE_IFDIR: *type = 'd'; break;
    case AE_IFLNK: {
        const char *t = archive_entry_symlink(e);
        if (!t || !*t || !link_inside(path, t)) {
            snprintf(why, wlen, "refused entry '%s': a link that points outside the target", shown);
            return SM_AR_BAD;
        }
        *type = 'l';
        break;
    }
    case AE_IFCHR:
    case AE_IFBLK:
        snprintf(why, wlen, "refused entry '%s': a device node", shown);
        return SM_AR_BAD;
    default:
        snprintf(why, wlen, "skipped '%s': %s", shown,
                 ft == AE_IFIFO    ? "a FIFO"
                 : ft == AE_IFSOCK ? "a socket"
                                   : "not a file");
        return SM_AR_SKIP;
    }
    if (!*path && *type != 'd') {
        snprintf(why, wlen, "refused entry '%s': it names the target itself", shown);
        return SM_AR_BAD;
    }
    return SM_AR_OK;
}
