/* tests/test_prune_planted.c: pruning never removes a rule that the others do not imply.
 *
 * TASO's 133 shipped rules are true. Each is mutated (an operator of its target swapped:
 * ewadd <-> ewmul, relu -> tanh); the mutants that are well-typed at TASO's shapes and differ
 * from their source in Z_p are false, so no derivation from true rules can reach them. Each
 * false mutant is planted alone among the 133 and the whole set pruned with every stage: the
 * mutant must be kept, whatever else goes.
 */
#include "check.h"
#include "prune/prune.h"

static const struct {
  const char *name, *shape;
} legend[] = {{"v1", "2x4"},      {"v2", "2x4"},      {"v3", "2x4"},      {"v4", "4x4"},
              {"v5", "4x4"},      {"v6", "4x4"},      {"v7", "2x4x5x5"},  {"v8", "2x4x5x5"},
              {"v9", "2x4x5x5"},  {"v10", "4x4x3x3"}, {"v11", "4x4x3x3"}, {"v12", "4x4x3x3"},
              {"v13", "4x4x1x3"}, {"v14", "4x4x1x3"}, {"v15", "4x4x1x3"}, {"v16", "4x4x3x1"},
              {"v17", "4x4x3x1"}, {"v18", "4x4x3x1"}, {"v19", "4x1x3x3"}, {"v20", "scalar"}};

/* Whether r is well-typed at TASO's shapes and its sides differ in Z_p. */
static bool is_false(const rg_rule *r) {
  int32_t nt = rg_graph_n_tvars(r->g);
  rg_shape shapes[32];
  const rg_shape *ptr[32] = {0};
  rg_err err;
  for (int32_t v = 0; v < nt && v < 32; v++)
    for (size_t k = 0; k < sizeof legend / sizeof legend[0]; k++)
      if (!strcmp(rg_graph_tvar_name(r->g, v), legend[k].name) &&
          rg_shape_parse(legend[k].shape, (int)strlen(legend[k].shape), &shapes[v], &err) == RG_OK)
        ptr[v] = &shapes[v];
  rg_binding b = {ptr, NULL, NULL};
  if (!rg_rule_well_typed(r, &b)) return false;
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, 7);
  rg_cmp_result res;
  if (rg_rule_compare(r, &b, RG_DOM_ZP, &ctx, 7, 2, &res, &err) != RG_OK) return false;
  return res.verdict != RG_CMP_AGREE;
}

/* The mutant of rule text t: the first operator of the target found in swaps is replaced. */
static bool mutate(const char *t, char *out, size_t n) {
  static const char *const swaps[][2] = {
      {"(ewadd ", "(ewmul "}, {"(ewmul ", "(ewadd "}, {"(relu ", "(tanh "}};
  const char *arrow = strstr(t, " => ");
  if (!arrow) return false;
  for (size_t s = 0; s < sizeof swaps / sizeof swaps[0]; s++) {
    const char *at = strstr(arrow, swaps[s][0]);
    if (!at) continue;
    snprintf(out, n, "%.*s%s%s", (int)(at - t), t, swaps[s][1], at + strlen(swaps[s][0]));
    return true;
  }
  return false;
}

int main(void) {
  rg_ruleset base;
  rg_ruleset_init(&base);
  rg_err err;
  rg_status st = rg_text_parse_file("data/prune/taso-133.rules", &base, &err);
  CHECK_MSG(st == RG_OK, "%s", err.msg);
  rg_strbuf all, one;
  rg_sb_init(&all);
  rg_sb_init(&one);
  for (int i = 0; i < base.n; i++) {
    rg_text_print_rule(base.rules[i], &all);
    rg_sb_puts(&all, "\n");
  }
  int planted = 0;
  for (int i = 0; i < base.n; i++) {
    rg_sb_clear(&one);
    rg_text_print_rule(base.rules[i], &one);
    char mutant[2048];
    rg_rule *m = NULL;
    if (!mutate(rg_sb_str(&one), mutant, sizeof mutant) ||
        rg_text_parse_rule(mutant, &m, &err) != RG_OK)
      continue;
    bool bad = is_false(m);
    rg_rule_free(m);
    if (!bad) continue;
    planted++;
    rg_ruleset rs;
    rg_ruleset_init(&rs);
    rg_strbuf text;
    rg_sb_init(&text);
    rg_sb_printf(&text, "%s%s\n", rg_sb_str(&all), mutant);
    CHECK(rg_text_parse(text.s, text.len, &rs, &err) == RG_OK && rs.n == base.n + 1);
    rg_prune_opts o = rg_prune_opts_default();
    rg_prune_result res;
    st = rg_prune_run(&rs, &o, &res, &err);
    CHECK_MSG(st == RG_OK, "%s", err.msg);
    CHECK_MSG(st != RG_OK || res.e[rs.n - 1].fate == RG_FATE_KEPT, "false rule removed (%s): %s",
              rg_prune_fate_name(res.e[rs.n - 1].fate), mutant);
    rg_prune_result_free(&res);
    rg_ruleset_free(&rs);
    rg_sb_free(&text);
  }
  /* the test means something only if enough false rules were planted */
  CHECK_MSG(planted >= 40, "only %d false mutants", planted);
  printf("planted %d false rules, one at a time\n", planted);
  rg_sb_free(&all);
  rg_sb_free(&one);
  rg_ruleset_free(&base);
  return check_done("test_prune_planted");
}
