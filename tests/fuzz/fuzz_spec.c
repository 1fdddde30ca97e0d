/* libFuzzer target: arbitrary text as a sandbox record's spec (spec.json, read back by ls,
 * status and rm; a damaged one must be refused, never crash them): parsed, validated, and a
 * spec that parses is written and read back to the same JSON. */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/spec.h"
#include "core/util.h"

static char *round_trip(const cJSON *j, sm_error *err)
{
    sm_spec s;
    if (sm_spec_from_json(j, &s, err) != SM_OK)
        return NULL;
    sm_spec_validate(&s, err);
    cJSON *out = sm_spec_to_json(&s, true);
    char *text = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    sm_spec_free(&s);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xstrndup((const char *)data, size);
    cJSON *j = cJSON_Parse(text);
    free(text);
    sm_error err;
    sm_error_clear(&err);
    char *first = round_trip(j, &err);
    cJSON_Delete(j);
    if (first) {
        cJSON *again = cJSON_Parse(first);
        char *second = round_trip(again, &err);
        cJSON_Delete(again);
        if (!second || strcmp(first, second))
            abort(); /* what we write must read back as itself */
        free(second);
        free(first);
    }
    return 0;
}
