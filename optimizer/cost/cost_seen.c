/* optimizer/cost/cost_seen.c: the operator configurations a measuring cost model has priced in
 * this run ("op\tconfig" -> microseconds), so that each is timed or read from the cache once
 * however many nodes share it: open addressing over strdup'd keys. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"

static size_t str_hash(const char *s) {
  size_t h = 5381;
  while (*s)
    h = h * 33 ^ (unsigned char)*s++;
  return h;
}

double *rg_cost_seen_find(rg_cost_seen *t, const char *key) {
  if (!t->cap) return NULL;
  for (size_t i = str_hash(key) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
    if (!strcmp(t->key[i], key)) return &t->us[i];
  return NULL;
}

bool rg_cost_seen_add(rg_cost_seen *t, const char *key, double us) {
  if (2 * (t->n + 1) > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    char **k = calloc(cap, sizeof *k);
    double *v = malloc(cap * sizeof *v);
    if (!k || !v) return free(k), free(v), false;
    for (size_t j = 0; j < t->cap; j++) {
      if (!t->key[j]) continue;
      size_t i = str_hash(t->key[j]) & (cap - 1);
      while (k[i])
        i = (i + 1) & (cap - 1);
      k[i] = t->key[j], v[i] = t->us[j];
    }
    free(t->key), free(t->us);
    t->key = k, t->us = v, t->cap = cap;
  }
  char *copy = strdup(key);
  if (!copy) return false;
  size_t i = str_hash(key) & (t->cap - 1);
  while (t->key[i])
    i = (i + 1) & (t->cap - 1);
  t->key[i] = copy, t->us[i] = us, t->n++;
  return true;
}

void rg_cost_seen_free(rg_cost_seen *t) {
  for (size_t i = 0; i < t->cap; i++)
    free(t->key[i]);
  free(t->key), free(t->us);
}


rg_status rg_cost_seen_node(rg_cost_seen *seen, rg_strbuf *config, const rg_model *m, int32_t id,
                            rg_cost_measure measure, void *ctx, double *us, rg_err *err) {
  const char *op = rg_op_get((rg_op)rg_graph_node(m->g, id)->op)->name;
  rg_sb_clear(config);
  rg_sb_printf(config, "%s\t", op);
  size_t op_len = config->len;
  rg_cost_config(m, id, config);
  if (config->failed) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  const double *known = rg_cost_seen_find(seen, config->s);
  if (known) return *us = *known, RG_OK;
  rg_status st = measure(ctx, m, id, op, config->s + op_len, us, err);
  if (!st && !rg_cost_seen_add(seen, config->s, *us)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return st;
}
