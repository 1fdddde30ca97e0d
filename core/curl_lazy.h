/* libcurl is loaded on first use (curl_lazy.c): a verb that never talks HTTP never pays for
 * loading it and the libraries it needs. */
#ifndef SM_CURL_LAZY_H
#define SM_CURL_LAZY_H

#include <stdbool.h>

/* Loads libcurl once; false (with *err, if given, saying why) when it cannot be loaded. */
bool sm_curl_load(const char **err);

#endif
