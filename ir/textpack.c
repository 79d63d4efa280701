/* ir/textpack.c: small texts compressed with a dictionary trained on the first (textpack.h). */
#include "textpack.h"

#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

enum { DICT_MAX = 64 << 10, LEVEL = 3 };

struct rg_textpack {
  int train;        /* texts to train on; 0 once trained or refused */
  rg_strbuf sample; /* the first texts, one after another */
  size_t *sizes;    /* [train] */
  int n;            /* texts in sample */
  ZSTD_CDict *cd;   /* NULL: texts stay as they are */
  ZSTD_DDict *dd;
  ZSTD_CCtx *cc;
  ZSTD_DCtx *dc;
};

rg_textpack *rg_textpack_new(int train) {
  rg_textpack *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  rg_sb_init(&p->sample);
  p->train = train > 0 ? train : 0;
  if (p->train && !(p->sizes = malloc(sizeof *p->sizes * (size_t)p->train))) return free(p), NULL;
  return p;
}

static void forget_samples(rg_textpack *p) {
  rg_sb_free(&p->sample);
  free(p->sizes);
  p->sizes = NULL;
  p->train = 0;
}

void rg_textpack_free(rg_textpack *p) {
  if (!p) return;
  forget_samples(p);
  ZSTD_freeCDict(p->cd), ZSTD_freeDDict(p->dd), ZSTD_freeCCtx(p->cc), ZSTD_freeDCtx(p->dc);
  free(p);
}

/* The dictionary from the samples; where training refuses them or memory runs out, none (every
 * text then stays as it is). The samples go either way. */
static void train(rg_textpack *p) {
  char *dict = p->sample.failed ? NULL : malloc(DICT_MAX);
  size_t d =
      dict ? ZDICT_trainFromBuffer(dict, DICT_MAX, p->sample.s, p->sizes, (unsigned)p->n) : 0;
  if (dict && !ZDICT_isError(d)) {
    p->cd = ZSTD_createCDict(dict, d, LEVEL), p->dd = ZSTD_createDDict(dict, d);
    p->cc = ZSTD_createCCtx(), p->dc = ZSTD_createDCtx();
  }
  free(dict);
  forget_samples(p);
  /* 4 bytes a text saved: there is one dictionary. The context keeps the dictionary and
   * the flag (ZSTD_compress2 resets only the session); ZSTD_compress_usingCDict would write the
   * dictionary's ID whatever the context says. */
  if (p->cd && p->dd && p->cc && p->dc &&
      !ZSTD_isError(ZSTD_CCtx_setParameter(p->cc, ZSTD_c_dictIDFlag, 0)) &&
      !ZSTD_isError(ZSTD_CCtx_refCDict(p->cc, p->cd)))
    return;
  ZSTD_freeCDict(p->cd), ZSTD_freeDDict(p->dd), p->cd = NULL, p->dd = NULL;
}

/* A block: kind, n in LEB128, then bytes[0..n). NULL: out of memory. */
static char *block(char kind, const void *bytes, size_t n) {
  unsigned char head[1 + 10];
  size_t h = 0;
  head[h++] = (unsigned char)kind;
  for (size_t v = n;; v >>= 7) {
    head[h++] = (unsigned char)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
    if (!(v >> 7)) break;
  }
  char *b = malloc(h + n);
  if (b) memcpy(b, head, h), memcpy(b + h, bytes, n);
  return b;
}

char *rg_textpack_pack(rg_textpack *p, const void *t, size_t len) {
  if (p->train) {
    p->sizes[p->n++] = len;
    rg_sb_append(&p->sample, t, len);
    char *b = block('T', t, len);
    if (p->n == p->train) train(p);
    return b;
  }
  size_t cap = p->cd ? ZSTD_compressBound(len) : 0;
  char small[4096], *frame = cap <= sizeof small ? small : malloc(cap);
  size_t z = p->cd && frame ? ZSTD_compress2(p->cc, frame, cap, t, len) : 0;
  bool packed = z && !ZSTD_isError(z) && z < len;
  char *b = packed ? block('Z', frame, z) : block('T', t, len);
  if (frame != small) free(frame);
  return b;
}

/* Block b's kind and payload. */
static char payload(const char *b, const char **at, size_t *n) {
  const unsigned char *u = (const unsigned char *)b + 1;
  size_t v = 0;
  for (int shift = 0;; shift += 7, u++) {
    v |= (size_t)(*u & 0x7f) << shift;
    if (!(*u & 0x80)) break;
  }
  *at = (const char *)u + 1, *n = v;
  return b[0];
}

void rg_textpack_unpack(rg_textpack *p, const char *b, rg_strbuf *sb) {
  const char *at;
  size_t z;
  if (payload(b, &at, &z) == 'T') return rg_sb_append(sb, at, z);
  unsigned long long len = p->dd ? ZSTD_getFrameContentSize(at, z) : ZSTD_CONTENTSIZE_ERROR;
  char small[16384], *room = len < sizeof small ? small
                             : len < (1u << 30) ? malloc((size_t)len)
                                                : NULL;
  size_t got = room ? ZSTD_decompress_usingDDict(p->dc, room, (size_t)len, at, z, p->dd) : 0;
  if (!room || ZSTD_isError(got) || got != len)
    sb->failed = true;
  else
    rg_sb_append(sb, room, got);
  if (room != small) free(room);
}

bool rg_textpack_compressed(const char *b) { return b[0] == 'Z'; }
