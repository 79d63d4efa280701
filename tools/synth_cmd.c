/* tools/synth_cmd.c: `rulegen synth` (also `rulegen --ops OPS --depth N ...`): the command line
 * of a synthesis run; the run itself is synth/run.h's. Exit statuses: cli/docs_rulegen.c. */
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "prune/prune.h"
#include "synth/synth.h"

static const rg_cli_field fields[] = {
    RG_CLI_NUM(RG_OPT_DEPTH, RG_CLI_INT, rg_synth_opts, depth, INT32_MIN, INT32_MAX, "a number"),
    RG_CLI_NUM(RG_OPT_MAX_RECORDS, RG_CLI_SIZE, rg_synth_opts, fp.max_records, 2, INT64_MAX, "a number >= 2"),
    RG_CLI_NUM(RG_OPT_SEED, RG_CLI_U64, rg_synth_opts, fp.seed, 0, INT64_MAX, "a number"),
    RG_CLI_NUM(RG_OPT_SHAPE_SETS, RG_CLI_INT, rg_synth_opts, rt.other_shapes, 0, 100, "0..100"),
    RG_CLI_NUM(RG_OPT_MAX_OUTPUTS, RG_CLI_INT, rg_synth_opts, fp.max_outputs, 1, RG_RULE_MAX_OUTPUTS, "1..4"),
    RG_CLI_NUM(RG_OPT_TIMEOUT_MS, RG_CLI_INT, rg_synth_opts, fin.prove.timeout_ms, 1, 3600000, "1..3600000"),
    RG_CLI_NUM(RG_OPT_SAVE_EVERY, RG_CLI_INT, rg_synth_opts, fin.save_every, 0, 86400, "0..86400"),
    RG_CLI_NUM(RG_OPT_THREADS, RG_CLI_INT, rg_synth_opts, threads, 1, 1024, "1..1024"),
    RG_CLI_STORE(RG_OPT_INPUTS, RG_CLI_TEXT, rg_synth_opts, inputs_path),
    RG_CLI_STORE(RG_OPT_OUTPUT, RG_CLI_TEXT, rg_synth_opts, out_path),
    RG_CLI_STORE(RG_OPT_AXIOMS, RG_CLI_TEXT, rg_synth_opts, fin.axioms_path),
    RG_CLI_STORE(RG_OPT_KEY, RG_CLI_TEXT, rg_synth_opts, fin.key_path),
    RG_CLI_STORE(RG_OPT_RESUME, RG_CLI_TEXT, rg_synth_opts, resume_path),
    RG_CLI_STORE(RG_OPT_SPILL, RG_CLI_TEXT, rg_synth_opts, spill_path),
    RG_CLI_STORE(RG_OPT_JSON, RG_CLI_TEXT, rg_synth_opts, json_path),
    RG_CLI_STORE(RG_OPT_KEEP_REDUNDANT, RG_CLI_SET, rg_synth_opts, fp.keep_redundant),
    RG_CLI_STORE(RG_OPT_ALL_PAIRS, RG_CLI_SET, rg_synth_opts, all_pairs),
    RG_CLI_STORE(RG_OPT_NO_GENERALIZE, RG_CLI_SET, rg_synth_opts, no_generalize),
    RG_CLI_STORE(RG_OPT_FAIL_FAST, RG_CLI_SET, rg_synth_opts, fin.prove.fail_fast),
    RG_CLI_STORE(RG_OPT_NO_CORE_HINT, RG_CLI_CLEAR, rg_synth_opts, fin.prove.core_hint),
    RG_CLI_STORE(RG_OPT_NO_FAIL_FAST, RG_CLI_SET, rg_synth_opts, no_fail_fast),
    RG_CLI_STORE(RG_OPT_QUIET, RG_CLI_SET, rg_synth_opts, quiet),
    RG_CLI_STORE(RG_OPT_PROOF_CACHE, RG_CLI_TEXT, rg_synth_opts, fin.proof_cache),
    RG_CLI_STORE(RG_OPT_NO_PROOF_CACHE, RG_CLI_SET, rg_synth_opts, fin.no_proof_cache),
};

static int bad_arg(const char *fmt, const char *a) {
  fprintf(stderr, "rulegen: "), fprintf(stderr, fmt, a);
  fprintf(stderr, "\n(see rulegen synth --help)\n");
  return 2;
}

static const char *const stage_names[] = {"enumerate", "fingerprint", "test", "prune", "prove", "all"};

/* The options a field cannot hold; RG_CLI_GO_ON, RG_CLI_NOT_MINE or the exit status. */
static int other_option(int c, const char *arg, rg_synth_opts *o) {
  rg_err err;
  int64_t v;
  switch (c) {
  case RG_OPT_OPS: return rg_enum_choices_set_ops(&o->choices, arg, &err) ? bad_arg("%s", err.msg) : RG_CLI_GO_ON;
  case RG_OPT_MEM_LIMIT: return rg_cli_parse_size(arg, &o->fp.mem_limit) ? RG_CLI_GO_ON : bad_arg("--mem-limit: bad size '%s' (e.g. 512M, 4G)", arg);
  case RG_OPT_TRIALS:
    if (!rg_cli_parse_i64(arg, 1, 1000, &v)) return bad_arg("--trials wants 1..1000, not '%s'", arg);
    return o->rt.zp_trials = o->rt.f64_trials = (int)v, RG_CLI_GO_ON;
  case RG_OPT_STOP_AFTER:
    for (int k = 0; k <= RG_SYNTH_STOP_ALL; k++)
      if (!strcmp(arg, stage_names[k])) return o->stop_after = (rg_synth_stop)k, RG_CLI_GO_ON;
    return bad_arg("--stop-after: unknown stage '%s' (want enumerate, fingerprint, test, prune, prove or all)", arg);
  case RG_OPT_PRUNE:
    if (rg_prune_parse_stages(arg, &o->fin.prune_stages)) return RG_CLI_GO_ON;
    return bad_arg("--prune: unknown stage in '%s' (want renaming, subgraph, supergraph, derive, all or none)", arg);
  case RG_OPT_REQUIRE:
    if (rg_require_parse(arg, &o->fin.prove.require)) return RG_CLI_GO_ON;
    return bad_arg("--require wants both or any, not '%s'", arg);
  default: return RG_CLI_NOT_MINE;
  }
}

