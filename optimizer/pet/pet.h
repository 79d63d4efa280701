/* optimizer/pet/pet.h: PET's partially-equivalent transformations (PET, OSDI'21) at a model's
 * shapes, made into rewrites that hold there (graphopt --pet).
 *
 * Candidates (pet_sites.c): at each convolution the model runs with stride 1, SAME padding and
 * no fused activation, PET's mutants (certify/mutant.h) of the kinds that type at its shapes:
 * fig1 (the width cut into two strips stacked into the batch) where the width is even, dilated
 * where the dilation is 2 and the height and width are even, fold where the batch holds two
 * images or more; and merged where two such convolutions of one kernel are concatenated along
 * the width. At two 2-D products without activation concatenated, of one weight along the rows
 * or of one input along the columns: mmrows or mmcols (equal everywhere: nothing to correct).
 * Each (kind, shapes) once, however many places share it.
 *
 * Each candidate is certified (pet.c): certify/ splits the output into boxes and evaluates the
 * original and the mutant at m+1 positions per box on random inputs over 2^61-1; the boxes
 * found different are merged into correction regions. The corrected mutant (pet_correct.c) is
 * the mutant outside the regions and, inside each, the original recomputed from the slices of
 * its inputs it reads there (pads, slices and a VALID convolution), put together with slices
 * and concats: ordinary operators of the rule vocabulary, exported to ONNX like any rewrite.
 * The corrected mutant is then certified against the original in turn, and the candidate
 * becomes a rewrite only when every box of that second certificate is equal: a correction that
 * misses a box is refused by the certificate, whatever the numeric check would say. The rewrite
 * is a rule that holds at those shapes alone (rule.h's `at`): applied forward only, and only
 * where its variables have those dims; its name carries the second certificate's digest.
 *
 * The room optimizer/pet/ (above model/; the certify module below it):
 * pet.c           candidates certified, their rules, the certificates written (--certs)
 * pet_sites.c     the model's candidates
 * pet_correct.c   the corrected mutant's text from the correction regions
 * pet_print.c     what was found, said
 * pet_internal.h  private here
 */
#ifndef RG_OPTIMIZER_PET_H
#define RG_OPTIMIZER_PET_H

#include <signal.h>

#include "certify/certify.h"
#include "optimizer/model/model.h"

/* One candidate: a kind at a model's shapes, and the places it would apply. */
typedef struct {
  rg_mutant_kind kind;
  rg_mutant_dims dims;
  int sites; /* values of the model it matches */
} rg_pet_candidate;

/* A candidate certified, or refused (refused: why). */
typedef struct {
  rg_pet_candidate cand;
  bool refused;
  char why[600];
  char *original, *mutant, *corrected, *shapes; /* the programs; "NAME=DIMS ..." */
  char *cert;     /* certificate text, original against mutant: where it differs, the regions */
  char *checked;  /* certificate text, original against the corrected mutant: every box equal */
  char digest[65]; /* SHA-256 (hex) of checked */
  char name[RG_RULE_MAX_NAME]; /* its rule's: "pet_KIND_DIGEST16" (certified ones) */
  int64_t boxes, neq_boxes, regions; /* of cert */
  double seconds;
} rg_pet_rewrite;

/* Correction regions a rewrite may have at most: more are refused (each is a small convolution
 * of its own, and a concat of pieces around it). */
#define RG_PET_MAX_REGIONS 64
/* Past this many (united) regions, a correction recomputes whole strips of the width instead. */
#define RG_PET_FINE_REGIONS 8

typedef struct {
  int trials;                         /* random inputs per position (certify's default: 3) */
  double seconds;                     /* a candidate's two certifications at most (0 none): past
                                       * it, the candidate is refused */
  int shrink;                         /* tests only: the last region cut this much short along
                                       * its last dimension (the check must refuse it) */
  const volatile sig_atomic_t *stop;  /* Ctrl-C: stop between candidates */
  bool progress;                      /* a line per candidate on stderr */
} rg_pet_find_opts;

typedef struct {
  rg_pet_rewrite *rw;
  int n;
  int considered[RG_MUTANT_COUNT], certified[RG_MUTANT_COUNT];
  double seconds;
} rg_pet_set;

/* The candidates of m seen from its roots (values computed from weights alone left out: export
 * folds them), in node order; *out owned by the caller (free). */
rg_status rg_pet_candidates(const rg_model *m, rg_pet_candidate **out, int *n, rg_err *err) RG_MUST_CHECK;

/* One candidate made and certified into rw (rg_pet_rewrite_free, also on error): rw->refused
 * with why when its corrected mutant is not equal on every box, is the original itself (the
 * mutant differs everywhere), needs more than RG_PET_MAX_REGIONS regions or no correction can be
 * written, or when certifying takes more than o->seconds. Errors: memory, Ctrl-C (o->stop). */
rg_status rg_pet_certify(const rg_pet_candidate *c, const rg_pet_find_opts *o, rg_pet_rewrite *rw, rg_err *err) RG_MUST_CHECK;
void rg_pet_rewrite_free(rg_pet_rewrite *rw);

/* Every candidate of m certified (rg_pet_candidates, rg_pet_certify). */
rg_status rg_pet_find(const rg_model *m, const rg_pet_find_opts *o, rg_pet_set *out, rg_err *err) RG_MUST_CHECK;
void rg_pet_set_free(rg_pet_set *s);

/* The certified rewrites of s appended to rules, each named "pet_KIND_DIGEST16" (the digest of
 * its checked certificate), holding at its shapes only. */
rg_status rg_pet_rules(const rg_pet_set *s, rg_ruleset *rules, rg_err *err) RG_MUST_CHECK;
/* The rewrite a rule named so stands for, or NULL. */
const rg_pet_rewrite *rg_pet_of_rule(const rg_pet_set *s, const rg_rule *r);

/* dir ready for rg_pet_write_certs, checked before any work: made when missing, else a folder
 * (a link to one too) that can be written; never the path of out or json (may be NULL), the
 * files the run writes. Errors name --certs and the path. */
rg_status rg_pet_certs_folder(const char *dir, const char *out, const char *json, rg_err *err) RG_MUST_CHECK;

/* Into folder dir (made when missing): for each certified rewrite, NAME.cert and NAME.rules
 * (original => mutant), NAME.corrected.cert and NAME.corrected.rules (original => corrected),
 * NAME its rule's name, so that `rulegen certify check NAME.cert NAME.rules` audits each
 * without trusting graphopt. */
rg_status rg_pet_write_certs(const rg_pet_set *s, const char *dir, rg_err *err) RG_MUST_CHECK;

/* The candidates by kind, certified and refused (each refusal with why), the rewrites offered
 * (rules of them), where the certificates are (certs, or NULL). */
void rg_pet_found_print(const rg_pet_set *s, int rules, const char *certs, rg_strbuf *out);

#endif
