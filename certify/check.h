/* certify/check.h: PET's m+1-point box check over F_p, and a full mode that evaluates whole
 * outputs (to cross-check box mode, and to confirm that a corrected mutant is equivalent).
 *
 * Box mode: for each output pair, the boxes are those of the union of both programs' cuts.
 * In each box both programs are evaluated, by single-element evaluation (cost: the element's
 * dependency cone), at m+1 positions: the corner and one step along each dimension the box
 * extends in (m = rank; a dimension of extent 1 has no step). This is done on `trials`
 * independent inputs from the pair's generator (pair.h). A box is NEQ when some trial and
 * position differ; its witness is the first such (trial, position) in that order, with both
 * values. Otherwise EQ. The field is F_p for one of the primes the interpreters implement:
 * p = 2^61-1 (u64 arithmetic, ir/zp.h; the default) or p = 2^127-1 (unsigned __int128,
 * ir/z127.h); rg_pet_field_check says why another p is refused. Field elements (p, witness
 * values) are held as rg_z127 whatever the field.
 */
#ifndef RG_CERTIFY_CHECK_H
#define RG_CERTIFY_CHECK_H

#include <signal.h>

#include "pair.h"

#define RG_PET_MAX_BOXES (INT64_C(1) << 22)

typedef enum { RG_BOX_EQ = 0, RG_BOX_NEQ = 1 } rg_box_verdict;

typedef struct {
  int output;
  int32_t lo[RG_MAX_RANK], hi[RG_MAX_RANK];
  rg_box_verdict verdict;
  int trial;                    /* witness, NEQ only */
  int32_t pos[RG_MAX_RANK];
  rg_z127 val[2];               /* original, mutant */
} rg_box_result;

typedef struct {
  rg_z127 p;
  int trials;
  uint64_t seed;
  int n_out;
  rg_cuts cuts[RG_RULE_MAX_OUTPUTS]; /* union of both programs' cuts, per output */
  int64_t n_boxes;
  rg_box_result *box;           /* output-major, then box index (rg_cuts_box order) */
  int64_t positions;            /* m+1 positions summed over all boxes */
  int64_t eq_positions;         /* of them, in boxes found EQ */
  int64_t evaluations;          /* single-element evaluations done (both programs, all trials;
                                   a NEQ box stops at its witness) */
} rg_pet_result;

/* Reports progress between boxes: `done` of `total` box checks (a box times a trial; a box
 * found NEQ counts as done for its remaining trials). Called often: throttle in the callback. */
typedef void (*rg_pet_progress_fn)(void *user, int64_t done, int64_t total);

/* What a long run is given by its caller; each may be NULL. */
typedef struct {
  const volatile sig_atomic_t *cancel; /* checked between boxes (full mode: between trials) */
  rg_pet_progress_fn progress;
  void *user;                          /* passed to progress */
} rg_pet_hooks;

typedef struct {
  int trials;                 /* >= 1 */
  rg_z127 p;                  /* must pass rg_pet_field_check */
  const rg_pet_hooks *hooks;  /* may be NULL */
} rg_pet_opts;

/* The primes the evaluator implements, in the text rg_pet_field_check's messages use. */
#define RG_PET_PRIMES "2^61-1 = 2305843009213693951 (the default) and 2^127-1"

/* RG_OK when p is prime (GMP, 40 Miller-Rabin rounds) and is one of the fields the evaluator
 * implements (2^61-1, 2^127-1); otherwise RG_ERR_ARG saying why, and which are supported. */
rg_status rg_pet_field_check(rg_z127 p, rg_err *err) RG_MUST_CHECK;

/* Box mode. res is filled and owned by the caller (rg_pet_result_free). Errors: bad options
 * (t = 0, p), too many boxes (RG_ERR_LIMIT), out of memory, RG_ERR_ARG "interrupted". */
rg_status rg_pet_check(const rg_pet_pair *pp, const rg_pet_opts *o, rg_pet_result *res,
                       rg_err *err) RG_MUST_CHECK;
void rg_pet_result_free(rg_pet_result *res);
/* The boxes found NEQ. */
int64_t rg_pet_result_neq(const rg_pet_result *res);

/* Full mode: whole outputs of both programs on the same inputs as box mode. diff[k] (caller
 * frees each) gets one byte per element of output k: 1 when some trial differs there. The
 * cancel flag is looked at between trials. */
rg_status rg_pet_full(const rg_pet_pair *pp, const rg_pet_opts *o, uint8_t **diff,
                      rg_err *err) RG_MUST_CHECK;

#endif
