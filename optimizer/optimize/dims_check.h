/* optimizer/optimize/dims_check.h: a rewritten model with symbolic dimensions (model.h's dims)
 * checked at other values of them, and the rewrites that hold only at the values imported
 * dropped.
 *
 * The search rewrites the model at the values its symbolic dims were imported at (--dim, else
 * RG_IMPORT_DIM_DEFAULT), and a rule applies where it types at those shapes. Whether the model
 * written (export keeps the dims symbolic: export.h) computes what the model read does at other
 * values is checked as onnxruntime would meet it: the written model is imported again at
 * RG_DIMS_OTHER other sets of values (each dim its own value, apart from the others') and so is
 * the original file; the written one must import there (its reshapes, slices and every rule's
 * target type at those shapes) and compute the original's outputs there on the same random
 * inputs (the numeric check's stream, within tolerance). */
#ifndef RG_OPTIMIZER_DIMS_CHECK_H
#define RG_OPTIMIZER_DIMS_CHECK_H

#include "optimizer/onnx/onnx.h"
#include "optimizer/search/search.h"

#define RG_DIMS_OTHER 2

/* The originals at the other values, imported and evaluated once for every check. */
typedef struct rg_dims_checker rg_dims_checker;

/* A checker for m, read from path (at the values m->dims holds); NULL with err when
 * m has no symbolic dims or the original does not import or run at the other values (the
 * message says which). */
rg_status rg_dims_checker_new(const rg_model *m, const char *path, uint32_t seed,
                              rg_dims_checker **out, rg_err *err) RG_MUST_CHECK;
void rg_dims_checker_free(rg_dims_checker *c);
/* The values of set j (0 .. RG_DIMS_OTHER): "N=2, S=3". */
const char *rg_dims_checker_values(const rg_dims_checker *c, int j);

/* Whether m seen from roots, written as export writes it, computes the original's outputs at
 * every other set of values within tolerance: *ok, else why (len bytes: the values, and the
 * written model's import error or its largest difference). */
rg_status rg_dims_check(rg_dims_checker *c, const rg_model *m, const rg_ref *roots, double tolerance, bool *ok,
                        char *why, size_t len, rg_err *err) RG_MUST_CHECK;

/* Whether what convert writes (m itself) computes the original's outputs at the other values,
 * the verdict a line in report (where the original cannot be checked there, a note saying why,
 * and true; running out of memory is a failure, said). */
bool rg_dims_verify(const rg_model *m, const char *path, double tolerance,
                    rg_strbuf *report);

/* A note for each symbolic dim (each name once) that no --dim gave a value: the value it was
 * imported at, and that the model written keeps it symbolic. */
void rg_dims_notes(const rg_model *m, rg_strbuf *sb);

/* The search again over a subset of the rules (ctx: the caller's), its result into out. */
typedef rg_status (*rg_dims_search_fn)(void *ctx, const rg_ruleset *rules, rg_search_result *out, rg_err *err);

/* r (a search's result over rules on m, read from path) made to hold at every other
 * set of values, where m has symbolic dims and r rewrites it: while the check fails, the rule of
 * the first step that fails it (backtracking's steps are the derivation's models; equality
 * saturation's are not, and each rule it used is left out in turn until a search passes) is
 * left out of the rules and the search run again (at most RG_DIMS_ROUNDS times; after that, or
 * when the original cannot be imported or evaluated at other values, so that no rewrite can be
 * checked there numerically, no rewrite is kept). Each rule dropped
 * is a line in report (with the values and why), and so is the verdict; r's steps name rules by
 * their index in rules. Nothing to do without symbolic dims or rewrites; on failure r is freed. */
#define RG_DIMS_ROUNDS 6
rg_status rg_dims_keep(const rg_model *m, const char *path, uint32_t seed,
                       const rg_ruleset *rules, rg_dims_search_fn search, void *ctx, double tolerance,
                       rg_search_result *r, rg_strbuf *report, rg_err *err) RG_MUST_CHECK;

#endif
