/* bench/verify_bench_retest.c: the test stage again, on candidates a run already wrote.
 *
 * usage: verify_bench_retest FILE.rules [SEED]   (SEED: the test seed, default 2 as rulegen's)
 * Each rule's variables are bound to the shapes of TASO's default input set by name (how the
 * enumerator names them), and the rule is tested exactly as the synth test stage tests it
 * (rg_randtest_rule_cached, default options, fingerprint/'s whole-node kernels). Prints the rules
 * that now fail, with their line and verdict, then one count per verdict: what a change to the test
 * stage would have dropped from a saved sample, without repeating the enumeration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enumerate/enumerate.h"
#include "fingerprint/fingerprint.h"
#include "ir/ir.h"
#include "verify/verify.h"

static const rg_shape *input_shape(const rg_enum_inputset *in, const char *name) {
  for (int i = 0; i < in->n; i++)
    if (!strcmp(in->in[i].name, name)) return &in->in[i].shape;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: verify_bench_retest FILE.rules [SEED]\n");
    return 2;
  }
  rg_ruleset rs;
  rg_ruleset_init(&rs); /* the parse appends to it */
  rg_err err;
  if (rg_text_parse_file(argv[1], &rs, &err)) {
    fprintf(stderr, "verify_bench_retest: %s: %s\n", argv[1], err.msg);
    return 2;
  }
  rg_enum_inputset in;
  rg_enum_inputs_default(&in);
  rg_randtest_opts o;
  rg_randtest_opts_default(&o);
  if (argc == 3) o.seed = strtoull(argv[2], NULL, 10);
  o.kernel = rg_fp_node_kernel; /* as synth/candidates.c tests */
  rg_randtest_cache *cache = rg_randtest_cache_new((size_t)64 << 20);
  int count[RG_RANDTEST_COUNT] = {0}, unbound = 0, failed = 0;
  for (int i = 0; cache && i < rs.n; i++) {
    const rg_rule *r = rs.rules[i];
    const rg_shape *shapes[64];
    int32_t nt = rg_graph_n_tvars(r->g);
    bool bound = nt <= 64 && rg_graph_n_pvars(r->g) == 0;
    for (int32_t q = 0; bound && q < nt; q++)
      bound = (shapes[q] = input_shape(&in, rg_graph_tvar_name(r->g, q)));
    if (!bound) {
      unbound++; /* a variable that is no input (generalized), or a parameter variable */
      continue;
    }
    rg_binding base = {shapes, NULL, NULL};
    rg_randtest_verdict v;
    bool hit;
    if (rg_randtest_rule_cached(cache, r, &base, &o, &v, &hit, &err)) {
      fprintf(stderr, "%s:%d: %s\n", argv[1], r->line, err.msg);
      failed++;
      continue;
    }
    count[v]++;
    if (v != RG_RANDTEST_PASS) printf("%s:%d: %s\n", argv[1], r->line, rg_randtest_verdict_name(v));
  }
  printf("%d rules:", rs.n);
  for (int v = 0; v < RG_RANDTEST_COUNT; v++)
    if (count[v]) printf(" %d %s,", count[v], rg_randtest_verdict_name((rg_randtest_verdict)v));
  printf(" %d not bound to the default inputs, %d errors\n", unbound, failed);
  rg_randtest_cache_free(cache);
  rg_ruleset_free(&rs);
  return cache && !failed ? 0 : 1;
}
