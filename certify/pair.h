/* certify/pair.h: the two programs PET compares (the original and its mutant) with concrete
 * shapes, their content hashes, the derived seed, and the deterministic input generator.
 *
 * Both programs live in one rule graph (original = source side, mutant = target side), so they
 * share their input variables by name; the mutant may only use variables the original uses.
 *
 * Hashes (BLAKE2b-256, libsodium): program hash = H("rulegen-pet-program-v1\n" || canonical
 * text of the side (ir/text.h) || "\n" || "NAME=DIMS\n" for each variable the side reads, by
 * name). Seed: the first 8 bytes (little endian) of H("rulegen-pet-seed-v1" || original hash ||
 * mutant hash || p (8 bytes LE, or 16 bytes LE when p >= 2^64) || trials (4 bytes LE)), so
 * nobody chooses it. Input values: element `flat` of variable NAME in trial `t` is
 * rg_random_value(Z_p, key, 0, flat) for p = 2^61-1, rg_random_z127(key, 0, flat) for
 * p = 2^127-1, with key = the first 8 bytes (LE) of H("rulegen-pet-input-v1" || seed (8 LE) ||
 * t (4 LE) || NAME): addressable by (trial, tensor, index), so single elements are generated
 * on demand.
 */
#ifndef RG_CERTIFY_PAIR_H
#define RG_CERTIFY_PAIR_H

#include "boxes.h"

typedef struct {
  rg_rule *rule;                /* owned; src = original, tgt = mutant */
  rg_shape *shapes;             /* per tensor variable of rule->g */
  const rg_shape **shape_ptr;   /* shapes[i] addresses, for planning */
  rg_plan *plan[2];             /* 0 original, 1 mutant (each types its side only) */
  rg_boxmap *boxes[2];
  int degree;                   /* max over outputs and sides, at least 1 */
  char *text[2];                /* canonical text of each side (outputs joined by " ; ") */
  uint8_t hash[2][32];
} rg_pet_pair;

/* Builds the pair from the text of the two programs (each a bare graph: one term, or several
 * joined by ';' for several outputs) and a shape list "x=1x64x56x56 w=64x64x3x3" (names
 * separated by spaces or commas; every variable needs one). Errors: parse errors (prefixed
 * "original:" / "mutant:"), a mutant variable the original lacks, shape errors or a shape
 * mismatch between the outputs of the two programs, a non-multilinear program. */
rg_status rg_pet_pair_new(const char *original, const char *mutant, const char *shapes,
                          rg_pet_pair **out, rg_err *err) RG_MUST_CHECK;
void rg_pet_pair_free(rg_pet_pair *pp);

/* The canonical "NAME=DIMS NAME=DIMS" list of every variable, sorted by name (caller frees). */
char *rg_pet_pair_shapes(const rg_pet_pair *pp);

/* The seed for prime p and a trial count, derived from the two hashes as above. */
uint64_t rg_pet_seed(const rg_pet_pair *pp, rg_z127 p, int trials);

/* Per-(trial, variable) keys of the input generator: keys[t * n_tvars + v]; caller frees. */
uint64_t *rg_pet_input_keys(const rg_pet_pair *pp, uint64_t seed, int trials);

/* Lower-case hex of 32 bytes into out[65]. */
void rg_pet_hex(const uint8_t *h, char *out);

#endif
