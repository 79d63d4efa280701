/* certify/check.c: box-mode and full-mode evaluation of a program pair. */
#include "check.h"

#include <gmp.h>
#include <stdlib.h>
#include <string.h>

rg_status rg_pet_field_check(rg_z127 p, rg_err *err) {
  mpz_t z;
  uint64_t w[2] = {(uint64_t)p, (uint64_t)(p >> 64)};
  mpz_init(z);
  mpz_import(z, 2, -1, sizeof w[0], 0, 0, w);
  int prime = mpz_probab_prime_p(z, 40);
  mpz_clear(z);
  char num[48];
  rg_z127_format(p, num, sizeof num);
  if (!prime)
    return rg_err_set(err, RG_ERR_ARG, "p = %s is not prime: the check needs a field (supported: %s)", num,
                      RG_PET_PRIMES);
  if (p != RG_ZP_P && p != RG_Z127_Q)
    return rg_err_set(err, RG_ERR_ARG, "p = %s is prime, but the evaluator implements only the fields of %s", num,
                      RG_PET_PRIMES);
  return RG_OK;
}

typedef struct {
  const uint64_t *keys; /* this trial's row of the generator keys */
} gen;

static rg_value gen_input(void *user, int32_t tvar, int64_t flat) {
  return rg_random_value(RG_DOM_ZP, ((const gen *)user)->keys[tvar], 0, flat);
}

static rg_z127 gen_input_z127(void *user, int32_t tvar, int64_t flat) {
  return rg_random_z127(((const gen *)user)->keys[tvar], 0, flat);
}

static rg_elem_eval *evaluator(const rg_plan *plan, rg_z127 p, const rg_eval_ctx *ctx, gen *g) {
  return p == RG_Z127_Q ? rg_elem_eval_new_z127(plan, ctx, gen_input_z127, g)
                        : rg_elem_eval_new(plan, RG_DOM_ZP, ctx, gen_input, g);
}

/* One element of an output in the pair's field. */
static rg_status eval_at(rg_elem_eval *e, rg_z127 p, rg_ref out, const int32_t *pos, rg_z127 *v, rg_err *err) {
  if (p == RG_Z127_Q) return rg_elem_eval_at_z127(e, out, pos, v, err);
  rg_value x;
  rg_status st = rg_elem_eval_at(e, out, pos, &x, err);
  *v = x.z;
  return st;
}

/* The box's m+1 positions in trial t; records the first difference as the witness. Fresh
 * evaluators per box keep the memo small (boxes share little of their cones), which is much
 * faster than one memo growing over all boxes. */
static rg_status check_box(const rg_pet_pair *pp, const rg_eval_ctx *ctx, gen *g, int t, rg_box_result *b,
                           rg_pet_result *res, rg_err *err) {
  rg_elem_eval *ev[2] = {evaluator(pp->plan[0], res->p, ctx, g), evaluator(pp->plan[1], res->p, ctx, g)};
  rg_status st = RG_OK;
  if (!ev[0] || !ev[1]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory for an evaluator");
  int rank = res->cuts[b->output].rank;
  for (int step = -1; step < rank && st == RG_OK; step++) {
    if (step >= 0 && b->hi[step] - b->lo[step] < 2) continue;
    int32_t pos[RG_MAX_RANK];
    memcpy(pos, b->lo, sizeof pos);
    if (step >= 0) pos[step]++;
    rg_z127 v[2];
    st = eval_at(ev[0], res->p, pp->rule->src[b->output], pos, &v[0], err);
    if (st == RG_OK) st = eval_at(ev[1], res->p, pp->rule->tgt[b->output], pos, &v[1], err);
    res->evaluations += 2;
    if (st == RG_OK && v[0] != v[1]) {
      b->verdict = RG_BOX_NEQ, b->trial = t;
      memcpy(b->pos, pos, sizeof pos);
      b->val[0] = v[0], b->val[1] = v[1];
      break;
    }
  }
  rg_elem_eval_free(ev[0]);
  rg_elem_eval_free(ev[1]);
  return st;
}

int64_t rg_pet_result_neq(const rg_pet_result *res) {
  int64_t n = 0;
  for (int64_t i = 0; i < res->n_boxes; i++) n += res->box[i].verdict == RG_BOX_NEQ;
  return n;
}

void rg_pet_result_free(rg_pet_result *res) {
  for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++) rg_cuts_free(&res->cuts[k]);
  free(res->box);
  memset(res, 0, sizeof *res);
}

