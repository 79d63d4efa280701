/* optimizer/pet/pet_internal.h: private to the room optimizer/pet/. */
#ifndef RG_OPTIMIZER_PET_INTERNAL_H
#define RG_OPTIMIZER_PET_INTERNAL_H

#include "pet.h"

/* The corrected mutant's text into out: the mutant (text `mutant`, the pair's target) outside
 * the regions of output 0, and inside each the pair's original recomputed on the slices of its
 * inputs it reads there. Errors: an operator it cannot restrict (RG_ERR_ARG), memory. */
rg_status rg_pet_corrected(const rg_pet_pair *pp, const char *mutant, const rg_region *regions, int64_t n_regions,
                           rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

#endif
