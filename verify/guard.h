/* verify/guard.h: the condition under which an axiom holds, over tensor sizes and parameters.
 *
 * An axiom line may end in `if ATOM...` (before its comment): `name: lhs => rhs if (<= ?h (dim
 * ?x ?a))  # why`. Each ATOM is (<= E E), (< E E) or (= E E); E is an integer, a parameter
 * variable ?p, (dim ?x E) (the size of tensor variable ?x on axis E), (+ E E) or (- E E). An
 * atom (= ?m E) whose ?m occurs only in the target defines ?m: it is not quantified, and the
 * target uses E in its place (slice-pad: `(slice ?a ?l ?h (pad ?a ?b ?c ?x)) => (slice ?a ?m ?n
 * ?x) if (= ?m (- ?l ?b)) ...`). (rank ?x) is the rank of tensor variable ?x. (seams ?x E)
 * names the seams (concat joins, ir/shape.h) of ?x on axis E: 0 when it has none, the same
 * number for two tensors exactly when they have the same seams there (only = compares it
 * meaningfully). An axiom whose target drops seams its source keeps (conv-identity: a conv's
 * output channels are the kernel's) types only where there are none, (= (seams ?x 1) 0); one
 * whose elementwise meet keeps only shared seams needs its operands to share them, (= (seams ?x
 * ?a) (seams ?y ?a)). (or ATOM ATOM) holds when either does: split-0 needs shared seams off its
 * axis, (or (= ?a 0) (= (seams ?x 0) (seams ?y 0))) and so on. (shape= ?x ?y) holds when ?x
 * and ?y have one rank and the same size on every axis, (shape= ?x ?y AXIS) when they do off
 * AXIS (which is inside their rank): what two operands of an ewadd, or of a concat on AXIS,
 * need. (mod E N) is E's remainder by a positive integer N (a grouped conv's kernel count is a
 * multiple of its groups).
 *
 * Why: some facts about slice, pad and concat hold only at certain sizes (a slice that falls
 * inside a concat's first operand is a slice of that operand). The untyped SMT encoding cannot
 * state them as plain axioms without making them unsound there, so the encoder declares a size
 * function dim (T Int) Int and guards them with these conditions (verify/smt.h). The axiom
 * checker tests a guarded axiom only at assignments where its guard holds.
 */
#ifndef RG_VERIFY_GUARD_H
#define RG_VERIFY_GUARD_H

#include "ir/compare.h"
#include "ir/ir.h"

#define RG_GUARD_MAX_ATOMS 24
#define RG_GUARD_MAX_NODES 160

typedef enum {
  RG_GX_INT,
  RG_GX_PVAR,
  RG_GX_DIM,
  RG_GX_ADD,
  RG_GX_SUB,
  RG_GX_LE,
  RG_GX_LT,
  RG_GX_EQ,
  RG_GX_RANK,
  RG_GX_SEAMS,
  RG_GX_OR,
  RG_GX_MOD,     /* (mod E N): E's remainder by the positive integer N */
  RG_GX_SHAPE_EQ /* (shape= ?x ?y [AXIS]): equal ranks, equal sizes on every axis (but AXIS) */
} rg_gx_kind;

typedef struct {
  uint8_t kind; /* rg_gx_kind */
  int32_t a, b; /* operands (node indices); RG_GX_DIM, RG_GX_SEAMS: a is the tensor variable, b the axis;
                 * RG_GX_RANK: a is the tensor variable; RG_GX_SHAPE_EQ: a and b are the tensor
                 * variables */
  int64_t v;    /* RG_GX_INT: the value; RG_GX_PVAR: the parameter variable; RG_GX_SHAPE_EQ: the
                 * axis's node, or -1 for none */
} rg_gx;

typedef struct {
  int n_nodes, n_atoms;
  rg_gx node[RG_GUARD_MAX_NODES];
  int32_t atom[RG_GUARD_MAX_ATOMS]; /* root node of each atom, in the order written */
  int32_t def_of[RG_GUARD_MAX_ATOMS]; /* the parameter variable an atom defines, or -1 */
} rg_guard;

/* Parses the atoms in text[0..len) against the axiom r's variables (line/col for messages).
 * Errors: syntax, an unknown variable, a defined variable that is also in the source. */
rg_status rg_guard_parse(const char *text, size_t len, const rg_rule *r, int line, int col, rg_guard *out,
                         rg_err *err) RG_MUST_CHECK;

/* Whether parameter variable v occurs in r's source. */
bool rg_rule_source_binds_pvar(const rg_rule *r, int32_t v);

/* Whether the guard mentions dim or rank (the encoder then declares them and their facts). */
bool rg_guard_uses_sizes(const rg_guard *gd);

/* Whether the guard mentions seams (the encoder then declares seams and its facts). */
bool rg_guard_uses_seams(const rg_guard *gd);

/* The defining atom of parameter variable v, or -1. */
int rg_guard_def(const rg_guard *gd, int32_t v);

/* Sets the defined parameter variables in values (bound[] marks them bound) from the others;
 * then evaluates the atoms that define nothing: 1 when all hold, 0 when one fails, -1 when one
 * cannot be evaluated (an unbound variable, an axis outside a tensor's rank). */
int rg_guard_apply(const rg_guard *gd, const rg_shape *const *tvar_shapes, int32_t *values, uint8_t *bound);

/* Sets each parameter variable that a condition (= ?p E) equates to an expression E it can evaluate
 * to E's value, so that a random assignment can be moved to one where the guard holds (the axiom
 * checker then checks that the source still types). Returns how many values it changed. */
int rg_guard_steer(const rg_guard *gd, const rg_shape *const *tvar_shapes, int32_t *values, uint8_t *bound);

/* Prints expression node e (or atom) in SMT-LIB: variables as <vp>t.NAME / <vp>p.NAME; a
 * parameter variable with a definition prints as its defining expression. */
void rg_guard_put_expr(rg_strbuf *sb, const rg_guard *gd, const rg_graph *g, int32_t e, const char *vp);
/* Prints the conjunction of the atoms that define nothing (nothing when there are none). */
void rg_guard_put_conditions(rg_strbuf *sb, const rg_guard *gd, const rg_graph *g, const char *vp);
/* Number of atoms that define nothing. */
int rg_guard_n_conditions(const rg_guard *gd);

#endif