static bool cancelled(const rg_pet_opts *o) { return o->hooks && o->hooks->cancel && *o->hooks->cancel; }

static rg_status check_opts(const rg_pet_opts *o, rg_err *err) {
  if (o->trials < 1) return rg_err_set(err, RG_ERR_ARG, "the number of trials t must be at least 1 (got %d)", o->trials);
  return rg_pet_field_check(o->p, err);
}

/* The union of both programs' cuts for output k. */
static rg_status union_cuts(const rg_pet_pair *pp, int k, rg_cuts *c, rg_err *err) {
  const rg_cuts *a = rg_boxmap_cuts(pp->boxes[0], pp->rule->src[k]);
  const rg_cuts *b = rg_boxmap_cuts(pp->boxes[1], pp->rule->tgt[k]);
  memset(c, 0, sizeof *c);
  c->rank = a->rank;
  memcpy(c->dim, a->dim, sizeof c->dim);
  rg_status st = rg_cuts_merge(c, a, err);
  if (st == RG_OK) st = rg_cuts_merge(c, b, err);
  return st;
}

rg_status rg_pet_check(const rg_pet_pair *pp, const rg_pet_opts *o, rg_pet_result *res, rg_err *err) {
  memset(res, 0, sizeof *res);
  rg_status st = check_opts(o, err);
  if (st) return st;
  res->p = o->p, res->trials = o->trials, res->seed = rg_pet_seed(pp, o->p, o->trials);
  res->n_out = pp->rule->n_src;
  int64_t first[RG_RULE_MAX_OUTPUTS + 1] = {0};
  for (int k = 0; k < res->n_out && st == RG_OK; k++) {
    st = union_cuts(pp, k, &res->cuts[k], err);
    first[k + 1] = first[k] + rg_cuts_boxes(&res->cuts[k]);
    if (st == RG_OK && first[k + 1] > RG_PET_MAX_BOXES)
      st = rg_err_set(err, RG_ERR_LIMIT, "more than %lld boxes: too fine for box mode (is a reshape interleaving a large tensor?)",
                      (long long)RG_PET_MAX_BOXES);
  }
  if (st) return st;
  res->n_boxes = first[res->n_out];
  res->box = calloc((size_t)res->n_boxes + 1, sizeof *res->box);
  uint64_t *keys = rg_pet_input_keys(pp, res->seed, o->trials);
  if (!res->box || !keys) {
    free(keys);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory for %lld boxes", (long long)res->n_boxes);
  }
  for (int k = 0; k < res->n_out; k++)
    for (int64_t i = 0; i < first[k + 1] - first[k]; i++) {
      rg_box_result *b = &res->box[first[k] + i];
      b->output = k;
      rg_cuts_box(&res->cuts[k], i, b->lo, b->hi);
    }
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, res->seed); /* unused by multilinear programs; set for completeness */
  int32_t nt = rg_graph_n_tvars(pp->rule->g);
  int64_t total = res->n_boxes * o->trials;
  for (int t = 0; t < o->trials && st == RG_OK; t++) {
    gen g = {keys + (size_t)t * (size_t)nt};
    for (int64_t i = 0; i < res->n_boxes && st == RG_OK; i++) {
      if (cancelled(o)) {
        st = rg_err_set(err, RG_ERR_ARG, "interrupted");
        break;
      }
      if (res->box[i].verdict == RG_BOX_EQ) st = check_box(pp, &ctx, &g, t, &res->box[i], res, err);
      if (o->hooks && o->hooks->progress) o->hooks->progress(o->hooks->user, t * res->n_boxes + i + 1, total);
    }
  }
  free(keys);
  for (int64_t i = 0; i < res->n_boxes && st == RG_OK; i++) {
    int rank = res->cuts[res->box[i].output].rank, m = 1;
    for (int d = 0; d < rank; d++) m += res->box[i].hi[d] - res->box[i].lo[d] >= 2;
    res->positions += m;
    if (res->box[i].verdict == RG_BOX_EQ) res->eq_positions += m;
  }
  if (st) rg_pet_result_free(res);
  return st;
}

