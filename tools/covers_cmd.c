/* tools/covers_cmd.c: `rulegen covers`: how much of another rule set does ours cover? For each
 * rule of OTHER: contained (same content id as one of ours, in either orientation), derived
 * (our rules rewrite one side into the other, with the derivation length), or not covered.
 *
 * Exit status: 0 the report was made (whatever it says), 2 bad input, 130 interrupted (Ctrl-C:
 * the rules not yet looked at are reported as not checked).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "derive_opts.h"
#include "prune/prune.h"

#define COVERS_OPTIONS(X)                                                                          \
  X("with", 'w', 1, "FILE", "our rule set (default: rules.rules, as `rulegen -o` names it)")       \
  RG_DERIVE_LIMIT_OPTIONS(X)                                                                       \
  X("quiet", 'q', 0, "", "print only rules not covered, and the summary; no progress")             \
  X("help", 'h', 0, "", "show this help")

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen covers OTHER.rules [--with OURS.rules] [options]\n"
          "\n"
          "For each rule of OTHER, says whether OURS contains it up to renaming variables (the\n"
          "same content id, in either orientation), derives it (our rules, used in both\n"
          "directions where their variables allow, rewrite one side into the other: the number\n"
          "of steps is given), or does not cover it; then a summary line. Derivations are\n"
          "searched in parallel, bounded by the limits below (defaults: 10 steps, 300000\n"
          "terms, growth 4: wider than pruning's, as a report can afford the time).\n"
          "\n"
          "options:\n");
#define X(name, short_, arg, meta, help)                                                           \
  fprintf(out, "  -%c, --%-7s %-5s %s\n", short_, name, meta, help);
  COVERS_OPTIONS(X)
#undef X
  fprintf(out, "\n"
               "example:\n"
               "  rulegen covers tests/data/prune/taso-133.rules --with rules.rules\n"
               "exit status: 0 report made, 2 bad input, 130 interrupted (Ctrl-C)\n");
}

typedef enum { NOT_COVERED, CONTAINED, CONTAINED_REVERSED, DERIVED, NOT_CHECKED } verdict;

typedef struct {
  verdict v;
  int steps;
  rg_status st;
  rg_err err;
} outcome;

static int cmp_id(const void *a, const void *b) { return rg_content_id_cmp(a, b); }

/* Whether rule r, or r reversed, has an id in ours (sorted). */
static rg_status contained(const rg_rule *r, const rg_content_id *ours, int n, verdict *v,
                           rg_err *err) {
  for (int d = 0; d < 2; d++) {
    rg_content_id id;
    rg_status st =
        d ? rg_canon_build_id(r->g, r->tgt, r->n_tgt, r->src, r->n_src, NULL, 0, &id, err)
          : rg_canon_build_id(r->g, r->src, r->n_src, r->tgt, r->n_tgt, NULL, 0, &id, err);
    if (st) return st;
    if (bsearch(&id, ours, (size_t)n, sizeof id, cmp_id)) {
      *v = d ? CONTAINED_REVERSED : CONTAINED;
      return RG_OK;
    }
  }
  return RG_OK;
}

