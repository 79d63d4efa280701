/* ir/zp.c: field set-up helpers that use GMP. */
#include "zp.h"

#include <gmp.h>

uint64_t rg_zp_inv(uint64_t a) {
  mpz_t x, p;
  mpz_init_set_ui(x, (unsigned long)a);
  mpz_init_set_ui(p, (unsigned long)RG_ZP_P);
  uint64_t r = 0;
  if (mpz_invert(x, x, p)) r = (uint64_t)mpz_get_ui(x);
  mpz_clear(x);
  mpz_clear(p);
  return r;
}
