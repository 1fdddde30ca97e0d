/* Runs a libFuzzer target without libFuzzer, so every build exercises it under ctest: each
 * file given on the command line, then a fixed number of pseudo-random inputs (a fixed seed,
 * so a failure reproduces) mixed from escape-sequence and YAML fragments. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fragments[] = {
    "\033[",
    "\033]",
    "\033P",
    "\033[?1049h",
    "\033[?1049l",
    "\033[2J",
    "\033[H",
    "\033[38;5;",
    "\033[48;2;1;2;3m",
    "\033[1;4;7m",
    "\033[0m",
    "\033[10;20r",
    "\033[L",
    "\033[M",
    "\033[K",
    "\r\n",
    "\t",
    "\b",
    "\xe5\xae\xbd",
    "\xf0\x9f\x98\x80",
    "\xcc\x81",
    "\xff",
    "\x80",
    ":",
    "- ",
    "  ",
    "\n",
    "${oc.env:",
    "}",
    ",",
    "local:",
    "docker:",
    "default_metadata:",
    "{",
    "[",
    "]",
    "\"",
    "'",
    "&a",
    "*a",
    "<<:",
    "null",
    "true",
    "0x1f",
    "sandman:",
};

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f)
            continue;
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
    }
    unsigned seed = 12345;
    uint8_t input[4096];
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = 0;
        size_t want = (size_t)(rand_r(&seed) % (int)sizeof input);
        while (n < want) {
            if (rand_r(&seed) % 3 == 0) {
                input[n++] = (uint8_t)rand_r(&seed);
            } else {
                const char *frag =
                    fragments[rand_r(&seed) % (int)(sizeof fragments / sizeof *fragments)];
                size_t l = strlen(frag);
                if (n + l > sizeof input)
                    break;
                memcpy(input + n, frag, l);
                n += l;
            }
        }
        LLVMFuzzerTestOneInput(input, n);
    }
    printf("fuzz driver: 3000 generated inputs and %d files ran clean\n", argc - 1);
    return 0;
}
