/* rulesdb/manifest.c: canonical manifest lines, and comparing two manifests. */
#include "manifest.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A record digest: fields fed one by one, each preceded by its length, so that no two
 * different field lists hash the same input bytes. */
typedef struct {
  crypto_generichash_state st;
} rec_hash;

static void rh_init(rec_hash *h, const char *kind) {
  crypto_generichash_init(&h->st, NULL, 0, 32);
  uint64_t n = strlen(kind);
  crypto_generichash_update(&h->st, (const unsigned char *)&n, sizeof n);
  crypto_generichash_update(&h->st, (const unsigned char *)kind, n);
}
static void rh_bytes(rec_hash *h, const void *p, size_t len) {
  uint64_t n = len; /* little-endian on every machine this builds on (x86-64, aarch64) */
  crypto_generichash_update(&h->st, (const unsigned char *)&n, sizeof n);
  crypto_generichash_update(&h->st, p, len);
}
static void rh_str(rec_hash *h, const char *s) { rh_bytes(h, s ? s : "", s ? strlen(s) : 0); }
static void rh_i64(rec_hash *h, int64_t v) {
  char b[32];
  rh_str(h, (snprintf(b, sizeof b, "%" PRId64, v), b));
}
static void rh_f64(rec_hash *h, double v) {
  char b[40];
  rh_str(h, (snprintf(b, sizeof b, "%.17g", v), b));
}
static void rh_final(rec_hash *h, char hex[RG_DB_ID_LEN + 1]) {
  unsigned char d[32];
  crypto_generichash_final(&h->st, d, sizeof d);
  sodium_bin2hex(hex, RG_DB_ID_LEN + 1, d, sizeof d);
}

typedef struct {
  char **v;
  size_t n, cap;
  int failed;
} lines;

static void add_line(lines *ls, const char *kind, const char *key, rec_hash *h) {
  char d[RG_DB_ID_LEN + 1];
  rh_final(h, d);
  if (ls->failed) return;
  if (ls->n == ls->cap) {
    size_t nc = ls->cap ? 2 * ls->cap : 64;
    char **nv = realloc(ls->v, nc * sizeof *nv);
    if (!nv) return (void)(ls->failed = 1);
    ls->v = nv, ls->cap = nc;
  }
  size_t len = strlen(kind) + strlen(key) + RG_DB_ID_LEN + 3;
  char *l = malloc(len);
  if (!l) return (void)(ls->failed = 1);
  snprintf(l, len, "%s %s %s", kind, key, d);
  ls->v[ls->n++] = l;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of the configuration, rules and proofs. */
static void lines_rules(const rg_db *db, lines *ls) {
  rec_hash h;
  for (size_t i = 0; i < db->config.n; i++) {
    rh_init(&h, "config");
    rh_str(&h, db->config.v[i].key), rh_str(&h, db->config.v[i].value);
    add_line(ls, "config", db->config.v[i].key, &h);
  }
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    rh_init(&h, "rule");
    rh_str(&h, r->id.hex), rh_str(&h, r->text), rh_i64(&h, r->src_size), rh_i64(&h, r->tgt_size);
    rh_i64(&h, r->n_outputs), rh_str(&h, r->ops), rh_str(&h, rg_db_status_name(r->status));
    add_line(ls, "rule", r->id.hex, &h);
  }
  for (size_t i = 0; i < db->proofs.n; i++) {
    const rg_db_proof *p = &db->proofs.v[i];
    rh_init(&h, "proof");
    rh_str(&h, p->rule_id.hex), rh_str(&h, p->solver), rh_str(&h, p->version);
    rh_str(&h, p->result), rh_f64(&h, p->seconds), rh_str(&h, p->unsat_core);
    rh_str(&h, p->obligation.hex), rh_i64(&h, p->output);
    add_line(ls, "proof", p->rule_id.hex, &h);
  }
}

