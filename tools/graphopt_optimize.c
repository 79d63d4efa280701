/* tools/graphopt_optimize.c: `graphopt optimize` (also `graphopt --rules R IN.onnx -o OUT.onnx`):
 * verified rules applied by TASO's backtracking search under a cost model, the result checked
 * numerically against the original before anything is written. optimizer/ does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "graphopt.h"
#include "ir/ir.h"
#include "rulesdb/rulesdb.h"

static const rg_cli_option opts[] = {
    {"rules", 'r', 1, "FILE", "the rules: a signed database (.db) or rule text (required)"},
    {"pub", 'p', 1, "KEY.pub", "verify the database's signature with this key"},
    {"allow-unsigned", 'U', 0, "", "use a database whose signature is missing or not checked"},
    {"output", 'o', 1, "OUT.onnx", "write the optimized model here (required)"},
    {"cost", 'c', 1, "NAME", "the cost model (below; default: the first)"},
    {"machine", 'M', 1, "FILE", "the roofline's machine figures (default optimizer/machines/)"},
    {"cache", 'C', 1, "PATH", "dnnl's cost cache (default ~/.cache/rulegen/costs.sqlite)"},
    {"no-cache", 'N', 0, "", "dnnl: time every configuration, keep nothing"},
    {"alpha", 'a', 1, "A", "queue models cheaper than A x the best (default 1.05; 1 is greedy)"},
    {"budget", 'b', 1, "N", "models explored at most (default 1000)"},
    {"time-limit", 'T', 1, "S", "seconds of search at most (default 10, 0 none)"},
    {"seed", 'S', 1, "N", "seed of the numeric check's inputs (default 1)"},
    {"tolerance", 't', 1, "T", "largest relative difference the check allows (default 1e-4)"},
    {"explain", 'e', 0, "", "print each rule applied: id, text, where, cost before and after"},
    GRAPHOPT_DIM_OPTION,
    {"quiet", 'q', 0, "", "no progress on standard error"},
    GRAPHOPT_HELP_OPTION,
};
#define N_OPTS ((int)(sizeof opts / sizeof *opts))

static void usage(FILE *out) {
  fprintf(out, "usage: graphopt optimize IN.onnx --rules RULES -o OUT.onnx [options]\n"
               "       graphopt --rules RULES IN.onnx -o OUT.onnx [options]\n\n"
               "Rewrites a model with verified rules (both ways round) by TASO's cost-based backtracking\n"
               "search: the cheapest model first, every rule everywhere, models within --alpha of the best\n"
               "kept, at most twice the original's operators. A rule applies only where its other side\n"
               "type-checks at the model's shapes with the same output shapes. Before writing, the\n"
               "optimized model is evaluated against the original on seeded random inputs; if they\n"
               "differ, nothing is written and the first rule application after which they differ is\n"
               "named. When no rule makes the model cheaper, OUT is a copy of IN. Only the database's\n"
               "verified rules are used (certified ones need corrections). Ctrl-C stops the search and\n"
               "keeps the best model found so far.\n\noptions:\n");
  rg_cli_print_options(out, opts, N_OPTS, 14, 9);
  graphopt_print_cost_models(out);
  fprintf(out, "\nexample:\n  graphopt --rules rules.db --pub rules.pub resnext50.onnx -o resnext50.opt.onnx\n"
               "exit status: 0 written (also when no rule helps), 1 the numeric check failed (nothing\n"
               "written), 2 bad input or arguments\n");
}

typedef struct {
  const char *in, *rules, *pub, *out, *cost, *machine, *cache;
  bool allow_unsigned, no_cache, explain, quiet;
  double alpha, time_limit, tolerance;
  int64_t budget, seed;
  graphopt_dims dims;
} opt_opts;

static bool number(const char *opt, const char *arg, double lo, double *out) {
  char *end;
  *out = strtod(arg, &end);
  if (*end || end == arg || !(*out >= lo)) {
    fprintf(stderr, "graphopt optimize: %s wants a number >= %g, not '%s'\n", opt, lo, arg);
    return false;
  }
  return true;
}

static bool parse(int argc, char **argv, opt_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, opts, N_OPTS);
  *o = (opt_opts){.cost = rg_cost_backend_get(0)->name, .alpha = 1.05, .time_limit = 10, .tolerance = 1e-4, .budget = 1000, .seed = 1};
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    bool ok = true;
    switch (c) {
    case 'r': o->rules = optarg; break;
    case 'p': o->pub = optarg; break;
    case 'U': o->allow_unsigned = true; break;
    case 'o': o->out = optarg; break;
    case 'c': o->cost = optarg; break;
    case 'M': o->machine = optarg; break;
    case 'C': o->cache = optarg; break;
    case 'N': o->no_cache = true; break;
    case 'a': ok = number("--alpha", optarg, 1, &o->alpha); break;
    case 'b': ok = rg_cli_int_option("graphopt optimize", "--budget", optarg, 1, INT32_MAX, &o->budget); break;
    case 'T': ok = number("--time-limit", optarg, 0, &o->time_limit); break;
    case 'S': ok = rg_cli_int_option("graphopt optimize", "--seed", optarg, 0, UINT32_MAX, &o->seed); break;
    case 't': ok = number("--tolerance", optarg, 0, &o->tolerance); break;
    case 'e': o->explain = true; break;
    case 'd': ok = graphopt_add_dim(&o->dims, optarg); break;
    case 'q': o->quiet = true; break;
    case 'h': usage(stdout); return *rc = 0, false;
    default: usage(stderr); return *rc = 2, false;
    }
    if (!ok) return *rc = 2, false;
  }
  const char *missing = optind != argc - 1 ? "one model" : !o->rules ? "--rules RULES" : !o->out ? "-o OUT.onnx" : NULL;
  if (missing) {
    fprintf(stderr, "graphopt optimize: wants %s\n", missing);
    usage(stderr);
    return *rc = 2, false;
  }
  o->in = argv[optind];
  return true;
}

/* The rules: a database's verified ones (its signature checked, unless allowed not to be), or a
 * rule file's. */
