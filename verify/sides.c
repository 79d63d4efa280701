/* verify/sides.c: a rule's sides compared, a graph's outputs shown, the examples
 * (verify/sides.h). */
#include "sides.h"

#include <stdlib.h>

/* The examples: a few true rules of TASO's kind at TASO's shapes. */
static const rg_sides_example examples[] = {
    {"matmul-assoc: (matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))",
     "x=2x4 y=4x4 z=4x4"},
    {"conv-relu: (relu (conv2d ?i ?w)) => (conv2d 1 1 same relu ?i ?w)",
     "i=2x4x5x5 w=4x4x3x3"},
    {"concat-matmul: (matmul ?x ?w1) ; (matmul ?x ?w2) => "
     "(split.0 1 (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1 (matmul ?x (concat 1 ?w1 ?w2)))",
     "x=2x4 w1=4x4 w2=4x4"},
    {"enlarge: (conv2d ?i ?w) => (conv2d ?i (enlarge 3 3 ?w))",
     "i=2x4x5x5 w=4x4x1x3"},
    {"pool-by-conv: (poolavg 3 3 1 1 same none ?i) => (conv2d ?i (Cpool 4 3 3))",
     "i=2x4x5x5"},
    {"grouped-conv: (concat 1 (conv2d ?i ?w) (conv2d ?j ?v)) => "
     "(conv2d 1 1 same none 1 1 2 (concat 1 ?i ?j) (concat 0 ?w ?v))",
     "i=2x4x5x5 j=2x4x5x5 w=4x4x3x3 v=4x4x3x3"},
    {"transpose-matmul: (transpose 10 (matmul ?x ?y)) => (matmul (transpose 10 ?y) (transpose 10 ?x))",
     "x=2x4 y=4x4"},
};

const rg_sides_example *rg_sides_examples(int *n) {
  *n = (int)(sizeof examples / sizeof examples[0]);
  return examples;
}

/* One domain's verdict line. */
static void print_verdict(FILE *out, rg_domain dom, const rg_cmp_result *c, int trials) {
  fprintf(out, "  %-8s ", rg_domain_name(dom));
  if (c->verdict == RG_CMP_AGREE) {
    fprintf(out, "agree (%d trial%s)\n", trials, trials == 1 ? "" : "s");
  } else if (c->verdict == RG_CMP_TYPE) {
    char a[128], t[128];
    fprintf(out, "differ: output %d is %s on the source but %s on the target\n", c->output + 1,
            rg_shape_format_seams(&c->src_shape, a, sizeof a), rg_shape_format_seams(&c->tgt_shape, t, sizeof t));
  } else {
    char a[64], t[64];
    rg_value_format(dom, c->src_val, a, sizeof a);
    rg_value_format(dom, c->tgt_val, t, sizeof t);
    fprintf(out, "differ: output %d at position [", c->output + 1);
    for (int d = 0; d < c->src_shape.rank; d++) fprintf(out, "%s%d", d ? "," : "", c->pos[d]);
    fprintf(out, "] (trial %d): source %s, target %s\n", c->trial + 1, a, t);
  }
}

rg_status rg_sides_compare_print(FILE *out, const rg_rule *r, const rg_binding *b, const rg_sides_opts *o,
                                 bool *differs, rg_err *err) {
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, o->seed);
  rg_cmp_result res[2];
  for (int d = 0; d < 2; d++) {
    rg_status st = rg_rule_compare(r, b, (rg_domain)d, &ctx, o->seed, o->trials, &res[d], err);
    if (st) return st;
  }
  *differs = res[0].verdict != RG_CMP_AGREE || res[1].verdict != RG_CMP_AGREE;
  if (o->quiet && !*differs) return RG_OK;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  fprintf(out, "%s\n  shapes: ", rg_sb_str(&sb));
  rg_sb_clear(&sb);
  rg_binding_put(&sb, r->g, b);
  fprintf(out, "%s\n", rg_sb_str(&sb));
  rg_sb_free(&sb);
  for (int d = 0; d < 2; d++) print_verdict(out, (rg_domain)d, &res[d], o->trials);
  fprintf(out, "  => %s\n", *differs ? "DIFFER" : "agree");
  return RG_OK;
}

/* Output k of a domain: its shape and first four values. */
static void print_output(FILE *out, const rg_plan *plan, const rg_rule *r, rg_domain dom, int k,
                         const rg_value *v) {
  const rg_shape *s = rg_plan_shape(plan, r->src[k]);
  char buf[128];
  fprintf(out, "  %-7s output %d: %s =", rg_domain_name(dom), k + 1, rg_shape_format_seams(s, buf, sizeof buf));
  int64_t cnt = rg_shape_numel(s);
  for (int64_t i = 0; i < cnt && i < 4; i++) {
    rg_value_format(dom, v[i], buf, sizeof buf);
    fprintf(out, " %s", buf);
  }
  fprintf(out, "%s\n", cnt > 4 ? " ..." : "");
}

rg_status rg_graph_outputs_print(FILE *out, const rg_rule *r, const rg_binding *b, uint64_t seed, rg_err *err) {
  rg_plan *plan;
  rg_status st = rg_rule_plan_side(r, b, false, &plan, err);
  if (st) return st;
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, seed);
  for (int d = 0; d < 2 && st == RG_OK; d++) {
    rg_value *outv[RG_RULE_MAX_OUTPUTS] = {0};
    st = rg_plan_eval_random(plan, r->src, r->n_src, (rg_domain)d, &ctx, seed, outv, err);
    for (int k = 0; st == RG_OK && k < r->n_src; k++) print_output(out, plan, r, (rg_domain)d, k, outv[k]);
    for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++) free(outv[k]);
  }
  rg_plan_free(plan);
  return st;
}
