/* rulesdb/audit.c: re-checking rule records, random tests, statuses and pruning references. */
#include "audit.h"

#include <stdarg.h>

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certify/certify.h"
#include "audit_internal.h"
#include "contentid.h"
#include "ir/ir.h"
#include "prune/prune.h"
#include "verify/verify.h"

static const char *cat_names[RG_AUDIT_NCAT] = {
    "rule records",   "random tests",          "statuses",           "pruning references",
    "solver re-runs", "certificate re-checks", "pruning derivations", "deep rechecks"};

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
    if (v < 0 || rg_shape_parse_seams(val, vlen, &sh[v], &err))
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

/* A binding of a rule's variables from a test record's fields, owning its arrays. */
typedef struct {
  rg_shape *sh;
  const rg_shape **sp;
  int32_t *pv;
  uint8_t *pb;
} recorded;

/* Binds r's variables to the record's shapes and params; a message on failure (rec_free it
 * either way). */
static const char *rec_bind(const rg_rule *r, const char *shapes, const char *params, recorded *b) {
  int32_t nt = rg_graph_n_tvars(r->g), np = rg_graph_n_pvars(r->g);
  b->sh = calloc((size_t)nt + 1, sizeof *b->sh);
  b->sp = calloc((size_t)nt + 1, sizeof *b->sp);
  b->pv = calloc((size_t)np + 1, sizeof *b->pv);
  b->pb = calloc((size_t)np + 1, 1);
  if (!b->sh || !b->sp || !b->pv || !b->pb) return "out of memory";
  return bind(r, shapes, params, b->sh, b->sp, b->pv, b->pb);
}

static void rec_free(recorded *b) { free(b->sh), free(b->sp), free(b->pv), free(b->pb); }

static const char *verdict_name(rg_cmp_verdict v) {
  return v == RG_CMP_AGREE ? "agree" : v == RG_CMP_TYPE ? "type" : "value";
}

