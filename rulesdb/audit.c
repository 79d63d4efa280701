/* rulesdb/audit.c: re-checking rule records, random tests, statuses and pruning references. */
#include "audit.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contentid.h"
#include "ir/ir.h"

static const char *cat_names[RG_AUDIT_NCAT] = {
    "rule records",   "random tests",          "statuses",           "pruning references",
    "solver re-runs", "certificate re-checks", "pruning derivations"};

typedef char line[240]; /* one failure message, "" when the item passed */

/* Chooses the rules in scope: all, or `sample` of them ordered by a seeded hash of the id. */
typedef struct {
  uint64_t key;
  size_t pos;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  uint64_t x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
  return x < y ? -1 : x > y;
}

static uint8_t *choose(const rg_db *db, const rg_audit_opts *o) {
  size_t n = db->rules.n;
  uint8_t *in = calloc(n + 1, 1);
  if (!in) return NULL;
  if (!o->sample || o->sample >= n) return memset(in, 1, n), in;
  keyed *k = malloc(sizeof *k * n);
  if (!k) return free(in), NULL;
  for (size_t i = 0; i < n; i++) {
    unsigned char h[8];
    crypto_generichash(h, sizeof h, (const unsigned char *)db->rules.v[i].id.hex, RG_DB_ID_LEN,
                       (const unsigned char *)&o->seed, sizeof o->seed);
    memcpy(&k[i].key, h, sizeof h);
    k[i].pos = i;
  }
  qsort(k, n, sizeof *k, cmp_keyed);
  for (size_t i = 0; i < o->sample; i++)
    in[k[i].pos] = 1;
  free(k);
  return in;
}

static void check_rule(const rg_db_rule *rec, char *msg) {
  rg_rule *r;
  rg_err e;
  if (rg_text_parse_rule(rec->text, &r, &e)) {
    snprintf(msg, sizeof(line), "rule %.16s: text does not parse: %.150s", rec->id.hex, e.msg);
    return;
  }
  rg_db_rule again;
  if (rg_db_rule_make(r, rec->status, &again, &e)) {
    snprintf(msg, sizeof(line), "rule %.16s: %.150s", rec->id.hex, e.msg);
  } else if (strcmp(again.id.hex, rec->id.hex)) {
    snprintf(msg, sizeof(line), "rule %.16s: content id is not the hash of its text (%.16s)",
             rec->id.hex, again.id.hex);
  } else if (strcmp(again.text, rec->text)) {
    snprintf(msg, sizeof(line), "rule %.16s: text is not canonical", rec->id.hex);
  } else if (again.src_size != rec->src_size || again.tgt_size != rec->tgt_size ||
             again.n_outputs != rec->n_outputs || strcmp(again.ops, rec->ops)) {
    snprintf(msg, sizeof(line), "rule %.16s: sizes, outputs or operators disagree with the text",
             rec->id.hex);
  }
  rg_db_rule_clear(&again); /* zeroed when rg_db_rule_make failed */
  rg_rule_free(r);
}

/* Next "NAME=VALUE" token of a space-separated field: 1 with name and value set, 0 at the
 * end, -1 when the token has no '='. */
static int next_pair(const char **p, char name[RG_RULE_MAX_NAME], const char **val, int *vlen) {
  while (**p == ' ')
    (*p)++;
  const char *e = *p, *eq = NULL;
  while (*e && *e != ' ')
    eq = (*e == '=' && !eq) ? e : eq, e++;
  if (e == *p) return 0;
  if (!eq) return -1;
  snprintf(name, RG_RULE_MAX_NAME, "%.*s", (int)(eq - *p), *p);
  *val = eq + 1, *vlen = (int)(e - eq - 1);
  *p = e;
  return 1;
}

/* Binds "x=2x4 y=4x4" / "a=1" to r's variables. Returns a message on failure. */
static const char *bind(const rg_rule *r, const char *shapes, const char *params, rg_shape *sh,
                        const rg_shape **sp, int32_t *pv, uint8_t *pb) {
  char name[RG_RULE_MAX_NAME];
  const char *val;
  int vlen, k;
  rg_err err;
  for (const char *p = shapes; (k = next_pair(&p, name, &val, &vlen));) {
    int32_t v = k < 0 ? -1 : rg_graph_find_tvar(r->g, name);
    if (v < 0 || rg_shape_parse(val, vlen, &sh[v], &err))
      return "shapes field names an unknown variable or a bad shape";
    sp[v] = &sh[v];
  }
  for (const char *p = params; (k = next_pair(&p, name, &val, &vlen));) {
    int32_t v = k < 0 ? -1 : rg_graph_find_pvar(r->g, name);
    if (v < 0) return "params field names an unknown variable or is malformed";
    pv[v] = (int32_t)strtol(val, NULL, 10), pb[v] = 1;
  }
  for (int32_t v = 0; v < rg_graph_n_tvars(r->g); v++)
    if (!sp[v]) return "a tensor variable has no recorded shape";
  return NULL;
}

