/* tools/graphopt_optimize.c: `graphopt optimize` (also `graphopt --rules R IN.onnx -o OUT.onnx`):
 * verified rules applied by TASO's backtracking search or by equality saturation under a cost
 * model, the result checked numerically against the original before anything is written.
 * optimizer/ does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphopt.h"
#include "rulesdb/rulesdb.h"

#define P "graphopt optimize"

typedef struct {
  const char *in, *rules, *pub, *out, *cost, *machine, *cache, *json, *proof_cache, *axioms, *certs;
  bool allow_unsigned, no_cache, explain, quiet, eqsat, unproved_rules, no_proof_cache, force, pet;
  int backtrack_only, eqsat_only, guard; /* an option only that search reads (its code; 0 none); --guard 1, --no-guard 0 */
  double alpha, time_limit, tolerance, ilp_time_limit;
  int64_t budget, seed, max_enodes, iterations, multi_rounds;
  size_t mem_limit; /* --mem-limit: what the search may take (0: rg_search_memory_default) */
  const char *reads[RG_OPTIMIZE_MAX_READS]; int n_reads; /* files the outputs must not replace */
  rg_extract_kind extract;
  rg_import_dims dims;
  rg_export_opts xo; /* where the weights go: --external-data and the rest */
  rg_speed_guard g; /* on or off by --guard and the rest */
} opt_opts;

/* False, said, when a file option names the empty string (it would read as a file "" missing) */
static bool files_named(const opt_opts *o) {
  return rg_cli_file_names_given(P, (const char *[]){"--rules", "--pub", "--axioms", "--machine", "--cache", "--proof-cache"},
                                 (const char *[]){o->rules, o->pub, o->axioms, o->machine, o->cache, o->proof_cache}, 6);
}

/* An option the chosen search does not read is a mistake to point out, not to ignore. */
static bool search_options_fit(const opt_opts *o) {
  if (o->eqsat && o->backtrack_only)
    fprintf(stderr, P ": --%s is the backtracking search's (--search backtrack); equality saturation, the default, "
                    "is bounded by --iterations, --max-enodes and --time-limit\n", rg_cli_flag_name(o->backtrack_only));
  else if (!o->eqsat && o->eqsat_only)
    fprintf(stderr, P ": --%s is equality saturation's (--search eqsat, the default), not --search backtrack's\n",
            rg_cli_flag_name(o->eqsat_only));
  else return true;
  return false;
}

/* The guard on or off (speed_guard.h); false when $GRAPHOPT_GUARD is bad (said). */
static bool guard_set(opt_opts *o) {
  rg_err err;
  if (!rg_speed_guard_setup(&o->g, o->guard, o->cost, o->machine, &err)) return true;
  return fprintf(stderr, P ": %s\n", err.msg), false;
}

/* --certs: a folder of its own, made now (pet.h), not -o's nor --json's path. */
static bool certs_fit(const opt_opts *o) {
  rg_err err;
  return !o->certs || !rg_pet_certs_folder(o->certs, o->out, o->json, &err) || fprintf(stderr, P ": %s\n", err.msg) < 0;
}

