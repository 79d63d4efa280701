/* tools/synth_cmd.c: `rulegen synth` (also `rulegen --ops OPS --depth N ...`): enumerate operator
 * graphs, fingerprint them, and turn fingerprint collisions into randomly tested candidate rules.
 *
 * Pipeline per pass (a pass covers one fingerprint range, see fingerprint/collect.h):
 *   enumerate + fingerprint -> sorted records -> buckets of equal fingerprints -> classes.
 * In a bucket, members are taken smallest first; each is tested (verify/randtest) against the
 * representative of each class found so far and joins the first it passes with, giving the
 * candidate "member => representative"; otherwise it founds a new class. Passing is transitive
 * on the shared trials, so one candidate per member spans its class (--all-pairs prints every
 * pair of a class instead). Candidates are written in bucket order, which is the fingerprint
 * order: the file is the same for any thread count. Output goes to a temporary file that is
 * renamed at the end; an interrupted run removes it.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "fingerprint/fingerprint.h"
#include "prune/prune.h"
#include "synth_collapse.h"
#include "synth_finish.h"
#include "synth_generalize.h"
#include "synth_resume.h"
#include "verify/randtest.h"
#include "verify/randtest_cache.h"

#define SYNTH_OPTIONS(X)                                                                         \
  X("ops", 'O', 1, "LIST", "operators: names and the groups all, taso; e.g. taso,bias (default taso)")   \
  X("depth", 'd', 1, "N", "graphs of at most N operators, 1..4 (default 3)")                    \
  X("inputs", 'i', 1, "FILE", "input set, one 'NAME DIMS' per line (default TASO's 20 inputs; " \
                              "with --ops bias also b1, b2 of size 4)")                        \
  X("output", 'o', 1, "FILE", "write the rules here: rule text, or a signed rule database when " \
                               "FILE ends in .db (default: rule text on standard output)")     \
  X("stop-after", 'A', 1, "STAGE", "enumerate, fingerprint, test (candidates), prune (the rules " \
                                   "sent to the solvers), prove or all (default all: "         \
                                   "derivability over the proved rules last)")                  \
  X("prune", 'p', 1, "LIST", "pruning stages before the proofs: renaming,subgraph,supergraph," \
                             "derive, all or none (default all; a rule they remove goes back " \
                             "if a rule implying it fails its proof; derive also runs last)")  \
  X("require", 'r', 1, "WHO", "both (default) or any: which solvers must prove a rule")        \
  X("timeout-ms", 'T', 1, "MS", "per solver and obligation (default 2000)")                    \
  X("fail-fast", 'F', 0, "", "ask cvc5 only what z3 proved (with --require both; about halves " \
                             "the time unprovable rules cost; cvc5-only proofs not sought)")    \
  X("axioms", 'x', 1, "FILE", "axioms for the proofs (default verify/axioms.rules)")           \
  X("key", 'k', 1, "KEY", "sign a .db output with this secret key (rulesdb keygen)")           \
  X("threads", 'j', 1, "N", "threads (default: every core)")                                   \
  X("mem-limit", 'm', 1, "SIZE", "memory for fingerprint records, e.g. 512M, 4G (default 1/2 " \
                                 "of RAM); more records than fit cost extra passes")           \
  X("max-records", 'R', 1, "N", "hold at most N records per pass (to exercise partitioning)")   \
  X("max-outputs", 'M', 1, "N", "most outputs of a graph, 1..4 (default 2, as TASO's rules)")   \
  X("keep-redundant", 'K', 0, "", "also extend graphs whose newest tensor equals an older one, " \
                                  "and op(b, a) of commutative ops (by default recorded, not "  \
                                  "extended: their extensions are derivable); and graphs using " \
                                  "equal-shaped inputs out of order (renamings)")               \
  X("seed", 'S', 1, "N", "fingerprint seed (default 1); testing draws from another seed")      \
  X("trials", 't', 1, "N", "random trials per domain and shape set (default 1)")               \
  X("shape-sets", 'n', 1, "N", "other shape sets each candidate is tested at (default 3)")     \
  X("all-pairs", 'P', 0, "", "print every pair of a class, not one candidate per member")      \
  X("no-generalize", 'G', 0, "", "do not generalize candidates before pruning (by default a "   \
                                 "variable occurring 2..8 times, in a candidate using every "   \
                                 "input of its shape, is split: its occurrences shared with a " \
                                 "fresh variable of its shape, at most 64 such rules tested "   \
                                 "per candidate; the most general passing ones become "         \
                                 "candidates too, the candidate an instance of them)")          \
  X("resume", 'C', 1, "FILE", "start after the test stage from the candidates a run with -o "  \
                             "OUT saved in OUT.candidates (give that run's options)")           \
  X("quiet", 'q', 0, "", "no progress on standard error")                                      \
  X("help", 'h', 0, "", "show this help")

/* Stages after test belong to synth_finish.c. */
typedef enum { STOP_ENUMERATE, STOP_FINGERPRINT, STOP_TEST, STOP_PRUNE, STOP_PROVE, STOP_ALL } stop_stage;

typedef struct {
  rg_enum_choices choices;
  rg_enum_inputset inputs;
  const char *inputs_path, *out_path, *resume_path;
  int depth, threads;
  stop_stage stop_after;
  rg_fp_opts fp;
  rg_randtest_opts rt;
  bool all_pairs, quiet, no_generalize;
  rg_finish_opts fin; /* the stages after test */
} synth_opts;

/* Counts of the test stage, summed over buckets. */
typedef struct {
  uint64_t members;       /* graphs in buckets */
  uint64_t pairs;         /* (member, representative) pairs tested */
  uint64_t renamed;       /* of those, verdicts known from a renaming tested before (two threads
                           * testing one key at once both test it: may vary by a few) */
  uint64_t mismatch;      /* pairs not comparable: output count or output hashes differ */
  uint64_t unbound;       /* pairs no rule can express: each side has a variable the other lacks */
  uint64_t verdict[RG_RANDTEST_COUNT];
  uint64_t classes;
  uint64_t common;        /* pairs with an output that is the same node on both sides */
  uint64_t splits;        /* multi-output pairs whose output pairs are each a rule */
  uint64_t congruent;     /* op(a) vs op(b) with a, b equal: a smaller candidate a => b says it */
  uint64_t overflow;      /* members not tried: their bucket had MAX_CLASSES classes already */
  uint64_t written;       /* candidate lines */
} test_counts;

/* Set by SIGINT/SIGTERM; the one mutable global, as a signal handler needs it. Workers read it
 * through rg_fp_opts.stop (and the bucket loop here) and stop at the next check. */
static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

static double rss_mb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

