/* tools/derive_opts.h: the derivation-search limit options that `rulegen prune` and
 * `rulegen covers` share: declared once for their option tables, parsed by one function. */
#ifndef RG_TOOLS_DERIVE_OPTS_H
#define RG_TOOLS_DERIVE_OPTS_H

#include "cli.h"
#include "prune/prune.h"

/* The limit options' rows of a command's rg_cli_option table. */
#define RG_DERIVE_LIMIT_ROWS                                                                       \
  {"steps", 'k', 1, "N", "derivation search: longest derivation per output"},                     \
      {"states", 'n', 1, "N", "derivation search: terms visited per output"},                     \
      {"growth", 'g', 1, "N", "derivation search: operators a term may grow by"}

/* Handles option c (one of the above) with argument arg; false (after a message) if the value
 * is out of range. Returns false too for an option that is not a limit (is_limit set false). */
static inline bool rg_derive_limit_option(const char *prog, int c, const char *arg,
                                          rg_derive_limits *lim, bool *is_limit) {
  *is_limit = true;
  int64_t v;
  bool ok = false;
  switch (c) {
  case 'k':
    ok = rg_cli_int_option(prog, "steps", arg, 1, 64, &v) && (lim->max_steps = (int)v);
    break;
  case 'n':
    ok = rg_cli_int_option(prog, "states", arg, 2, 100000000, &v) && (lim->max_states = (int)v);
    break;
  case 'g':
    ok = rg_cli_int_option(prog, "growth", arg, 0, 64, &v);
    if (ok) lim->max_growth = (int)v; /* may be 0 */
    break;
  default: *is_limit = false; break;
  }
  return ok;
}

#endif
