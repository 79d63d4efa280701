/* synth/hollow.c: a removed rule's graph traded for the text rg_text_print_rule gives it, packed
 * (ir/textpack.h: the dictionary trained on the first RG_HOLLOW_TRAIN texts made hollow), and
 * parsed back from that text when it is needed whole again. Calls are from one thread at a
 * time: the pack's contexts are shared. */
#include "hollow.h"

#include <stdlib.h>
#include <string.h>

rg_status rg_hollow_init(rg_hollow *h, int n, rg_err *err) {
  h->n = n;
  h->text = calloc((size_t)n + 1, sizeof *h->text);
  h->line = calloc((size_t)n + 1, sizeof *h->line);
  h->pack = rg_textpack_new(RG_HOLLOW_TRAIN);
  if (h->text && h->line && h->pack) return RG_OK;
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

void rg_hollow_free(rg_hollow *h) {
  for (int i = 0; h->text && i < h->n; i++)
    free(h->text[i]);
  free(h->text);
  free(h->line);
  rg_textpack_free(h->pack);
  memset(h, 0, sizeof *h);
}

rg_status rg_hollow_rule(rg_hollow *h, rg_ruleset *rs, int i, rg_err *err) {
  rg_rule *r = rs->rules[i];
  if (!r) return RG_OK;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  char *b = sb.failed ? NULL : rg_textpack_pack(h->pack, sb.s, sb.len);
  rg_sb_free(&sb);
  if (!b) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  h->text[i] = b;
  h->line[i] = r->line;
  rg_rule_free(r);
  rs->rules[i] = NULL;
  return RG_OK;
}

rg_status rg_hollow_restore(rg_hollow *h, rg_ruleset *rs, int i, rg_err *err) {
  if (rs->rules[i]) return RG_OK;
  rg_strbuf t;
  rg_sb_init(&t);
  rg_textpack_unpack(h->pack, h->text[i], &t);
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
    rg_textpack_unpack(h->pack, h->text[i], sb);
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
    rg_textpack_unpack(h->pack, h->text[i], &sb), rg_db_digest(sb.s ? sb.s : "", sb.len, id);
  bool failed = sb.failed;
  rg_sb_free(&sb);
  return failed ? rg_err_set(err, RG_ERR_NOMEM,
                             "out of memory, or a removed rule's packed text does not unpack")
                : RG_OK;
}