/* The lines of the tests, certificates, pruning records and stage counts. */
static void lines_evidence(const rg_db *db, lines *ls) {
  rec_hash h;
  for (size_t i = 0; i < db->tests.n; i++) {
    const rg_db_test *t = &db->tests.v[i];
    rh_init(&h, "test");
    rh_str(&h, t->rule_id.hex), rh_str(&h, t->domain), rh_i64(&h, t->trials);
    rh_i64(&h, (int64_t)t->seed), rh_str(&h, t->shapes), rh_str(&h, t->params);
    rh_str(&h, t->result);
    add_line(ls, "test", t->rule_id.hex, &h);
  }
  for (size_t i = 0; i < db->certs.n; i++) {
    const rg_db_cert *c = &db->certs.v[i];
    rh_init(&h, "cert");
    rh_str(&h, c->rule_id.hex), rh_i64(&h, c->version), rh_bytes(&h, c->body, c->len);
    add_line(ls, "cert", c->rule_id.hex, &h);
  }
  for (size_t i = 0; i < db->prunes.n; i++) {
    const rg_db_prune *p = &db->prunes.v[i];
    rh_init(&h, "prune");
    rh_str(&h, p->removed_id.hex), rh_str(&h, p->removed_text), rh_str(&h, p->reason);
    rh_str(&h, p->implied_by);
    add_line(ls, "prune", p->removed_id.hex, &h);
  }
  for (size_t i = 0; i < db->stages.n; i++) {
    const rg_db_stage *s = &db->stages.v[i];
    char key[24];
    snprintf(key, sizeof key, "%06zu", i);
    rh_init(&h, "stage");
    rh_str(&h, s->name), rh_i64(&h, s->n_in), rh_i64(&h, s->n_out), rh_str(&h, s->dropped);
    rh_f64(&h, s->seconds);
    add_line(ls, "stage", key, &h);
  }
}

rg_status rg_db_manifest(const rg_db *db, rg_strbuf *out, rg_err *err) {
  lines ls = {0};
  lines_rules(db, &ls);
  lines_evidence(db, &ls);
  rg_status st = RG_OK;
  if (ls.failed) {
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory building the manifest");
  } else {
    qsort(ls.v, ls.n, sizeof *ls.v, cmp_str);
    rg_sb_puts(out, RG_DB_MANIFEST_HEADER "\n");
    for (size_t i = 0; i < ls.n; i++)
      rg_sb_puts(out, ls.v[i]), rg_sb_puts(out, "\n");
    if (out->failed) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory building the manifest");
  }
  for (size_t i = 0; i < ls.n; i++)
    free(ls.v[i]);
  free(ls.v);
  return st;
}

/* Length of a line's key: "kind id " up to the digest. */
static size_t key_len(const char *l, const char *end) {
  const char *sp = memchr(l, ' ', (size_t)(end - l));
  if (!sp) return (size_t)(end - l);
  const char *sp2 = memchr(sp + 1, ' ', (size_t)(end - sp - 1));
  return sp2 ? (size_t)(sp2 - l) : (size_t)(end - l);
}

static void note(rg_strbuf *r, size_t *count, size_t max, const char *l, size_t klen,
                 const char *what) {
  if ((*count)++ < max) rg_sb_printf(r, "  %.*s: %s\n", (int)klen, l, what);
}

/* Both manifests are sorted line lists; walk them together like a merge. Lines with the same key
 * and different digests are "changed"; several records with one key (proofs by two solvers)
 * pair up in order, which still names the rule whose record changed. */
size_t rg_db_manifest_compare(const char *a, const char *b, size_t max, rg_strbuf *report) {
  size_t count = 0;
  while (*a || *b) {
    const char *ae = strchr(a, '\n'), *be = strchr(b, '\n');
    if (!ae) ae = a + strlen(a);
    if (!be) be = b + strlen(b);
    size_t al = (size_t)(ae - a), bl = (size_t)(be - b);
    if (*a && *b && al == bl && !memcmp(a, b, al)) {
      a = *ae ? ae + 1 : ae, b = *be ? be + 1 : be;
      continue;
    }
    size_t ak = *a ? key_len(a, ae) : 0, bk = *b ? key_len(b, be) : 0;
    int c = !*a ? 1 : !*b ? -1 : 0;
    if (!c) {
      size_t m = ak < bk ? ak : bk;
      c = memcmp(a, b, m);
      if (!c) c = ak < bk ? -1 : ak > bk ? 1 : 0;
    }
    if (c == 0) {
      note(report, &count, max, a, ak, "changed since signing");
      a = *ae ? ae + 1 : ae, b = *be ? be + 1 : be;
    } else if (c < 0) {
      note(report, &count, max, a, ak, "signed but missing from the database");
      a = *ae ? ae + 1 : ae;
    } else {
      note(report, &count, max, b, bk, "in the database but not signed");
      b = *be ? be + 1 : be;
    }
  }
  if (count > max) rg_sb_printf(report, "  ... and %zu more differences\n", count - max);
  return count;
}
