/* tests/test_ir_sha256.c: ir/sha256.h gives SHA-256's digests: FIPS 180-2's vectors (also in
 * hex, at once and streamed), and libsodium's digest (what rulegen used before: every proof
 * cache, checkpoint and sealed file was keyed by it) of texts of every length up to a few blocks
 * and of 3 MiB, at once and fed in pieces of every size. */
#include "check.h"

#include <sodium.h>

#include "ir/sha256.h"

static void hex(const unsigned char h[RG_SHA256_BYTES], char out[2 * RG_SHA256_BYTES + 1]) {
  sodium_bin2hex(out, 2 * RG_SHA256_BYTES + 1, h, RG_SHA256_BYTES);
}

static void test_vectors(void) {
  static const struct {
    const char *text, *digest;
  } v[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
    unsigned char h[RG_SHA256_BYTES];
    char got[2 * RG_SHA256_BYTES + 1];
    rg_sha256(h, v[k].text, strlen(v[k].text));
    hex(h, got);
    CHECK_MSG(!strcmp(got, v[k].digest), "sha256(\"%s\") = %s", v[k].text, got);
    char direct[RG_SHA256_HEX + 1], streamed[RG_SHA256_HEX + 1];
    rg_sha256_hex(v[k].text, strlen(v[k].text), direct);
    rg_sha256_state s;
    rg_sha256_init(&s);
    rg_sha256_update(&s, v[k].text, strlen(v[k].text));
    rg_sha256_final_hex(&s, streamed);
    CHECK(!strcmp(direct, v[k].digest) && !strcmp(streamed, v[k].digest));
  }
}

/* Against libsodium: every length up to 300 bytes (the block and padding edges), and 3 MiB at
 * once and streamed in pieces of 1 to 997 bytes. */
static void test_against_libsodium(void) {
  enum { BIG = 3 << 20 };
  unsigned char *data = malloc(BIG), want[RG_SHA256_BYTES], got[RG_SHA256_BYTES];
  CHECK(data != NULL);
  if (!data) return;
  randombytes_buf_deterministic(data, BIG, (const unsigned char[randombytes_SEEDBYTES]){7});
  for (size_t len = 0; len <= 300; len++) {
    crypto_hash_sha256(want, data, len);
    rg_sha256(got, data, len);
    CHECK_MSG(!memcmp(got, want, sizeof want), "%zu bytes at once", len);
    rg_sha256_state s;
    rg_sha256_init(&s);
    for (size_t at = 0; at < len; at += 7)
      rg_sha256_update(&s, data + at, len - at < 7 ? len - at : 7);
    rg_sha256_final(&s, got);
    CHECK_MSG(!memcmp(got, want, sizeof want), "%zu bytes in pieces of 7", len);
  }
  crypto_hash_sha256(want, data, BIG);
  rg_sha256(got, data, BIG);
  CHECK(!memcmp(got, want, sizeof want));
  rg_sha256_state s;
  rg_sha256_init(&s);
  for (size_t at = 0, piece = 1; at < BIG; at += piece, piece = piece % 997 + 1)
    rg_sha256_update(&s, data + at, BIG - at < piece ? BIG - at : piece);
  rg_sha256_final(&s, got);
  CHECK(!memcmp(got, want, sizeof want));
  free(data);
}

int main(void) {
  if (sodium_init() < 0) return 1;
  test_vectors();
  test_against_libsodium();
  return check_done("test_ir_sha256");
}
