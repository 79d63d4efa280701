/* tools/synth_cmd.c: `rulegen synth` (also `rulegen --ops OPS --depth N ...`): the command line
 * of a synthesis run; the run itself is synth/run.h's. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "prune/prune.h"
#include "synth/synth.h"

static const rg_cli_option synth_options[] = {
    {"ops", 'O', 1, "LIST", "operators: names and the groups all, taso; e.g. taso,bias (default taso)"},
    {"depth", 'd', 1, "N", "graphs of at most N operators, 1..4 (default 3)"},
    {"inputs", 'i', 1, "FILE", "input set, one 'NAME DIMS' per line (default TASO's 20 inputs; " "with --ops bias also b1, b2 of size 4)"},
    {"output", 'o', 1, "FILE", "write the rules here: rule text, or a signed rule database when " "FILE ends in .db (default: rule text on standard output)"},
    {"stop-after", 'A', 1, "STAGE", "enumerate, fingerprint, test (candidates), prune (the rules " "sent to the solvers), prove or all (default all: " "derivability over the proved rules last)"},
    {"prune", 'p', 1, "LIST", "pruning stages before the proofs: renaming,subgraph,supergraph," "derive, all or none (default all; a rule they remove goes back " "if a rule implying it fails its proof; derive also runs last)"},
    {"require", 'r', 1, "WHO", "both (default) or any: which solvers must prove a rule"},
    {"timeout-ms", 'T', 1, "MS", "per solver and obligation (default 2000)"},
    {"fail-fast", 'F', 0, "", "ask cvc5 only what z3 proved (with --require both; about halves " "the time unprovable rules cost; cvc5-only proofs not sought)"},
    {"axioms", 'x', 1, "FILE", "axioms for the proofs (default verify/axioms.rules)"},
    {"key", 'k', 1, "KEY", "sign a .db output with this secret key (rulesdb keygen)"},
    {"threads", 'j', 1, "N", "threads (default: every core)"},
    {"mem-limit", 'm', 1, "SIZE", "memory for fingerprint records, e.g. 512M, 4G (default 1/2 " "of RAM); more records than fit cost extra passes"},
    {"max-records", 'R', 1, "N", "hold at most N records per pass (to exercise partitioning)"},
    {"max-outputs", 'M', 1, "N", "most outputs of a graph, 1..4 (default 2, as TASO's rules)"},
    {"keep-redundant", 'K', 0, "", "also extend graphs whose newest tensor equals an older one, " "and op(b, a) of commutative ops (by default recorded, not " "extended: their extensions are derivable); and graphs using " "equal-shaped inputs out of order (renamings)"},
    {"seed", 'S', 1, "N", "fingerprint seed (default 1); testing draws from another seed"},
    {"trials", 't', 1, "N", "random trials per domain and shape set (default 1)"},
    {"shape-sets", 'n', 1, "N", "other shape sets each candidate is tested at (default 3)"},
    {"all-pairs", 'P', 0, "", "print every pair of a class, not one candidate per member"},
    {"no-generalize", 'G', 0, "", "do not generalize candidates before pruning (by default a " "variable occurring 2..8 times, in a candidate using every " "input of its shape, is split: its occurrences shared with a " "fresh variable of its shape, at most 64 such rules tested " "per candidate; the most general passing ones become " "candidates too, the candidate an instance of them)"},
    {"resume", 'C', 1, "FILE", "start after the test stage from the candidates a run with -o " "OUT saved in OUT.candidates (give that run's options)"},
    {"json", 'J', 1, "FILE", "also write the run's counters, stage table and proof summary as JSON"},
    {"quiet", 'q', 0, "", "no progress on standard error"},
    {"help", 'h', 0, "", "show this help"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen [synth] --ops OPS --depth N [options]\n"
          "\n"
          "Enumerates every graph of at most N operators over an input set, fingerprints each in\n"
          "Z_p (p = 2^61-1) on seeded random inputs, and turns fingerprint collisions into\n"
          "candidate rules, each tested on fresh Z_p and float64 trials at the enumeration shapes\n"
          "and at other shape sets. Writes the candidates that pass as rule text (ir/text.h).\n"
          "A graph's outputs are its sinks (operators no other operator uses); an input alone is\n"
          "a graph too. Progress goes to standard error; a table of counts and times ends the\n"
          "run. Ctrl-C stops cleanly without writing a partial file.\n"
          "\n"
          "options:\n");
rg_cli_print_options(out, synth_options, RG_CLI_COUNT(synth_options), 12, 7);
  fprintf(out, "\n  operator choices (wider settings multiply the search):\n");
  rg_enum_choices_help(out);
  fprintf(out, "\nexample:\n  rulegen --ops taso --depth 3 --stop-after test -o candidates.rules\n"
               "exit status: 0 done, 1 error during the run, 2 bad arguments, 130 interrupted\n");
}

static bool parse_size(const char *s, size_t *out) {
  char *end;
  double v = strtod(s, &end);
  double mul = 1;
  if (*end == 'K' || *end == 'k') mul = 1024, end++;
  else if (*end == 'M' || *end == 'm') mul = 1048576, end++;
  else if (*end == 'G' || *end == 'g') mul = 1073741824.0, end++;
  if (end == s || *end || !(v > 0) || v * mul > 1e15) return false;
  *out = (size_t)(v * mul);
  return true;
}

static int bad_arg(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "rulegen: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n(see rulegen synth --help)\n");
  return 2;
}

/* The options of the enumeration, fingerprints and tests; returns 0, 1 when c is not one of
 * them, or the exit status to stop with. */