/* rec's rule parsed, or NULL with msg "WHAT of ID: rule text does not parse". */
static rg_rule *parse_rule(const rg_db_rule *rec, const char *what, const rg_db_id *id, char *msg) {
  rg_rule *r;
  rg_err e;
  if (!rg_text_parse_rule(rec->text, &r, &e)) return r;
  snprintf(msg, sizeof(line), "%s of %.16s: rule text does not parse", what, id->hex);
  return NULL;
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
  rg_rule *r = parse_rule(rec, "test", &t->rule_id, msg);
  if (!r) return;
  rg_err e;
  recorded rb;
  const char *bad = rec_bind(r, t->shapes, t->params, &rb);
  if (bad) {
    snprintf(msg, sizeof(line), "test of %.16s: %s", t->rule_id.hex, bad);
  } else if (t->trials < 1 || t->trials > 1000000) {
    snprintf(msg, sizeof(line), "test of %.16s: %d trials", t->rule_id.hex, t->trials);
  } else {
    rg_binding b = {rb.sp, rb.pv, rb.pb};
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
  rec_free(&rb);
  rg_rule_free(r);
}

/* A rule's variables' shapes by name, from a binding of its own (a var_shape function). */
typedef struct {
  const rg_rule *r;
  const rg_shape *const *shapes;
} named_shapes;

static const rg_shape *shape_named(const void *ctx, const char *name) {
  const named_shapes *ns = ctx;
  int32_t v = rg_graph_find_tvar(ns->r->g, name);
  return v < 0 ? NULL : ns->shapes[v];
}

/* Whether a rule of this status claims equal sides wherever both type: verified, tested and
 * imported ones do (unproved ones claim nothing, certified ones hold only box by box). */
static bool claims_equal(rg_db_status s) {
  return s == RG_DB_VERIFIED || s == RG_DB_TESTED || s == RG_DB_IMPORTED;
}

/* The deep recheck of one rule, drawn first from the shapes of its test record t (or NULL). */
static void check_deep(const rg_db_rule *rec, const rg_db_test *t, const rg_audit_opts *o, char *msg) {
  rg_rule *r;
  rg_err e;
  if (rg_text_parse_rule(rec->text, &r, &e)) {
    snprintf(msg, sizeof(line), "rule %.16s: text does not parse", rec->id.hex);
    return;
  }
  rg_recheck_opts ro;
  rg_recheck_opts_init(&ro);
  ro.assignments = o->deep;
  ro.kernel = o->kernel;
  recorded rb = {0};
  named_shapes ns = {r, NULL};
  if (t && !rec_bind(r, t->shapes, t->params, &rb)) /* without a record the solver draws alone */
    ns.shapes = rb.sp, ro.var_shape = shape_named, ro.var_shape_ctx = &ns;
  rg_recheck_verdict v;
  if (rg_recheck_rule(r, &ro, &v, &e))
    snprintf(msg, sizeof(line), "rule %.16s: recheck failed: %.150s", rec->id.hex, e.msg);
  else if (v.differs)
    snprintf(msg, sizeof(line), "rule %.16s: its sides differ: %.190s", rec->id.hex, v.why);
  rec_free(&rb);
  rg_rule_free(r);
}

/* The two programs of a rule, as certify/ wants them: each side's outputs joined by " ; ". */
static void side_text(const rg_rule *r, int tgt, rg_strbuf *sb) {
  for (int k = 0; k < r->n_src; k++) {
    if (k) rg_sb_puts(sb, " ; ");
    rg_text_print_ref(r->g, tgt ? r->tgt[k] : r->src[k], sb);
  }
}

/* Re-checks a certificate against the programs of the (signed) rule text, not against the
 * certificate's own copy of them: the auditor trusts only the programs (certify/audit.h). */
static void check_cert(const rg_db_cert *c, const rg_db_rule *rec, char *msg) {
  rg_cert cert;
  rg_err e;
  memset(&cert, 0, sizeof cert);
  if (rg_cert_parse((const char *)c->body, c->len, &cert, &e)) {
    snprintf(msg, sizeof(line), "certificate of %.16s: does not parse: line %d: %.120s",
             c->rule_id.hex, e.line, e.msg);
    rg_cert_free(&cert);
    return;
  }
  rg_rule *r = NULL;
  rg_pet_pair *pp = NULL;
  rg_strbuf o, m;
  rg_sb_init(&o), rg_sb_init(&m);
  if (rg_text_parse_rule(rec->text, &r, &e) || r->n_tgt == 0) {
    snprintf(msg, sizeof(line), "certificate of %.16s: the rule text is not a rule",
             c->rule_id.hex);
  } else {
    side_text(r, 0, &o), side_text(r, 1, &m);
    rg_audit a;
    if (rg_pet_pair_new(rg_sb_str(&o), rg_sb_str(&m), cert.shapes ? cert.shapes : "", &pp, &e))
      snprintf(msg, sizeof(line), "certificate of %.16s: the rule's programs at its shapes: %.120s",
               c->rule_id.hex, e.msg);
    else if (rg_cert_audit(&cert, pp, NULL, &a, &e))
      snprintf(msg, sizeof(line), "certificate of %.16s: re-check stopped: %.120s", c->rule_id.hex,
               e.msg);
    else if (!a.valid)
      snprintf(msg, sizeof(line), "certificate of %.16s: rejected: %.160s", c->rule_id.hex, a.why);
  }
  rg_pet_pair_free(pp);
  rg_rule_free(r);
  rg_sb_free(&o), rg_sb_free(&m);
  rg_cert_free(&cert);
}

/* A record of a solver after the first may hold an answer to the obligation cut down to the
 * first solver's unsat core (verify/prove.h: core_hint): that solver's unsat record of the same
 * rule and output, next to it in the table, gives the core. Replaces *ob with the cut one when
 * its hash is the stored one. */
static void take_core_cut(const rg_db *db, size_t i, rg_obligation *ob) {
  const rg_db_proof *p = &db->proofs.v[i];
  for (int dir = -1; dir <= 1; dir += 2)
    for (size_t k = i + (size_t)dir; k < db->proofs.n && !strcmp(db->proofs.v[k].rule_id.hex, p->rule_id.hex);
         k += (size_t)dir) {
      const rg_db_proof *f = &db->proofs.v[k];
      rg_obligation cut;
      rg_err e;
      if (f->output != p->output || rg_solver_kind_of(f->solver) != 0 ||
          strcmp(f->result, rg_smt_result_name(RG_SMT_UNSAT)) || rg_obligation_within_core(ob, f->unsat_core, &cut, &e))
        continue;
      if (!strcmp(cut.sha256, p->obligation.hex)) {
        rg_obligation_free(ob);
        *ob = cut;
        return;
      }
      rg_obligation_free(&cut);
    }
}

/* Regenerates proof record i's obligation from the rule text, compares its hash with the stored
 * one, and re-runs the solver the record names. A stored unsat must be reproduced; any other
 * stored answer proves nothing, so a different answer to it is not a failure. */
static void check_proof(const rg_db *db, size_t i, const rg_db_rule *rec, const rg_audit_opts *o,
                        const rg_solver *solvers, char *msg) {
  const rg_db_proof *p = &db->proofs.v[i];
  int kind = rg_solver_kind_of(p->solver);
  if (kind < 0) {
    snprintf(msg, sizeof(line), "proof of %.16s: unknown solver '%.20s'", p->rule_id.hex,
             p->solver);
    return;
  }
  rg_rule *r = parse_rule(rec, "proof", &p->rule_id, msg);
  if (!r) return;
  rg_err e;
  rg_obligation ob;
  memset(&ob, 0, sizeof ob);
  bool in_range = p->output >= 0 && p->output < r->n_tgt;
  rg_status enc = in_range ? rg_smt_encode(r, p->output, o->ax, o->all_axioms, &ob, &e) : RG_OK;
  if (in_range && !enc && kind > 0 && strcmp(ob.sha256, p->obligation.hex)) take_core_cut(db, i, &ob);
  if (!in_range) {
    snprintf(msg, sizeof(line), "proof of %.16s: output %d, but the rule has %d", p->rule_id.hex,
             p->output, r->n_tgt);
  } else if (enc) {
    snprintf(msg, sizeof(line), "proof of %.16s: cannot encode: %.150s", p->rule_id.hex, e.msg);
  } else if (strcmp(ob.sha256, p->obligation.hex)) {
    snprintf(msg, sizeof(line),
             "proof of %.16s output %d: the obligation regenerated from the rule text hashes to "
             "%.16s, the record says %.16s (other axioms or encoder?)",
             p->rule_id.hex, p->output, ob.sha256, p->obligation.hex);
  } else if (!strcmp(p->result, rg_smt_result_name(RG_SMT_UNSAT))) {
    rg_solver_answer ans;
    if (rg_solver_prove(&solvers[kind], ob.text, ob.len, o->timeout_ms, &ans, &e))
      snprintf(msg, sizeof(line), "proof of %.16s: %s did not run: %.150s", p->rule_id.hex,
               p->solver, e.msg);
    else if (ans.result != RG_SMT_UNSAT)
      snprintf(msg, sizeof(line), "proof of %.16s output %d: stored unsat, %s %s re-run gives %s",
               p->rule_id.hex, p->output, solvers[kind].name, solvers[kind].version,
               rg_smt_result_name(ans.result));
  }
  rg_obligation_free(&ob);
  rg_rule_free(r);
}

/* What one audit holds while it runs: the rules in scope, each record's rule (by index, -1 when
 * it names none), each item's failure message, which items were re-checked, and per rule the
 * output pairs each solver answered unsat (unsat[solver][rule], bit k) and whether a certificate
 * checked. */
typedef struct {
  uint8_t *in;
  size_t *idx;
  size_t nr, nt, np, nc;
  line *rmsg, *tmsg, *pmsg, *cmsg, *dmsg;
  long *trule, *prule, *crule, *rtest; /* rtest: a test record of each rule, or -1 */
  uint8_t *pdone, *ddone, *cert;
  unsigned *unsat[RG_SOLVER_COUNT];
} audit_run;

static void run_free(audit_run *a) {
  free(a->in), free(a->idx), free(a->rmsg), free(a->tmsg), free(a->pmsg), free(a->cmsg), free(a->dmsg);
  free(a->trule), free(a->prule), free(a->crule), free(a->rtest), free(a->pdone), free(a->ddone);
  free(a->cert);
  for (int k = 0; k < RG_SOLVER_COUNT; k++) free(a->unsat[k]);
}

/* Allocates the run's arrays and links every record to its rule; false when out of memory. */
static bool run_init(audit_run *a, const rg_db *db, const rg_audit_opts *opts) {
  size_t nr = a->nr = db->rules.n, nt = a->nt = db->tests.n, np = a->np = db->proofs.n, nc = a->nc = db->certs.n;
  a->in = choose(db, opts), a->idx = rg_db_rule_index(db);
  a->rmsg = calloc(nr + 1, sizeof *a->rmsg), a->tmsg = calloc(nt + 1, sizeof *a->tmsg);
  a->pmsg = calloc(np + 1, sizeof *a->pmsg), a->cmsg = calloc(nc + 1, sizeof *a->cmsg);
  a->dmsg = calloc(nr + 1, sizeof *a->dmsg);
  a->trule = malloc(sizeof *a->trule * (nt + 1)), a->prule = malloc(sizeof *a->prule * (np + 1));
  a->crule = malloc(sizeof *a->crule * (nc + 1)), a->rtest = malloc(sizeof *a->rtest * (nr + 1));
  a->pdone = calloc(np + 1, 1), a->ddone = calloc(nr + 1, 1), a->cert = calloc(nr + 1, 1);
  bool unsat_ok = true;
  for (int k = 0; k < RG_SOLVER_COUNT; k++) unsat_ok &= (a->unsat[k] = calloc(nr + 1, sizeof *a->unsat[k])) != NULL;
  if (!a->in || !a->idx || !a->rmsg || !a->tmsg || !a->pmsg || !a->cmsg || !a->dmsg || !a->trule || !a->prule ||
      !a->crule || !a->rtest || !a->pdone || !a->ddone || !a->cert || !unsat_ok)
    return false;
  for (size_t i = 0; i < nr; i++) a->rtest[i] = -1;
  for (size_t i = 0; i < nt; i++) {
    a->trule[i] = rg_db_index_find(db, a->idx, db->tests.v[i].rule_id.hex);
    if (a->trule[i] >= 0 && a->rtest[a->trule[i]] < 0) a->rtest[a->trule[i]] = (long)i;
  }
  for (size_t i = 0; i < np; i++) a->prule[i] = rg_db_index_find(db, a->idx, db->proofs.v[i].rule_id.hex);
  for (size_t i = 0; i < nc; i++) a->crule[i] = rg_db_index_find(db, a->idx, db->certs.v[i].rule_id.hex);
  return true;
}

/* One more item of a long check done: the progress line (from one thread at a time). */
static void tick(rg_progress *pg, int64_t *done) {
#pragma omp critical(rg_audit_progress)
  rg_progress_tick(pg, ++*done);
}

/* The deep rechecks of the rules in scope that claim equal sides. */
static void deep_all(audit_run *a, const rg_db *db, const rg_audit_opts *opts) {
  int64_t total = 0, done = 0;
  for (size_t i = 0; i < a->nr; i++) total += a->in[i] && claims_equal(db->rules.v[i].status);
  rg_progress pg;
  rg_progress_start(&pg, "audit: deep recheck", "rules", total, opts->progress);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < a->nr; i++)
    if (a->in[i] && claims_equal(db->rules.v[i].status) && !(opts->stop && *opts->stop)) {
      check_deep(&db->rules.v[i], a->rtest[i] < 0 ? NULL : &db->tests.v[a->rtest[i]], opts, a->dmsg[i]);
      a->ddone[i] = 1;
      tick(&pg, &done);
    }
  rg_progress_finish(&pg);
}