/* What the options leave to be checked or derived once all are read; inputs_set: the input set
 * came from a candidates file's header. */
static int after_options(rg_synth_opts *o, bool inputs_set) {
  if (o->resume_path && o->stop_after <= RG_SYNTH_STOP_TEST)
    return bad_arg("--resume starts after the test stage: --stop-after must be prune, prove or all%s", "");
  o->fp.threads = o->threads;
  o->rt.seed = o->fp.seed + 1;
  rg_err err;
  if (o->inputs_path && rg_enum_inputs_load(o->inputs_path, &o->inputs, &err)) {
    rg_cli_report("rulegen", o->inputs_path, &err);
    return 2;
  }
  if (!o->inputs_path && !inputs_set) rg_enum_inputs_for_choices(&o->choices, &o->inputs);
  return 0;
}

/* One option c: the enumeration's operator choices (codes from RG_CLI_EXTRA_CODE), fields, the rest. */
static int set_option(int c, const char *arg, rg_synth_opts *o) {
  const char *const *copts = rg_enum_choices_options();
  rg_err err;
  if (c >= RG_CLI_EXTRA_CODE) return rg_enum_choices_set(&o->choices, copts[c - RG_CLI_EXTRA_CODE], arg, &err) ? bad_arg("%s", err.msg) : RG_CLI_GO_ON;
  int rc = rg_cli_field_set("rulegen", &rg_doc_synth, fields, RG_CLI_COUNT(fields), c, arg, o);
  if (rc == 2) fprintf(stderr, "(see rulegen synth --help)\n");
  if (rc == RG_CLI_NOT_MINE) rc = other_option(c, arg, o);
  if (rc == RG_CLI_NOT_MINE) return fprintf(stderr, "(see rulegen synth --help)\n"), 2;
  return rc;
}

#define HELP_SHOWN (-2)

/* Sets the options of argv in o; RG_CLI_GO_ON, HELP_SHOWN, or the exit status. */
static int parse_into(int argc, char **argv, rg_synth_opts *o) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_synth.options, rg_doc_synth.n_options);
  const char *const *copts = rg_enum_choices_options();
  for (int k = 0; copts[k]; k++) rg_cli_getopt_add(&g, copts[k], true, RG_CLI_EXTRA_CODE + k);
  int c, rc = RG_CLI_GO_ON;
  while (rc == RG_CLI_GO_ON && (c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == RG_OPT_HELP) return rg_cli_doc_usage(stdout, &rg_doc_synth, rg_doc_synth_choices), HELP_SHOWN;
    rc = set_option(c, optarg, o);
  }
  if (rc != RG_CLI_GO_ON) return rc;
  if (optind < argc) return bad_arg("unexpected argument '%s'", argv[optind]);
  return RG_CLI_GO_ON;
}

/* --resume FILE: the options that made the candidates (its header, synth/resume.h) are the
 * defaults, the command line's go on top; one that changes what made them is refused when the
 * candidates are read. A file without those lines leaves the command line's options alone. */
static int resume_defaults(int argc, char **argv, rg_synth_opts *o, bool *inputs_set) {
  rg_strbuf args;
  rg_sb_init(&args);
  rg_enum_inputset in;
  bool found;
  const char *path = o->resume_path;
  int rc = rg_synth_resume_options(path, &args, &in, &found) ? 2 : RG_CLI_GO_ON;
  if (rc == RG_CLI_GO_ON && found) {
    char *words[64] = {"rulegen"};
    int n = 1;
    for (char *t = strtok(args.s, " "); t && n < 63; t = strtok(NULL, " ")) words[n++] = t;
    rg_synth_opts_default(o, &rg_cli_interrupted);
    rc = parse_into(n, words, o);
    if (rc != RG_CLI_GO_ON)
      fprintf(stderr, "rulegen: --resume %s: its '# options:' line is damaged (fix it, or rerun the test stage)\n",
              path), rc = 2;
    else rc = parse_into(argc, argv, o);
    o->inputs = in, *inputs_set = true;
  }
  rg_sb_free(&args);
  return rc;
}

/* Parses the command line into o; returns 0, -1 after --help, or the exit status to stop with. */
static int parse(int argc, char **argv, rg_synth_opts *o) {
  rg_synth_opts_default(o, &rg_cli_interrupted);
  bool inputs_set = false;
  int rc = parse_into(argc, argv, o);
  if (rc == RG_CLI_GO_ON && o->resume_path) rc = resume_defaults(argc, argv, o, &inputs_set);
  if (rc == HELP_SHOWN) return -1;
  return rc != RG_CLI_GO_ON ? rc : after_options(o, inputs_set);
}

int rg_cmd_synth(int argc, char **argv) {
  rg_synth_opts o;
  rg_cli_catch_interrupts(); /* before parse: the options hold the flag */
  int rc = parse(argc, argv, &o);
  if (!rc) rc = rg_synth_run_argv(&o, argc, argv);
  rg_cli_release_interrupts();
  return rc < 0 ? 0 : rc;
}
