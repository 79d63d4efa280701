/* rulesdb/records.c: the in-memory rule database: growable tables of owned records. */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include "records.h"

#include <stdlib.h>
#include <string.h>

static const char *status_names[] = {
#define X(id, name) name,
    RG_DB_STATUSES(X)
#undef X
};

const char *rg_db_status_name(rg_db_status s) {
  return (unsigned)s < RG_DB_STATUS_COUNT ? status_names[s] : "?";
}

int rg_db_status_by_name(const char *name) {
  for (int i = 0; i < RG_DB_STATUS_COUNT; i++)
    if (!strcmp(name, status_names[i])) return i;
  return -1;
}

int rg_db_status_is_proved(rg_db_status s) { return s == RG_DB_VERIFIED || s == RG_DB_CERTIFIED; }

rg_db *rg_db_new(void) { return calloc(1, sizeof(rg_db)); }

void rg_db_free(rg_db *db) {
  if (!db) return;
  for (size_t i = 0; i < db->rules.n; i++)
    free(db->rules.v[i].text), free(db->rules.v[i].ops);
  for (size_t i = 0; i < db->proofs.n; i++) {
    rg_db_proof *p = &db->proofs.v[i];
    free(p->solver), free(p->version), free(p->result), free(p->unsat_core);
  }
  for (size_t i = 0; i < db->tests.n; i++) {
    rg_db_test *t = &db->tests.v[i];
    free(t->domain), free(t->shapes), free(t->params), free(t->result);
  }
  for (size_t i = 0; i < db->certs.n; i++)
    free(db->certs.v[i].body);
  for (size_t i = 0; i < db->prunes.n; i++) {
    rg_db_prune *p = &db->prunes.v[i];
    free(p->removed_text), free(p->reason), free(p->implied_by);
  }
  for (size_t i = 0; i < db->stages.n; i++)
    free(db->stages.v[i].name), free(db->stages.v[i].dropped);
  for (size_t i = 0; i < db->config.n; i++)
    free(db->config.v[i].key), free(db->config.v[i].value);
  free(db->rules.v), free(db->proofs.v), free(db->tests.v), free(db->certs.v);
  free(db->prunes.v), free(db->stages.v), free(db->config.v);
  free(db->sig.manifest);
  free(db);
}

/* Makes room for one more element of size sz in a table. */
static int grow(void **v, size_t *cap, size_t n, size_t sz) {
  if (n < *cap) return 0;
  size_t nc = *cap ? 2 * *cap : 16;
  void *nv = realloc(*v, nc * sz);
  if (!nv) return -1;
  *v = nv;
  *cap = nc;
  return 0;
}
#define GROW(t) grow((void **)&(t).v, &(t).cap, (t).n, sizeof *(t).v)

/* strdup that treats NULL as "", and counts failures in *bad. */
static char *dup(const char *s, int *bad) {
  char *d = strdup(s ? s : "");
  if (!d) *bad = 1;
  return d;
}

static rg_status nomem(rg_err *err) { return rg_err_set(err, RG_ERR_NOMEM, "out of memory"); }

/* Each *f[i], a string the caller lends, replaced by a copy of its own (NULL read as ""); on
 * failure none is kept and the result is nonzero. */
static int dup_all(char **const f[], int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) *f[i] = dup(*f[i], &bad);
  for (int i = 0; bad && i < n; i++) free(*f[i]), *f[i] = NULL;
  return bad;
}

/* Appends record c to db's table, its strings (the fields after c) copied. */
#define ADD_RECORD(table, c, ...)                                                                  \
  do {                                                                                             \
    char **const f_[] = {__VA_ARGS__};                                                             \
    if (GROW(db->table) || dup_all(f_, (int)(sizeof f_ / sizeof *f_))) return nomem(err);         \
    db->table.v[db->table.n++] = c;                                                                \
    return RG_OK;                                                                                  \
  } while (0)

rg_status rg_db_add_rule(rg_db *db, const rg_db_rule *r, rg_err *err) {
  rg_db_rule c = *r;
  ADD_RECORD(rules, c, &c.text, &c.ops);
}

rg_status rg_db_add_proof(rg_db *db, const rg_db_proof *p, rg_err *err) {
  rg_db_proof c = *p;
  ADD_RECORD(proofs, c, &c.solver, &c.version, &c.result, &c.unsat_core);
}

rg_status rg_db_add_test(rg_db *db, const rg_db_test *t, rg_err *err) {
  rg_db_test c = *t;
  ADD_RECORD(tests, c, &c.domain, &c.shapes, &c.params, &c.result);
}

rg_status rg_db_add_cert(rg_db *db, const rg_db_cert *cert, rg_err *err) {
  if (GROW(db->certs)) return nomem(err);
  rg_db_cert c = *cert;
  c.body = malloc(cert->len ? cert->len : 1);
  if (!c.body) return nomem(err);
  if (cert->len) memcpy(c.body, cert->body, cert->len);
  db->certs.v[db->certs.n++] = c;
  return RG_OK;
}