static const char *const searches[] = {"backtrack", "eqsat", NULL}, *const extracts[] = {"greedy", "ilp", NULL};
static bool parse(int argc, char **argv, opt_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_graphopt_optimize.options, rg_doc_graphopt_optimize.n_options);
  *o = (opt_opts){.cost = rg_cost_backend_get(0)->name, .alpha = 1.05, .time_limit = 10, .tolerance = 1e-4, .budget = 1000,
                  .seed = 1, .max_enodes = 200000, .iterations = 15, .multi_rounds = 2, .ilp_time_limit = 10,
                  .extract = RG_EXTRACT_GREEDY, .eqsat = true, .guard = -1};
  int c, pick;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    bool ok = true;
    switch (c) {
    case RG_OPT_RULES: o->rules = optarg; break;
    case RG_OPT_PUB: o->pub = optarg; break;
    case RG_OPT_ALLOW_UNSIGNED: o->allow_unsigned = true; break;
    case RG_OPT_UNPROVED_RULES: o->unproved_rules = true; break;
    case RG_OPT_PROOF_CACHE: o->proof_cache = optarg; break;
    case RG_OPT_NO_PROOF_CACHE: o->no_proof_cache = true; break;
    case RG_OPT_AXIOMS: o->axioms = optarg; break;
    case RG_OPT_FORCE: o->force = true; break;
    case RG_OPT_OUTPUT: o->out = optarg; break;
    case RG_OPT_COST: o->cost = optarg; break;
    case RG_OPT_MACHINE: o->machine = optarg; break;
    case RG_OPT_CACHE: o->cache = optarg; break;
    case RG_OPT_NO_CACHE: o->no_cache = true; break;
    case RG_OPT_GUARD: case RG_OPT_NO_GUARD: o->guard = c == RG_OPT_GUARD; break;
    case RG_OPT_ALPHA: ok = rg_cli_real_option(P, "alpha", optarg, 1, &o->alpha); break;
    case RG_OPT_BUDGET: ok = rg_cli_int_option(P, "budget", optarg, 1, INT32_MAX, &o->budget); break;
    case RG_OPT_TIME_LIMIT: ok = rg_cli_real_option(P, "time-limit", optarg, 0, &o->time_limit); break;
    case RG_OPT_SEED: ok = rg_cli_int_option(P, "seed", optarg, 0, UINT32_MAX, &o->seed); break;
    case RG_OPT_TOLERANCE: ok = rg_cli_real_option(P, "tolerance", optarg, 0, &o->tolerance); break;
    case RG_OPT_EXPLAIN: case RG_OPT_QUIET: *(c == RG_OPT_EXPLAIN ? &o->explain : &o->quiet) = true; break;
    case RG_OPT_PET: case RG_OPT_CERTS: o->pet = true, o->certs = c == RG_OPT_CERTS ? optarg : o->certs; break;
    case RG_OPT_JSON: o->json = optarg; break;
    case RG_OPT_SEARCH: ok = rg_cli_choice_option(P, "search", optarg, searches, &pick), o->eqsat = pick == 1; break;
    case RG_OPT_EXTRACT: ok = rg_cli_choice_option(P, "extract", optarg, extracts, &pick), o->extract = (rg_extract_kind)pick; break;
    case RG_OPT_MAX_ENODES: ok = rg_cli_int_option(P, "max-enodes", optarg, 1, INT32_MAX, &o->max_enodes); break;
    case RG_OPT_ITERATIONS: ok = rg_cli_int_option(P, "iterations", optarg, 1, 1000000, &o->iterations); break;
    case RG_OPT_MULTI_ROUNDS: ok = rg_cli_int_option(P, "multi-rounds", optarg, 0, 1000000, &o->multi_rounds); break;
    case RG_OPT_ILP_TIME_LIMIT: ok = rg_cli_real_option(P, "ilp-time-limit", optarg, 0, &o->ilp_time_limit); break;
    case RG_OPT_MEM_LIMIT: ok = rg_cli_size_option(P, "mem-limit", optarg, &o->mem_limit); break;
    case RG_OPT_DIM: ok = graphopt_add_dim(&o->dims, optarg); break;
    default: /* --external-data and the rest, or not an option of optimize */
      if ((pick = graphopt_external_option(P, c, optarg, &o->xo)) > 0) break;
      return *rc = pick < 0 ? 2 : graphopt_usage(&rg_doc_graphopt_optimize, c, graphopt_print_cost_models), false;
    }
    if (!ok) return *rc = 2, false;
    if (c == RG_OPT_ALPHA || c == RG_OPT_BUDGET) o->backtrack_only = c;
    if (c == RG_OPT_EXTRACT || c == RG_OPT_MAX_ENODES || c == RG_OPT_ITERATIONS || c == RG_OPT_MULTI_ROUNDS ||
        c == RG_OPT_ILP_TIME_LIMIT)
      o->eqsat_only = c;
  }
  if (!search_options_fit(o) || !files_named(o) || !guard_set(o)) return *rc = 2, false;
  const char *missing = optind != argc - 1 ? "one model" : !o->out ? "-o OUT.onnx" : NULL;
  if (missing) /* said, then the help */
    return fprintf(stderr, P ": wants %s\n", missing),
           *rc = graphopt_usage(&rg_doc_graphopt_optimize, '?', graphopt_print_cost_models), false;
  o->in = argv[optind];
  o->n_reads = rg_optimize_files_read(o->in, o->rules, o->pub, o->axioms, o->machine, o->cache, o->reads);
  if (!certs_fit(o) || !graphopt_outputs_fit(P, o->reads, o->n_reads, o->out, o->json, o->force)) return *rc = 2, false;
  return true;
}