static double peak_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0;
}

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
#define X(name, short_, arg, meta, help) fprintf(out, "  -%c, --%-12s %-7s %s\n", short_, name, meta, help);
  SYNTH_OPTIONS(X)
#undef X
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

/* Parses the command line into o; returns 0, or the exit status to stop with. */
static int parse(int argc, char **argv, synth_opts *o) {
  memset(o, 0, sizeof *o);
  rg_enum_choices_default(&o->choices);
  rg_enum_inputs_default(&o->inputs);
  o->depth = 3;
  o->threads = omp_get_max_threads();
  o->stop_after = STOP_ALL;
  o->fin.prune_stages = RG_PRUNE_ALL;
  rg_prove_opts_init(&o->fin.prove);
  o->fin.prove.timeout_ms = 2000; /* most proofs take 10-200 ms; unprovable rules burn the whole timeout */
  o->fin.prove.check_typed = false; /* every candidate type-checked at the enumeration shapes */
  o->fin.prove.stop = &interrupted;
  o->fin.stop = &interrupted;
  /* Records are the run's one large structure (the stages after them need some hundred MB),
   * and each pass more repeats the whole enumeration: half of RAM keeps depth 4 --ops all in
   * one pass on a 24 GB machine. Memory is taken as records come, not up front. */
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  o->fp = (rg_fp_opts){.seed = 1,
                       .mem_limit = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize / 2
                                                           : (size_t)1 << 30,
                       .max_outputs = 2,
                       .stop = &interrupted};
  rg_randtest_opts_default(&o->rt);
  struct option longs[64];
  int nl = 0;
  char shorts[64] = "";
#define X(name, short_, arg, meta, help)                                                         \
  longs[nl++] = (struct option){name, arg, NULL, short_};                                       \
  strcat(shorts, arg ? (char[]){short_, ':', 0} : (char[]){short_, 0});
  SYNTH_OPTIONS(X)
#undef X
  const char *const *copts = rg_enum_choices_options();
  int first_choice = nl;
  for (int k = 0; copts[k]; k++) longs[nl++] = (struct option){copts[k], 1, NULL, 1000 + k};
  longs[nl] = (struct option){0, 0, 0, 0};
  int c, idx;
  int64_t v;
  rg_err err;
  optind = 1;
  while ((c = getopt_long(argc, argv, shorts, longs, &idx)) != -1) {
    switch (c) {
    case 'O':
      if (rg_enum_choices_set_ops(&o->choices, optarg, &err)) return bad_arg("%s%s", err.msg, "");
      break;
    case 'd':
      if (!rg_cli_parse_i64(optarg, INT32_MIN, INT32_MAX, &v))
        return bad_arg("--depth wants a number, not '%s'%s", optarg, "");
      o->depth = (int)v;
      break;
    case 'i': o->inputs_path = optarg; break;
    case 'o': o->out_path = optarg; break;
    case 'A':
      if (!strcmp(optarg, "enumerate")) o->stop_after = STOP_ENUMERATE;
      else if (!strcmp(optarg, "fingerprint")) o->stop_after = STOP_FINGERPRINT;
      else if (!strcmp(optarg, "test")) o->stop_after = STOP_TEST;
      else if (!strcmp(optarg, "prune")) o->stop_after = STOP_PRUNE;
      else if (!strcmp(optarg, "prove")) o->stop_after = STOP_PROVE;
      else if (!strcmp(optarg, "all")) o->stop_after = STOP_ALL;
      else return bad_arg("--stop-after: unknown stage '%s' (want enumerate, fingerprint, test, prune, prove or all)%s", optarg, "");
      break;
    case 'p':
      if (!rg_prune_parse_stages(optarg, &o->fin.prune_stages))
        return bad_arg("--prune: unknown stage in '%s' (want renaming, subgraph, supergraph, derive, all or none)%s", optarg, "");
      break;
    case 'r':
      if (!strcmp(optarg, "both")) o->fin.prove.require = RG_REQUIRE_BOTH;
      else if (!strcmp(optarg, "any")) o->fin.prove.require = RG_REQUIRE_ANY;
      else return bad_arg("--require wants both or any, not '%s'%s", optarg, "");
      break;
    case 'T':
      if (!rg_cli_parse_i64(optarg, 1, 3600000, &v)) return bad_arg("--timeout-ms wants 1..3600000, not '%s'%s", optarg, "");
      o->fin.prove.timeout_ms = (int)v;
      break;
    case 'F': o->fin.prove.fail_fast = true; break;
    case 'x': o->fin.axioms_path = optarg; break;
    case 'k': o->fin.key_path = optarg; break;
    case 'j':
      if (!rg_cli_parse_i64(optarg, 1, 1024, &v)) return bad_arg("--threads wants 1..1024, not '%s'%s", optarg, "");
      o->threads = (int)v;
      break;
    case 'm':
      if (!parse_size(optarg, &o->fp.mem_limit))
        return bad_arg("--mem-limit: bad size '%s' (e.g. 512M, 4G)%s", optarg, "");
      break;
    case 'R':
      if (!rg_cli_parse_i64(optarg, 2, INT64_MAX, &v)) return bad_arg("--max-records wants a number >= 2, not '%s'%s", optarg, "");
      o->fp.max_records = (size_t)v;
      break;
    case 'S':
      if (!rg_cli_parse_i64(optarg, 0, INT64_MAX, &v)) return bad_arg("--seed wants a number, not '%s'%s", optarg, "");
      o->fp.seed = (uint64_t)v;
      break;
    case 't':
      if (!rg_cli_parse_i64(optarg, 1, 1000, &v)) return bad_arg("--trials wants 1..1000, not '%s'%s", optarg, "");
      o->rt.zp_trials = o->rt.f64_trials = (int)v;
      break;
    case 'n':
      if (!rg_cli_parse_i64(optarg, 0, 100, &v)) return bad_arg("--shape-sets wants 0..100, not '%s'%s", optarg, "");
      o->rt.other_shapes = (int)v;
      break;
    case 'P': o->all_pairs = true; break;
    case 'G': o->no_generalize = true; break;
    case 'K': o->fp.keep_redundant = true; break;
    case 'M':
      if (!rg_cli_parse_i64(optarg, 1, RG_RULE_MAX_OUTPUTS, &v)) return bad_arg("--max-outputs wants 1..4, not '%s'%s", optarg, "");
      o->fp.max_outputs = (int)v;
      break;
    case 'C': o->resume_path = optarg; break;
    case 'q': o->quiet = true; break;
    case 'h': usage(stdout); return -1;
    default:
      if (c >= 1000 && c < 1000 + (nl - first_choice)) {
        if (rg_enum_choices_set(&o->choices, copts[c - 1000], optarg, &err)) return bad_arg("%s%s", err.msg, "");
        break;
      }
      fprintf(stderr, "(see rulegen synth --help)\n");
      return 2;
    }
  }
  if (optind < argc) return bad_arg("unexpected argument '%s'%s", argv[optind], "");
  if (o->resume_path && o->stop_after <= STOP_TEST)
    return bad_arg("--resume starts after the test stage: --stop-after must be prune, prove or all%s%s", "", "");
  o->fp.threads = o->threads;
  o->rt.seed = o->fp.seed + 1;
  if (o->inputs_path && rg_enum_inputs_load(o->inputs_path, &o->inputs, &err)) {
    rg_cli_report("rulegen", o->inputs_path, &err);
    return 2;
  }
  /* the default set has no vectors for a bias to add; TASO's run keeps its 20 inputs */
  if (!o->inputs_path && o->choices.op[RG_OP_BIAS]) rg_enum_inputs_add_bias(&o->inputs);
  return 0;
}