static int set_search_option(int c, const char *arg, rg_synth_opts *o) {
  int64_t v;
  rg_err err;
  switch (c) {
  case 'O':
    if (rg_enum_choices_set_ops(&o->choices, arg, &err)) return bad_arg("%s%s", err.msg, "");
    return 0;
  case 'd':
    if (!rg_cli_parse_i64(arg, INT32_MIN, INT32_MAX, &v)) return bad_arg("--depth wants a number, not '%s'%s", arg, "");
    o->depth = (int)v;
    return 0;
  case 'i': o->inputs_path = arg; return 0;
  case 'm':
    if (!parse_size(arg, &o->fp.mem_limit)) return bad_arg("--mem-limit: bad size '%s' (e.g. 512M, 4G)%s", arg, "");
    return 0;
  case 'R':
    if (!rg_cli_parse_i64(arg, 2, INT64_MAX, &v)) return bad_arg("--max-records wants a number >= 2, not '%s'%s", arg, "");
    o->fp.max_records = (size_t)v;
    return 0;
  case 'S':
    if (!rg_cli_parse_i64(arg, 0, INT64_MAX, &v)) return bad_arg("--seed wants a number, not '%s'%s", arg, "");
    o->fp.seed = (uint64_t)v;
    return 0;
  case 't':
    if (!rg_cli_parse_i64(arg, 1, 1000, &v)) return bad_arg("--trials wants 1..1000, not '%s'%s", arg, "");
    o->rt.zp_trials = o->rt.f64_trials = (int)v;
    return 0;
  case 'n':
    if (!rg_cli_parse_i64(arg, 0, 100, &v)) return bad_arg("--shape-sets wants 0..100, not '%s'%s", arg, "");
    o->rt.other_shapes = (int)v;
    return 0;
  case 'M':
    if (!rg_cli_parse_i64(arg, 1, RG_RULE_MAX_OUTPUTS, &v)) return bad_arg("--max-outputs wants 1..4, not '%s'%s", arg, "");
    o->fp.max_outputs = (int)v;
    return 0;
  case 'K': o->fp.keep_redundant = true; return 0;
  case 'P': o->all_pairs = true; return 0;
  case 'G': o->no_generalize = true; return 0;
  default: return 1;
  }
}

static const char *const stage_names[] = {"enumerate", "fingerprint", "test", "prune", "prove", "all"};