/* The rules the search may apply: a signed database's verified ones, or rules proved here through
 * the proof cache (or, when the user says so, unproved ones); what was left out, said. */
static bool load_rules(const opt_opts *o, rg_ruleset *rules, rg_rules_provenance *pv) {
  rg_err err = {0};
  rg_strbuf warn;
  rg_sb_init(&warn);
  rg_rules_load_opts lo = {.path = o->rules, .pub = o->pub, .allow_unsigned = o->allow_unsigned,
                           .allow_unproved = o->unproved_rules, .proof_cache = o->proof_cache,
                           .no_proof_cache = o->no_proof_cache, .axioms = o->axioms, .progress = !o->quiet,
                           .stop = &rg_cli_interrupted};
  rg_cli_catch_interrupts();
  rg_status st = rg_rules_load_proved(&lo, rules, pv, &warn, &err);
  rg_cli_release_interrupts();
  rg_cli_print_lines(stderr, "graphopt optimize: warning: ", warn.len ? rg_sb_str(&warn) : "");
  if (st) fprintf(stderr, "graphopt optimize: %s\n", err.msg); /* it names the file */
  else if (o->unproved_rules && pv->unproved_used)
    fprintf(stderr, "graphopt optimize: WARNING: %d rules of %s are applied WITHOUT PROOF (--unproved-rules)\n",
            pv->unproved_used, o->rules ? o->rules : pv->default_set);
  return rg_sb_free(&warn), !st;
}

/* With --pet: PET's rewrites at m's shapes certified and appended to rules (rg_optimize_pet), said. */
static bool add_pet(const opt_opts *o, const rg_model *m, rg_ruleset *rules, rg_pet_set *pet) {
  rg_err err = {0};
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_cli_catch_interrupts();
  rg_status st = o->pet ? rg_optimize_pet(m, &(rg_pet_find_opts){3, 10, 0, &rg_cli_interrupted, !o->quiet}, o->certs, rules, pet,
                                          &sb, &err) : RG_OK;
  rg_cli_release_interrupts(), graphopt_print(&sb);
  return !st || fprintf(stderr, P ": --pet: %s\n", err.msg) < 0;
}

/* The numeric check's verdict, then the guard's (g), and the model written when they let it be; the
 * exit status. */
