/* tests/test_prune_planted.c: pruning never removes a rule that the others do not imply.
 *
 * TASO's 133 shipped rules are true (at the shapes their file records). Each is mutated (an
 * operator of its target swapped: ewadd <-> ewmul, relu -> tanh); the mutants that are well-typed
 * at TASO's shapes and differ from their source in Z_p are false, so no derivation from true rules
 * can reach them. Each false mutant is planted alone among the 133 and the whole set pruned with
 * every stage: the mutant must be kept, whatever else goes.
 */
#include "check.h"
#include "prune/prune.h"

/* The shapes recorded in the file's "# shapes: -s NAME=DIMS ..." header line. */
typedef struct {
  rg_shape shape[64];
  char names[64][32];
  int n;
} legend;

static void read_legend(const char *path, legend *l) {
  l->n = 0;
  FILE *f = fopen(path, "r");
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "# shapes:", 9) != 0) continue;
    for (char *p = strstr(line, "-s "); p && l->n < 64; p = strstr(p + 3, "-s ")) {
      char *eq = strchr(p + 3, '='), *end = eq ? strpbrk(eq, " \n") : NULL;
      rg_err err;
      if (!eq || !end || eq - (p + 3) >= 32) continue;
      snprintf(l->names[l->n], 32, "%.*s", (int)(eq - (p + 3)), p + 3);
      if (rg_shape_parse(eq + 1, (int)(end - eq - 1), &l->shape[l->n], &err) == RG_OK) l->n++;
    }
  }
  if (f) fclose(f);
}

/* Whether r is well-typed at TASO's shapes and its sides differ in Z_p. */
static bool is_false(const rg_rule *r, const legend *l) {
  int32_t nt = rg_graph_n_tvars(r->g);
  rg_shape shapes[32];
  const rg_shape *ptr[32] = {0};
  rg_err err;
  for (int32_t v = 0; v < nt && v < 32; v++)
    for (int k = 0; k < l->n; k++)
      if (!strcmp(rg_graph_tvar_name(r->g, v), l->names[k]))
        shapes[v] = l->shape[k], ptr[v] = &shapes[v];
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
  rg_status st = rg_text_parse_file("data/taso-133.rules", &base, &err);
  CHECK_MSG(st == RG_OK, "%s", err.msg);
  legend *leg = calloc(1, sizeof *leg);
  read_legend("data/taso-133.rules", leg);
  CHECK_MSG(leg->n >= 20, "shapes header: %d variables", leg->n);
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
    bool bad = is_false(m, leg);
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
  free(leg);
  return check_done("test_prune_planted");
}