static bool load_rules(const opt_opts *o, rg_ruleset *rules) {
  rg_err err = {0};
  size_t n = strlen(o->rules);
  if (n < 3 || strcmp(o->rules + n - 3, ".db")) {
    if (!rg_text_parse_file(o->rules, rules, &err)) return true;
    rg_cli_report("graphopt optimize", o->rules, &err);
    return false;
  }
  rg_strbuf warn;
  rg_sb_init(&warn);
  rg_status st = rg_db_load_verified(o->rules, o->pub, o->allow_unsigned, rules, &warn, &err);
  if (warn.len) fprintf(stderr, "graphopt optimize: warning (--allow-unsigned): %s", rg_sb_str(&warn));
  if (st) fprintf(stderr, "graphopt optimize: %s\n", err.msg); /* it names the file */
  rg_sb_free(&warn);
  return st == RG_OK;
}

/* "conv2d 53 -> 37" per operator that either model computes. */
static void print_operators(const rg_model *m, const rg_ref *after) {
  rg_model_counts c[2];
  rg_err err;
  rg_model_count(m, &c[0]);
  if (rg_model_count_roots(m, after, &c[1], &err)) return;
  printf("operators (before -> after):");
  for (int op = 0, n = 0; op < RG_OP_COUNT; op++)
    if (c[0].by_op[op] || c[1].by_op[op])
      printf("%s%s %d -> %d", n++ ? ", " : " ", rg_op_get((rg_op)op)->name, c[0].by_op[op], c[1].by_op[op]);
  printf("; %d opaque\n", c[0].opaque);
}

static void print_step(const rg_model *m, const rg_ruleset *rules, int k, const rg_search_step *s) {
  const rg_rule *r = rules->rules[s->app.rule];
  rg_strbuf text;
  rg_sb_init(&text);
  rg_text_print_rule(r, &text);
  char line[32] = "";
  if (r->line > 0) snprintf(line, sizeof line, " (line %d)", r->line);
  printf("  %3d. rule %d%s%s: %s\n", k + 1, s->app.rule + 1, line, s->app.reversed ? ", right to left" : "",
         rg_sb_str(&text)); /* the text starts with the rule's name, if it has one */
  printf("       at");
  for (int i = 0; i < s->app.n; i++) {
    char sh[96];
    printf(" node %d (%s %s)", s->app.at[i].node, rg_op_get((rg_op)rg_graph_node(m->g, s->app.at[i].node)->op)->name,
           rg_shape_format(rg_model_shape(m, s->app.at[i]), sh, sizeof sh));
  }
  printf("; cost %.4g -> %.4g\n", s->cost_before, s->cost_after);
  rg_sb_free(&text);
}

