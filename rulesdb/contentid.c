/* rulesdb/contentid.c: content ids (prune/canon.h defines them) in hex, digests, and rule
 * records. */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include "contentid.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "prune/prune.h"

void rg_db_digest(const void *data, size_t len, rg_db_id *out) {
  unsigned char h[32];
  crypto_generichash(h, sizeof h, data, len, NULL, 0);
  sodium_bin2hex(out->hex, sizeof out->hex, h, sizeof h);
}

void rg_rule_content_id(const rg_rule *r, rg_strbuf *sb, rg_db_id *out) {
  rg_content_id id;
  if (rg_content_id_of_rule(r, sb, &id, NULL) == RG_OK)
    rg_content_id_hex(&id, out->hex);
  else /* the caller sees sb->failed; the id is that of no text */
    rg_db_digest("", 0, out);
}

/* Counts operator nodes reachable from refs, and marks which ops occur. */
static int32_t side_size(const rg_graph *g, const rg_ref *refs, int n, uint8_t *mark,
                         uint8_t *seen_ops) {
  int32_t size = rg_graph_size(g), count = 0;
  memset(mark, 0, (size_t)size);
  rg_graph_mark_reachable(g, refs, n, mark);
  for (int32_t i = 0; i < size; i++) {
    if (!mark[i]) continue;
    const rg_node *nd = rg_graph_node(g, i);
    if (nd->op == RG_OP_INPUT) continue;
    count++;
    seen_ops[nd->op] = 1;
  }
  return count;
}

rg_status rg_db_rule_make(const rg_rule *r, rg_db_status status, rg_db_rule *out, rg_err *err) {
  memset(out, 0, sizeof *out);
  out->status = status;
  out->n_outputs = r->n_src;
  uint8_t *mark = malloc((size_t)rg_graph_size(r->g) + 1);
  uint8_t seen[RG_OP_COUNT] = {0};
  if (!mark) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  out->src_size = side_size(r->g, r->src, r->n_src, mark, seen);
  out->tgt_size = side_size(r->g, r->tgt, r->n_tgt, mark, seen);
  free(mark);

  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_rule_content_id(r, &sb, &out->id);
  out->text = sb.failed ? NULL : strdup(rg_sb_str(&sb));
  /* Names in op-table order would not be sorted by name; sort them so the field is canonical. */
  const char *names[RG_OP_COUNT];
  int nn = 0;
  for (int op = 0; op < RG_OP_COUNT; op++)
    if (seen[op]) names[nn++] = rg_op_get((rg_op)op)->name;
  for (int i = 1; i < nn; i++)
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *t = names[j];
      names[j] = names[j - 1], names[j - 1] = t;
    }
  rg_sb_clear(&sb);
  for (int i = 0; i < nn; i++)
    rg_sb_printf(&sb, "%s%s", i ? " " : "", names[i]);
  out->ops = sb.failed ? NULL : strdup(rg_sb_str(&sb));
  rg_sb_free(&sb);
  if (!out->text || !out->ops) {
    rg_db_rule_clear(out);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

void rg_db_rule_clear(rg_db_rule *r) {
  free(r->text), free(r->ops);
  r->text = r->ops = NULL;
}

int rg_db_id_parse(const char *s, rg_db_id *out) {
  if (strlen(s) != RG_DB_ID_LEN) return 0;
  for (int i = 0; i < RG_DB_ID_LEN; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
  memcpy(out->hex, s, RG_DB_ID_LEN + 1);
  return 1;
}
