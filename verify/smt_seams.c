/* verify/smt_seams.c: the seams function of the SMT encoding (see smt_facts.h).
 *
 * Seams are part of a tensor's type (ir/shape.h): an axiom such as conv-identity equates terms
 * of one type only where its operand has none, and says so in its guard, (= (seams ?x 1) 0).
 * (seams x k) names x's seams on axis k: 0 for none, equal numbers for equal seams (as the axiom
 * checker evaluates guards, verify/guard.c). The facts below let a solver establish a guard:
 * each says what an operator's result has, as ir/shape.c infers it. One says a tensor has seams
 * (a concat has one on its axis); with the hypothesis that a rule's outputs have equal seams
 * (smt.c) it tells apart ranks where the sides differ only in them. The matmul and transpose
 * facts that say which axis comes from where are stated only at the ranks where those operators
 * type, so that an ill-typed instance of an axiom cannot meet a concat's seam.
 */
#include "smt_facts.h"

#include <assert.h>

/* The seams S (%1$s) on axis k of the result (each result, for split) of each operator of a
 * group, in terms of its tensors x, w (first and second operand) and its Int parameters q0 ...
 * (ops.def order). */
typedef struct {
  const char *body;
  int n_in, n_ops;
  rg_op ops[4];
} seam_fact;

static const char KEEP[] = "(= %1$s (seams x k))";
static const char NONE[] = "(= %1$s 0)";

static const seam_fact facts[] = {
    {KEEP, 1, 3, {RG_OP_RELU, RG_OP_TANH, RG_OP_SIGMOID}},
    {KEEP, 2, 1, {RG_OP_SMUL}},
    /* two operands meeting elementwise keep an axis's seams only where both have the same */
    {"(= %1$s (ite (= (seams x k) (seams w k)) (seams x k) 0))", 2, 2, {RG_OP_EWADD, RG_OP_EWMUL}},
    /* bias keeps x's seams, but on its axis only those its vector has too (as ewadd's meet) */
    {"(= %1$s (ite (and (= k q0) (not (= (seams x k) (seams w 0)))) 0 (seams x k)))", 2, 1, {RG_OP_BIAS}},
    /* on its axis the operands' seams and where they join make the result's (which has seams,
     * left unstated: see above); off it they meet */
    {"(= %1$s (ite (= k q0) (seamcat (seams x k) (seams w k) (dim x k)) (ite (= (seams x k) (seams w k)) (seams x k) 0)))",
     2, 1, {RG_OP_CONCAT}},
    /* batch from the input, channels from the kernel's rows with one group (with more, those
     * that fall on group boundaries), no spatial seams */
    {"(and (=> (= k 0) (= %1$s (seams x 0))) (=> (and (= k 1) (= q6 1)) (= %1$s (seams w 0))) "
     "(=> (and (= k 1) (= (seams w 0) 0)) (= %1$s 0)) (=> (or (= k 2) (= k 3)) (= %1$s 0)))",
     2, 1, {RG_OP_CONV2D}},
    /* windows and enlarge keep N and C and drop the spatial axes' seams */
    {"(= %1$s (ite (or (= k 2) (= k 3)) 0 (seams x k)))", 1, 3, {RG_OP_POOLAVG, RG_OP_POOLMAX, RG_OP_ENLARGE}},
    /* each result axis comes from one operand's same axis, or both operands' (batch axes) meet;
     * where the operands have one rank r >= 2, rows (r - 2) come from x and columns (r - 1)
     * from w: stated only there, which every typed matmul is (ranks are in the size facts) */
    {"(and (=> (= (seams x k) (seams w k)) (= %1$s (seams x k))) "
     "(=> (and (= (rank x) (rank w)) (<= 2 (rank x))) "
     "(and (=> (= k (- (rank x) 2)) (= %1$s (seams x k))) "
     "(=> (= k (- (rank x) 1)) (= %1$s (seams w k))) "
     "(=> (and (<= 0 k) (< k (- (rank x) 2))) "
     "(= %1$s (ite (= (seams x k) (seams w k)) (seams x k) 0))))))",
     2, 1, {RG_OP_MATMUL}},
    /* a split part keeps its operand's seams off the axis */
    {"(=> (not (= k q0)) (= %1$s (seams x k)))", 1, 1, {RG_OP_SPLIT}},
    /* pad and slice drop their axis's seams and keep the others */
    {"(= %1$s (ite (= k q0) 0 (seams x k)))", 1, 2, {RG_OP_PAD, RG_OP_SLICE}},
    {NONE, 1, 1, {RG_OP_RESHAPE}},
    {NONE, 0, 4, {RG_OP_IEWMUL, RG_OP_IMATMUL, RG_OP_ICONV, RG_OP_CPOOL}},
};

static void put_fact(rg_strbuf *sb, rg_op op, int n_in, int out, int32_t fixed, const char *body) {
  rg_strbuf b, t, s;
  rg_sb_init(&b);
  rg_sb_init(&t);
  rg_sb_init(&s);
  rg_smt_quantified_term(op, n_in, out, fixed, &b, &t);
  rg_sb_printf(&s, "(seams %s k)", rg_sb_str(&t));
  rg_sb_printf(sb, "(assert (forall (%s(k Int)) (! ", rg_sb_str(&b));
  rg_sb_printf(sb, body, rg_sb_str(&s));
  rg_sb_printf(sb, " :pattern (%s))))\n", rg_sb_str(&s));
  if (b.failed || t.failed || s.failed) sb->failed = true;
  rg_sb_free(&b);
  rg_sb_free(&t);
  rg_sb_free(&s);
}

