/* libFuzzer target: arbitrary bytes through the terminal-query filter that replayed session
 * output passes before it reaches the user's terminal. The stream is filtered whole and again
 * cut into chunks of a size taken from the first byte: both must give the same bytes (a
 * sequence split across reads is held, not mangled), and the filter only ever removes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/vtquery.h"

static size_t filter_chunked(const char *in, size_t len, size_t chunk, char *out)
{
    sm_vtq q;
    sm_vtq_init(&q);
    size_t w = 0;
    for (size_t i = 0; i < len; i += chunk) {
        size_t n = len - i < chunk ? len - i : chunk;
        w += sm_vtq_filter(&q, in + i, n, out + w);
    }
    return w + sm_vtq_flush(&q, out + w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t chunk = 1 + data[0] % 16;
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    /* room as the header asks: len + SM_VTQ_HELD for one call (and the flush after it) */
    char *whole = xmalloc(len + 2 * SM_VTQ_HELD), *split = xmalloc(len + 2 * SM_VTQ_HELD);
    size_t a = filter_chunked(in, len, len ? len : 1, whole);
    size_t b = filter_chunked(in, len, chunk, split);
    if (a > len || a != b || memcmp(whole, split, a))
        abort();
    free(whole);
    free(split);
    return 0;
}
