/* tests/test_prune_index.c: the pattern index returns every pattern that matches a term (it
 * may only leave out patterns rg_match rejects), in increasing id order, and leaves most of the
 * others out. Patterns and terms are every operator sub-term of TASO's 133 rules (multi-output
 * split, concat) and of rules with parameter variables. A pattern's instance under the match is
 * the term: its size computed without building it (rg_instance_size, walking the bound terms or
 * reading their kept sizes) is the term's, and never below the least size a rewriter claims for it
 * before matching (rg_rewriter_least_size). */
#include "check.h"
#include "match/match.h"
#include "match/pattern_index.h"
#include "prune/rewrite.h"

typedef struct {
  const rg_graph *g;
  rg_ref r;
} term;

typedef struct {
  term *t;
  int n, cap;
} term_list;

static void add_subterms(term_list *l, const rg_graph *g, rg_ref root) {
  rg_position *pos;
  int n;
  rg_err err;
  if (rg_term_positions(g, root, &pos, &n, &err) != RG_OK) return;
  for (int p = 0; p < n; p++) {
    if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 256;
      l->t = realloc(l->t, sizeof *l->t * (size_t)l->cap);
    }
    l->t[l->n++] = (term){g, pos[p].sub};
  }
  free(pos);
}

/* Parameter variables: bound by concrete values in TASO's rules, by variables in these. */
static const char param_rules[] =
    "(split.0 ?a (concat ?a ?x ?y)) => ?x\n"
    "(split.1 ?a (concat ?a ?x ?y)) => ?y\n"
    "(concat 0 (enlarge ?kh ?kw ?x) (enlarge ?kh ?kw ?y)) => (enlarge ?kh ?kw (concat 0 ?x ?y))\n"
    "(transpose 10 (concat ?a ?x ?y)) => (concat 1 (transpose 10 ?x) (transpose 10 ?y))\n"
    "(concat ?a ?x ?y ?z) => (concat ?a (concat ?a ?x ?y) ?z)\n";

static void add_rules(term_list *l, rg_ruleset *rs, const char *path) {
  rg_err err;
  rg_ruleset_init(rs);
  rg_status st = path ? rg_text_parse_file(path, rs, &err)
                      : rg_text_parse(param_rules, strlen(param_rules), rs, &err);
  CHECK_MSG(st == RG_OK, "%s: %s\n", path ? path : "param_rules", err.msg);
  for (int i = 0; i < rs->n; i++) {
    const rg_rule *r = rs->rules[i];
    for (int k = 0; k < r->n_src; k++)
      add_subterms(l, r->g, r->src[k]);
    for (int k = 0; k < r->n_tgt; k++)
      add_subterms(l, r->g, r->tgt[k]);
  }
}

/* Sizes past 2^20, which a search's bound can pass (a side of 2^20 operators and its growth): the
 * kept sizes are exact there, where rg_term_size's usual cap of 2^20 is not. */
static void test_large_sizes(void) {
  rg_graph *g = rg_graph_new();
  rg_ref t = {rg_graph_input(g, rg_graph_tvar(g, "a", 1)), 0};
  for (int k = 0; k < 22; k++) { /* a tree of 2^22 - 1 operators in 22 nodes */
    rg_node n = rg_node_init(RG_OP_EWADD);
    n.n_in = 2, n.in[0] = n.in[1] = t;
    t = (rg_ref){rg_graph_add(g, &n), 0};
  }
  rg_term_sizes known = {0};
  rg_err err;
  CHECK(rg_term_sizes_update(&known, g, &err) == RG_OK);
  CHECK_MSG(known.size[t.node] == (1 << 22) - 1, "size %d", known.size[t.node]);
  CHECK(rg_term_size(g, t, 1 << 20) == 1 << 20);
  rg_term_sizes_free(&known);
  rg_graph_free(g);
}

/* The least size a rewriter claims before matching is at most its instance's at every term it
 * matches, and at that size exactly for some (the bound that keeps variables is used). */
static void test_least_sizes(const term_list *all, rg_ruleset *const *sets, int n_sets) {
  rg_rewrite_set *s = rg_rewrite_set_new();
  rg_err err;
  int tag = 0;
  for (int k = 0; k < n_sets; k++)
    for (int i = 0; i < sets[k]->n; i++)
      CHECK(rg_rewrite_set_add(s, sets[k]->rules[i], tag++, NULL, &err) == RG_OK);
  int32_t nt, np;
  rg_rewrite_set_max_vars(s, &nt, &np);
  rg_match_env env;
  CHECK(rg_match_env_init(&env, nt, np, &err) == RG_OK);
  long over = 0, exact = 0, above_rhs = 0, keeps = 0;
  for (int k = 0; k < rg_rewrite_set_size(s); k++) {
    const rg_rewriter *w = rg_rewrite_set_at(s, k);
    keeps += w->keeps_vars;
    for (int j = 0; j < all->n; j++) {
      rg_match_env_reset(&env);
      if (!rg_match(w->g, w->lhs, all->t[j].g, all->t[j].r, &env)) continue;
      int least = rg_rewriter_least_size(w, rg_term_size(all->t[j].g, all->t[j].r, 1 << 20));
      int size = rg_instance_size(w->g, w->rhs, &env, all->t[j].g, NULL, 1 << 20);
      over += least > size;
      exact += least == size;
      above_rhs += least > w->rhs_ops;
    }
  }
  CHECK_MSG(over == 0, "%ld least sizes above the instance's\n", over);
  CHECK(exact > 0 && above_rhs > 0 && keeps > 0 && keeps < rg_rewrite_set_size(s));
  rg_match_env_free(&env);
  rg_rewrite_set_free(s);
}