/* The solvers re-run on the proof records of the rules in scope. */
static void proofs_all(audit_run *a, const rg_db *db, const rg_audit_opts *opts, const rg_solver *solvers) {
  int64_t total = 0, done = 0;
  for (size_t i = 0; i < a->np; i++) total += a->prule[i] >= 0 && a->in[a->prule[i]];
  rg_progress pg;
  rg_progress_start(&pg, "audit: solver re-runs", "proofs", total, opts->progress);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < a->np; i++) {
    if (a->prule[i] < 0 || !a->in[a->prule[i]] || (opts->stop && *opts->stop)) continue;
    check_proof(db, i, &db->rules.v[a->prule[i]], opts, solvers, a->pmsg[i]);
    a->pdone[i] = 1;
    tick(&pg, &done);
  }
  rg_progress_finish(&pg);
}

/* The expensive part, in parallel: rules, tests, certificates, deep rechecks and solver re-runs
 * are independent of each other, and each item writes only its own message slot. Solver
 * queries run in child processes (verify/solver.h); threads only wait on them. */
static void run_checks(audit_run *a, const rg_db *db, const rg_audit_opts *opts, const rg_solver *solvers) {
#pragma omp parallel for schedule(dynamic, 8)
  for (size_t i = 0; i < a->nr; i++)
    if (a->in[i]) check_rule(&db->rules.v[i], a->rmsg[i]);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < a->nt; i++)
    if (a->trule[i] < 0 || a->in[a->trule[i]])
      check_test(&db->tests.v[i], a->trule[i] < 0 ? NULL : &db->rules.v[a->trule[i]], a->tmsg[i]);
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < a->nc; i++)
    if (a->crule[i] >= 0 && a->in[a->crule[i]]) check_cert(&db->certs.v[i], &db->rules.v[a->crule[i]], a->cmsg[i]);
  if (opts->deep > 0) deep_all(a, db, opts);
  if (opts->ax) proofs_all(a, db, opts, solvers);
}

