/* cli/docs_rulegen.h: the help and option tables of rulegen's commands (cli/docs_rulegen.c),
 * and the option fields they share. */
#ifndef RG_CLI_DOCS_RULEGEN_H
#define RG_CLI_DOCS_RULEGEN_H

#include <stdio.h>

#include "doc.h"
#include "fields.h"

/* One per command of tools/commands.def: print with rg_cli_doc_usage, parse with rg_cli_parse. */
extern const rg_cli_doc rg_doc_synth, rg_doc_prove, rg_doc_recheck, rg_doc_check_axioms, rg_doc_certify,
    rg_doc_eval, rg_doc_prune, rg_doc_covers;

/* The derivation-search limit options (--steps, --states, --growth) of prune and covers, as
 * fields of the rg_derive_limits member lim of type. */
#define RG_DERIVE_LIMIT_FIELDS(type, lim)                                                          \
  RG_CLI_NUM(RG_OPT_STEPS, RG_CLI_INT, type, lim.max_steps, 1, 64, NULL),                                   \
      RG_CLI_NUM(RG_OPT_STATES, RG_CLI_INT, type, lim.max_states, 2, 100000000, NULL),                       \
      RG_CLI_NUM(RG_OPT_GROWTH, RG_CLI_INT, type, lim.max_growth, 0, 64, NULL)

/* The draws options (--assignments, --trials, --threads, --seed) of recheck and check-axioms,
 * as fields of their options member o (rg_recheck_opts, rg_axcheck_opts) of type. */
#define RG_DRAW_FIELDS(type, o)                                                                    \
  RG_CLI_NUM(RG_OPT_ASSIGNMENTS, RG_CLI_INT, type, o.assignments, 1, 10000, NULL),                                \
      RG_CLI_NUM(RG_OPT_TRIALS, RG_CLI_INT, type, o.trials, 1, 1000, NULL),                                  \
      RG_CLI_NUM(RG_OPT_THREADS, RG_CLI_INT, type, o.threads, 1, 1024, NULL),                                 \
      RG_CLI_NUM(RG_OPT_SEED, RG_CLI_U64, type, o.seed, 0, INT64_MAX, NULL)

/* synth's operator-choice options (enumerate/choices.h: long-only, answered with codes from
 * RG_CLI_EXTRA_CODE) as option rows, flags[i] holding row i's option; returns how many. */
int rg_doc_synth_choice_rows(rg_cli_flag flags[RG_CLI_MAX_OPTIONS], rg_cli_option rows[RG_CLI_MAX_OPTIONS]);
/* synth's help extra: the enumeration's operator choices and operators (enumerate/choices.h). */
void rg_doc_synth_choices(FILE *out);

#endif
