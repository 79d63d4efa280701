/* synth/hollow.c: a removed rule's graph traded for the text rg_text_print_rule gives it, packed
 * (below), and parsed back from that text when it is needed whole again.
 *
 * A packed text is 'T' and the text with its NUL, or 'Z', the frame's size (2 bytes) and a zstd
 * frame made with the dictionary. The dictionary is trained on the first RG_HOLLOW_TRAIN texts
 * made hollow (kept as they are until then, and compressed once it exists), so a run packs the
 * same way each time. Where training is refused (too few or too alike texts) every text stays as
 * it is. Calls are from one thread at a time: the contexts are the pack's. */
#include "hollow.h"

#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

enum { DICT_MAX = 64 << 10, LEVEL = 3, FRAME_MAX = 65535 };

struct rg_hollow_pack {
  int waiting;    /* texts made hollow before the dictionary: first[0..waiting) */
  int *first;     /* [RG_HOLLOW_TRAIN]; NULL once trained, or refused (cd NULL) */
  ZSTD_CDict *cd; /* NULL: texts stay as they are */
  ZSTD_DDict *dd;
  ZSTD_CCtx *cc;
  ZSTD_DCtx *dc;
};

rg_status rg_hollow_init(rg_hollow *h, int n, rg_err *err) {
  h->n = n;
  h->text = calloc((size_t)n + 1, sizeof *h->text);
  h->line = calloc((size_t)n + 1, sizeof *h->line);
  h->pack = calloc(1, sizeof *h->pack);
  if (h->pack) h->pack->first = malloc(sizeof *h->pack->first * RG_HOLLOW_TRAIN);
  if (h->text && h->line && h->pack && h->pack->first) return RG_OK;
  rg_hollow_free(h);
  return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

rg_status rg_hollow_grow(rg_hollow *h, int n, rg_err *err) {
  if (n <= h->n) return RG_OK;
  char **text = realloc(h->text, sizeof *text * ((size_t)n + 1));
  if (text) h->text = text;
  int *line = text ? realloc(h->line, sizeof *line * ((size_t)n + 1)) : NULL;
  if (line) h->line = line;
  if (!line) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memset(h->text + h->n, 0, sizeof *text * (size_t)(n + 1 - h->n));
  memset(h->line + h->n, 0, sizeof *line * (size_t)(n + 1 - h->n));
  h->n = n;
  return RG_OK;
}

static void pack_free(rg_hollow_pack *p) {
  if (!p) return;
  ZSTD_freeCDict(p->cd), ZSTD_freeDDict(p->dd), ZSTD_freeCCtx(p->cc), ZSTD_freeDCtx(p->dc);
  free(p->first);
  free(p);
}

void rg_hollow_free(rg_hollow *h) {
  for (int i = 0; h->text && i < h->n; i++)
    free(h->text[i]);
  free(h->text);
  free(h->line);
  pack_free(h->pack);
  memset(h, 0, sizeof *h);
}

/* Text t (len bytes) packed into a new block: compressed where there is a dictionary and that is
 * smaller, else as it is. NULL: out of memory. */
static char *pack(const rg_hollow_pack *p, const char *t, size_t len) {
  char frame[FRAME_MAX];
  size_t z = p && p->cd ? ZSTD_compress_usingCDict(p->cc, frame, sizeof frame, t, len, p->cd) : 0;
  bool packed = z && !ZSTD_isError(z) && z + 3 < len + 2;
  char *b = malloc(packed ? z + 3 : len + 2);
  if (!b) return NULL;
  if (!packed) return b[0] = 'T', memcpy(b + 1, t, len + 1), b;
  b[0] = 'Z', b[1] = (char)(z >> 8), b[2] = (char)(z & 0xff);
  memcpy(b + 3, frame, z);
  return b;
}

/* Packed text b appended to sb (sb->failed where it does not unpack). */
static void unpack(const rg_hollow_pack *p, const char *b, rg_strbuf *sb) {
  if (b[0] == 'T') return rg_sb_puts(sb, b + 1);
  size_t z = (size_t)(unsigned char)b[1] << 8 | (unsigned char)b[2];
  unsigned long long len = p && p->dd ? ZSTD_getFrameContentSize(b + 3, z) : ZSTD_CONTENTSIZE_ERROR;
  char small[16384], *room = len < sizeof small ? small
                             : len < (1u << 30) ? malloc((size_t)len)
                                                : NULL;
  size_t got = room ? ZSTD_decompress_usingDDict(p->dc, room, (size_t)len, b + 3, z, p->dd) : 0;
  if (!room || ZSTD_isError(got) || got != len)
    sb->failed = true;
  else
    rg_sb_append(sb, room, got);
  if (room != small) free(room);
}

/* The dictionary trained on the texts [0, n) (their bytes one after another in all); false
 * where training refuses them or memory runs out (the texts then stay as they are). */
static bool make_dict(rg_hollow_pack *p, const char *all, const size_t *sizes, int n) {
  char *dict = malloc(DICT_MAX);
  size_t d = dict ? ZDICT_trainFromBuffer(dict, DICT_MAX, all, sizes, (unsigned)n) : 0;
  if (dict && !ZDICT_isError(d)) {
    p->cd = ZSTD_createCDict(dict, d, LEVEL), p->dd = ZSTD_createDDict(dict, d);
    p->cc = ZSTD_createCCtx(), p->dc = ZSTD_createDCtx();
  }
  free(dict);
  if (p->cd && p->dd && p->cc && p->dc) /* 4 bytes a text saved: there is one dictionary */
    return !ZSTD_isError(ZSTD_CCtx_setParameter(p->cc, ZSTD_c_dictIDFlag, 0));
  ZSTD_freeCDict(p->cd), ZSTD_freeDDict(p->dd), p->cd = NULL, p->dd = NULL;
  return false;
}

/* The dictionary from the texts waiting (those still hollow), which are then packed with it. */
static void train(rg_hollow *h) {
  rg_hollow_pack *p = h->pack;
  rg_strbuf all;
  rg_sb_init(&all);
  size_t *sizes = malloc(sizeof *sizes * (size_t)p->waiting);
  int n = 0;
  for (int k = 0; sizes && k < p->waiting; k++) {
    const char *t = h->text[p->first[k]];
    if (t) sizes[n++] = strlen(t + 1), rg_sb_puts(&all, t + 1);
  }
  bool made = sizes && !all.failed && make_dict(p, all.s, sizes, n);
  free(sizes), rg_sb_free(&all);
  for (int k = 0; made && k < p->waiting; k++) {
    char **t = &h->text[p->first[k]], *b = *t ? pack(p, *t + 1, strlen(*t + 1)) : NULL;
    if (b) free(*t), *t = b; /* out of memory: that one stays as it is */
  }
  free(p->first);
  p->first = NULL;
}

rg_status rg_hollow_rule(rg_hollow *h, rg_ruleset *rs, int i, rg_err *err) {
  rg_rule *r = rs->rules[i];
  if (!r) return RG_OK;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  rg_hollow_pack *p = h->pack;
  bool waits = p && p->first; /* no dictionary yet: kept as it is, to train it */
  char *b = sb.failed ? NULL : pack(waits ? NULL : p, sb.s, sb.len);
  rg_sb_free(&sb);
  if (!b) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  h->text[i] = b;
  h->line[i] = r->line;
  rg_rule_free(r);
  rs->rules[i] = NULL;
  if (waits) p->first[p->waiting++] = i;
  if (waits && p->waiting == RG_HOLLOW_TRAIN) train(h);
  return RG_OK;
}

rg_status rg_hollow_restore(rg_hollow *h, rg_ruleset *rs, int i, rg_err *err) {
  if (rs->rules[i]) return RG_OK;
  rg_strbuf t;
  rg_sb_init(&t);
  unpack(h->pack, h->text[i], &t);
  rg_ruleset one;
  rg_ruleset_init(&one);
  rg_status st = t.failed
                     ? rg_err_set(err, RG_ERR_NOMEM, "a removed rule's packed text does not unpack")
                     : rg_text_parse(t.s, t.len, &one, err);
  rg_sb_free(&t);
  if (!st && one.n != 1)
    st = rg_err_set(err, RG_ERR_ARG, "internal error: a removed rule's text is %d rules", one.n);
  if (!st) {
    rs->rules[i] = one.rules[0];
    rs->rules[i]->line = h->line[i];
    one.n = 0;
    free(h->text[i]);
    h->text[i] = NULL;
  }
  rg_ruleset_free(&one);
  return st;
}

void rg_hollow_print(const rg_hollow *h, const rg_ruleset *rs, int i, rg_strbuf *sb) {
  if (rs->rules[i])
    rg_text_print_rule(rs->rules[i], sb);
  else
    unpack(h->pack, h->text[i], sb);
}

void rg_hollow_text(const void *ctx, const rg_ruleset *rs, int i, rg_strbuf *sb) {
  rg_hollow_print(ctx, rs, i, sb);
}

rg_status rg_hollow_content_id(const rg_hollow *h, const rg_ruleset *rs, int i, rg_db_id *id,
                               rg_err *err) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  if (rs->rules[i])
    rg_rule_content_id(rs->rules[i], &sb, id);
  else
    unpack(h->pack, h->text[i], &sb), rg_db_digest(sb.s ? sb.s : "", sb.len, id);
  bool failed = sb.failed;
  rg_sb_free(&sb);
  return failed ? rg_err_set(err, RG_ERR_NOMEM,
                             "out of memory, or a removed rule's packed text does not unpack")
                : RG_OK;
}