static int report(const rg_ruleset *other, const rg_ruleset *ours, const rg_derive_limits *lim,
                  bool quiet, const char *other_path) {
  rg_err err = {0};
  rg_content_id *ids = malloc(sizeof *ids * ((size_t)ours->n + 1));
  outcome *res = calloc((size_t)other->n + 1, sizeof *res);
  rg_rewrite_set *set = rg_rewrite_set_new();
  rg_status st = ids && res && set ? RG_OK : rg_err_set(&err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < ours->n; i++)
    st = rg_canon_id(ours->rules[i], NULL, &ids[i], &err);
  for (int i = 0; !st && i < ours->n; i++)
    st = rg_rewrite_set_add(set, ours->rules[i], i, NULL, &err);
  if (!st) qsort(ids, (size_t)ours->n, sizeof *ids, cmp_id);
  int done = 0;
  time_t last = time(NULL);
  if (!st) {
    /* Each search reads the shared set and owns its scratch graph, so threads share nothing. */
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < other->n; i++) {
      outcome *o = &res[i];
#pragma omp critical(rg_covers_progress)
      {
        time_t t = time(NULL);
        if (!quiet && t != last) fprintf(stderr, "rulegen covers: %d/%d\n", done, other->n);
        last = t;
        done++;
      }
      if (rg_cli_interrupted) {
        o->v = NOT_CHECKED;
        continue;
      }
      o->st = contained(other->rules[i], ids, ours->n, &o->v, &o->err);
      if (o->st || o->v != NOT_COVERED) continue;
      rg_derivation d;
      bool found;
      o->st = rg_derive_search(set, other->rules[i], lim, &d, &found, &o->err);
      if (!o->st && found)
        o->v = DERIVED, o->steps = d.n;
      else if (!o->st && rg_cli_interrupted)
        o->v = NOT_CHECKED; /* the search was cut short */
      rg_derivation_free(&d);
    }
  }
  int count[5] = {0}, longest = 0, rc = 0;
  for (int i = 0; !st && i < other->n; i++) {
    if (res[i].st) {
      st = res[i].st;
      err = res[i].err;
      if (!err.line) err.line = other->rules[i]->line, err.col = 1;
      break;
    }
    count[res[i].v]++;
    if (res[i].v == DERIVED && res[i].steps > longest) longest = res[i].steps;
    if (quiet && res[i].v != NOT_COVERED) continue;
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_text_print_rule(other->rules[i], &sb);
    char what[48];
    switch (res[i].v) {
    case CONTAINED: snprintf(what, sizeof what, "contained"); break;
    case CONTAINED_REVERSED: snprintf(what, sizeof what, "contained (reversed)"); break;
    case DERIVED:
      snprintf(what, sizeof what, "derived (%d step%s)", res[i].steps,
               res[i].steps == 1 ? "" : "s");
      break;
    case NOT_CHECKED: snprintf(what, sizeof what, "not checked"); break;
    default: snprintf(what, sizeof what, "NOT COVERED"); break;
    }
    printf("line %-5d %-21s %s\n", other->rules[i]->line, what, rg_sb_str(&sb));
    rg_sb_free(&sb);
  }
  if (st) {
    rg_cli_report("rulegen covers", other_path, &err);
    rc = 2;
  } else {
    printf("covers: %d of %d rules: %d contained, %d derived (longest %d steps), %d not covered\n",
           count[CONTAINED] + count[CONTAINED_REVERSED] + count[DERIVED], other->n,
           count[CONTAINED] + count[CONTAINED_REVERSED], count[DERIVED], longest,
           count[NOT_COVERED]);
    if (count[NOT_CHECKED]) {
      printf("interrupted: %d rules not checked\n", count[NOT_CHECKED]);
      rc = 130;
    }
  }
  free(ids);
  free(res);
  rg_rewrite_set_free(set);
  return rc;
}

int rg_cmd_covers(int argc, char **argv) {
  static const struct option longopts[] = {
#define X(name, short_, arg, meta, help) {name, arg, NULL, short_},
      COVERS_OPTIONS(X)
#undef X
          {NULL, 0, NULL, 0}};
  rg_derive_limits lim = {10, 300000, 4, &rg_cli_interrupted}; /* a report: wider than pruning */
  const char *with = "rules.rules";
  bool quiet = false;
  int c, rc = 0;
  optind = 1;
  while (rc == 0 &&
         (c = getopt_long(argc, argv, "w:" RG_DERIVE_LIMIT_SHORTOPTS "qh", longopts, NULL)) != -1) {
    switch (c) {
    case 'w': with = optarg; break;
    case 'q': quiet = true; break;
    case 'h': usage(stdout); return 0;
    default: {
      bool is_limit;
      if (!rg_derive_limit_option("rulegen covers", c, optarg, &lim, &is_limit)) {
        if (!is_limit) usage(stderr);
        rc = 2;
      }
      break;
    }
    }
  }
  if (rc) return rc;
  if (optind + 1 != argc) {
    fprintf(stderr, "rulegen covers: give exactly one OTHER rule file (got %d); see --help\n",
            argc - optind);
    return 2;
  }
  rg_ruleset other, ours;
  rg_ruleset_init(&other);
  rg_ruleset_init(&ours);
  rg_err err = {0};
  if (rg_text_parse_file(argv[optind], &other, &err)) {
    rg_cli_report("rulegen covers", argv[optind], &err);
    rc = 2;
  } else if (rg_text_parse_file(with, &ours, &err)) {
    if (err.status == RG_ERR_IO)
      snprintf(err.msg + strlen(err.msg), sizeof err.msg - strlen(err.msg),
               " (name our rule set with --with FILE)");
    rg_cli_report("rulegen covers", with, &err);
    rc = 2;
  }
  for (int i = 0; !rc && i < other.n + ours.n; i++) {
    const rg_rule *r = i < other.n ? other.rules[i] : ours.rules[i - other.n];
    if (r->n_tgt == 0) {
      err = (rg_err){RG_ERR_ARG, r->line, 1, "a bare graph (no '=>') is not a rule"};
      rg_cli_report("rulegen covers", i < other.n ? argv[optind] : with, &err);
      rc = 2;
    }
  }
  if (!rc) {
    rg_cli_catch_interrupts();
    rc = report(&other, &ours, &lim, quiet, argv[optind]);
    rg_cli_release_interrupts();
  }
  rg_ruleset_free(&other);
  rg_ruleset_free(&ours);
  return rc;
}