static const char *verdict_name(rg_cmp_verdict v) {
  return v == RG_CMP_AGREE ? "agree" : v == RG_CMP_TYPE ? "type" : "value";
}

static void check_test(const rg_db_test *t, const rg_db_rule *rec, char *msg) {
  if (!rec) {
    snprintf(msg, sizeof(line), "test of %.16s: no such rule", t->rule_id.hex);
    return;
  }
  rg_domain dom;
  if (!strcmp(t->domain, rg_domain_name(RG_DOM_F64)))
    dom = RG_DOM_F64;
  else if (!strcmp(t->domain, rg_domain_name(RG_DOM_ZP)))
    dom = RG_DOM_ZP;
  else {
    snprintf(msg, sizeof(line), "test of %.16s: unknown domain '%.40s'", t->rule_id.hex, t->domain);
    return;
  }
  rg_rule *r;
  rg_err e;
  if (rg_text_parse_rule(rec->text, &r, &e)) {
    snprintf(msg, sizeof(line), "test of %.16s: rule text does not parse", t->rule_id.hex);
    return;
  }
  int32_t nt = rg_graph_n_tvars(r->g), np = rg_graph_n_pvars(r->g);
  rg_shape *sh = calloc((size_t)nt + 1, sizeof *sh);
  const rg_shape **sp = calloc((size_t)nt + 1, sizeof *sp);
  int32_t *pv = calloc((size_t)np + 1, sizeof *pv);
  uint8_t *pb = calloc((size_t)np + 1, 1);
  const char *bad =
      (!sh || !sp || !pv || !pb) ? "out of memory" : bind(r, t->shapes, t->params, sh, sp, pv, pb);
  if (bad) {
    snprintf(msg, sizeof(line), "test of %.16s: %s", t->rule_id.hex, bad);
  } else if (t->trials < 1 || t->trials > 1000000) {
    snprintf(msg, sizeof(line), "test of %.16s: %d trials", t->rule_id.hex, t->trials);
  } else {
    rg_binding b = {sp, pv, pb};
    rg_eval_ctx ctx;
    rg_eval_ctx_init(&ctx, t->seed);
    rg_cmp_result res;
    if (rg_rule_compare(r, &b, dom, &ctx, t->seed, t->trials, &res, &e))
      snprintf(msg, sizeof(line), "test of %.16s: re-run failed: %.150s", t->rule_id.hex, e.msg);
    else if (strcmp(verdict_name(res.verdict), t->result))
      snprintf(msg, sizeof(line),
               "test of %.16s: re-run gives '%s', record says '%.20s' (%s, %.60s)", t->rule_id.hex,
               verdict_name(res.verdict), t->result, t->domain, t->shapes);
  }
  free(sh), free(sp), free(pv), free(pb);
  rg_rule_free(r);
}

rg_status rg_db_audit(const rg_db *db, const rg_audit_opts *opts, rg_audit_result *res,
                      rg_strbuf *report, rg_err *err) {
  memset(res, 0, sizeof *res);
  for (int c = 0; c < RG_AUDIT_NCAT; c++)
    res->cat[c].name = cat_names[c];
  uint8_t *in = choose(db, opts);
  size_t *idx = rg_db_rule_index(db);
  size_t nr = db->rules.n, nt = db->tests.n;
  line *rmsg = calloc(nr + 1, sizeof *rmsg), *tmsg = calloc(nt + 1, sizeof *tmsg);
  long *trule = malloc(sizeof *trule * (nt + 1));
  uint8_t *z3 = calloc(nr + 1, 1), *cvc5 = calloc(nr + 1, 1), *cert = calloc(nr + 1, 1);
  if (!in || !idx || !rmsg || !tmsg || !trule || !z3 || !cvc5 || !cert) {
    free(in), free(idx), free(rmsg), free(tmsg), free(trule), free(z3), free(cvc5), free(cert);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < nr; i++)
    res->rules_in_scope += in[i];
  for (size_t i = 0; i < nt; i++)
    trule[i] = rg_db_index_find(db, idx, db->tests.v[i].rule_id.hex);

    /* Rules and tests are independent of each other: the expensive part, in parallel. Each item
     * writes only its own message slot. */
#pragma omp parallel for schedule(dynamic, 8)
  for (size_t i = 0; i < nr; i++)
    if (in[i]) check_rule(&db->rules.v[i], rmsg[i]);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < nt; i++)
    if (trule[i] < 0 || in[trule[i]])
      check_test(&db->tests.v[i], trule[i] < 0 ? NULL : &db->rules.v[trule[i]], tmsg[i]);

  size_t max = opts->max_lines ? opts->max_lines : 20;