/* One full-mode trial in Z_q (its own whole-output evaluator: Z_q values do not fit rg_value). */
static rg_status full_trial_z127(const rg_pet_pair *pp, const rg_eval_ctx *ctx, const uint64_t *keys, uint8_t **diff,
                                 rg_err *err) {
  int n = pp->rule->n_src;
  int32_t nt = rg_graph_n_tvars(pp->rule->g);
  rg_z127 **in = calloc((size_t)nt + 1, sizeof *in);
  rg_z127 *outv[2][RG_RULE_MAX_OUTPUTS] = {{0}};
  rg_status st = in ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory for inputs");
  for (int32_t v = 0; v < nt && st == RG_OK; v++) {
    int64_t cnt = rg_shape_numel(&pp->shapes[v]);
    in[v] = malloc(sizeof **in * (size_t)(cnt + 1));
    if (!in[v]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory for inputs");
    for (int64_t i = 0; in[v] && i < cnt; i++) in[v][i] = rg_random_z127(keys[v], 0, i);
  }
  const rg_z127 *const *ins = (const rg_z127 *const *)in;
  if (st == RG_OK) st = rg_eval_full_z127(pp->plan[0], ctx, ins, pp->rule->src, n, outv[0], err);
  if (st == RG_OK) st = rg_eval_full_z127(pp->plan[1], ctx, ins, pp->rule->tgt, n, outv[1], err);
  for (int k = 0; k < n && st == RG_OK; k++) {
    int64_t cnt = rg_shape_numel(rg_plan_shape(pp->plan[0], pp->rule->src[k]));
    for (int64_t i = 0; i < cnt; i++) diff[k][i] |= outv[0][k][i] != outv[1][k][i];
  }
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < n; k++) free(outv[s][k]);
  for (int32_t v = 0; in && v < nt; v++) free(in[v]);
  free(in);
  return st;
}

rg_status rg_pet_full(const rg_pet_pair *pp, const rg_pet_opts *o, uint8_t **diff, rg_err *err) {
  int n = pp->rule->n_src;
  for (int k = 0; k < n; k++) diff[k] = NULL;
  rg_status st = check_opts(o, err);
  if (st) return st;
  uint64_t seed = rg_pet_seed(pp, o->p, o->trials);
  uint64_t *keys = rg_pet_input_keys(pp, seed, o->trials);
  int32_t nt = rg_graph_n_tvars(pp->rule->g);
  bool wide = o->p == RG_Z127_Q;
  rg_value **in = calloc((size_t)nt + 1, sizeof *in);
  if (!keys || !in) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int k = 0; k < n && st == RG_OK; k++) {
    diff[k] = calloc((size_t)rg_shape_numel(rg_plan_shape(pp->plan[0], pp->rule->src[k])) + 1, 1);
    if (!diff[k]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, seed);
  for (int t = 0; t < o->trials && st == RG_OK; t++) {
    if (cancelled(o)) {
      st = rg_err_set(err, RG_ERR_ARG, "interrupted");
      break;
    }
    if (wide) {
      st = full_trial_z127(pp, &ctx, keys + (size_t)t * (size_t)nt, diff, err);
      continue;
    }
    for (int32_t v = 0; v < nt && st == RG_OK; v++) {
      int64_t cnt = rg_shape_numel(&pp->shapes[v]);
      free(in[v]);
      in[v] = malloc(sizeof **in * (size_t)(cnt + 1));
      if (!in[v]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory for inputs");
      uint64_t key = keys[(size_t)t * (size_t)nt + (size_t)v];
      for (int64_t i = 0; in[v] && i < cnt; i++) in[v][i] = rg_random_value(RG_DOM_ZP, key, 0, i);
    }
    rg_value *outv[2][RG_RULE_MAX_OUTPUTS] = {{0}};
    if (st == RG_OK) st = rg_eval_full(pp->plan[0], RG_DOM_ZP, &ctx, (const rg_value *const *)in, pp->rule->src, n, outv[0], err);
    if (st == RG_OK) st = rg_eval_full(pp->plan[1], RG_DOM_ZP, &ctx, (const rg_value *const *)in, pp->rule->tgt, n, outv[1], err);
    for (int k = 0; k < n && st == RG_OK; k++) {
      int64_t cnt = rg_shape_numel(rg_plan_shape(pp->plan[0], pp->rule->src[k]));
      for (int64_t i = 0; i < cnt; i++) diff[k][i] |= outv[0][k][i].z != outv[1][k][i].z;
    }
    for (int s = 0; s < 2; s++)
      for (int k = 0; k < n; k++) free(outv[s][k]);
  }
  for (int32_t v = 0; in && v < nt; v++) free(in[v]);
  free(in);
  free(keys);
  if (st)
    for (int k = 0; k < n; k++) free(diff[k]), diff[k] = NULL;
  return st;
}