/* Counts one item of category c: checked, and failed with its message when msg says so. */
static void count(rg_audit_tally *t, int c, const char *msg) {
  t->res->cat[c].checked++;
  if (msg[0]) rg_audit_fail(t, c, "FAIL %s\n", msg);
}

/* The rules', deep rechecks' and tests' verdicts. */
static void tally_rules(const audit_run *a, const rg_db *db, const rg_audit_opts *opts, rg_audit_tally *t) {
  for (size_t i = 0; i < a->nr; i++)
    if (a->in[i]) count(t, RG_AUDIT_RULES, a->rmsg[i]);
  for (size_t i = 0; opts->deep > 0 && i < a->nr; i++) {
    if (!a->in[i] || !claims_equal(db->rules.v[i].status)) continue;
    if (!a->ddone[i]) t->res->cat[RG_AUDIT_DEEP].unchecked++;
    else count(t, RG_AUDIT_DEEP, a->dmsg[i]);
  }
  for (size_t i = 0; i < a->nt; i++)
    if (a->trule[i] < 0 || a->in[a->trule[i]]) count(t, RG_AUDIT_TESTS, a->tmsg[i]);
}

/* The proofs' and certificates' verdicts, and the evidence each rule's status needs. */
static void tally_evidence(audit_run *a, const rg_db *db, rg_audit_tally *t) {
  for (size_t i = 0; i < a->np; i++) {
    const rg_db_proof *p = &db->proofs.v[i];
    long r = a->prule[i];
    if (r < 0) {
      rg_audit_fail(t, RG_AUDIT_STATUS, "FAIL proof by %s for %.16s: no such rule\n", p->solver, p->rule_id.hex);
      continue;
    }
    if (!a->in[r]) continue;
    if (!a->pdone[i]) t->res->cat[RG_AUDIT_SOLVER].unchecked++;
    else count(t, RG_AUDIT_SOLVER, a->pmsg[i]);
    int kind = rg_solver_kind_of(p->solver);
    if (!strcmp(p->result, "unsat") && p->output >= 0 && p->output < 32 && kind >= 0)
      a->unsat[kind][r] |= 1u << p->output;
  }
  for (size_t i = 0; i < a->nc; i++) {
    long r = a->crule[i];
    if (r < 0) {
      rg_audit_fail(t, RG_AUDIT_STATUS, "FAIL certificate for %.16s: no such rule\n", db->certs.v[i].rule_id.hex);
      continue;
    }
    if (!a->in[r]) continue;
    count(t, RG_AUDIT_CERTS, a->cmsg[i]);
    a->cert[r] = 1;
  }
}

