/* fingerprint/opeval.c: one-operator evaluation through cached plans of a private graph. */
#include "opeval.h"

#include "kernels.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uint64_t key; /* (variant, sid0, sid1) + 1; 0 empty */
  rg_plan *plan;
  rg_ref out;
} entry;

struct rg_fp_opeval {
  const rg_enum_space *sp;
  const rg_eval_ctx *ctx;
  rg_graph *g;
  int32_t var_in[2]; /* input nodes of tensor variables a0, a1 */
  int32_t *node;     /* variant -> its node; all added up front, since a plan needs the graph
                        unchanged while it is used */
  entry *tab;
  size_t cap, used;
};

rg_fp_opeval *rg_fp_opeval_new(const rg_enum_space *sp, const rg_eval_ctx *ctx) {
  rg_fp_opeval *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->sp = sp, e->ctx = ctx, e->cap = 256;
  e->g = rg_graph_new();
  e->tab = calloc(e->cap, sizeof *e->tab);
  if (!e->g || !e->tab || rg_graph_tvar(e->g, "a0", 2) != 0 || rg_graph_tvar(e->g, "a1", 2) != 1) {
    rg_fp_opeval_free(e);
    return NULL;
  }
  e->var_in[0] = rg_graph_input(e->g, 0);
  e->var_in[1] = rg_graph_input(e->g, 1);
  e->node = malloc(sizeof *e->node * (size_t)(sp->n_variants ? sp->n_variants : 1));
  if (e->var_in[0] < 0 || e->var_in[1] < 0 || !e->node) {
    rg_fp_opeval_free(e);
    return NULL;
  }
  for (int v = 0; v < sp->n_variants; v++) {
    const rg_enum_variant *var = &sp->variants[v];
    rg_node nd = rg_node_init((rg_op)var->op);
    memcpy(nd.params, var->params, sizeof nd.params);
    nd.n_in = var->n_in;
    for (int j = 0; j < var->n_in; j++) nd.in[j] = (rg_ref){e->var_in[j], 0};
    e->node[v] = rg_graph_add(e->g, &nd);
    if (e->node[v] < 0) {
      rg_fp_opeval_free(e);
      return NULL;
    }
  }
  return e;
}

void rg_fp_opeval_free(rg_fp_opeval *e) {
  if (!e) return;
  for (size_t i = 0; i < e->cap && e->tab; i++) rg_plan_free(e->tab[i].plan);
  free(e->tab);
  free(e->node);
  rg_graph_free(e->g);
  free(e);
}

static entry *find(rg_fp_opeval *e, uint64_t key) {
  size_t h = (size_t)rg_mix64(key) & (e->cap - 1);
  while (e->tab[h].key && e->tab[h].key != key) h = (h + 1) & (e->cap - 1);
  return &e->tab[h];
}

static bool grow(rg_fp_opeval *e) {
  entry *old = e->tab;
  size_t ocap = e->cap;
  e->tab = calloc(2 * ocap, sizeof *e->tab);
  if (!e->tab) {
    e->tab = old;
    return false;
  }
  e->cap = 2 * ocap;
  for (size_t i = 0; i < ocap; i++)
    if (old[i].key) *find(e, old[i].key) = old[i];
  free(old);
  return true;
}

/* The plan of variant v at these operand shapes, made on first use. */
static rg_status plan_of(rg_fp_opeval *e, int v, const rg_shape *const *in, const int32_t *sid,
                         entry **out, rg_err *err) {
  const rg_enum_variant *var = &e->sp->variants[v];
  uint64_t key = ((uint64_t)v << 40 | (uint64_t)(var->n_in > 0 ? sid[0] : 0) << 20 |
                  (uint64_t)(var->n_in > 1 ? sid[1] : 0)) + 1;
  entry *en = find(e, key);
  if (en->key) {
    *out = en;
    return RG_OK;
  }
  if (2 * (e->used + 1) > e->cap) {
    if (!grow(e)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory caching plans");
    en = find(e, key);
  }
  int32_t id = e->node[v];
  rg_ref ref = {id, var->out};
  const rg_shape *shapes[2] = {var->n_in > 0 ? in[0] : NULL, var->n_in > 1 ? in[1] : NULL};
  rg_plan *plan;
  rg_status st = rg_plan_new(e->g, &ref, 1, shapes, NULL, NULL, &plan, err);
  if (st) return st;
  en->key = key, en->plan = plan, en->out = ref;
  e->used++;
  *out = en;
  return RG_OK;
}

rg_status rg_fp_opeval_run(rg_fp_opeval *e, int v, const rg_shape *const *in, const int32_t *sid,
                           const rg_shape *out_shape, const rg_value *const *vals, bool interp_only,
                           rg_value **out, int64_t *cap, rg_err *err) {
  int64_t n = rg_shape_numel(out_shape);
  if (n > *cap) {
    rg_value *nb = realloc(*out, sizeof *nb * (size_t)n);
    if (!nb) return rg_err_set(err, RG_ERR_NOMEM, "out of memory for a tensor of %lld elements", (long long)n);
    *out = nb;
    *cap = n;
  }
  if (!interp_only && rg_fp_kernel_run(&e->sp->variants[v], in, out_shape, vals, e->ctx, *out))
    return RG_OK;
  entry *en = NULL;
  rg_status st = plan_of(e, v, in, sid, &en, err);
  if (st) return st;
  rg_value *res = NULL;
  st = rg_eval_full(en->plan, RG_DOM_ZP, e->ctx, vals, &en->out, 1, &res, err);
  if (!st) memcpy(*out, res, sizeof *res * (size_t)n);
  free(res);
  return st;
}
