/* tests/test_ir_textpack.c: a pack (ir/textpack.h) gives back every text byte for byte: those
 * kept as they are while it trains, those compressed after, empty ones, texts with NUL bytes
 * (a derivation's serialized steps hold binary numbers), texts larger than its buffers on the
 * stack; texts like the samples come out compressed and smaller; a pack that never trains, and
 * one whose training is refused, keeps every text as it is; a compressed text's frame carries no
 * dictionary ID (one pack, one dictionary: 4 bytes a text). Run under the sanitizer build too. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"
#include "ir/ir.h"
#include "ir/textpack.h"

enum { TRAIN = 2000, N = 6000 };

/* Text k: rule-like, different numbers each time; every 500th has NULs and every 1000th is
 * 40 KB (past the 16 KB and 4 KB buffers). */
static void text_of(int k, rg_strbuf *sb) {
  rg_sb_clear(sb);
  rg_sb_printf(sb, "(ewmul (ewadd ?a%d ?b%d) ?c%d) => (ewadd (ewmul ?a%d ?c%d) (ewmul ?b%d ?c%d))",
               k % 97, k / 97, k % 13, k % 97, k % 13, k / 97, k % 13);
  if (k % 500 == 7) rg_sb_append(sb, "\0\1\0\377 tag", 9);
  for (int r = 0; k % 1000 == 11 && sb->len < 40000; r++)
    rg_sb_printf(sb, " (relu ?x%d)", r);
}

/* Packs N texts in p; returns how many came out compressed; checks each unpacks to itself. */
static int round_trip(rg_textpack *p) {
  rg_strbuf t, back;
  rg_sb_init(&t), rg_sb_init(&back);
  char **b = calloc(N, sizeof *b);
  CHECK(b != NULL);
  int zipped = 0, same = 0, with_id = 0;
  size_t raw = 0, held = 0;
  for (int k = 0; k < N; k++) {
    text_of(k, &t);
    CHECK(!t.failed && (b[k] = rg_textpack_pack(p, t.s, t.len)) != NULL);
  }
  for (int k = 0; k < N; k++) {
    text_of(k, &t);
    rg_sb_clear(&back);
    rg_textpack_unpack(p, b[k], &back);
    same += !back.failed && back.len == t.len && !memcmp(back.s, t.s, t.len);
    bool z = rg_textpack_compressed(b[k]);
    zipped += z;
    if (z && k % 500 != 7 && k % 1000 != 11) { /* one LEB128 byte of length: b[k] + 2 */
      raw += t.len, held += 3 + (size_t)(unsigned char)b[k][1];
      unsigned char n = (unsigned char)b[k][1];
      with_id += n < 0x80 && ZSTD_getDictID_fromFrame(b[k] + 2, n) != 0;
    }
    free(b[k]);
  }
  CHECK_MSG(same == N, "%d of %d texts unpack differently", N - same, N);
  CHECK_MSG(held * 3 < raw * 2 || !zipped, "compressed %zu bytes of text to %zu", raw, held);
  CHECK_MSG(!with_id, "%d compressed texts carry the dictionary's ID", with_id);
  free(b);
  rg_sb_free(&t), rg_sb_free(&back);
  return zipped;
}

int main(void) {
  rg_textpack *p = rg_textpack_new(TRAIN);
  CHECK(p != NULL);
  int zipped = round_trip(p);
  CHECK_MSG(zipped >= (N - TRAIN) * 9 / 10, "%d of %d texts after training compressed", zipped,
            N - TRAIN);
  rg_textpack_free(p);

  /* Never trained: everything as it is. */
  p = rg_textpack_new(0);
  CHECK(p && round_trip(p) == 0);
  rg_textpack_free(p);

  /* Training refused (a single sample): everything as it is, still unpacking. */
  p = rg_textpack_new(1);
  CHECK(p && round_trip(p) == 0);
  rg_textpack_free(p);

  /* The empty text, before and after training. */
  p = rg_textpack_new(1);
  rg_strbuf back;
  rg_sb_init(&back);
  for (int k = 0; k < 2; k++) {
    char *e = rg_textpack_pack(p, "", 0);
    CHECK(e != NULL);
    rg_sb_clear(&back);
    rg_textpack_unpack(p, e, &back);
    CHECK(!back.failed && back.len == 0);
    free(e);
  }
  rg_sb_free(&back);
  rg_textpack_free(p);
  rg_textpack_free(NULL);
  return check_done("test_ir_textpack");
}
