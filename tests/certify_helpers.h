/* tests/certify_helpers.h: helpers the certify tests share. */
#ifndef RG_TESTS_CERTIFY_HELPERS_H
#define RG_TESTS_CERTIFY_HELPERS_H

#include "certify/certify.h"
#include "check.h"

/* A program pair, or NULL after recording a failed check with the reason. */
static inline rg_pet_pair *open_pair(const char *orig, const char *mut, const char *shapes) {
  rg_pet_pair *pp = NULL;
  rg_err err;
  if (rg_pet_pair_new(orig, mut, shapes, &pp, &err)) {
    CHECK_MSG(0, "%s / %s: %s", orig, mut, err.msg);
    return NULL;
  }
  return pp;
}

#endif
