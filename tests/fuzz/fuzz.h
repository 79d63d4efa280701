/* tests/fuzz/fuzz.h: what the libFuzzer harnesses share. Each harness defines
 * LLVMFuzzerTestOneInput over one parser; built with -fsanitize=fuzzer (scripts/fuzz.sh) it is a
 * fuzzer, built with replay_main.c (every test build) it replays the files it is given, so
 * that inputs that once crashed (tests/fuzz/regress/) stay tested by ctest. A harness aborts
 * through FUZZ_FAIL when a property the parser promises does not hold. */
#ifndef RG_TESTS_FUZZ_H
#define RG_TESTS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

#define FUZZ_FAIL(...) (fprintf(stderr, "fuzz: " __VA_ARGS__), fputc('\n', stderr), abort())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every rule of rs prints to text that parses (what an import hands on must be our rule text). */
void fuzz_check_reparse(const rg_ruleset *rs);

/* Writes data to a fresh file under /tmp named after tag (for parsers that read files); returns
 * its path (static storage), or NULL. */
const char *fuzz_write_temp(const char *tag, const uint8_t *data, size_t size);

#endif
