/* tests/fuzz/fuzz_cert.c: PET certificates (certify/cert.h): what parses is its own canonical
 * text, byte for byte. */
#include "certify/certify.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rg_cert c;
  rg_err err;
  if (rg_cert_parse((const char *)data, size, &c, &err) == RG_OK) {
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_cert_write(&c, &sb);
    if (sb.len != size || memcmp(sb.s, data, size)) FUZZ_FAIL("a certificate accepted that is not canonical");
    rg_sb_free(&sb);
    rg_cert_free(&c);
  }
  return 0;
}