/* ---- progress ---- */

typedef struct {
  bool quiet;
  int pass;
  double start, last;
} progress;

static void on_progress(void *user, const rg_enum_progress *p) {
  progress *pr = user;
  double t = rg_cli_now();
  if (pr->quiet || t - pr->last < 1.0) return;
  pr->last = t;
  double el = t - pr->start, rate = el > 0 ? (double)p->graphs / el : 0;
  fprintf(stderr, "\r[pass %d] %llu graphs, %.0f graphs/s, RSS %.0f MB, units %d/%d", pr->pass,
          (unsigned long long)p->graphs, rate, rss_mb(), p->units_done, p->units_total);
  if (p->units_done > 0)
    fprintf(stderr, ", ETA %.0f s  ", el * (p->units_total - p->units_done) / p->units_done);
  fflush(stderr);
}

/* ---- the test stage ---- */

/* Outcome of pairing two graphs of a bucket. */
typedef enum {
  PAIR_RULE,     /* a candidate rule to test */
  PAIR_MISMATCH, /* output counts or output values differ: not comparable */
  PAIR_UNBOUND,  /* each side has a variable the other lacks: no rule can say it */
  PAIR_COMMON,   /* an output is the same node on both sides: the rule without it says it */
  PAIR_SPLITS,   /* several outputs, each pair expressible alone: those smaller candidates say it */
  PAIR_CONGRUENT /* op(.., a, ..) vs op(.., b, ..) with a and b equal in value: a => b says it */
} pair_kind;

/* Whether the roots of single-output sides sa, sb are the same operator (params, output)
 * applied to operands that differ in one position only, where the two operands have equal
 * values (type and Z_p values on the fingerprint inputs): then a => b, a smaller candidate of
 * its own, gives this pair by congruence. */
static rg_status congruent(const rg_enum_space *sp, const rg_graph *g, rg_ref sa, rg_ref sb,
                           rg_value *const *inputs, uint64_t seed, bool *yes, rg_err *err) {
  *yes = false;
  const rg_node *x = rg_graph_node(g, sa.node), *y = rg_graph_node(g, sb.node);
  if (x->op != y->op || x->op == RG_OP_INPUT || sa.out != sb.out || x->n_in != y->n_in ||
      memcmp(x->params, y->params, sizeof x->params))
    return RG_OK;
  int diff = -1;
  for (int k = 0; k < x->n_in; k++)
    if (x->in[k].node != y->in[k].node || x->in[k].out != y->in[k].out) {
      if (diff >= 0) return RG_OK;
      diff = k;
    }
  if (diff < 0) return RG_OK;
  int32_t nt = rg_graph_n_tvars(g);
  const rg_shape *shapes[RG_ENUM_MAX_INPUTS];
  const rg_value *vals[RG_ENUM_MAX_INPUTS];
  for (int32_t q = 0; q < nt; q++) {
    int i = rg_enum_input_index(sp, rg_graph_tvar_name(g, q));
    shapes[q] = &sp->inputs.in[i].shape;
    vals[q] = inputs[i];
  }
  rg_ref refs[2] = {x->in[diff], y->in[diff]};
  rg_plan *plan = NULL;
  rg_value *res[2] = {NULL, NULL};
  rg_eval_ctx ctx;
  rg_fp_eval_ctx(seed, &ctx);
  rg_status st = rg_plan_new(g, refs, 2, shapes, NULL, NULL, &plan, err);
  if (!st) st = rg_eval_full(plan, RG_DOM_ZP, &ctx, vals, refs, 2, res, err);
  if (!st)
    *yes = rg_fp_tensor_hash(rg_plan_shape(plan, refs[0]), res[0]) ==
           rg_fp_tensor_hash(rg_plan_shape(plan, refs[1]), res[1]);
  free(res[0]), free(res[1]);
  rg_plan_free(plan);
  return st;
}

/* Tensor variables reachable from refs, as a bit set (variable index mod 64). */
static uint64_t vars_of(const rg_graph *g, const rg_ref *refs, int n, uint8_t *mark) {
  int32_t size = rg_graph_size(g);
  memset(mark, 0, (size_t)size);
  rg_graph_mark_reachable(g, refs, n, mark);
  uint64_t v = 0;
  for (int32_t id = 0; id < size; id++) {
    const rg_node *nd = rg_graph_node(g, id);
    if (mark[id] && nd->op == RG_OP_INPUT) v |= UINT64_C(1) << (nd->params[0] & 63);
  }
  return v;
}

/* Builds the rule a => b (or b => a, so that the target's variables occur in the source), its
 * outputs paired by value (output hashes on the fingerprint inputs) when there are several.
 * Returns the pair_kind, or -1 on error; *out is set for PAIR_RULE only. */
/* Output hashes of a bucket's members, each computed once (a member is paired with every class
 * representative, and a multi-output graph's hashes cost a whole evaluation). */
typedef struct {
  const rg_enum_space *sp;
  uint64_t seed;
  rg_value *const *inputs;
  const rg_fp_record *m;
  uint64_t (*h)[RG_RULE_MAX_OUTPUTS];
  int8_t *n; /* outputs hashed, 0 not yet */
} member_hashes;

static rg_status hashes_of(member_hashes *mh, size_t i, const uint64_t **h, int *n, rg_err *err) {
  if (!mh->n[i]) {
    int k;
    uint64_t fp;
    rg_status st = rg_fp_graph_hashes(mh->sp, &mh->m[i].code, mh->seed, mh->inputs, mh->h[i], &k, &fp, err);
    if (st) return st;
    mh->n[i] = (int8_t)k;
  }
  *h = mh->h[i];
  *n = mh->n[i];
  return RG_OK;
}