#define FAIL(c, ...)                                                                               \
  do {                                                                                             \
    if (res->cat[c].failed++ < max) rg_sb_printf(report, __VA_ARGS__);                             \
  } while (0)
  for (size_t i = 0; i < nr; i++) {
    if (!in[i]) continue;
    res->cat[RG_AUDIT_RULES].checked++;
    if (rmsg[i][0]) FAIL(RG_AUDIT_RULES, "FAIL %s\n", rmsg[i]);
  }
  for (size_t i = 0; i < nt; i++) {
    if (trule[i] >= 0 && !in[trule[i]]) continue;
    res->cat[RG_AUDIT_TESTS].checked++;
    if (tmsg[i][0]) FAIL(RG_AUDIT_TESTS, "FAIL %s\n", tmsg[i]);
  }
  for (size_t i = 0; i < db->proofs.n; i++) {
    const rg_db_proof *p = &db->proofs.v[i];
    long r = rg_db_index_find(db, idx, p->rule_id.hex);
    if (r < 0) {
      FAIL(RG_AUDIT_STATUS, "FAIL proof by %s for %.16s: no such rule\n", p->solver,
           p->rule_id.hex);
      continue;
    }
    if (!in[r]) continue;
    res->cat[RG_AUDIT_SOLVER].unchecked++;
    if (!strcmp(p->result, "unsat")) {
      if (!strcmp(p->solver, "z3")) z3[r] = 1;
      if (!strcmp(p->solver, "cvc5")) cvc5[r] = 1;
    }
  }
  for (size_t i = 0; i < db->certs.n; i++) {
    long r = rg_db_index_find(db, idx, db->certs.v[i].rule_id.hex);
    if (r < 0) {
      FAIL(RG_AUDIT_STATUS, "FAIL certificate for %.16s: no such rule\n",
           db->certs.v[i].rule_id.hex);
      continue;
    }
    if (!in[r]) continue;
    res->cat[RG_AUDIT_CERTS].unchecked++;
    cert[r] = 1;
  }
  for (size_t i = 0; i < nr; i++) {
    if (!in[i]) continue;
    const rg_db_rule *r = &db->rules.v[i];
    res->cat[RG_AUDIT_STATUS].checked++;
    if (r->status == RG_DB_VERIFIED && !(z3[i] && cvc5[i]))
      FAIL(RG_AUDIT_STATUS, "FAIL rule %.16s: marked verified without an unsat answer from %s\n",
           r->id.hex,
           !z3[i] && !cvc5[i] ? "z3 and cvc5"
           : !z3[i]           ? "z3"
                              : "cvc5");
    if (r->status == RG_DB_CERTIFIED && !cert[i])
      FAIL(RG_AUDIT_STATUS, "FAIL rule %.16s: marked certified without a certificate\n", r->id.hex);
  }
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (size_t i = 0; i < db->prunes.n; i++) {
    const rg_db_prune *p = &db->prunes.v[i];
    res->cat[RG_AUDIT_PRUNE_REFS].checked++;
    res->cat[RG_AUDIT_DERIVATIONS].unchecked++;
    rg_rule *r;
    rg_err e;
    rg_db_id id;
    if (rg_text_parse_rule(p->removed_text, &r, &e)) {
      FAIL(RG_AUDIT_PRUNE_REFS, "FAIL pruned %.16s: text does not parse: %s\n", p->removed_id.hex,
           e.msg);
      continue;
    }
    rg_sb_clear(&sb);
    rg_rule_content_id(r, &sb, &id);
    rg_rule_free(r);
    if (strcmp(id.hex, p->removed_id.hex)) {
      FAIL(RG_AUDIT_PRUNE_REFS, "FAIL pruned %.16s: id is not the hash of its text\n",
           p->removed_id.hex);
      continue;
    }
    const char *s = p->implied_by;
    int n = 0;
    for (;;) {
      while (*s == ' ')
        s++;
      if (!*s) break;
      char hex[RG_DB_ID_LEN + 1] = {0};
      size_t l = strcspn(s, " ");
      memcpy(hex, s, l < RG_DB_ID_LEN ? l : RG_DB_ID_LEN);
      s += l, n++;
      if (l != RG_DB_ID_LEN || rg_db_index_find(db, idx, hex) < 0) {
        FAIL(RG_AUDIT_PRUNE_REFS,
             "FAIL pruned %.16s: implied by %.16s, which is not in the database\n",
             p->removed_id.hex, hex);
        break;
      }
    }
    if (!n)
      FAIL(RG_AUDIT_PRUNE_REFS, "FAIL pruned %.16s: names no implying rule\n", p->removed_id.hex);
  }
#undef FAIL
  rg_sb_free(&sb);
  for (int c = 0; c < RG_AUDIT_NCAT; c++)
    if (res->cat[c].failed > max)
      rg_sb_printf(report, "  ... %zu more failures of %s\n", res->cat[c].failed - max,
                   cat_names[c]);
  free(in), free(idx), free(rmsg), free(tmsg), free(trule), free(z3), free(cvc5), free(cert);
  return RG_OK;
}

void rg_audit_print(const rg_audit_result *res, rg_strbuf *out) {
  rg_sb_printf(out, "%-24s %10s %8s %16s\n", "check", "checked", "failed", "not re-checked");
  for (int c = 0; c < RG_AUDIT_NCAT; c++)
    rg_sb_printf(out, "%-24s %10zu %8zu %16zu\n", res->cat[c].name, res->cat[c].checked,
                 res->cat[c].failed, res->cat[c].unchecked);
}
