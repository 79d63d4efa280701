/* ir/sha256.c: SHA-256 through libcrypto's SHA256_* functions (sha256.h). They are deprecated in
 * OpenSSL 3 in favour of EVP, which allocates a context per digest; these run the same
 * instructions on a state the caller holds, and cannot fail. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "sha256.h"

#include <openssl/sha.h>
#include <sodium.h>

_Static_assert(sizeof(SHA256_CTX) <= sizeof(((rg_sha256_state *)0)->state), "room for SHA256_CTX");
_Static_assert(RG_SHA256_BYTES == SHA256_DIGEST_LENGTH, "SHA-256's digest");

void rg_sha256(unsigned char out[RG_SHA256_BYTES], const void *data, size_t len) {
  SHA256(data, len, out);
}

void rg_sha256_init(rg_sha256_state *s) { SHA256_Init((SHA256_CTX *)s->state); }

void rg_sha256_update(rg_sha256_state *s, const void *data, size_t len) {
  SHA256_Update((SHA256_CTX *)s->state, data, len);
}

void rg_sha256_final(rg_sha256_state *s, unsigned char out[RG_SHA256_BYTES]) {
  SHA256_Final(out, (SHA256_CTX *)s->state);
}

void rg_sha256_hex(const void *data, size_t len, char hex[RG_SHA256_HEX + 1]) {
  unsigned char h[RG_SHA256_BYTES];
  rg_sha256(h, data, len);
  sodium_bin2hex(hex, RG_SHA256_HEX + 1, h, sizeof h);
}

void rg_sha256_final_hex(rg_sha256_state *s, char hex[RG_SHA256_HEX + 1]) {
  unsigned char h[RG_SHA256_BYTES];
  rg_sha256_final(s, h);
  sodium_bin2hex(hex, RG_SHA256_HEX + 1, h, sizeof h);
}