static int build_rule(member_hashes *mh, size_t ia, size_t ib, rg_rule **out, rg_err *err) {
  const rg_enum_space *sp = mh->sp;
  const rg_enum_code *a = &mh->m[ia].code, *b = &mh->m[ib].code;
  uint64_t seed = mh->seed;
  rg_value *const *inputs = mh->inputs;
  rg_rule *r = rg_rule_new();
  if (!r) return rg_err_set(err, RG_ERR_NOMEM, "out of memory"), -1;
  rg_ref sa[RG_RULE_MAX_OUTPUTS], sb[RG_RULE_MAX_OUTPUTS];
  int na, nb, kind = PAIR_RULE;
  if (rg_enum_build(sp, a, r->g, sa, &na, err) || rg_enum_build(sp, b, r->g, sb, &nb, err)) {
    rg_rule_free(r);
    return -1;
  }
  int map[RG_RULE_MAX_OUTPUTS] = {0, 1, 2, 3};
  if (na != nb) kind = PAIR_MISMATCH;
  /* outputs of distinct types pair by type (equal fingerprints: equal multisets of typed
   * values); only outputs sharing a type need their values' hashes, a whole evaluation */
  bool by_type = false;
  rg_shape ta[RG_RULE_MAX_OUTPUTS], tb[RG_RULE_MAX_OUTPUTS];
  int nta = 0, ntb = 0;
  if (kind == PAIR_RULE && na > 1) {
    by_type = !rg_enum_code_out_types(sp, a, ta, &nta) && !rg_enum_code_out_types(sp, b, tb, &ntb) &&
              nta == na && ntb == nb;
    for (int i = 0; by_type && i < na; i++)
      for (int j = 0; j < i; j++) by_type &= !rg_shape_type_eq(&ta[i], &ta[j]);
    bool taken[RG_RULE_MAX_OUTPUTS] = {0};
    for (int i = 0; by_type && kind == PAIR_RULE && i < na; i++) {
      map[i] = -1;
      for (int j = 0; j < nb && map[i] < 0; j++)
        if (!taken[j] && rg_shape_type_eq(&ta[i], &tb[j])) map[i] = j, taken[j] = true;
      if (map[i] < 0) kind = PAIR_MISMATCH;
    }
  }
  /* Two outputs, one the same node on both sides: equal fingerprints and the common output
   * leave the other two with equal sample hashes, which for a tensor of at most RG_FP_SAMPLES
   * elements cover every value: the pair is the rule between those two, a smaller candidate,
   * and neither graph needs evaluating. (A larger tensor may differ away from the samples, so
   * its values decide below.) */
  for (int i = 0; kind == PAIR_RULE && na == 2 && nb == 2 && nta == 2 && !by_type && i < 2; i++)
    for (int j = 0; j < 2 && kind == PAIR_RULE; j++)
      if (sa[i].node == sb[j].node && sa[i].out == sb[j].out && rg_shape_numel(&ta[1 - i]) <= RG_FP_SAMPLES)
        map[i] = j, map[1 - i] = 1 - j, kind = PAIR_COMMON;
  if (kind == PAIR_RULE && na > 1 && !by_type) {
    const uint64_t *ha, *hb;
    if (hashes_of(mh, ia, &ha, &na, err) || hashes_of(mh, ib, &hb, &nb, err)) {
      rg_rule_free(r);
      return -1;
    }
    bool taken[RG_RULE_MAX_OUTPUTS] = {0};
    for (int i = 0; kind == PAIR_RULE && i < na; i++) {
      map[i] = -1;
      for (int j = 0; j < nb && map[i] < 0; j++)
        if (!taken[j] && ha[i] == hb[j]) map[i] = j, taken[j] = true;
      if (map[i] < 0) kind = PAIR_MISMATCH;
    }
  }
  for (int i = 0; kind == PAIR_RULE && i < na; i++)
    if (sa[i].node == sb[map[i]].node && sa[i].out == sb[map[i]].out) kind = PAIR_COMMON;
  if (kind == PAIR_RULE && na == 1) {
    bool yes;
    if (congruent(sp, r->g, sa[0], sb[0], inputs, seed, &yes, err)) {
      rg_rule_free(r);
      return -1;
    }
    if (yes) kind = PAIR_CONGRUENT;
  }
  uint8_t *mark = malloc((size_t)rg_graph_size(r->g));
  if (!mark) {
    rg_rule_free(r);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory"), -1;
  }
  bool a_covers_b = true, b_covers_a = true;
  if (kind == PAIR_RULE) {
    uint64_t va = vars_of(r->g, sa, na, mark), vb = vars_of(r->g, sb, nb, mark);
    a_covers_b = (vb & ~va) == 0, b_covers_a = (va & ~vb) == 0;
    if (!a_covers_b && !b_covers_a) kind = PAIR_UNBOUND;
  }
  if (kind == PAIR_RULE && na > 1) { /* does each output pair make a rule of its own? */
    bool each = true;
    for (int i = 0; i < na && each; i++) {
      uint64_t va = vars_of(r->g, &sa[i], 1, mark), vb = vars_of(r->g, &sb[map[i]], 1, mark);
      each = (vb & ~va) == 0 || (va & ~vb) == 0;
    }
    if (each) kind = PAIR_SPLITS;
  }
  free(mark);
  if (kind != PAIR_RULE) {
    rg_rule_free(r);
    return kind;
  }
  r->n_src = r->n_tgt = na;
  for (int i = 0; i < na; i++) {
    r->src[i] = a_covers_b ? sa[i] : sb[map[i]];
    r->tgt[i] = a_covers_b ? sb[map[i]] : sa[i];
  }
  *out = r;
  return PAIR_RULE;
}

static void emit(const rg_rule *r, rg_strbuf *sb, test_counts *tc) {
  rg_text_print_rule(r, sb);
  rg_sb_puts(sb, "\n");
  tc->written++;
}

static int cmp_len_code(const void *x, const void *y) {
  const rg_fp_record *a = x, *b = y;
  int la = rg_enum_code_len(&a->code), lb = rg_enum_code_len(&b->code);
  if (la != lb) return la < lb ? -1 : 1;
  return memcmp(&a->code, &b->code, sizeof a->code);
}

#define MAX_CLASSES 64