bool rg_smt_uses_concat(const fn_set *fs) {
  for (int n_in = 0; n_in <= RG_MAX_INPUTS; n_in++)
    if (fs->used[RG_OP_CONCAT][n_in][0]) return true;
  return false;
}

/* split's parts keep their operand's sizes off its axis and add up to it on it; stated only of
 * an operand with a seam there (one without has no parts). With the seams, as they need them;
 * dim and rank are declared: a concat is there. */
static void put_split_sizes(rg_strbuf *sb, const fn_set *fs) {
  for (int o = 0; o < 2; o++)
    if (fs->used[RG_OP_SPLIT][1][o])
      rg_sb_printf(sb, "(assert (forall ((a Int) (x T) (k Int)) (! (=> (and (<= 0 a) (< a (rank x)) "
                       "(not (= (seams x a) 0))) (= (dim (split.%d a x) k) (ite (= k a) %s (dim x k)))) "
                       ":pattern ((dim (split.%d a x) k)))))\n",
                   o, o ? "(- (dim x k) (dim (split.0 a x) k))" : "(dim (split.0 a x) k)", o);
}

void rg_smt_put_seam_facts(rg_strbuf *sb, const fn_set *fs, bool seamed) {
  rg_sb_puts(sb, "(declare-fun seams (T Int) Int)\n");
  if (!rg_smt_uses_concat(fs)) { /* seams come from concat alone: without one, no term has any */
    rg_sb_puts(sb, "(assert (forall ((x T) (k Int)) (! (= (seams x k) 0) :pattern ((seams x k)))))\n");
    return;
  }
  rg_sb_puts(sb, "(declare-fun seamcat (Int Int Int) Int)\n");
  put_split_sizes(sb, fs);
  if (seamed) /* a concat's seams name its operands' and where they join (outermost last) */
    rg_sb_puts(sb, "(declare-fun seamcat.x (Int) Int)\n(declare-fun seamcat.y (Int) Int)\n"
                   "(declare-fun seamcat.n (Int) Int)\n"
                   "(assert (forall ((a Int) (b Int) (n Int)) (! (and (= (seamcat.x (seamcat a b n)) a) "
                   "(= (seamcat.y (seamcat a b n)) b) (= (seamcat.n (seamcat a b n)) n)) :pattern ((seamcat a b n)))))\n");
  /* a concat has a seam where its operands join: with the outputs' seams equal (smt.c), this
   * rules out ranks where the sides differ in them */
  rg_sb_puts(sb, "(assert (forall ((a Int) (b Int) (n Int)) (! (not (= (seamcat a b n) 0)) "
                 ":pattern ((seamcat a b n)))))\n");
  for (size_t i = 0; i < sizeof facts / sizeof *facts; i++)
    for (int k = 0; k < facts[i].n_ops; k++)
      for (int out = 0; out < rg_op_get(facts[i].ops[k])->n_outputs; out++)
        if (fs->used[facts[i].ops[k]][facts[i].n_in][out])
          put_fact(sb, facts[i].ops[k], facts[i].n_in, out, -1, facts[i].body);
  /* Two groups over kernels concatenated on their output axis: the one seam falls on the group
   * boundary exactly when both parts have as many kernels (shape.c keeps it only there). With
   * the outputs' seams equal (smt.c), this is what says a concat of two convs equals one grouped
   * conv only where the kernel counts agree, the size concat-conv-grouped's guard names. */
  if (fs->used[RG_OP_CONV2D][2][0] && fs->used[RG_OP_CONCAT][2][0]) {
    assert(rg_op_get(RG_OP_CONV2D)->n_params == 7); /* strides, padding, activation, dilations, groups */
    const char *conv = "(conv2d q0 q1 q2 q3 q4 q5 2 x (concat 0 a b))";
    rg_sb_printf(sb,
                 "(assert (forall ((q0 Int) (q1 Int) (q2 Int) (q3 Int) (q4 Int) (q5 Int) (x T) (a T) (b T) (k Int)) "
                 "(! (=> (and (= k 1) (= (seams a 0) 0) (= (seams b 0) 0)) (= (seams %s k) (ite (= (dim a 0) (dim b "
                 "0)) (seams (concat 0 a b) 0) 0))) :pattern ((seams %s k)))))\n",
                 conv, conv);
  }
  if (fs->used[RG_OP_TRANSPOSE][1][0]) { /* the 2-D swap; other permutations are left unknown */
    int swap[2] = {1, 0};
    put_fact(sb, RG_OP_TRANSPOSE, 1, 0, rg_perm_pack(swap, 2),
             "(=> (= (rank x) 2) "
             "(= %1$s (ite (= k 0) (seams x 1) (ite (= k 1) (seams x 0) (seams x k)))))");
  }
}

void rg_smt_put_seam_hypotheses(rg_strbuf *sb, const rg_rule *r) {
  for (int32_t v = 0; v < rg_graph_n_tvars(r->g); v++)
    for (int k = 0; k < RG_MAX_RANK; k++)
      rg_sb_printf(sb, "(assert (= (seams t.%s %d) 0))\n", rg_graph_tvar_name(r->g, v), k);
}