/* The options of the stages after testing and of the run; the same returns. */
static int set_run_option(int c, const char *arg, rg_synth_opts *o) {
  int64_t v;
  switch (c) {
  case 'o': o->out_path = arg; return 0;
  case 'A':
    for (int k = 0; k <= RG_SYNTH_STOP_ALL; k++)
      if (!strcmp(arg, stage_names[k])) return o->stop_after = (rg_synth_stop)k, 0;
    return bad_arg("--stop-after: unknown stage '%s' (want enumerate, fingerprint, test, prune, prove or all)%s", arg, "");
  case 'p':
    if (!rg_prune_parse_stages(arg, &o->fin.prune_stages))
      return bad_arg("--prune: unknown stage in '%s' (want renaming, subgraph, supergraph, derive, all or none)%s", arg, "");
    return 0;
  case 'r':
    if (!strcmp(arg, "both")) o->fin.prove.require = RG_REQUIRE_BOTH;
    else if (!strcmp(arg, "any")) o->fin.prove.require = RG_REQUIRE_ANY;
    else return bad_arg("--require wants both or any, not '%s'%s", arg, "");
    return 0;
  case 'T':
    if (!rg_cli_parse_i64(arg, 1, 3600000, &v)) return bad_arg("--timeout-ms wants 1..3600000, not '%s'%s", arg, "");
    o->fin.prove.timeout_ms = (int)v;
    return 0;
  case 'j':
    if (!rg_cli_parse_i64(arg, 1, 1024, &v)) return bad_arg("--threads wants 1..1024, not '%s'%s", arg, "");
    o->threads = (int)v;
    return 0;
  case 'F': o->fin.prove.fail_fast = true; return 0;
  case 'x': o->fin.axioms_path = arg; return 0;
  case 'k': o->fin.key_path = arg; return 0;
  case 'C': o->resume_path = arg; return 0;
  case 'J': o->json_path = arg; return 0;
  case 'q': o->quiet = true; return 0;
  default: return 1;
  }
}

/* What the options leave to be checked or derived once all are read. */
static int after_options(rg_synth_opts *o) {
  if (o->resume_path && o->stop_after <= RG_SYNTH_STOP_TEST)
    return bad_arg("--resume starts after the test stage: --stop-after must be prune, prove or all%s%s", "", "");
  o->fp.threads = o->threads;
  o->rt.seed = o->fp.seed + 1;
  rg_err err;
  if (o->inputs_path && rg_enum_inputs_load(o->inputs_path, &o->inputs, &err)) {
    rg_cli_report("rulegen", o->inputs_path, &err);
    return 2;
  }
  /* the default set has no vectors for a bias to add; TASO's run keeps its 20 inputs */
  if (!o->inputs_path && o->choices.op[RG_OP_BIAS]) rg_enum_inputs_add_bias(&o->inputs);
  return 0;
}

/* Parses the command line into o; returns 0, -1 after --help, or the exit status to stop with. */
static int parse(int argc, char **argv, rg_synth_opts *o) {
  rg_synth_opts_default(o, &rg_cli_interrupted);
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, synth_options, RG_CLI_COUNT(synth_options));
  /* the enumeration's operator choices, answered with codes from 1000 */
  const char *const *copts = rg_enum_choices_options();
  int n_choices = 0;
  for (; copts[n_choices]; n_choices++) rg_cli_getopt_add(&g, copts[n_choices], true, 1000 + n_choices);
  int c, rc;
  rg_err err;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == 'h') return usage(stdout), -1;
    if (c >= 1000 && c < 1000 + n_choices) {
      if (rg_enum_choices_set(&o->choices, copts[c - 1000], optarg, &err)) return bad_arg("%s%s", err.msg, "");
      continue;
    }
    if ((rc = set_search_option(c, optarg, o)) == 1) rc = set_run_option(c, optarg, o);
    if (rc == 1) {
      fprintf(stderr, "(see rulegen synth --help)\n");
      return 2;
    }
    if (rc) return rc;
  }
  if (optind < argc) return bad_arg("unexpected argument '%s'%s", argv[optind], "");
  return after_options(o);
}

int rg_cmd_synth(int argc, char **argv) {
  rg_synth_opts o;
  rg_cli_catch_interrupts(); /* before parse: the options hold the flag */
  int rc = parse(argc, argv, &o);
  if (!rc) {
    rg_strbuf command;
    rg_sb_init(&command);
    rg_sb_puts(&command, "rulegen");
    for (int i = 1; i < argc; i++) rg_sb_printf(&command, " %s", argv[i]);
    rc = rg_synth_run(&o, rg_sb_str(&command));
    rg_sb_free(&command);
  }
  rg_cli_release_interrupts();
  return rc < 0 ? 0 : rc;
}