/* The solvers without an unsat answer on every output pair of rule i ("z3 and cvc5"), into buf;
 * false when every solver has them. */
static bool missing_solvers(const audit_run *a, size_t i, unsigned all, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (int k = 0; k < RG_SOLVER_COUNT; k++)
    if (a->unsat[k][i] != all && len < n)
      len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " and " : "", rg_solver_kind_name(k));
  return len > 0;
}

/* Each rule's status against its evidence: verified needs unsat from every solver on every
 * output pair, certified a certificate. */
static void tally_statuses(const audit_run *a, const rg_db *db, rg_audit_tally *t) {
  for (size_t i = 0; i < a->nr; i++) {
    if (!a->in[i]) continue;
    const rg_db_rule *r = &db->rules.v[i];
    t->res->cat[RG_AUDIT_STATUS].checked++;
    unsigned all = r->n_outputs >= 1 && r->n_outputs < 32 ? (1u << r->n_outputs) - 1 : 1;
    char missing[128];
    if (r->status == RG_DB_VERIFIED && missing_solvers(a, i, all, missing, sizeof missing))
      rg_audit_fail(t, RG_AUDIT_STATUS,
                    "FAIL rule %.16s: marked verified without an unsat answer from %s on every output pair\n",
                    r->id.hex, missing);
    if (r->status == RG_DB_CERTIFIED && !a->cert[i])
      rg_audit_fail(t, RG_AUDIT_STATUS, "FAIL rule %.16s: marked certified without a certificate\n", r->id.hex);
  }
}

