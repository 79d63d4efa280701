/* prune/canon.c: the canonical-form builder (a memoised copy with renaming and abstraction)
 * and content ids (BLAKE2b through libsodium). */
#include "canon.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const rg_graph *g;
  rg_graph *h;
  const rg_ref *abstract;
  int n_abstract;
  int32_t *memo;     /* node of g -> node of h, -1 if not copied yet */
  int32_t *abs_node; /* abstract[i] -> input node of h, -1 if not seen yet */
  int32_t *tvar_map; /* tvar of g -> tvar of h, -1 if not seen yet */
  int32_t *pvar_map; /* pvar of g -> pvar of h */
} copier;

static int32_t fresh_tvar(copier *c) {
  char name[24];
  int n = snprintf(name, sizeof name, "x%d", rg_graph_n_tvars(c->h));
  return rg_graph_tvar(c->h, name, n);
}

static int32_t map_pvar(copier *c, int32_t v) {
  if (c->pvar_map[v] < 0) {
    char name[24];
    int n = snprintf(name, sizeof name, "a%d", rg_graph_n_pvars(c->h));
    c->pvar_map[v] = rg_graph_pvar(c->h, name, n);
  }
  return c->pvar_map[v];
}

/* Copies ref r; returns the new ref's node (negative status on allocation failure). The walk
 * is depth-first, parameters before inputs, so first visits happen in printing order. */
static int32_t copy_ref(copier *c, rg_ref r) {
  for (int i = 0; i < c->n_abstract; i++) {
    if (c->abstract[i].node != r.node || c->abstract[i].out != r.out) continue;
    if (c->abs_node[i] < 0) {
      int32_t v = fresh_tvar(c);
      c->abs_node[i] = v < 0 ? v : rg_graph_input(c->h, v);
    }
    return c->abs_node[i];
  }
  if (c->memo[r.node] >= 0) return c->memo[r.node];
  const rg_node *nd = rg_graph_node(c->g, r.node);
  int32_t id;
  if (nd->op == RG_OP_INPUT) {
    int32_t t = nd->params[0];
    if (c->tvar_map[t] < 0) c->tvar_map[t] = fresh_tvar(c);
    id = c->tvar_map[t] < 0 ? c->tvar_map[t] : rg_graph_input(c->h, c->tvar_map[t]);
  } else {
    rg_node n = *nd;
    for (int k = 0; k < RG_MAX_PARAMS; k++)
      if (nd->var_mask >> k & 1) {
        int32_t v = map_pvar(c, nd->params[k]);
        if (v < 0) return v;
        n.params[k] = v;
      }
    for (int k = 0; k < nd->n_in; k++) {
      int32_t in = copy_ref(c, nd->in[k]);
      if (in < 0) return in;
      n.in[k] = (rg_ref){in, nd->in[k].out};
    }
    id = rg_graph_add(c->h, &n);
  }
  if (id >= 0) c->memo[r.node] = id;
  return id;
}