static int check_and_write(const opt_opts *o, const rg_model *m, const rg_ruleset *rules, const rg_search_result *r,
                           const rg_numcheck_plan *plan, double worst, int step, rg_cost_model *cm, rg_speed_guard *g,
                           const rg_pet_set *pet) {
  rg_err err = {0};
  rg_strbuf sb;
  rg_sb_init(&sb);
  const char *alone = plan->mode == RG_NUMCHECK_REGIONS ? plan->why : NULL;
  bool passed = rg_numcheck_print(m, rules, r, worst, step, o->tolerance, o->seed, alone, &sb), copy;
  graphopt_print(&sb);
  if (!passed) return 1;
  if (g->on && r->n_steps && !o->quiet && !rg_cli_interrupted) fprintf(stderr, P ": guard: timing both models in onnxruntime\n");
  if (rg_speed_guard_run(cm, m, r, o->in, g, &err)) /* a guard asked for that cannot measure writes nothing */
    return fprintf(stderr, P ": %s (--no-guard writes the optimized model unmeasured)\n", err.msg), 2;
  rg_speed_guard_print(g, &sb), graphopt_print(&sb);
  if (rg_optimize_write(m, r, g, o->in, o->out, &o->xo, &copy, &err)) return rg_cli_report(P, NULL, &err), 2;
  printf("%s: written%s\n", o->out, rg_speed_guard_keeps_original(g) ? rg_speed_guard_why_original(g)
                                   : copy ? " (no rule improved the model: a copy of the original)" : "");
  rg_pet_applied_print(pet, rules, rg_speed_guard_keeps_original(g) ? NULL : r, &sb), graphopt_print(&sb);
  return 0;
}

/* The search's figures as JSON in path, whole or not at all; true when that failed (said why). */
static bool write_json(const char *path, const rg_rules_provenance *pv, const rg_search_result *r,
                       const rg_cost_model *cm, double worst, bool regions_only, const rg_eqsat_stats *es, const rg_speed_guard *g,
                       const rg_pet_set *pet, const rg_ruleset *rules) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_optimize_json(pv, r, cm, worst, regions_only, es, g, pet, rules, &sb);
  rg_err err;
  rg_status st = rg_atomic_write(path, rg_sb_str(&sb), strlen(rg_sb_str(&sb)), &err);
  if (st) fprintf(stderr, "graphopt optimize: --json: %s\n", err.msg);
  rg_sb_free(&sb);
  return st != RG_OK;
}

/* The search o names: its result into r, equality saturation's figures into es. */
static rg_status search(const opt_opts *o, rg_model *m, const rg_ruleset *rules, rg_cost_model *cm, rg_search_result *r,
                        rg_eqsat_stats *es, rg_err *err) {
  rg_search_memory mem = {o->mem_limit ? (int64_t)o->mem_limit : rg_search_memory_default(), NULL};
  if (!o->eqsat) {
    rg_search_opts so = {o->alpha, o->budget, o->time_limit, 2.0, rg_cost_search_fn, cm, !o->quiet, &rg_cli_interrupted,
                         RG_SEARCH_QUEUE_LIMIT, mem};
    return rg_search_rules(m, rules, &so, r, err);
  }
  rg_eqsat_opts eo = {.max_enodes = o->max_enodes, .iterations = (int)o->iterations, .multi_rounds = (int)o->multi_rounds,
                      .time_limit = o->time_limit, .extract = o->extract, .ilp_time_limit = o->ilp_time_limit, .cost = cm,
                      .model_cost = rg_cost_search_fn, .model_cost_ctx = cm, .progress = !o->quiet,
                      .stop = &rg_cli_interrupted, .memory = mem};
  return rg_eqsat_rules(m, rules, &eo, r, es, err);
}

/* The search again over fewer rules (rg_dims_keep's; ctx: what search() reads). */
typedef struct { const opt_opts *o; rg_model *m; rg_cost_model *cm; rg_eqsat_stats *es; } research_ctx;
static rg_status research(void *ctx, const rg_ruleset *rules, rg_search_result *out, rg_err *err) {
  const research_ctx *c = ctx;
  return search(c->o, c->m, rules, c->cm, out, c->es, err);
}

