/* libarchive is loaded on first use (archive_lazy.c): a verb that moves no tar stream never pays
 * for loading it and the libraries it needs. */
#ifndef SM_ARCHIVE_LAZY_H
#define SM_ARCHIVE_LAZY_H

#include <stdbool.h>

/* Loads libarchive once; false (with *err, if given, saying why) when it cannot be loaded. */
bool sm_archive_load(const char **err);

#endif
