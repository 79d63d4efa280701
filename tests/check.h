/* tests/check.h: a minimal test harness: CHECK records a failure and goes on, so one run shows
 * every broken assertion; main returns non-zero when any failed. Plus helpers to build and
 * evaluate graphs from text. */
#ifndef RG_TESTS_CHECK_H
#define RG_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

static int check_failures, check_count;

#define CHECK(cond)                                                                              \
  do {                                                                                           \
    check_count++;                                                                               \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                   \
      check_failures++;                                                                          \
    }                                                                                            \
  } while (0)

#define CHECK_MSG(cond, ...)                                                                     \
  do {                                                                                           \
    check_count++;                                                                               \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                   \
      fprintf(stderr, __VA_ARGS__);                                                              \
      fprintf(stderr, "\n");                                                                     \
      check_failures++;                                                                          \
    }                                                                                            \
  } while (0)

static inline int check_done(const char *name) {
  printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
  return check_failures ? 1 : 0;
}

/* A parsed one-line graph or rule with shapes bound by name ("x=2x4 w=4x4"). */
typedef struct {
  rg_rule *r;
  rg_shape shapes[16];
  const rg_shape *shape_ptr[16];
  rg_plan *plan;
  rg_binding b;
} t_graph;

static inline int t_graph_open(t_graph *t, const char *text, const char *shapes) {
  memset(t, 0, sizeof *t);
  rg_err err;
  if (rg_text_parse_rule(text, &t->r, &err) != RG_OK) {
    fprintf(stderr, "parse failed for %s: %d:%d: %s\n", text, err.line, err.col, err.msg);
    return -1;
  }
  const char *p = shapes;
  while (*p) {
    while (*p == ' ') p++;
    const char *eq = strchr(p, '='), *end = strchr(p, ' ');
    if (!end) end = p + strlen(p);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
    int32_t v = rg_graph_find_tvar(t->r->g, name);
    if (v >= 0 && rg_shape_parse(eq + 1, (int)(end - eq - 1), &t->shapes[v], &err) == RG_OK)
      t->shape_ptr[v] = &t->shapes[v];
    p = end;
  }
  t->b = (rg_binding){t->shape_ptr, NULL, NULL};
  rg_ref all[2 * RG_RULE_MAX_OUTPUTS];
  memcpy(all, t->r->src, sizeof(rg_ref) * (size_t)t->r->n_src);
  memcpy(all + t->r->n_src, t->r->tgt, sizeof(rg_ref) * (size_t)t->r->n_tgt);
  if (rg_plan_new(t->r->g, all, t->r->n_src + t->r->n_tgt, t->shape_ptr, NULL, NULL, &t->plan,
                  &err) != RG_OK) {
    fprintf(stderr, "plan failed for %s: %s\n", text, err.msg);
    rg_rule_free(t->r);
    return -1;
  }
  return 0;
}

static inline void t_graph_close(t_graph *t) {
  rg_plan_free(t->plan);
  rg_rule_free(t->r);
}

/* Evaluates source output `out` with integer inputs ins[var] in a domain. */
static inline rg_value *t_eval_ints(t_graph *t, rg_domain dom, const rg_eval_ctx *ctx,
                                    const int64_t *const *ins, int out) {
  int32_t nt = rg_graph_n_tvars(t->r->g);
  rg_value *in[16] = {0};
  for (int32_t v = 0; v < nt; v++) {
    int64_t n = rg_shape_numel(t->shape_ptr[v]);
    in[v] = malloc(sizeof(rg_value) * (size_t)n);
    for (int64_t i = 0; i < n; i++) in[v][i] = rg_value_from_int(dom, ins[v][i]);
  }
  rg_value *res = NULL;
  rg_err err;
  if (rg_eval_full(t->plan, dom, ctx, (const rg_value *const *)in, &t->r->src[out], 1, &res, &err))
    fprintf(stderr, "eval failed: %s\n", err.msg);
  for (int32_t v = 0; v < nt; v++) free(in[v]);
  return res;
}

#endif
