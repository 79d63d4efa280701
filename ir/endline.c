/* ir/endline.c: the end line that seals a file (endline.h). */
#include "endline.h"
#include "sha256.h"

#include <sodium.h>
#include <string.h>

const char *rg_end_line(const char *s, size_t n, bool *sealed) {
  *sealed = false;
  if (n < RG_END_LINE_LEN || s[n - 1] != '\n') return NULL;
  const char *last = s + n - RG_END_LINE_LEN;
  if ((last > s && last[-1] != '\n') || strncmp(last, "end ", 4)) return NULL;
  unsigned char h[RG_SHA256_BYTES];
  char hex[2 * RG_SHA256_BYTES + 1];
  rg_sha256(h, (const unsigned char *)s, (unsigned long long)(last - s));
  sodium_bin2hex(hex, sizeof hex, h, sizeof h);
  *sealed = !strncmp(last + 4, hex, 2 * RG_SHA256_BYTES);
  return last;
}
