/* optimizer/eval/eval.c: float64 evaluation of model graphs (eval.h). */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

#include "fingerprint/kernels.h"
#include "ir/interp.h"
#include "optimizer/opaque/opaque.h"

typedef struct {
  const rg_model *m;
  const double *const *inputs;
  int32_t n;               /* graph nodes */
  double *(*val)[RG_MAX_OUTPUTS]; /* [node][out] */
  int32_t *uses;           /* readers still to come, per node */
  int32_t *order, n_order; /* nodes in dependency order */
  rg_eval_ctx ctx;
} evaluator;

/* The variable whose values the caller gives for node id (an input, or an opaque value standing
 * for its node's output), else -1. */
static int32_t given_var(const evaluator *ev, int32_t id) {
  const rg_node *nd = rg_graph_node(ev->m->g, id);
  if (nd->op != RG_OP_INPUT || !ev->inputs) return -1;
  int32_t var = nd->params[0];
  rg_mvar_kind k = ev->m->var[var].kind;
  return (k == RG_MVAR_INPUT || k == RG_MVAR_OPAQUE) && ev->inputs[var] ? var : -1;
}

/* An opaque value given by the caller reads nothing: its node is not run. */
static int deps(const evaluator *ev, int32_t id, rg_ref *out) {
  return given_var(ev, id) >= 0 ? 0 : rg_model_deps(ev->m, id, out);
}

