/* tests/test_prune_general.c: the subgraph stage with rules named as more general
 * (rg_prune_opts.general_of, as the generalize stage of rulegen names them): a candidate that is
 * an instance of a kept generalization is removed, also through a renamed copy of it; a named
 * rule it is not an instance of leaves it kept, and so does one usable in fewer directions (a
 * split that cannot be read merging-wise); without names nothing changes; the records audit. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "check.h"
#include "prune/prune.h"

static const char *const rules =
    "r: (ewadd (concat 0 ?a ?b) (concat 0 ?c ?a)) => (concat 0 (ewadd ?a ?c) (ewadd ?b ?a))\n"
    "g: (ewadd (concat 0 ?a ?b) (concat 0 ?c ?d)) => (concat 0 (ewadd ?a ?c) (ewadd ?b ?d))\n"
    "g2: (ewadd (concat 0 ?p ?q) (concat 0 ?r ?s)) => (concat 0 (ewadd ?p ?r) (ewadd ?q ?s))\n"
    "r2: (ewadd (concat 0 ?x ?x) (concat 0 ?y ?z)) => (concat 0 (ewadd ?x ?y) (ewadd ?x ?z))\n"
    "comm: (ewadd ?a ?b) => (ewadd ?b ?a)\n"
    "r3: (ewmul (concat 0 ?a ?b) (concat 0 ?c ?a)) => (concat 0 (ewmul ?a ?c) (ewmul ?b ?a))\n";

static rg_prune_result run(const rg_ruleset *rs, const int *off, const int *of) {
  rg_prune_opts o = rg_prune_opts_default();
  o.stages = RG_PRUNE_RENAMING | RG_PRUNE_SUBGRAPH;
  o.general_off = off, o.general_of = of;
  rg_prune_result res;
  rg_err err;
  CHECK(rg_prune_run(rs, &o, &res, &err) == RG_OK);
  return res;
}

int main(void) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  CHECK(rg_text_parse(rules, strlen(rules), &rs, &err) == RG_OK && rs.n == 6);

  /* without names: only the renamed copy g2 goes */
  rg_prune_result res = run(&rs, NULL, NULL);
  CHECK(res.e[0].fate == RG_FATE_KEPT && res.e[3].fate == RG_FATE_KEPT &&
        res.e[5].fate == RG_FATE_KEPT);
  CHECK(res.e[2].fate == RG_FATE_RENAMING);
  rg_prune_result_free(&res);

  /* r names g, r2 names the renamed copy g2 (resolved to g), r3 names comm (not an instance) */
  int off[7] = {0, 1, 1, 1, 2, 2, 3}, of[3] = {1, 2, 4};
  res = run(&rs, off, of);
  CHECK(res.e[0].fate == RG_FATE_SUBGRAPH && res.e[0].n_by == 1 && res.e[0].by[0] == 1);
  CHECK(res.e[3].fate == RG_FATE_SUBGRAPH && res.e[3].n_by == 1 && res.e[3].by[0] == 1);
  CHECK(res.e[1].fate == RG_FATE_KEPT && res.e[4].fate == RG_FATE_KEPT);
  CHECK(res.e[5].fate == RG_FATE_KEPT);
  CHECK(res.kept == 3);

  /* the records check against the kept rules */
  rg_ruleset kept;
  rg_ruleset_init(&kept);
  const char *kept_text =
      "(ewadd (concat 0 ?a ?b) (concat 0 ?c ?d)) => (concat 0 (ewadd ?a ?c) (ewadd ?b ?d))\n"
      "(ewadd ?a ?b) => (ewadd ?b ?a)\n"
      "(ewmul (concat 0 ?a ?b) (concat 0 ?c ?a)) => (concat 0 (ewmul ?a ?c) (ewmul ?b ?a))\n";
  CHECK(rg_text_parse(kept_text, strlen(kept_text), &kept, &err) == RG_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(f && rg_prune_write_records(f, &rs, &res, &err) == RG_OK && rg_prune_write_records_end(f, &err) == RG_OK);
  fclose(f);
  rg_audit_report rep;
  rg_status st = rg_prune_audit(&kept, buf, len, &rep, &err);
  CHECK_MSG(st == RG_OK, "audit: %d:%d: %s", err.line, err.col, err.msg);
  CHECK(rep.by_reason[RG_FATE_SUBGRAPH] == 2 && rep.by_reason[RG_FATE_RENAMING] == 1);

  /* g fails its proof: both instances come back */
  bool dropped[6] = {false, true, false, false, false, false};
  CHECK(rg_prune_reinstate(&res, dropped) == 3); /* r, r2 and the renamed copy g2 */
  CHECK(res.e[0].fate == RG_FATE_KEPT && res.e[3].fate == RG_FATE_KEPT);
  free(buf);
  rg_ruleset_free(&kept);
  rg_prune_result_free(&res);
  rg_ruleset_free(&rs);

  /* the merge (usable both ways) and its generalization with the products' operands apart,
   * usable only splitting-wise (merging, it would invent ?w2 and ?w1_1): the merge stays. A
   * generalization usable both ways still takes an instance (r above). */
  const char *merges =
      "m: (split.0 1 (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1 (matmul ?x (concat 1 ?w1 ?w2))) => "
      "(matmul ?x ?w1) ; (matmul ?x ?w2)\n"
      "mg: (split.0 1 (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1 (matmul ?x_1 (concat 1 ?w1_1 ?w2_1))) => "
      "(matmul ?x ?w1) ; (matmul ?x_1 ?w2_1)\n";
  rg_ruleset_init(&rs);
  CHECK(rg_text_parse(merges, strlen(merges), &rs, &err) == RG_OK && rs.n == 2);
  int moff[3] = {0, 1, 1}, mof[1] = {1};
  res = run(&rs, moff, mof);
  CHECK(res.e[0].fate == RG_FATE_KEPT && res.e[1].fate == RG_FATE_KEPT);
  rg_prune_result_free(&res);
  rg_ruleset_free(&rs);
  return check_done("test_prune_general");
}
