/* libcurl, loaded on first use. libcurl brings about thirty libraries with it (TLS, HTTP/2,
 * SSH, LDAP, Kerberos...), and loading them is most of a headless verb's start-up time; only
 * verbs that talk HTTP (the docker provider, OpenTelemetry export) need it. So sandman does not
 * link it: these definitions of the libcurl calls core/http.c makes load the library with
 * dlopen on the first call and forward to it. The types are libcurl's own (its header), so the
 * calls are checked as usual; curl_easy_setopt's one variadic argument is forwarded with the
 * type libcurl's option numbering gives it. */
#define CURL_DISABLE_TYPECHECK 1
#include "core/curl_lazy.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#define CURL_SONAME "libcurl.so.4" /* the ABI these headers describe */

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_recv)(CURL *, void *, size_t, size_t *);
    CURLcode (*easy_send)(CURL *, const void *, size_t, size_t *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} fn;
static char why[256];
static bool loaded;

static void load(void)
{
    void *h = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, sizeof why, "cannot load %s (HTTP needs libcurl): %s", CURL_SONAME,
                 dlerror());
        return;
    }
    struct {
        void **slot;
        const char *name;
    } want[] = {
        {(void **)&fn.global_init, "curl_global_init"},
        {(void **)&fn.easy_init, "curl_easy_init"},
        {(void **)&fn.easy_setopt, "curl_easy_setopt"},
        {(void **)&fn.easy_perform, "curl_easy_perform"},
        {(void **)&fn.easy_cleanup, "curl_easy_cleanup"},
        {(void **)&fn.easy_getinfo, "curl_easy_getinfo"},
        {(void **)&fn.easy_reset, "curl_easy_reset"},
        {(void **)&fn.easy_recv, "curl_easy_recv"},
        {(void **)&fn.easy_send, "curl_easy_send"},
        {(void **)&fn.easy_strerror, "curl_easy_strerror"},
        {(void **)&fn.slist_append, "curl_slist_append"},
        {(void **)&fn.slist_free_all, "curl_slist_free_all"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        *want[i].slot = dlsym(h, want[i].name);
        if (!*want[i].slot) {
            snprintf(why, sizeof why, "%s has no %s", CURL_SONAME, want[i].name);
            return;
        }
    }
    loaded = true;
}

bool sm_curl_load(const char **err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load);
    if (!loaded && err)
        *err = why;
    return loaded;
}

/* Callers reach the calls below only after sm_curl_load said yes (sm_http_new asks); the
 * checks keep a mistaken caller from jumping through a null pointer. */
#define NEED(fail)                                                                                 \
    if (!sm_curl_load(NULL))                                                                       \
    return fail

CURLcode curl_global_init(long flags)
{
    NEED(CURLE_FAILED_INIT);
    return fn.global_init(flags);
}

CURL *curl_easy_init(void)
{
    NEED(NULL);
    return fn.easy_init();
}

CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
    NEED(CURLE_FAILED_INIT);
    va_list ap;
    va_start(ap, opt);
    CURLcode rc;
    if (opt < CURLOPTTYPE_OBJECTPOINT)
        rc = fn.easy_setopt(h, opt, va_arg(ap, long));
    else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
        rc = fn.easy_setopt(h, opt, va_arg(ap, void *));
    else if (opt < CURLOPTTYPE_OFF_T)
        rc = fn.easy_setopt(h, opt, va_arg(ap, void (*)(void)));
    else if (opt < CURLOPTTYPE_BLOB)
        rc = fn.easy_setopt(h, opt, va_arg(ap, curl_off_t));
    else
        rc = fn.easy_setopt(h, opt, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

CURLcode curl_easy_perform(CURL *h)
{
    NEED(CURLE_FAILED_INIT);
    return fn.easy_perform(h);
}

void curl_easy_cleanup(CURL *h)
{
    NEED();
    fn.easy_cleanup(h);
}

CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
    NEED(CURLE_FAILED_INIT);
    va_list ap;
    va_start(ap, info);
    CURLcode rc = fn.easy_getinfo(h, info, va_arg(ap, void *));
    va_end(ap);
    return rc;
}

void curl_easy_reset(CURL *h)
{
    NEED();
    fn.easy_reset(h);
}

CURLcode curl_easy_recv(CURL *h, void *buf, size_t len, size_t *n)
{
    NEED(CURLE_FAILED_INIT);
    return fn.easy_recv(h, buf, len, n);
}

CURLcode curl_easy_send(CURL *h, const void *buf, size_t len, size_t *n)
{
    NEED(CURLE_FAILED_INIT);
    return fn.easy_send(h, buf, len, n);
}

const char *curl_easy_strerror(CURLcode cc)
{
    NEED(why);
    return fn.easy_strerror(cc);
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
    NEED(NULL);
    return fn.slist_append(l, s);
}

void curl_slist_free_all(struct curl_slist *l)
{
    NEED();
    fn.slist_free_all(l);
}