/* Post-order over what refs need, without recursion (models are deep). */
static rg_status plan(evaluator *ev, const rg_ref *refs, int n_refs, rg_err *err) {
  rg_ref *d = malloc(sizeof *d * (size_t)rg_model_max_deps(ev->m));
  /* a node is pushed once per reader that opens before it is done: at most the edges */
  size_t edges = (size_t)n_refs;
  for (int32_t id = 0; d && id < ev->n; id++) edges += (size_t)deps(ev, id, d);
  uint8_t *state = calloc((size_t)ev->n + 1, 1); /* 0 new, 1 open, 2 done */
  int32_t *stack = malloc(sizeof *stack * (edges + 1)), top = 0;
  if (!state || !stack || !d) {
    free(state), free(stack), free(d);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  bool cycle = false;
  for (int i = 0; !cycle && i < n_refs; i++) {
    if (state[refs[i].node]) continue;
    stack[top++] = refs[i].node;
    while (top) {
      int32_t id = stack[top - 1];
      if (state[id] == 0) {
        state[id] = 1;
        int nd = deps(ev, id, d);
        for (int k = 0; k < nd; k++) /* each slot is a read, even of the same node twice */
          if (state[d[k].node] == 0) stack[top++] = d[k].node;
          else if (state[d[k].node] == 1) cycle = true; /* open: on the path to id, so id needs itself */
        if (cycle) break;
        continue;
      }
      top--;
      if (state[id] == 2) continue;
      state[id] = 2;
      ev->order[ev->n_order++] = id;
      int nd = deps(ev, id, d);
      for (int k = 0; k < nd; k++) ev->uses[d[k].node]++;
    }
  }
  free(state), free(stack), free(d);
  if (cycle) /* a bug of whatever built the model: said, never evaluated out of order */
    return rg_err_set(err, RG_ERR_ARG, "the model graph has a cycle: a value depends on itself");
  for (int i = 0; i < n_refs; i++) ev->uses[refs[i].node]++; /* the caller's: never freed here */
  return RG_OK;
}

static double *alloc_values(const rg_shape *s) { return malloc(sizeof(double) * (size_t)(rg_shape_numel(s) + 1)); }

/* Values of an opaque node's outputs, stored at their variables' nodes. */
static rg_status eval_opaque(evaluator *ev, int32_t k, rg_err *err) {
  const rg_model *m = ev->m;
  const rg_opaque *o = &m->op[k];
  if (o->why) return rg_err_set(err, RG_ERR_ARG, "graphopt cannot evaluate %s", o->why); /* never a wrong value */
  rg_tinfo *in = calloc((size_t)o->n_in + 1, sizeof *in), *ot = calloc((size_t)o->n_out + 1, sizeof *ot);
  const double **iv = calloc((size_t)o->n_in + 1, sizeof *iv);
  double **ov = calloc((size_t)o->n_out + 1, sizeof *ov);
  rg_status st = in && ot && iv && ov ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int j = 0; !st && j < o->n_in; j++) {
    if (o->in[j].node < 0) continue;
    int32_t var = rg_model_var_of(m, o->in[j]);
    in[j] = (rg_tinfo){var >= 0 ? m->var[var].elem : RG_ELEM_FLOAT, *rg_model_shape(m, o->in[j]), true};
    iv[j] = ev->val[o->in[j].node][o->in[j].out];
  }
  for (int j = 0; !st && j < o->n_out; j++) {
    const rg_mvar *v = &m->var[o->out[j]];
    ot[j] = (rg_tinfo){v->elem, v->shape, true};
    if (!(ov[j] = alloc_values(&v->shape))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rg_opaque_call c = {o->node, m->opset, o->n_in, o->n_out, in};
  if (!st) st = rg_opaque_eval(&c, iv, ot, ov, err);
  for (int j = 0; j < o->n_out && ov; j++) {
    int32_t id = rg_graph_input(m->g, o->out[j]);
    if (!st && !ev->val[id][0] && given_var(ev, id) < 0) ev->val[id][0] = ov[j]; /* a given value wins */
    else free(ov[j]);
  }
  free(in), free(ot), free(iv), free(ov);
  return st;
}

static rg_status eval_node(evaluator *ev, int32_t id, rg_err *err) {
  const rg_model *m = ev->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  if (nd->op == RG_OP_INPUT) {
    int32_t var = nd->params[0];
    const rg_mvar *v = &m->var[var];
    const double *given = given_var(ev, id) >= 0 ? ev->inputs[var] : NULL;
    if (v->kind == RG_MVAR_OPAQUE && !given) return ev->val[id][0] ? RG_OK : eval_opaque(ev, v->opaque, err);
    if (!v->typed)
      return rg_err_set(err, RG_ERR_ARG, "graphopt cannot evaluate '%s', %s of %s", rg_graph_tvar_name(m->g, var),
                        v->kind == RG_MVAR_INPUT ? "an input" : "a weight", v->why ? v->why : "a type it does not model");
    int64_t n = rg_shape_numel(&v->shape);
    if (v->kind == RG_MVAR_INPUT && !given)
      return rg_err_set(err, RG_ERR_UNBOUND, "input '%s' has no values", rg_graph_tvar_name(m->g, var));
    double *d = alloc_values(&v->shape);
    if (!d) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
      d[i] = given ? given[i] : v->elem == RG_ELEM_FLOAT ? ((const float *)v->data)[i] : (double)((const int64_t *)v->data)[i];
    ev->val[id][0] = d;
    return RG_OK;
  }
  const rg_shape *in[RG_MAX_INPUTS];
  const rg_value *iv[RG_MAX_INPUTS];
  for (int k = 0; k < nd->n_in; k++) {
    in[k] = rg_model_shape(m, nd->in[k]);
    iv[k] = (const rg_value *)ev->val[nd->in[k].node][nd->in[k].out]; /* rg_value's float64 is a double */
  }
  for (int out = 0; out < rg_op_get((rg_op)nd->op)->n_outputs; out++) {
    double *d = alloc_values(&m->shape[id][out]);
    if (!d) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    ev->val[id][out] = d;
    rg_status st = rg_eval_op((rg_op)nd->op, nd->params, nd->n_in, in, iv, out, RG_DOM_F64, &ev->ctx, (rg_value *)d, err);
    if (st) return st;
  }
  return RG_OK;
}

static void release(evaluator *ev, int32_t id) {
  for (int o = 0; o < RG_MAX_OUTPUTS; o++) {
    free(ev->val[id][o]);
    ev->val[id][o] = NULL;
  }
}

rg_status rg_model_eval_refs(const rg_model *m, const double *const *inputs, const rg_ref *refs, int n, double **out,
                             rg_err *err) {
  _Static_assert(sizeof(rg_value) == sizeof(double), "float64 values are read in place");
  evaluator ev = {.m = m, .inputs = inputs, .n = rg_graph_size(m->g)};
  rg_eval_ctx_init(&ev.ctx, 1);
  ev.ctx.kernel = rg_fp_node_kernel;
  ev.val = calloc((size_t)ev.n + 1, sizeof *ev.val);
  ev.uses = calloc((size_t)ev.n + 1, sizeof *ev.uses);
  ev.order = malloc(sizeof *ev.order * ((size_t)ev.n + 1));
  rg_status st = ev.val && ev.uses && ev.order ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++) out[i] = NULL;
  if (!st) st = plan(&ev, refs, n, err);
  rg_ref *d = malloc(sizeof *d * (size_t)rg_model_max_deps(m));
  if (!st && !d) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t i = 0; !st && i < ev.n_order; i++) {
    int32_t id = ev.order[i];
    st = eval_node(&ev, id, err);
    int nd_n = st ? 0 : deps(&ev, id, d); /* an opaque output's: its node's operands */
    for (int k = 0; k < nd_n; k++)
      if (--ev.uses[d[k].node] == 0) release(&ev, d[k].node);
  }
  for (int i = 0; !st && i < n; i++) {
    const double *v = ev.val[refs[i].node][refs[i].out];
    int64_t cnt = rg_shape_numel(rg_model_shape(m, refs[i]));
    if (!(out[i] = malloc(sizeof(double) * (size_t)(cnt + 1)))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else memcpy(out[i], v, sizeof(double) * (size_t)cnt);
  }
  if (st)
    for (int i = 0; i < n; i++) free(out[i]), out[i] = NULL;
  for (int32_t id = 0; ev.val && id < ev.n; id++) release(&ev, id);
  free(ev.val), free(ev.uses), free(ev.order), free(d);
  return st;
}

rg_status rg_model_eval(const rg_model *m, const double *const *inputs, double **out, rg_err *err) {
  return rg_model_eval_refs(m, inputs, m->out, m->n_out, out, err);
}

static uint32_t mulberry32(uint32_t *state) {
  uint32_t z = (*state += 0x6D2B79F5u);
  z = (z ^ (z >> 15)) * (z | 1u);
  z ^= z + (z ^ (z >> 7)) * (z | 61u);
  return z ^ (z >> 14);
}

double **rg_model_random_inputs(const rg_model *m, uint32_t seed, int64_t int_max) {
  return rg_model_random_inputs_scaled(m, seed, 1, int_max, NULL);
}

double **rg_model_random_inputs_scaled(const rg_model *m, uint32_t seed, double scale, int64_t int_max,
                                       const int64_t *int_bound) {
  double **in = calloc((size_t)m->n_var + 1, sizeof *in);
  uint32_t state = seed;
  for (int32_t v = 0; in && v < m->n_var; v++) {
    if (m->var[v].kind != RG_MVAR_INPUT || !m->var[v].typed) continue; /* an opaque input: never evaluated */
    int64_t n = rg_shape_numel(&m->var[v].shape), imax = int_bound && int_bound[v] > 0 ? int_bound[v] : int_max;
    if (!(in[v] = malloc(sizeof(double) * (size_t)(n + 1)))) {
      rg_model_inputs_free(m, in);
      return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
      uint32_t u = mulberry32(&state);
      in[v][i] = m->var[v].elem == RG_ELEM_FLOAT ? ((double)(u >> 8) / 16777216.0 * 2 - 1) * scale
                                                 : (double)(u % (uint64_t)imax);
    }
  }
  return in;
}

bool rg_model_random_opaque(const rg_model *m, double **in, uint32_t seed, double scale) {
  uint32_t state = seed ^ 0x9E3779B9u; /* a stream apart from the inputs' */
  for (int32_t v = 0; v < m->n_var; v++) {
    const rg_mvar *x = &m->var[v];
    if (x->kind != RG_MVAR_OPAQUE || !x->typed || x->elem != RG_ELEM_FLOAT || in[v]) continue;
    int64_t n = rg_shape_numel(&x->shape);
    if (!(in[v] = malloc(sizeof(double) * (size_t)(n + 1)))) return false;
    for (int64_t i = 0; i < n; i++) in[v][i] = ((double)(mulberry32(&state) >> 8) / 16777216.0 * 2 - 1) * scale;
  }
  return true;
}

void rg_model_inputs_free(const rg_model *m, double **inputs) {
  if (!inputs) return;
  for (int32_t v = 0; v < m->n_var; v++) free(inputs[v]);
  free(inputs);
}
