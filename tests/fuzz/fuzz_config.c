/* libFuzzer target: arbitrary text as a sandman/NeMo Gym YAML config (parser, ${oc.env:...}
 * interpolation, block validation, context resolution). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xstrndup((const char *)data, size);
    sm_config c;
    sm_error err;
    sm_error_clear(&err);
    if (sm_config_load_string(text, "fuzz.yaml", &c, &err) == SM_OK) {
        sm_context ctx;
        if (sm_config_resolve(&c, NULL, &ctx, &err) == SM_OK)
            sm_context_free(&ctx);
        sm_config_free(&c);
    }
    int is_null = 0;
    char *v = sm_config_interpolate(text, &is_null, &err);
    free(v);
    free(text);
    return 0;
}