int main(void) {
  test_large_sizes();
  term_list all = {0};
  rg_ruleset taso, params;
  add_rules(&all, &taso, "data/taso-133.rules");
  add_rules(&all, &params, NULL);
  CHECK(all.n > 800);
  test_least_sizes(&all, (rg_ruleset *[]){&taso, &params}, 2);
  rg_pattern_index *x = rg_pattern_index_new();
  rg_err err;
  int32_t nt = 0, np = 0;
  for (int i = 0; i < all.n; i++) {
    CHECK(rg_pattern_index_add(x, all.t[i].g, all.t[i].r, i, &err) == RG_OK);
    if (rg_graph_n_tvars(all.t[i].g) > nt) nt = rg_graph_n_tvars(all.t[i].g);
    if (rg_graph_n_pvars(all.t[i].g) > np) np = rg_graph_n_pvars(all.t[i].g);
  }
  CHECK(rg_pattern_index_add(x, all.t[0].g, all.t[0].r, 0, &err) == RG_ERR_ARG);
  rg_match_env env;
  CHECK(rg_match_env_init(&env, nt, np, &err) == RG_OK);
  uint8_t *found = calloc((size_t)all.n, 1);
  rg_id_list got = {0};
  long returned = 0, matched = 0, missed = 0, unordered = 0, missized = 0;
  for (int j = 0; j < all.n; j++) {
    CHECK(rg_pattern_index_lookup(x, all.t[j].g, all.t[j].r, &got, &err) == RG_OK);
    memset(found, 0, (size_t)all.n);
    for (int k = 0; k < got.n; k++) {
      found[got.id[k]] = 1;
      unordered += k > 0 && got.id[k] <= got.id[k - 1];
    }
    returned += got.n;
    bool self = false;
    rg_term_sizes known = {0}; /* the sizes a search keeps for its graph */
    CHECK(rg_term_sizes_update(&known, all.t[j].g, &err) == RG_OK);
    CHECK(known.n == rg_graph_size(all.t[j].g));
    for (int i = 0; i < all.n; i++) {
      rg_match_env_reset(&env);
      if (!rg_match(all.t[i].g, all.t[i].r, all.t[j].g, all.t[j].r, &env)) continue;
      matched++;
      missed += !found[i];
      int size = rg_term_size(all.t[j].g, all.t[j].r, 1 << 20);
      missized += rg_instance_size(all.t[i].g, all.t[i].r, &env, all.t[j].g, NULL, 1 << 20) != size;
      missized += rg_instance_size(all.t[i].g, all.t[i].r, &env, all.t[j].g, NULL, 2) != (size < 2 ? size : 2);
      missized += known.size[all.t[j].r.node] != size;
      missized += rg_instance_size(all.t[i].g, all.t[i].r, &env, all.t[j].g, &known, 1 << 20) != size;
      missized += rg_instance_size(all.t[i].g, all.t[i].r, &env, all.t[j].g, &known, 3) != (size < 3 ? size : 3);
      self = self || i == j;
    }
    CHECK(self); /* a pattern matches itself */
    rg_term_sizes_free(&known);
  }
  CHECK_MSG(missed == 0, "%ld matching patterns not returned\n", missed);
  CHECK(unordered == 0);
  CHECK_MSG(missized == 0, "%ld instance sizes differ from their terms'\n", missized);
  CHECK(matched > all.n);
  /* The index is a filter: most of what it returns matches (bindings aside), and it returns a
   * small share of all patterns. */
  CHECK_MSG(returned < 2 * matched, "returned %ld, matched %ld\n", returned, matched);
  CHECK_MSG(returned * 10 < (long)all.n * all.n, "returned %ld of %ld\n", returned,
            (long)all.n * all.n);
  printf("%d patterns: %ld returned, %ld matched\n", all.n, returned, matched);
  rg_id_list_free(&got);
  free(found);
  rg_match_env_free(&env);
  rg_pattern_index_free(x);
  free(all.t);
  rg_ruleset_free(&taso);
  rg_ruleset_free(&params);
  return check_done("test_prune_index");
}
