/* ir/endline.c: the end line that seals a file (endline.h). */
#include "endline.h"
#include "sha256.h"

#include <string.h>

const char *rg_end_line(const char *s, size_t n, bool *sealed) {
  *sealed = false;
  if (n < RG_END_LINE_LEN || s[n - 1] != '\n') return NULL;
  const char *last = s + n - RG_END_LINE_LEN;
  if ((last > s && last[-1] != '\n') || strncmp(last, "end ", 4)) return NULL;
  char hex[RG_SHA256_HEX + 1];
  rg_sha256_hex(s, (size_t)(last - s), hex);
  *sealed = !strncmp(last + 4, hex, RG_SHA256_HEX);
  return last;
}