/* The search's figures: the cost before and after, the search's counts, the timings. */
static void print_search(const rg_search_result *r, const rg_cost_model *cm) {
  rg_cost_stats cs;
  rg_cost_model_stats(cm, &cs);
  printf("cost (%s): %.6g -> %.6g (%.3fx)\n", rg_cost_model_name(cm), r->cost_before, r->cost_after,
         r->cost_after > 0 ? r->cost_before / r->cost_after : 1.0);
  printf("search: %d rules applied; %lld models explored, %lld queued, %lld rewrites tried; %.2f s%s\n", r->n_steps,
         (long long)r->explored, (long long)r->queued, (long long)r->applications, r->seconds,
         r->stopped ? " (stopped: time limit or Ctrl-C)" : "");
  if (cs.measured || cs.cached)
    printf("costs: %lld configurations timed, %lld from the cache\n", (long long)cs.measured, (long long)cs.cached);
}

/* The numeric check's verdict, and the model written when it passed; the exit status. */
static int check_and_write(const opt_opts *o, const rg_model *m, const rg_ruleset *rules, const rg_search_result *r,
                           double worst, int step) {
  rg_err err = {0};
  if (!(worst <= o->tolerance)) {
    printf("numeric check: FAILED, relative difference %.3g > %g: nothing written\n", worst, o->tolerance);
    if (step >= 0) printf("  the model first differs after application %d:\n", step + 1), print_step(m, rules, step, &r->steps[step]);
    return 1;
  }
  printf("numeric check: outputs agree, largest relative difference %.3g (seed %lld)\n", worst, (long long)o->seed);
  if (rg_optimize_write(m, r, o->in, o->out, &err)) return rg_cli_report("graphopt optimize", NULL, &err), 2;
  printf("%s: written%s\n", o->out, r->n_steps ? "" : " (no rule improved the model: a copy of the original)");
  return 0;
}

static int optimize(const opt_opts *o, rg_model *m, const rg_ruleset *rules, rg_cost_model *cm) {
  rg_err err = {0};
  rg_cli_catch_interrupts();
  rg_search_opts so = {o->alpha, o->budget, o->time_limit, 2.0, rg_cost_search_fn, cm, !o->quiet, &rg_cli_interrupted};
  rg_search_result r;
  rg_status st = rg_search_rules(m, rules, &so, &r, &err);
  rg_cli_release_interrupts();
  if (st) {
    rg_cli_report("graphopt optimize", NULL, &err);
    return 2;
  }
  int step = -1, rc = 2;
  double worst = 0;
  st = rg_optimize_check(m, &r, (uint32_t)o->seed, o->tolerance, &worst, &step, &err);
  if (o->explain)
    for (int k = 0; k < r.n_steps; k++) print_step(m, rules, k, &r.steps[k]);
  print_operators(m, r.roots);
  print_search(&r, cm);
  if (st) rg_cli_report("graphopt optimize", NULL, &err);
  else rc = check_and_write(o, m, rules, &r, worst, step);
  rg_search_result_free(&r);
  return rc;
}

int graphopt_optimize_cmd(int argc, char **argv) {
  opt_opts o;
  int rc;
  if (!parse(argc, argv, &o, &rc)) return rc;
  rg_ruleset rules;
  rg_ruleset_init(&rules);
  if (!load_rules(&o, &rules)) return rg_ruleset_free(&rules), 2;
  rg_model *m = graphopt_load(o.in, &o.dims, NULL);
  char cache[4096] = "";
  rg_cost_opts co = {o.machine, cache};
  rg_cost_model *cm = NULL;
  rg_err err = {0};
  rg_status st = rg_cost_cache_choose(o.cost, o.cache, o.no_cache, cache, sizeof cache, &err);
  if (m && !st) st = rg_cost_model_open(o.cost, &co, &cm, &err);
  if (m && st) rg_cli_report("graphopt optimize", NULL, &err);
  rc = m && cm ? optimize(&o, m, &rules, cm) : 2;
  rg_cost_model_free(cm);
  rg_model_free(m);
  rg_ruleset_free(&rules);
  return rc;
}