rg_status rg_canon_build(const rg_graph *g, const rg_ref *src, int n_src, const rg_ref *tgt,
                         int n_tgt, const rg_ref *abstract, int n_abstract, rg_rule **out,
                         rg_err *err) {
  *out = NULL;
  rg_rule *r = rg_rule_new();
  int32_t n = rg_graph_size(g), nt = rg_graph_n_tvars(g), np = rg_graph_n_pvars(g);
  copier c = {g,
              r ? r->g : NULL,
              abstract,
              n_abstract,
              malloc(sizeof(int32_t) * ((size_t)n + 1)),
              malloc(sizeof(int32_t) * ((size_t)n_abstract + 1)),
              malloc(sizeof(int32_t) * ((size_t)nt + 1)),
              malloc(sizeof(int32_t) * ((size_t)np + 1))};
  rg_status st = RG_OK;
  if (!r || !c.memo || !c.abs_node || !c.tvar_map || !c.pvar_map) st = RG_ERR_NOMEM;
  if (!st) {
    memset(c.memo, -1, sizeof(int32_t) * (size_t)n);
    memset(c.abs_node, -1, sizeof(int32_t) * (size_t)n_abstract);
    memset(c.tvar_map, -1, sizeof(int32_t) * (size_t)nt);
    memset(c.pvar_map, -1, sizeof(int32_t) * (size_t)np);
    r->n_src = n_src;
    r->n_tgt = n_tgt;
    for (int i = 0; !st && i < n_src + n_tgt; i++) {
      rg_ref ref = i < n_src ? src[i] : tgt[i - n_src];
      int32_t id = copy_ref(&c, ref);
      if (id < 0)
        st = RG_ERR_NOMEM;
      else if (i < n_src)
        r->src[i] = (rg_ref){id, ref.out};
      else
        r->tgt[i - n_src] = (rg_ref){id, ref.out};
    }
  }
  free(c.memo);
  free(c.abs_node);
  free(c.tvar_map);
  free(c.pvar_map);
  if (st) {
    rg_rule_free(r);
    return rg_err_set(err, st, "out of memory building a canonical rule");
  }
  *out = r;
  return RG_OK;
}

rg_status rg_canon_build_id(const rg_graph *g, const rg_ref *src, int n_src, const rg_ref *tgt,
                            int n_tgt, const rg_ref *abstract, int n_abstract, rg_content_id *id,
                            rg_err *err) {
  rg_rule *c;
  rg_status st = rg_canon_build(g, src, n_src, tgt, n_tgt, abstract, n_abstract, &c, err);
  if (st) return st;
  st = rg_content_id_of_rule(c, NULL, id, err);
  rg_rule_free(c);
  return st;
}

rg_status rg_canon_rule(const rg_rule *r, rg_rule **out, rg_err *err) {
  return rg_canon_build(r->g, r->src, r->n_src, r->tgt, r->n_tgt, NULL, 0, out, err);
}

rg_status rg_content_id_of_rule(const rg_rule *r, rg_strbuf *text, rg_content_id *id,
                                rg_err *err) {
  rg_strbuf own;
  rg_sb_init(&own);
  rg_strbuf *sb = text ? text : &own;
  size_t start = sb->len; /* the hash covers only what is printed here */
  rg_text_print_rule(r, sb);
  rg_status st = RG_OK;
  if (sb->failed)
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory printing a rule");
  else if (sodium_init() < 0)
    st = rg_err_set(err, RG_ERR_NOMEM, "libsodium failed to initialise");
  else
    crypto_generichash(id->b, sizeof id->b, (const unsigned char *)rg_sb_str(sb) + start,
                       sb->len - start, NULL, 0);
  rg_sb_free(&own);
  return st;
}

rg_status rg_canon_id(const rg_rule *r, rg_strbuf *text, rg_content_id *id, rg_err *err) {
  rg_rule *c;
  rg_status st = rg_canon_rule(r, &c, err);
  if (st) return st;
  st = rg_content_id_of_rule(c, text, id, err);
  rg_rule_free(c);
  return st;
}

void rg_content_id_hex(const rg_content_id *id, char hex[RG_CONTENT_ID_HEX]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < RG_CONTENT_ID_BYTES; i++) {
    hex[2 * i] = digits[id->b[i] >> 4];
    hex[2 * i + 1] = digits[id->b[i] & 15];
  }
  hex[2 * RG_CONTENT_ID_BYTES] = 0;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool rg_content_id_parse(const char *s, size_t len, rg_content_id *id) {
  if (len != 2 * RG_CONTENT_ID_BYTES) return false;
  for (int i = 0; i < RG_CONTENT_ID_BYTES; i++) {
    int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    id->b[i] = (uint8_t)(hi << 4 | lo);
  }
  return true;
}

int rg_content_id_cmp(const rg_content_id *a, const rg_content_id *b) {
  return memcmp(a->b, b->b, sizeof a->b);
}
