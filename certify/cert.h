/* certify/cert.h: PET certificates: what they hold, and their text format (version 1).
 *
 * The text is deterministic (the same programs, shapes, p and t give the same bytes), one
 * record per line, fields separated by single spaces, positions and boxes written as
 * comma-separated per-dimension values (a box dimension as LO:HI, HI exclusive):
 *
 *   rulegen-pet-certificate 1
 *   field P                      the prime (decimal): 2^61-1 or 2^127-1
 *   trials T                     independent random inputs per position
 *   seed S                       16 hex digits, derived from the hashes (pair.h)
 *   degree D                     polynomial degree used in the bound (at least 1)
 *   original HASH TEXT           BLAKE2b-256 of the program with its shapes, canonical text
 *   mutant HASH TEXT
 *   shapes NAME=DIMS ...         every variable, sorted by name
 *   outputs N
 *   output K DIMS                for each output K (0-based)
 *   cuts K D N Q1 .. QN          for each output K and dimension D: the union of both
 *                                programs' cuts (boxes.h)
 *   boxes N positions M          box count; m+1 positions summed over all boxes
 *   box K I BOX EQ               for each box, I its index in output K (rg_cuts_box order)
 *   box K I BOX NEQ TRIAL POS VO VM   first differing trial and position, original and
 *                                mutant values there (decimal elements of F_p)
 *   regions N
 *   region K BOX                 correction regions: every NEQ box lies inside one of them
 *   error_bound_log2 X           log2 of (EQ-box positions) * (D/P)^T (%.3f), or none: the
 *                                chance that some EQ verdict is wrong (PET Theorems 1 and 2)
 *   end
 */
#ifndef RG_CERTIFY_CERT_H
#define RG_CERTIFY_CERT_H

#include "check.h"

#define RG_CERT_VERSION 1

typedef struct {
  int output;
  int32_t lo[RG_MAX_RANK], hi[RG_MAX_RANK];
} rg_region;

typedef struct {
  int version;
  int degree;
  char *text[2];      /* original, mutant */
  char hash[2][65];
  char *shapes;
  rg_pet_result res;  /* p, trials, seed, cuts, boxes */
  int64_t n_regions;
  rg_region *region;
  char bound[32];
} rg_cert;

/* A certificate from a pair and its box-mode result, which it takes over (res is left empty).
 * Correction regions are the NEQ boxes, merged where two of them differ in one dimension only
 * and meet there. */
rg_status rg_cert_make(const rg_pet_pair *pp, rg_pet_result *res, rg_cert *c, rg_err *err) RG_MUST_CHECK;
void rg_cert_free(rg_cert *c);

/* The error bound text for a result and degree, as the certificate writes it. */
void rg_cert_bound(const rg_pet_result *res, int degree, char *out, int n);

/* Whether position pos of output k lies in one of the certificate's correction regions. */
bool rg_cert_covers(const rg_cert *c, int k, const int32_t *pos);

/* Full mode for a certificate: evaluates whole outputs of both programs on the same inputs as
 * box mode and counts the differing elements and those outside every correction region. The
 * corrected mutant (the mutant outside the regions, the original inside) is equivalent on
 * these inputs exactly when *outside == 0. diff (may be NULL) receives the per-output masks of
 * rg_pet_full, owned by the caller. */
rg_status rg_cert_full_check(const rg_pet_pair *pp, const rg_cert *c, const rg_pet_opts *o,
                             int64_t *differing, int64_t *outside, uint8_t **diff, rg_err *err) RG_MUST_CHECK;

void rg_cert_write(const rg_cert *c, rg_strbuf *sb);
/* Parses certificate text. Errors (RG_ERR_PARSE) carry the line and say what was expected;
 * text that ends before "end" is reported as truncated. */
rg_status rg_cert_parse(const char *text, size_t len, rg_cert *c, rg_err *err) RG_MUST_CHECK;

#endif