static int optimize(const opt_opts *o, rg_model *m, const rg_ruleset *rules, const rg_rules_provenance *pv,
                    rg_cost_model *cm, const rg_numcheck_plan *plan, const rg_pet_set *pet) {
  rg_err err = {0};
  rg_cli_catch_interrupts();
  rg_search_result r;
  rg_eqsat_stats es;
  rg_status st = search(o, m, rules, cm, &r, &es, &err);
  research_ctx again = {o, m, cm, &es};
  rg_strbuf said; /* with symbolic dims: the rewrites that hold only at the values imported dropped */
  rg_sb_init(&said);
  if (!st) st = rg_dims_keep(m, o->in, (uint32_t)o->seed, rules, research, &again, o->tolerance, &r, &said, &err);
  graphopt_print(&said);
  if (st) {
    rg_cli_release_interrupts();
    return rg_cli_report(P, NULL, &err), 2;
  }
  int step = -1, rc = 2;
  double worst = 0;
  rg_speed_guard g = o->g;
  g.stop = &rg_cli_interrupted; /* Ctrl-C in the search skips the guard, in it stops it */
  st = rg_optimize_check(m, &r, (uint32_t)o->seed, o->tolerance, plan, &worst, &step, &err);
  rg_strbuf sb;
  rg_sb_init(&sb);
  if (o->explain) rg_search_steps_print(m, rules, &r, pet, &sb);
  rg_search_operators_print(m, r.roots, &sb);
  if (o->eqsat) rg_eqsat_result_print(&r, &es, o->extract, cm, &sb);
  else rg_search_result_print(&r, cm, &sb);
  rg_rules_provenance_print(pv, &sb);
  graphopt_print(&sb);
  if (st) rg_cli_report(P, NULL, &err);
  else rc = check_and_write(o, m, rules, &r, plan, worst, step, cm, &g, o->pet ? pet : NULL);
  /* 3: the model is written, its report is not (1 and 2 mean nothing was written) */
  bool alone = plan->mode == RG_NUMCHECK_REGIONS;
  if (!rc && o->json && write_json(o->json, pv, &r, cm, worst, alone, o->eqsat ? &es : NULL, &g, o->pet ? pet : NULL, rules)) rc = 3;
  rg_cli_release_interrupts();
  rg_search_result_free(&r);
  return rc;
}

int graphopt_optimize_cmd(int argc, char **argv) {
  opt_opts o;
  int rc;
  if (!parse(argc, argv, &o, &rc)) return rc;
  rg_ruleset rules;
  rg_ruleset_init(&rules);
  rg_rules_provenance pv;
  rg_model *m = graphopt_load(o.in, &o.dims, NULL); /* a bad model is refused before any proof */
  char cache[4096] = "";
  rg_cost_model *cm = NULL;
  rg_err err = {0};
  o.xo.force = o.force, o.xo.reads = o.reads, o.xo.n_reads = o.n_reads; /* the side file replaces none either */
  if (m && rg_export_check_outputs(m, o.out, o.json, &o.xo, &err)) rg_cli_report(P, NULL, &err), rg_model_free(m), m = NULL;
  if (m && rg_cost_model_choose(o.cost, o.machine, o.cache, o.no_cache, cache, sizeof cache, &cm, &err))
    rg_cli_report(P, NULL, &err);
  /* which numeric check can run: the whole model, or where the evaluator cannot run it each
   * rewritten region alone (said before the proofs and the search) */
  rg_numcheck_plan plan;
  if (m && cm && rg_numcheck_preflight(m, (uint32_t)o.seed, &plan, &err)) rg_cli_report(P, NULL, &err), rg_cost_model_free(cm), cm = NULL;
  if (m && cm && plan.mode == RG_NUMCHECK_REGIONS && !o.quiet)
    fprintf(stderr, P ": the whole model cannot be evaluated (%s): each rewritten region will be checked on its own\n",
            plan.why);
  rg_pet_set pet = {0};
  rc = m && cm && load_rules(&o, &rules, &pv) && add_pet(&o, m, &rules, &pet) ? optimize(&o, m, &rules, &pv, cm, &plan, &pet)
                                                                           : 2;
  rg_pet_set_free(&pet);
  rg_cost_model_free(cm);
  rg_model_free(m);
  rg_ruleset_free(&rules);
  return rc;
}