/* Forms the classes of one bucket and appends its candidate lines to sb. */
static rg_status do_bucket(const synth_opts *o, const rg_randtest_opts *rt, const rg_enum_space *sp,
                           rg_value *const *inputs, rg_randtest_cache *cache, const rg_fp_record *recs, size_t len,
                           rg_strbuf *sb, test_counts *tc, rg_err *err) {
  rg_fp_record *m = malloc(sizeof *m * len);
  member_hashes mh = {sp, o->fp.seed, inputs, m, malloc(sizeof *mh.h * len), calloc(len, 1)};
  if (!m || !mh.h || !mh.n) {
    free(m), free(mh.h), free(mh.n);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  memcpy(m, recs, sizeof *m * len);
  qsort(m, len, sizeof *m, cmp_len_code);
  size_t rep[MAX_CLASSES];
  size_t *members = malloc(sizeof *members * len), *cls = malloc(sizeof *cls * len);
  int n_cls = 0;
  size_t n_members = 0;
  rg_status st = members && cls ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  tc->members += len;
  for (size_t i = 0; i < len && !st && !interrupted; i++) {
    int joined = -1;
    bool derivable = false;
    for (int c = 0; c < n_cls && joined < 0 && !derivable && !st; c++) {
      rg_rule *r = NULL;
      int k = build_rule(&mh, i, rep[c], &r, err);
      if (k < 0) {
        st = err->status ? err->status : RG_ERR_NOMEM;
        break;
      }
      if (k == PAIR_MISMATCH) tc->mismatch++;
      if (k == PAIR_UNBOUND) tc->unbound++;
      if (k == PAIR_COMMON || k == PAIR_SPLITS || k == PAIR_CONGRUENT) {
        /* equal to the representative by smaller candidates: neither tested nor a class */
        if (k == PAIR_COMMON) tc->common++;
        else if (k == PAIR_SPLITS) tc->splits++;
        else tc->congruent++;
        derivable = true;
      }
      if (k != PAIR_RULE) continue;
      rg_randtest_verdict v = RG_RANDTEST_PASS;
      /* the rule's variables are the inputs it uses (the shape solver works on those alone) */
      const rg_shape *shapes[RG_ENUM_MAX_INPUTS];
      for (int32_t q = 0; q < rg_graph_n_tvars(r->g); q++)
        shapes[q] = &sp->inputs.in[rg_enum_input_index(sp, rg_graph_tvar_name(r->g, q))].shape;
      rg_binding base = {shapes, NULL, NULL};
      if (o->stop_after >= STOP_TEST) {
        tc->pairs++;
        bool hit;
        st = rg_randtest_rule_cached(cache, r, &base, rt, &v, &hit, err);
        if (!st) tc->verdict[v]++, tc->renamed += hit;
      }
      if (!st && v == RG_RANDTEST_PASS) {
        joined = c;
        if (!o->all_pairs) emit(r, sb, tc);
      }
      rg_rule_free(r);
    }
    if (st) break;
    if (derivable) continue;
    if (joined < 0 && n_cls < MAX_CLASSES) {
      rep[n_cls++] = i;
      joined = n_cls - 1;
    } else if (joined < 0) {
      tc->overflow++; /* a bucket of more than MAX_CLASSES classes: the rest are not tried */
      continue;
    }
    members[n_members] = i;
    cls[n_members++] = (size_t)joined;
  }
  tc->classes += (uint64_t)n_cls;
  /* --all-pairs: every pair within a class, members in order (passing is transitive on the
   * shared trials, so these need no further test) */
  for (size_t x = 0; o->all_pairs && !st && x < n_members; x++)
    for (size_t y = 0; y < x && !st; y++) {
      if (cls[x] != cls[y]) continue;
      rg_rule *r = NULL;
      int k = build_rule(&mh, members[x], members[y], &r, err);
      if (k < 0) st = err->status ? err->status : RG_ERR_NOMEM;
      if (k != PAIR_RULE) continue;
      emit(r, sb, tc);
      rg_rule_free(r);
    }
  free(members), free(cls), free(m), free(mh.h), free(mh.n);
  return st;
}

/* (bucket size, bucket index), ordered by decreasing size, ties by index. */
static int by_len_desc(const void *x, const void *y) {
  const size_t *a = x, *b = y;
  if (a[0] != b[0]) return a[0] > b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Tests every bucket of a pass in parallel; appends the lines to out in bucket order. */
static rg_status test_pass(const synth_opts *o, const rg_enum_space *sp, const rg_fp_table *t,
                           FILE *out, test_counts *tc, uint64_t *buckets, uint64_t *singles,
                           rg_err *err) {
  size_t nb = 0, cap = 1024, pos = 0, start, len;
  size_t (*b)[2] = malloc(sizeof *b * cap);
  if (!b) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  while (rg_fp_table_next_bucket(t, &pos, &start, &len, singles)) {
    if (nb == cap) {
      size_t (*nbuf)[2] = realloc(b, sizeof *b * (cap *= 2));
      if (!nbuf) {
        free(b);
        return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      }
      b = nbuf;
    }
    b[nb][0] = start, b[nb][1] = len, nb++;
  }
  *buckets += nb;
  rg_value **inputs = rg_fp_inputs_new(sp, o->fp.seed);
  /* verdicts of renamed candidates, shared by the threads; its keys take at most 1/4 of the
   * record budget (1 GB at most) */
  size_t cache_bytes = o->fp.mem_limit / 4 < ((size_t)1 << 30) ? o->fp.mem_limit / 4 : (size_t)1 << 30;
  rg_randtest_cache *cache = rg_randtest_cache_new(cache_bytes);
  /* trials through the direct-access kernels, which tests/test_fingerprint.c checks against the
   * interpreter in both domains */
  rg_randtest_opts rt = o->rt;
  rt.kernel = rg_fp_node_kernel;
  rg_status st = inputs && cache ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* Buckets are written in order, a chunk at a time; within a chunk the largest buckets are
   * taken first, so one big bucket does not leave the other threads idle at the chunk's end. */
  const size_t chunk = 1 << 14;
  double t0 = rg_cli_now(), last = t0;
  rg_strbuf *sbs = calloc(chunk, sizeof *sbs);
  test_counts *tcs = calloc(chunk, sizeof *tcs);
  size_t (*order)[2] = calloc(chunk, sizeof *order);
  if (!sbs || !tcs || !order) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t c0 = 0; c0 < nb && !st && !interrupted; c0 += chunk) {
    size_t c1 = c0 + chunk < nb ? c0 + chunk : nb;
    for (size_t i = c0; i < c1; i++) order[i - c0][0] = b[i][1], order[i - c0][1] = i;
    qsort(order, c1 - c0, sizeof *order, by_len_desc);
    rg_status first = RG_OK;
#pragma omp parallel for num_threads(o->threads) schedule(dynamic, 1)
    for (size_t k = c0; k < c1; k++) {
      size_t i = order[k - c0][1];
      rg_err e;
      rg_sb_init(&sbs[i - c0]);
      memset(&tcs[i - c0], 0, sizeof tcs[i - c0]);
      rg_status s = do_bucket(o, &rt, sp, inputs, cache, t->r + b[i][0], b[i][1], &sbs[i - c0], &tcs[i - c0], &e);
      if (s) {
#pragma omp critical(synth_err)
        if (!first) first = s, *err = e;
      }
    }
    st = first;
    for (size_t i = c0; i < c1; i++) {
      test_counts *x = &tcs[i - c0];
      tc->members += x->members, tc->pairs += x->pairs, tc->mismatch += x->mismatch;
      tc->renamed += x->renamed;
      tc->unbound += x->unbound, tc->classes += x->classes, tc->written += x->written;
      tc->common += x->common, tc->splits += x->splits, tc->overflow += x->overflow;
      tc->congruent += x->congruent;
      for (int v = 0; v < RG_RANDTEST_COUNT; v++) tc->verdict[v] += x->verdict[v];
      if (!st && out) fputs(rg_sb_str(&sbs[i - c0]), out);
      rg_sb_free(&sbs[i - c0]);
    }
    /* progress by buckets; the largest buckets of each chunk go first, so the rate is rough */
    double t = rg_cli_now();
    if (!o->quiet && t - last >= 1.0 && c1 < nb) {
      last = t;
      fprintf(stderr, "\r[test] buckets %zu/%zu, %llu pairs tested, %llu pass, RSS %.0f MB, ETA %.0f s  ", c1,
              nb, (unsigned long long)tc->pairs, (unsigned long long)tc->verdict[RG_RANDTEST_PASS], rss_mb(),
              (t - t0) * (double)(nb - c1) / (double)c1);
      fflush(stderr);
    }
  }
  if (!o->quiet && nb > chunk) fprintf(stderr, "\n");
  free(sbs), free(tcs), free(b), free(order);
  rg_fp_inputs_free(sp, inputs);
  rg_randtest_cache_free(cache);
  return st;
}

/* ---- the run ---- */

static rg_status count_visit(void *user, const rg_enum_state *st, bool *extend, rg_err *err) {
  (void)user, (void)st, (void)err, (void)extend;
  return RG_OK;
}

/* What the stages up to testing produced, for the table and the database. */
typedef struct {
  uint64_t graphs, records, buckets, singles;
  int passes;
  test_counts tc;
  double secs[3]; /* enumerate + fingerprint, test, total */
} synth_totals;

static void print_table(const synth_opts *o, const rg_enum_space *sp, const synth_totals *tt) {
  const test_counts *tc = &tt->tc;
  const double *secs = tt->secs;
  fprintf(stderr, "\nstage        count                                          time\n");
  fprintf(stderr, "enumerate    %llu graphs of 1..%d operators (+%d input graphs), %d passes   %.2f s\n",
          (unsigned long long)tt->graphs, sp->depth, sp->inputs.n, tt->passes, secs[0]);
  if (o->stop_after >= STOP_FINGERPRINT)
    fprintf(stderr,
            "fingerprint  %llu records, %llu buckets holding %llu graphs; %llu alone dropped\n",
            (unsigned long long)tt->records, (unsigned long long)tt->buckets,
            (unsigned long long)tc->members, (unsigned long long)tt->singles);
  if (o->stop_after >= STOP_FINGERPRINT) {
    fprintf(stderr, "pairs        not candidates: %llu outputs differ, %llu variables on both sides,\n"
                    "             derivable from smaller candidates: %llu an output common to both "
                    "sides,\n             %llu several outputs each a rule, %llu op(a) vs op(b) "
                    "with a = b (congruence);\n             %llu members not tried (over %d "
                    "classes in a bucket)\n",
            (unsigned long long)tc->mismatch, (unsigned long long)tc->unbound,
            (unsigned long long)tc->common, (unsigned long long)tc->splits,
            (unsigned long long)tc->congruent, (unsigned long long)tc->overflow, MAX_CLASSES);
    fprintf(stderr, "classes      %llu\n", (unsigned long long)tc->classes);
  }
  if (o->stop_after >= STOP_TEST) {
    fprintf(stderr, "test         %llu candidate pairs tested, %llu pass            %.2f s\n",
            (unsigned long long)tc->pairs, (unsigned long long)tc->verdict[RG_RANDTEST_PASS], secs[1]);
    fprintf(stderr, "             %llu of them renamings of a candidate tested before (same verdict)\n",
            (unsigned long long)tc->renamed);
    for (int v = 1; v < RG_RANDTEST_COUNT; v++)
      fprintf(stderr, "  dropped    %-10llu %-15s %s\n", (unsigned long long)tc->verdict[v],
              rg_randtest_verdict_name((rg_randtest_verdict)v),
              rg_randtest_verdict_help((rg_randtest_verdict)v));
  }
  if (o->stop_after >= STOP_FINGERPRINT)
    fprintf(stderr, "%s %llu candidate rules%s\n", o->stop_after > STOP_TEST ? "candidates  " : "output      ",
            (unsigned long long)tc->written, o->stop_after == STOP_FINGERPRINT ? " (untested)" : "");
  fprintf(stderr, "total        %.2f s wall, peak RSS %.0f MB, %d threads\n", secs[2], peak_rss_mb(),
          o->threads);
}

/* The first line of the candidate text: what made the candidates (synth_resume.h). */
static void candidate_header(const synth_opts *o, const rg_enum_space *sp, rg_strbuf *sb) {
  rg_sb_init(sb);
  rg_sb_printf(sb, "# rulegen synth: depth %d, %d operator variants, %d inputs, fingerprint seed %llu, "
                   "test seed %llu, %d+%d trials at %d other shape sets",
               o->depth, sp->n_variants, sp->inputs.n, (unsigned long long)o->fp.seed,
               (unsigned long long)o->rt.seed, o->rt.zp_trials, o->rt.f64_trials, o->rt.other_shapes);
}

/* Enumerates, fingerprints and tests: the candidates go to *mem (a run that goes on past the
 * test stage) or to the output. Returns the exit status so far. */
static int synthesize(synth_opts *o, const rg_enum_space *sp, const char *header, char **mem,
                      size_t *mem_len, synth_totals *tt) {
  double t0 = rg_cli_now();
  progress pr = {o->quiet, 1, t0, t0};
  o->fp.progress = on_progress;
  o->fp.progress_user = &pr;
  memset(tt, 0, sizeof *tt);
  FILE *out = NULL;
  char *tmp = NULL;
  bool finishing = o->stop_after > STOP_TEST; /* candidates stay in memory for synth_finish.c */
  rg_status st = RG_OK;
  rg_err err;
  if (o->stop_after >= STOP_FINGERPRINT) {
    if (finishing) {
      out = open_memstream(mem, mem_len);
      if (!out) {
        fprintf(stderr, "rulegen: out of memory for the candidates\n");
        return 2;
      }
    } else if (o->out_path) {
      size_t n = strlen(o->out_path) + 32;
      tmp = malloc(n);
      if (tmp) snprintf(tmp, n, "%s.tmp.%ld", o->out_path, (long)getpid());
      out = tmp ? fopen(tmp, "w") : NULL;
      if (!out) {
        fprintf(stderr, "rulegen: cannot write %s\n", tmp ? tmp : o->out_path);
        free(tmp);
        return 2;
      }
    } else {
      out = stdout;
    }
    fprintf(out, "%s\n", header);
  }

  if (o->stop_after == STOP_ENUMERATE) {
    void **users = calloc((size_t)o->threads, sizeof *users);
    rg_enum_visitor v = {count_visit, NULL};
    rg_enum_run_opts ro = {o->threads, o->fp.max_outputs, o->fp.keep_redundant, o->fp.keep_redundant, &interrupted, on_progress, &pr};
    rg_enum_stats stats;
    st = users ? rg_enum_run(sp, &v, users, &ro, &stats, &err) : RG_ERR_NOMEM;
    free(users);
    tt->graphs = stats.graphs;
    tt->passes = 1;
    tt->secs[0] = rg_cli_now() - t0;
  } else {
    uint64_t lo = 0, width = UINT64_MAX;
    for (;;) {
      rg_fp_table t;
      rg_enum_stats stats;
      pr.pass = tt->passes + 1;
      uint64_t hi = UINT64_MAX - lo < width ? UINT64_MAX : lo + width;
      double ta = rg_cli_now();
      st = rg_fp_collect(sp, &o->fp, lo, hi, &t, &stats, &err);
      tt->secs[0] += rg_cli_now() - ta;
      tt->passes++;
      if (!st && !interrupted) {
        tt->graphs = stats.graphs;
        tt->records += t.n;
        ta = rg_cli_now();
        st = test_pass(o, sp, &t, out, &tt->tc, &tt->buckets, &tt->singles, &err);
        tt->secs[1] += rg_cli_now() - ta;
      }
      uint64_t covered_hi = t.hi;
      width = t.hi - lo;
      rg_fp_table_free(&t);
      if (st || interrupted || covered_hi == UINT64_MAX) break;
      lo = covered_hi + 1;
      fprintf(stderr, "%srulegen: records did not fit in --mem-limit: pass %d covers the next "
                      "fingerprint range\n", o->quiet ? "" : "\n", tt->passes + 1);
    }
  }
  tt->secs[2] = rg_cli_now() - t0;
  if (!o->quiet) fprintf(stderr, "\n");

  int rc = 0;
  if (interrupted) {
    fprintf(stderr, "rulegen: interrupted: partial results discarded%s\n", tmp ? ", no file written" : "");
    rc = 130;
  } else if (st) {
    rg_cli_report("rulegen", NULL, &err);
    rc = 1;
  }
  if (out && finishing) {
    if (fclose(out) != 0 && !rc) {
      fprintf(stderr, "rulegen: out of memory for the candidates\n");
      rc = 1;
    }
  } else if (out && out != stdout) {
    if (fclose(out) != 0 && !rc) {
      fprintf(stderr, "rulegen: write error on %s\n", tmp);
      rc = 1;
    }
    if (rc) remove(tmp);
    else if (rename(tmp, o->out_path) != 0) {
      fprintf(stderr, "rulegen: cannot rename %s to %s\n", tmp, o->out_path);
      remove(tmp);
      rc = 1;
    }
  } else if (out) {
    fflush(out);
  }
  free(tmp);
  if (!rc) print_table(o, sp, tt);
  /* What follows can fail or be stopped on its own: keep what the long part made. */
  if (!rc && finishing && o->out_path) {
    rc = rg_synth_save_candidates(o->out_path, *mem, *mem_len);
    if (!rc)
      fprintf(stderr, "saved        the candidates in %s.candidates (--resume starts from them)\n",
              o->out_path);
  }
  return rc;
}

/* Variables numbered in order of first appearance in the text, which is the canonical order
 * (the candidates are printed canonically, prune/canon.h): equal masks split the same
 * variables of renamed copies. */
static uint64_t split_key(void *ctx, const rg_rule *r) { return rg_split_mask(ctx, r); }

/* Renamed copies among the candidates collapse to their first line (synth_collapse.h) before
 * generalization and pruning parse them; prints its row; returns the exit status. */
static int collapse(const synth_opts *o, const rg_enum_space *sp, char *mem, size_t *len,
                    rg_collapse_counts *cc) {
  rg_err err;
  rg_split_ctx split;
  rg_split_ctx_init(&split, sp);
  rg_collapse_opts co = {o->threads, &interrupted, o->quiet, NULL, NULL};
  if (!o->no_generalize) co.extra_key = split_key, co.extra_ctx = &split;
  if (rg_synth_collapse_renamings(mem, len, &co, cc, &err)) {
    rg_cli_report("rulegen", NULL, &err);
    return err.status == RG_ERR_PARSE ? 2 : 1; /* a damaged candidates file is bad input */
  }
  if (interrupted) {
    fprintf(stderr, "\nrulegen: interrupted: nothing written\n");
    return 130;
  }
  fprintf(stderr, "%srenaming     %llu -> %llu candidates (renamed copies%s collapse)   %.2f s\n",
          o->quiet ? "" : "\r", (unsigned long long)cc->in, (unsigned long long)cc->out,
          co.extra_key ? " the generalize stage treats alike" : "", cc->seconds);
  return 0;
}

/* The generalize stage over the candidate text (appended to it) and its row of the table;
 * returns the exit status. */
static int generalize(synth_opts *o, const rg_enum_space *sp, char **mem, size_t *len,
                      rg_generalize_counts *gc, int **general_off, int **general_of) {
  size_t cache_bytes = o->fp.mem_limit / 4 < ((size_t)1 << 30) ? o->fp.mem_limit / 4 : (size_t)1 << 30;
  rg_generalize_opts go = {sp, o->rt, rg_generalize_limits_default(), o->threads, cache_bytes,
                           &interrupted, o->quiet};
  go.rt.kernel = rg_fp_node_kernel; /* as the test stage's trials */
  rg_err err;
  if (rg_synth_generalize(mem, len, &go, gc, general_off, general_of, &err)) {
    rg_cli_report("rulegen", NULL, &err);
    return 1;
  }
  if (interrupted) {
    fprintf(stderr, "\nrulegen: interrupted: nothing written\n");
    return 130;
  }
  fprintf(stderr, "%sgeneralize   %llu candidates with a variable to split: %llu generalizations tested, "
                  "%llu pass,\n             %llu most general added (%llu candidates hit the bound "
                  "of %d tries)          %.2f s\n",
          o->quiet ? "" : "\r", (unsigned long long)gc->repeated, (unsigned long long)gc->tried,
          (unsigned long long)gc->passed, (unsigned long long)gc->added, (unsigned long long)gc->capped,
          RG_GENERALIZE_MAX_TRIES, gc->seconds);
  return 0;
}

/* Hands the candidates to the stages after testing, with the rows of the table so far and the
 * generator's configuration (recorded in a .db). */
static int finish_run(synth_opts *o, const rg_enum_space *sp, int argc, char **argv, const char *cand,
                      size_t len, const synth_totals *tt, const rg_collapse_counts *cc,
                      const rg_generalize_counts *gc) {
  const test_counts *tc = &tt->tc;
  rg_strbuf cfg;
  rg_sb_init(&cfg);
  rg_sb_puts(&cfg, "command=rulegen");
  for (int i = 1; i < argc; i++) rg_sb_printf(&cfg, " %s", argv[i]);
  rg_sb_printf(&cfg, "\ndepth=%d\noperator_variants=%d\ninputs=%d\nfingerprint_seed=%llu\ntest_seed=%llu\n"
                     "trials=%d+%d\nother_shape_sets=%d\n",
               o->depth, sp->n_variants, sp->inputs.n, (unsigned long long)o->fp.seed,
               (unsigned long long)o->rt.seed, o->rt.zp_trials, o->rt.f64_trials, o->rt.other_shapes);
  for (int i = 0; i < sp->inputs.n; i++) {
    char buf[96];
    rg_sb_printf(&cfg, "input.%s=%s\n", sp->inputs.in[i].name, rg_shape_format(&sp->inputs.in[i].shape, buf, sizeof buf));
  }
  char why[64];
  snprintf(why, sizeof why, "alone:%llu", (unsigned long long)(tt->records - tc->members));
  char gen_why[128];
  snprintf(gen_why, sizeof gen_why, "tested:%llu pass:%llu capped:%llu", (unsigned long long)gc->tried,
           (unsigned long long)gc->passed, (unsigned long long)gc->capped);
  rg_finish_stage pre[5] = {{"enumerate", 0, (int64_t)tt->graphs, "", tt->secs[0]},
                            {"fingerprint", (int64_t)tt->records, (int64_t)tc->members, why, 0},
                            {"test", (int64_t)tc->pairs, (int64_t)tc->written, "", tt->secs[1]},
                            {"renaming-candidates", (int64_t)cc->in, (int64_t)cc->out, "", cc->seconds},
                            {"generalize", (int64_t)gc->in, (int64_t)(gc->in + gc->added), gen_why, gc->seconds}};
  /* A resumed run did not enumerate or test: its first row is the candidates it read. */
  const rg_finish_stage *rows = pre;
  int n_rows = o->no_generalize ? 4 : 5;
  if (o->resume_path) {
    pre[2] = (rg_finish_stage){"candidates", 0, (int64_t)tc->written, "", 0};
    rows = pre + 2, n_rows -= 2;
  }
  o->fin.stop_after = o->stop_after == STOP_PRUNE ? RG_FINISH_PRUNE
                      : o->stop_after == STOP_PROVE ? RG_FINISH_PROVE : RG_FINISH_ALL;
  o->fin.out_path = o->out_path;
  o->fin.quiet = o->quiet;
  o->fin.prove.threads = o->threads;
  o->fin.prove.progress = !o->quiet;
  /* the recheck draws each rule from its variables' input-set shapes first */
  o->fin.prove.kernel = rg_fp_node_kernel;
  o->fin.prove.var_shape = rg_cli_input_shape;
  o->fin.prove.var_shape_ctx = &o->inputs;
  o->fin.test_seed = o->rt.seed;
  o->fin.config = rg_sb_str(&cfg);
  if (o->resume_path) rg_sb_printf(&cfg, "resumed_from=%s\n", o->resume_path);
  int rc = rg_synth_finish(cand, len, &o->fin, rows, n_rows);
  rg_sb_free(&cfg);
  return rc;
}

int rg_cmd_synth(int argc, char **argv) {
  synth_opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  rg_enum_space sp;
  rg_err err;
  if (rg_enum_space_init(&sp, &o.choices, &o.inputs, o.depth, &err)) {
    rg_cli_report("rulegen", NULL, &err); /* the message names the input when it is one */
    rg_enum_space_free(&sp);
    return 2;
  }
  if (o.stop_after >= STOP_FINGERPRINT && !o.resume_path && o.fp.mem_limit < RG_FP_MIN_MEM) {
    fprintf(stderr, "rulegen: --mem-limit %zu bytes is too small to make progress: give at least %u MB\n",
            o.fp.mem_limit, RG_FP_MIN_MEM >> 20);
    rg_enum_space_free(&sp);
    return 2;
  }
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  struct sigaction old_term;
  sigaction(SIGINT, &sa, &old);
  sigaction(SIGTERM, &sa, &old_term);
  rg_strbuf header;
  candidate_header(&o, &sp, &header);
  char *mem = NULL;
  size_t mem_len = 0;
  synth_totals tt;
  memset(&tt, 0, sizeof tt);
  bool finishing = o.stop_after > STOP_TEST;
  if (o.resume_path) {
    rc = rg_synth_load_candidates(o.resume_path, rg_sb_str(&header), &mem, &mem_len, &tt.tc.written);
    if (!rc)
      fprintf(stderr, "candidates   %llu tested candidates read from %s\n",
              (unsigned long long)tt.tc.written, o.resume_path);
  } else {
    rc = synthesize(&o, &sp, rg_sb_str(&header), &mem, &mem_len, &tt);
  }
  rg_sb_free(&header);
  rg_generalize_counts gc;
  memset(&gc, 0, sizeof gc);
  int *general_off = NULL, *general_of = NULL;
  rg_collapse_counts cc;
  memset(&cc, 0, sizeof cc);
  if (!rc && finishing) rc = collapse(&o, &sp, mem, &mem_len, &cc);
  if (!rc && finishing && !o.no_generalize)
    rc = generalize(&o, &sp, &mem, &mem_len, &gc, &general_off, &general_of);
  o.fin.general_off = general_off, o.fin.general_of = general_of;
  if (!rc && finishing) rc = finish_run(&o, &sp, argc, argv, mem, mem_len, &tt, &cc, &gc);
  free(mem);
  free(general_off), free(general_of);
  sigaction(SIGINT, &old, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  rg_enum_space_free(&sp);
  return rc;
}
