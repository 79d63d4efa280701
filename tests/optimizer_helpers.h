/* tests/optimizer_helpers.h: what optimizer/'s tests share: rule text made into an apply set. */
#ifndef RG_TESTS_OPTIMIZER_HELPERS_H
#define RG_TESTS_OPTIMIZER_HELPERS_H

#include <string.h>

#include "check.h"
#include "optimizer/search/search.h"

/* The rules of text parsed into rules (initialized here; the caller frees it) and made into
 * an apply set (NULL, with a failed check, when either step fails). */
static inline rg_apply_set *apply_set_of(const char *text, rg_ruleset *rules) {
  rg_ruleset_init(rules);
  rg_err err;
  rg_apply_set *set = NULL;
  CHECK(rg_text_parse(text, strlen(text), rules, &err) == RG_OK);
  CHECK(rg_apply_set_new(rules, &set, &err) == RG_OK);
  return set;
}

#endif
