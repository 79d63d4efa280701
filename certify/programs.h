/* certify/programs.h: where a certification's inputs come from: the two programs (two program
 * files, one rule file 'ORIGINAL => MUTANT', or a built-in mutant with its sizes), the shapes
 * they are certified at, the field's prime as a user writes it, and certificate files. What
 * `rulegen certify` reads, for any other program that certifies too.
 */
#ifndef RG_CERTIFY_PROGRAMS_H
#define RG_CERTIFY_PROGRAMS_H

#include "cert.h"
#include "mutant.h"

/* What to certify: either mutant (a name of mutant.h, with dims "N,C,H,W,O,K[,P[,KW,DIL,G]]" or NULL for
 * the default sizes) or n_files files (1 rule file, or 2 files of one program each). shapes
 * (the user's, may be NULL) win over cert_shapes (a certificate's, may be NULL), which win over
 * a built-in mutant's own. */
typedef struct {
  const char *mutant, *dims;
  char *const *files;
  int n_files;
  const char *shapes, *cert_shapes;
} rg_pet_source;

/* The two programs as text (canonical for files) and the shapes (NULL when none was given). */
typedef struct {
  char *original, *mutant, *shapes; /* owned */
} rg_pet_programs;

/* Reads the programs; on error *where names the file at fault (else NULL). Free out also on
 * error. */
rg_status rg_pet_programs_load(const rg_pet_source *src, rg_pet_programs *out, const char **where,
                               rg_err *err) RG_MUST_CHECK;
void rg_pet_programs_free(rg_pet_programs *p);

/* "2^K-1" (K from 2 to 128) or a decimal number below 2^128; whether it is a supported prime
 * is rg_pet_field_check's to say. */
bool rg_pet_parse_prime(const char *s, rg_z127 *p);
/* "N,C,H,W,O,K", "N,C,H,W,O,K,P" or "N,C,H,W,O,K,P,KW,DIL,G" (1..4096 each; P defaults to 2;
 * mutant.h's kernel width, dilation and groups, as graphopt --pet makes them). RG_ERR_ARG
 * otherwise. */
rg_status rg_mutant_parse_dims(const char *s, rg_mutant_dims *d, rg_err *err) RG_MUST_CHECK;

/* Reads and parses a certificate file. */
rg_status rg_cert_load(const char *path, rg_cert *c, rg_err *err) RG_MUST_CHECK;
/* Writes the certificate to path, whole or not at all (ir/atomic.h), or to standard output
 * when path is NULL. */
rg_status rg_cert_save(const rg_cert *c, const char *path, rg_err *err) RG_MUST_CHECK;

#endif
