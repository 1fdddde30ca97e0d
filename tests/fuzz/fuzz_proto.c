/* libFuzzer target: arbitrary bytes as the local provider's control protocol stream (the
 * frame reader the sandbox init runs on every client's bytes) and as packed strings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/local/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lp_reader r;
    memset(&r, 0, sizeof r);
    r.buf = malloc(size + 1);
    r.cap = size + 1;
    memcpy(r.buf, data, size);
    r.len = size;
    struct lp_frame f;
    int got;
    while ((got = lp_reader_next(&r, &f)) == 1) {
        const char *strs[64];
        lp_unpack(f.payload ? f.payload : "", f.h.len, strs, 64);
        lp_frame_free(&f);
    }
    lp_reader_free(&r);
    return 0;
}