void rg_audit_fail(rg_audit_tally *t, int c, const char *fmt, ...) {
  if (t->res->cat[c].failed++ >= t->max) return;
  char buf[1024]; /* the longest failure line: a prefix and an rg_err message */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  rg_sb_puts(t->report, buf);
}

rg_status rg_db_audit(const rg_db *db, const rg_audit_opts *opts, rg_audit_result *res, rg_strbuf *report,
                      rg_err *err) {
  memset(res, 0, sizeof *res);
  for (int c = 0; c < RG_AUDIT_NCAT; c++) res->cat[c].name = cat_names[c];
  audit_run a = {0};
  rg_status st = run_init(&a, db, opts) ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_solver solvers[RG_SOLVER_COUNT];
  if (!st && opts->ax && a.np) {
    const char *binary[RG_SOLVER_COUNT] = {0};
    binary[RG_SOLVER_CVC5] = opts->cvc5_path;
    st = rg_solvers_init(solvers, binary, err);
  }
  if (st) return run_free(&a), st;
  for (size_t i = 0; i < a.nr; i++) res->rules_in_scope += a.in[i];
  run_checks(&a, db, opts, solvers);
  rg_audit_tally t = {res, report, opts->max_lines ? opts->max_lines : 20};
  tally_rules(&a, db, opts, &t);
  tally_evidence(&a, db, &t);
  tally_statuses(&a, db, &t);
  rg_audit_prune_refs(db, a.idx, &t);
  rg_audit_derivations(db, &t);
  for (int c = 0; c < RG_AUDIT_NCAT; c++)
    if (res->cat[c].failed > t.max)
      rg_sb_printf(report, "  ... %zu more failures of %s\n", res->cat[c].failed - t.max, cat_names[c]);
  run_free(&a);
  return RG_OK;
}

void rg_audit_print(const rg_audit_result *res, rg_strbuf *out) {
  rg_sb_printf(out, "%-24s %10s %8s %16s\n", "check", "checked", "failed", "not re-checked");
  for (int c = 0; c < RG_AUDIT_NCAT; c++)
    rg_sb_printf(out, "%-24s %10zu %8zu %16zu\n", res->cat[c].name, res->cat[c].checked,
                 res->cat[c].failed, res->cat[c].unchecked);
}

void rg_audit_totals(const rg_audit_result *res, size_t *failed, size_t *unchecked) {
  *failed = *unchecked = 0;
  for (int k = 0; k < RG_AUDIT_NCAT; k++) *failed += res->cat[k].failed, *unchecked += res->cat[k].unchecked;
}

bool rg_audit_db_all_axioms(const rg_db *db) {
  bool all = false;
  for (size_t i = 0; i < db->config.n; i++)
    if (!strcmp(db->config.v[i].key, "prove.all_axioms"))
      all = all || !strcmp(db->config.v[i].value, "1") || !strcmp(db->config.v[i].value, "true");
  return all;
}