rg_status rg_db_add_prune(rg_db *db, const rg_db_prune *p, rg_err *err) {
  rg_db_prune c = *p;
  ADD_RECORD(prunes, c, &c.removed_text, &c.reason, &c.implied_by);
}

rg_status rg_db_add_stage(rg_db *db, const rg_db_stage *s, rg_err *err) {
  rg_db_stage c = *s;
  ADD_RECORD(stages, c, &c.name, &c.dropped);
}

rg_status rg_db_set_config(rg_db *db, const char *key, const char *value, rg_err *err) {
  /* Keys appear as one word in the signed manifest: printable, no blanks. */
  int ok = key && *key;
  for (const char *p = key; ok && *p; p++)
    ok = *p > ' ' && *p != 0x7f;
  if (!ok)
    return rg_err_set(err, RG_ERR_ARG,
                      "configuration key '%s' is empty or has blanks or control characters",
                      key ? key : "");
  int bad = 0;
  char *v = dup(value, &bad);
  if (bad) return nomem(err);
  for (size_t i = 0; i < db->config.n; i++)
    if (!strcmp(db->config.v[i].key, key)) {
      free(db->config.v[i].value);
      db->config.v[i].value = v;
      return RG_OK;
    }
  char *k = dup(key, &bad);
  if (bad || GROW(db->config)) return free(k), free(v), nomem(err);
  db->config.v[db->config.n++] = (rg_db_config){k, v};
  return RG_OK;
}

const rg_db_rule *rg_db_find_rule(const rg_db *db, const rg_db_id *id) {
  for (size_t i = 0; i < db->rules.n; i++)
    if (!strcmp(db->rules.v[i].id.hex, id->hex)) return &db->rules.v[i];
  return NULL;
}

/* qsort has no context argument, so the index sorts (id, position) pairs instead. */
typedef struct {
  const char *id;
  size_t pos;
} id_pos;

static int cmp_id_pos(const void *a, const void *b) {
  return strcmp(((const id_pos *)a)->id, ((const id_pos *)b)->id);
}

size_t *rg_db_rule_index(const rg_db *db) {
  size_t n = db->rules.n;
  id_pos *tmp = malloc((n ? n : 1) * sizeof *tmp);
  size_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!tmp || !idx) return free(tmp), free(idx), NULL;
  for (size_t i = 0; i < n; i++)
    tmp[i] = (id_pos){db->rules.v[i].id.hex, i};
  qsort(tmp, n, sizeof *tmp, cmp_id_pos);
  for (size_t i = 0; i < n; i++)
    idx[i] = tmp[i].pos;
  free(tmp);
  return idx;
}

long rg_db_index_find(const rg_db *db, const size_t *idx, const char *id_hex) {
  size_t lo = 0, hi = db->rules.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(db->rules.v[idx[mid]].id.hex, id_hex);
    if (!c) return (long)idx[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* Links records to their rules, last to first so that each list is in record order. */
#define LINK(table, first, next)                                                                   \
  for (size_t i = db->table.n; i-- > 0;) {                                                         \
    long r = rg_db_index_find(db, idx, db->table.v[i].rule_id.hex);                                \
    g->next[i] = r >= 0 ? g->first[r] : -1;                                                        \
    if (r >= 0) g->first[r] = (long)i;                                                             \
  }

rg_status rg_db_groups_build(const rg_db *db, rg_db_groups *g, rg_err *err) {
  size_t nr = db->rules.n + 1;
  size_t *idx = rg_db_rule_index(db);
  g->proof = malloc(sizeof(long) * nr), g->test = malloc(sizeof(long) * nr);
  g->cert = malloc(sizeof(long) * nr);
  g->next_proof = malloc(sizeof(long) * (db->proofs.n + 1));
  g->next_test = malloc(sizeof(long) * (db->tests.n + 1));
  g->next_cert = malloc(sizeof(long) * (db->certs.n + 1));
  if (!idx || !g->proof || !g->test || !g->cert || !g->next_proof || !g->next_test ||
      !g->next_cert) {
    free(idx);
    rg_db_groups_free(g);
    return nomem(err);
  }
  for (size_t i = 0; i < nr; i++)
    g->proof[i] = g->test[i] = g->cert[i] = -1;
  LINK(proofs, proof, next_proof)
  LINK(tests, test, next_test)
  LINK(certs, cert, next_cert)
  free(idx);
  return RG_OK;
}
#undef LINK

void rg_db_groups_free(rg_db_groups *g) {
  free(g->proof), free(g->next_proof), free(g->test), free(g->next_test);
  free(g->cert), free(g->next_cert);
  memset(g, 0, sizeof *g);
}
