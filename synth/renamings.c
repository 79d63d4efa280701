/* synth/renamings.c: a slice's content ids computed in parallel, then each looked up, in input
 * order, among the rules before it: the first with an id stays whole, as pruning keeps it. */
#include "renamings.h"

#include <stdlib.h>
#include <string.h>

void rg_renamings_init(rg_renamings *r, rg_hollow *hollow, int threads) {
  memset(r, 0, sizeof *r);
  r->hollow = hollow;
  r->threads = threads > 0 ? threads : 1;
}

/* The table's equality: the tag first, then the whole id of the first rule, computed again
 * (it is whole): a renaming is decided on the exact id, as pruning decides it. */
static bool same_id(const void *owner, const void *key, int32_t val) {
  const rg_renamings *r = owner;
  const rg_content_id *id = key;
  uint64_t tag;
  memcpy(&tag, id->b + 8, sizeof tag);
  if (r->tag[val] != tag) return false;
  rg_content_id first;
  rg_err err;
  return rg_canon_id(r->rs->rules[val], NULL, &first, &err) == RG_OK && !memcmp(&first, id, sizeof *id);
}

/* Room for rules [0, n): their tags, their places in facts (-1 until let go of), their text. */
static rg_status grow(rg_renamings *r, int32_t n, rg_err *err) {
  while (r->cap_tag < n)
    if (!rg_grow_to(&r->tag, &r->cap_tag, sizeof *r->tag, 1024)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t had = r->cap; r->cap < n; had = r->cap) {
    if (!rg_grow_to(&r->at, &r->cap, sizeof *r->at, 1024)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    for (int32_t i = had; i < r->cap; i++) r->at[i] = -1;
  }
  return rg_hollow_grow(r->hollow, n, err);
}

/* Rule i, a renaming of an earlier rule, made hollow with its facts kept. */
static rg_status let_go(rg_renamings *r, rg_ruleset *rs, int i, const rg_prune_facts *f, rg_err *err) {
  if (!rg_grow(&r->facts, &r->cap_facts, r->n_facts, sizeof *r->facts, 1024))
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = rg_hollow_rule(r->hollow, rs, i, err);
  if (!st) r->facts[r->at[i] = r->n_facts++] = *f;
  return st;
}

/* Each rule of the slice against the first rules before it, in input order. */
static rg_status sort_out(rg_renamings *r, rg_ruleset *rs, int first, const rg_prune_facts *f, const bool *ok,
                          rg_err *err) {
  rg_status st = RG_OK;
  for (int i = first; !st && i < rs->n; i++) {
    if (!ok[i - first]) continue; /* pruning reports its error, with the rule's line */
    const rg_content_id *id = &f[i - first].id;
    uint64_t h = rg_hash_bytes(id->b, 8);
    size_t pos = rg_hashtab_probe(&r->first, h, same_id, r, id);
    if (rg_hashtab_at(&r->first, pos) >= 0) {
      if (rs->rules[i]->n_tgt) st = let_go(r, rs, i, &f[i - first], err); /* a bare graph: pruning refuses it */
    } else {
      memcpy(&r->tag[i], id->b + 8, sizeof r->tag[i]);
      st = rg_hashtab_set(&r->first, pos, h, i);
    }
  }
  return st;
}

rg_status rg_renamings_parsed(void *ctx, rg_ruleset *rs, int first, rg_err *err) {
  rg_renamings *r = ctx;
  int m = rs->n - first;
  r->rs = rs;
  rg_prune_facts *f = malloc(sizeof *f * ((size_t)m + 1));
  bool *ok = malloc((size_t)m + 1);
  rg_status st = f && ok ? grow(r, rs->n, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
#pragma omp parallel for num_threads(r->threads) schedule(dynamic, 256)
    for (int k = 0; k < m; k++) {
      rg_err e;
      ok[k] = rg_prune_facts_of(rs->rules[first + k], &f[k], &e) == RG_OK;
    }
    st = sort_out(r, rs, first, f, ok, err);
  }
  free(f);
  free(ok);
  return st;
}

void rg_renamings_parse_done(rg_renamings *r) {
  rg_hashtab_free(&r->first);
  free(r->tag);
  r->tag = NULL;
}

const rg_prune_facts *rg_renamings_facts(void *ctx, int i) {
  const rg_renamings *r = ctx;
  return i >= 0 && i < r->cap && r->at[i] >= 0 ? &r->facts[r->at[i]] : NULL;
}

void rg_renamings_free(rg_renamings *r) {
  rg_renamings_parse_done(r);
  free(r->at);
  free(r->facts);
  memset(r, 0, sizeof *r);
}
