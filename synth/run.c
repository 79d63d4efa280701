/* synth/run.c: the run driver (synth/run.h): the passes up to testing, then the stages after. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "candidates.h"
#include "checkpoint.h"
#include "cluster/cluster.h"
#include "collapse.h"
#include "derive_spread.h"
#include "generalize.h"
#include "generalize_spread.h"
#include "generalized.h"
#include "preflight.h"
#include "prune/prune.h"
#include "resume.h"
#include "spread.h"
#include "tested.h"

void rg_synth_opts_default(rg_synth_opts *o, volatile sig_atomic_t *stop) {
  memset(o, 0, sizeof *o);
  rg_enum_choices_default(&o->choices);
  rg_enum_inputs_default(&o->inputs);
  o->depth = 3;
  o->threads = omp_get_max_threads();
  o->stop_after = RG_SYNTH_STOP_ALL;
  o->stop = stop;
  o->fin.prune_stages = RG_PRUNE_ALL;
  rg_prove_opts_init(&o->fin.prove);
  o->fin.prove.timeout_ms = RG_DEFAULT_TIMEOUT_MS; /* verify/timeout.h says why */
  o->fin.prove.check_typed = false; /* every candidate type-checked at the enumeration shapes */
  o->fin.prove.stop = stop;
  o->fin.stop = stop;
  o->fin.save_every = 300; /* derivability at depth 4 runs half an hour */
  /* Records are the run's one large structure (the stages after them need some hundred MB),
   * and each pass more repeats the whole enumeration: half of RAM keeps depth 4 --ops all in
   * one pass on a 24 GB machine. Memory is taken as records come, not up front. */
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  o->fp = (rg_fp_opts){.seed = 1,
                       .mem_limit = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize / 2
                                                           : (size_t)1 << 30,
                       .max_outputs = 2,
                       .stop = stop};
  rg_randtest_opts_default(&o->rt);
}

static void report(const rg_err *err) { rg_err_print(stderr, "rulegen", NULL, err); }

/* ---- up to the test stage ---- */

typedef struct {
  int pass;
  double start;
  rg_progress line; /* of the pass: enumeration work units done */
} progress;

static void on_progress(void *user, const rg_enum_progress *p) {
  progress *pr = user;
  pr->line.total = p->units_total;
  if (!rg_progress_due(&pr->line)) { /* the RSS is read only for a line printed */
    rg_progress_tick(&pr->line, p->units_done);
    return;
  }
  double el = rg_clock_seconds() - pr->line.t0;
  rg_progress_tick_extra(&pr->line, p->units_done, "%llu graphs (%.0f/s), RSS %.0f MB%s",
                         (unsigned long long)p->graphs, el > 0 ? (double)p->graphs / el : 0, rg_synth_rss_mb(),
                         pr->pass > 1 ? ", a later pass" : "");
}

static rg_status count_visit(void *user, const rg_enum_state *st, bool *extend, rg_err *err) {
  (void)user, (void)st, (void)err, (void)extend;
  return RG_OK;
}

/* --stop-after enumerate: the graphs counted, nothing fingerprinted. */
static rg_status enumerate_only(const rg_synth_opts *o, const rg_enum_space *sp, progress *pr,
                                rg_synth_counts *c, rg_err *err) {
  void **users = calloc((size_t)o->threads, sizeof *users);
  rg_enum_visitor v = {count_visit, NULL};
  rg_enum_run_opts ro = {.threads = o->threads,
                         .max_outputs = o->fp.max_outputs,
                         .extend_swapped = o->fp.keep_redundant,
                         .all_inputs = o->fp.keep_redundant,
                         .stop = o->stop,
                         .progress = on_progress,
                         .progress_user = pr};
  rg_enum_stats stats = {0};
  rg_progress_start(&pr->line, "enumerate", "work units", 0, !o->quiet);
  rg_status st = users ? rg_enum_run(sp, &v, users, &ro, &stats, err)
                       : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_progress_finish(&pr->line);
  free(users);
  c->graphs = stats.graphs;
  c->passes = 0; /* nothing loaded: the graphs are counted only */
  c->secs[0] = rg_clock_seconds() - pr->start;
  return st;
}

/* The spill folder (fingerprint/spill.h): --spill's, else OUT.spill beside the output (kept
 * when the run stops, so that the same command goes on from it), else a temporary one. */
static rg_status open_spill(const rg_synth_opts *o, const char *header, rg_fp_spill **spill, char **dir, bool *temp,
                            rg_err *err) {
  *temp = !o->spill_path && !o->out_path;
  if (o->spill_path) *dir = strdup(o->spill_path);
  else if (o->out_path) *dir = rg_path_with_suffix(o->out_path, ".spill");
  else {
    const char *tmp = getenv("TMPDIR");
    size_t n = strlen(tmp && *tmp ? tmp : "/tmp") + 32;
    if ((*dir = malloc(n))) {
      snprintf(*dir, n, "%s/rulegen-spill-XXXXXX", tmp && *tmp ? tmp : "/tmp");
      if (!mkdtemp(*dir)) {
        rg_status st = rg_err_set(err, RG_ERR_IO, "cannot make a spill folder in %s: %s (set TMPDIR, or give --spill "
                                                  "DIR)", tmp && *tmp ? tmp : "/tmp", strerror(errno));
        free(*dir), *dir = NULL;
        return st;
      }
    }
  }
  if (!*dir) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  struct stat a, b;
  if (o->out_path && (!strcmp(*dir, o->out_path) ||
                      (stat(*dir, &a) == 0 && stat(o->out_path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)))
    return rg_err_set(err, RG_ERR_ARG, "--spill %s is the output: give the records another folder", *dir);
  return rg_fp_spill_open(*dir, header, spill, err);
}

/* What names the records: the candidates' header, the options that made them, and how they
 * were recorded and tested. */
static void spill_header(const rg_synth_opts *o, const char *header, rg_strbuf *sb) {
  rg_sb_init(sb);
  rg_sb_printf(sb, "%s\n", header);
  rg_synth_resume_lines(o, sb);
  rg_sb_printf(sb, "# records: %zu bytes, max outputs %d, keep redundant %d, all pairs %d, stop after %d\n",
               sizeof(rg_fp_record), o->fp.max_outputs, (int)o->fp.keep_redundant, (int)o->all_pairs,
               o->stop_after == RG_SYNTH_STOP_FINGERPRINT ? 1 : 2);
}

/* The run's spill folder, opened. */
typedef struct {
  rg_fp_spill *spill;
  char *dir;
  bool temp; /* made for this run only: removed whatever happens */
} records;

/* Returns 0, or 2 after saying why the folder cannot be used. */
static int records_open(const rg_synth_opts *o, const char *header, records *r) {
  rg_strbuf sh;
  rg_err err;
  spill_header(o, header, &sh);
  rg_status st = open_spill(o, rg_sb_str(&sh), &r->spill, &r->dir, &r->temp, &err);
  rg_sb_free(&sh);
  if (!st) return 0;
  report(&err);
  free(r->dir);
  return 2;
}

/* The records are no longer needed once the candidates are kept (rc 0); a run stopped or
 * failed keeps them for the same command to go on from. */
static void records_close(records *r, int rc) {
  rg_err err;
  if (r->spill && (rc == 0 || r->temp)) {
    if (rg_fp_spill_close(r->spill, true, &err)) report(&err);
  } else if (r->spill) {
    rg_status ignore = rg_fp_spill_close(r->spill, false, &err);
    (void)ignore;
    if (rc != 130) fprintf(stderr, "rulegen: the records so far are kept in %s: the same command goes on from them\n", r->dir);
  }
  free(r->dir);
}

/* Enumerates into the spill folder and tests it part by part (synth/tested.h). */
static rg_status passes(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp, progress *pr,
                        rg_fp_spill *spill, FILE *out, rg_synth_counts *c, rg_err *err) {
  c->passes = 0;
  rg_progress_start(&pr->line, "enumerate", "work units", 0, !o->quiet);
  rg_status st = rg_synth_enumerate_spilled(o, fp, sp, spill, c, err);
  rg_progress_finish(&pr->line);
  return st || *o->stop ? st : rg_synth_test_spilled(o, fp, sp, spill, out, c, err);
}

/* Where the candidates go: memory (a run that goes on past the test stage), the output file
 * (ir/atomic.h: whole or not at all), or standard output. */
typedef struct {
  FILE *f;
  rg_atomic_file file;
  bool in_memory, to_file;
} sink;

static int sink_open(const rg_synth_opts *o, char **mem, size_t *mem_len, sink *s) {
  memset(s, 0, sizeof *s);
  s->in_memory = o->stop_after > RG_SYNTH_STOP_TEST;
  s->to_file = !s->in_memory && o->out_path;
  rg_err err;
  if (s->in_memory && !(s->f = open_memstream(mem, mem_len)))
    return fprintf(stderr, "rulegen: out of memory for the candidates\n"), 2;
  if (s->to_file && rg_atomic_open(&s->file, o->out_path, &err)) return report(&err), 2;
  if (!s->in_memory) s->f = s->to_file ? s->file.f : stdout;
  return 0;
}

/* Closes the sink; the output file is committed when rc is 0, dropped otherwise. Returns the
 * exit status. */
static int sink_close(sink *s, int rc) {
  rg_err err;
  if (s->in_memory && fclose(s->f) != 0 && !rc) fprintf(stderr, "rulegen: out of memory for the candidates\n"), rc = 1;
  if (s->to_file && rc) rg_atomic_abort(&s->file);
  else if (s->to_file && rg_atomic_commit(&s->file, &err)) report(&err), rc = 1;
  if (!s->in_memory && !s->to_file && s->f) fflush(s->f);
  return rc;
}

/* Enumerates, fingerprints and tests: the candidates go to *mem (a run that goes on past the
 * test stage) or to the output. Returns the exit status so far. */
static int synthesize(const rg_synth_opts *o, const rg_enum_space *sp, const char *header, char **mem,
                      size_t *mem_len, rg_synth_counts *c) {
  double t0 = rg_clock_seconds();
  progress pr = {.pass = 1, .start = t0};
  rg_fp_opts fp = o->fp; /* with the progress line */
  fp.progress = on_progress, fp.progress_user = &pr;
  sink s = {0};
  int rc = o->stop_after >= RG_SYNTH_STOP_FINGERPRINT ? sink_open(o, mem, mem_len, &s) : 0;
  if (rc) return rc;
  rg_err err;
  records rec = {0};
  if (o->stop_after >= RG_SYNTH_STOP_FINGERPRINT && records_open(o, header, &rec)) return sink_close(&s, 2);
  if (s.f) { /* the header, then the options a resumed run takes from it */
    rg_strbuf lines;
    rg_sb_init(&lines);
    rg_synth_resume_lines(o, &lines);
    fprintf(s.f, "%s\n%s", header, rg_sb_str(&lines));
    rg_sb_free(&lines);
  }
  rg_status st = o->stop_after == RG_SYNTH_STOP_ENUMERATE ? enumerate_only(o, sp, &pr, c, &err)
                                                           : passes(o, &fp, sp, &pr, rec.spill, s.f, c, &err);
  c->secs[2] = rg_clock_seconds() - t0;
  if (*o->stop) {
    fprintf(stderr, "rulegen: interrupted: %s%s\n",
            rec.spill && !rec.temp ? "the work so far is kept; the same command goes on from it"
                                   : "partial results discarded",
            s.to_file ? ", no file written" : "");
    rc = 130;
  } else if (st) {
    report(&err);
    rc = 1;
  }
  rc = sink_close(&s, rc);
  if (!rc) rg_synth_counts_print(c, sp, o->stop_after, o->threads, o->table);
  if (!rc) rg_spread_print(o->table, "             ", 1u << RG_SPREAD_ENUMERATE | 1u << RG_SPREAD_TEST);
  /* What follows can fail or be stopped on its own: keep what the long part made. */
  if (!rc && s.in_memory && o->out_path) {
    rc = rg_synth_save_candidates(o->out_path, *mem, *mem_len);
    if (!rc)
      fprintf(o->table, "saved        the candidates in %s.candidates (--resume starts from them)\n",
              o->out_path);
  }
  records_close(&rec, rc);
  return rc;
}

/* ---- after the test stage ---- */

/* Variables numbered in order of first appearance in the text, which is the canonical order
 * (the candidates are printed canonically, prune/canon.h): equal masks split the same
 * variables of renamed copies. */
static uint64_t split_key(void *ctx, const rg_rule *r) { return rg_split_mask(ctx, r); }

static int interrupted_now(void) {
  fprintf(stderr, "\nrulegen: interrupted: nothing written\n");
  return 130;
}

/* Renamed copies among the candidates collapse to their first line (synth/collapse.h) before
 * generalization and pruning parse them; prints its row; returns the exit status. */
static int collapse(const rg_synth_opts *o, const rg_enum_space *sp, char *mem, size_t *len,
                    rg_collapse_counts *cc) {
  rg_err err;
  rg_split_ctx split;
  rg_split_ctx_init(&split, sp);
  rg_collapse_opts co = {o->threads, o->stop, o->quiet, NULL, NULL};
  if (!o->no_generalize) co.extra_key = split_key, co.extra_ctx = &split;
  if (rg_synth_collapse_renamings(mem, len, &co, cc, &err)) {
    report(&err);
    return err.status == RG_ERR_PARSE ? 2 : 1; /* a damaged candidates file is bad input */
  }
  if (*o->stop) return interrupted_now();
  fprintf(o->table, "renaming     %llu -> %llu candidates (renamed copies%s collapse)   %.2f s\n",
          (unsigned long long)cc->in, (unsigned long long)cc->out,
          co.extra_key ? " the generalize stage treats alike" : "", cc->seconds);
  return 0;
}

/* The generalize stage over the candidate text (appended to it) and its row of the table;
 * returns the exit status. */
/* The generalize stage's options under o; keep_dir, when not NULL, names OUT.generalize. */
static rg_generalize_opts generalize_opts(const rg_synth_opts *o, const rg_enum_space *sp, const char *keep_dir) {
  rg_generalize_opts go = {sp, o->rt, rg_generalize_limits_default(), o->threads, rg_synth_cache_bytes(o),
                           o->stop, o->quiet, 0, keep_dir, rg_cluster_size() > 1 ? rg_generalize_spread : NULL};
  go.rt.kernel = rg_fp_node_kernel; /* as the test stage's trials */
  /* a test hook: small runs in many chunks, to test going on and spreading them */
  const char *chunk = getenv("RULEGEN_TEST_GENERALIZE_CHUNK");
  if (chunk && atoi(chunk) > 0) go.chunk_rules = atoi(chunk);
  return go;
}

/* OUT.generalize (malloc'ed), where the stage keeps its chunks; NULL without an output. */
static char *chunks_dir(const rg_synth_opts *o) {
  return rg_checkpoint_beside(o->out_path) ? rg_path_with_suffix(o->out_path, ".generalize") : NULL;
}

static int generalize(const rg_synth_opts *o, const rg_enum_space *sp, char **mem, size_t *len,
                      rg_generalize_counts *gc, int **general_off, int **general_of) {
  char *dir = chunks_dir(o);
  rg_generalize_opts go = generalize_opts(o, sp, dir);
  rg_err err;
  rg_status st = rg_synth_generalize(mem, len, &go, gc, general_off, general_of, &err);
  free(dir);
  if (st) {
    report(&err);
    return 1;
  }
  if (*o->stop) return interrupted_now();
  fprintf(o->table, "generalize   %llu candidates with a variable to split: %llu generalizations tested, "
                  "%llu pass,\n             %llu most general added (%llu candidates hit the bound "
                  "of %d tries)          %.2f s\n",
          (unsigned long long)gc->repeated, (unsigned long long)gc->tried,
          (unsigned long long)gc->passed, (unsigned long long)gc->added, (unsigned long long)gc->capped,
          RG_GENERALIZE_MAX_TRIES, gc->seconds);
  rg_spread_print(o->table, "             ", 1u << RG_SPREAD_GENERALIZE);
  return 0;
}

/* The generator's configuration, "key=value" per line, recorded in a .db output. */
static void config_of(const rg_synth_opts *o, const rg_enum_space *sp, const char *command, rg_strbuf *cfg) {
  rg_sb_init(cfg);
  rg_sb_printf(cfg, "command=%s", command);
  rg_sb_printf(cfg, "\ndepth=%d\noperator_variants=%d\ninputs=%d\nfingerprint_seed=%llu\ntest_seed=%llu\n"
                    "trials=%d+%d\nother_shape_sets=%d\n",
               o->depth, sp->n_variants, sp->inputs.n, (unsigned long long)o->fp.seed,
               (unsigned long long)o->rt.seed, o->rt.zp_trials, o->rt.f64_trials, o->rt.other_shapes);
  for (int i = 0; i < sp->inputs.n; i++) {
    char buf[96];
    rg_sb_printf(cfg, "input.%s=%s\n", sp->inputs.in[i].name,
                 rg_shape_format_seams(&sp->inputs.in[i].shape, buf, sizeof buf));
  }
  if (o->resume_path) rg_sb_printf(cfg, "resumed_from=%s\n", o->resume_path);
}

/* The rows of the stage table before the stages of synth/finish.h (recorded in a .db output);
 * returns how many. A resumed run did not enumerate or test: its first row is the candidates it
 * read. why and gen_why hold the rows' texts. */
static int rows_before_finish(const rg_synth_opts *o, const rg_synth_counts *c, const rg_collapse_counts *cc,
                              const rg_generalize_counts *gc, char why[64], char gen_why[128],
                              rg_finish_stage rows[5], const rg_finish_stage **first) {
  snprintf(why, 64, "alone:%llu", (unsigned long long)(c->records - c->members));
  snprintf(gen_why, 128, "tested:%llu pass:%llu capped:%llu", (unsigned long long)gc->tried,
           (unsigned long long)gc->passed, (unsigned long long)gc->capped);
  rows[0] = (rg_finish_stage){"enumerate", 0, (int64_t)c->graphs, "", c->secs[0]};
  rows[1] = (rg_finish_stage){"fingerprint", (int64_t)c->records, (int64_t)c->members, why, 0};
  rows[2] = (rg_finish_stage){"test", (int64_t)c->pairs, (int64_t)c->written, "", c->secs[1]};
  rows[3] = (rg_finish_stage){"renaming-candidates", (int64_t)cc->in, (int64_t)cc->out, "", cc->seconds};
  rows[4] = (rg_finish_stage){"generalize", (int64_t)gc->in, (int64_t)(gc->in + gc->added), gen_why, gc->seconds};
  int n = o->no_generalize ? 4 : 5;
  *first = rows;
  if (o->resume_path) {
    rows[2] = (rg_finish_stage){"candidates", 0, (int64_t)c->written, "", 0};
    *first = rows + 2, n -= 2;
  }
  return n;
}

/* The options of the stages after testing, from o's (a worker rank's proofs take them too). */
static void finish_opts(rg_synth_opts *o) {
  o->fin.stop_after = o->stop_after == RG_SYNTH_STOP_PRUNE   ? RG_FINISH_PRUNE
                      : o->stop_after == RG_SYNTH_STOP_PROVE ? RG_FINISH_PROVE
                                                             : RG_FINISH_ALL;
  o->fin.out_path = o->out_path;
  o->fin.quiet = o->quiet;
  o->fin.prove.threads = o->threads;
  o->fin.prove.progress = !o->quiet;
  /* the recheck draws each rule from its variables' input-set shapes first */
  o->fin.prove.kernel = rg_fp_node_kernel;
  o->fin.prove.var_shape = rg_enum_inputs_shape_of;
  o->fin.prove.var_shape_ctx = &o->inputs;
  o->fin.test_seed = o->rt.seed;
}

/* Hands the candidates to the stages after testing (which free their text once parsed), with
 * the rows of the table so far and the generator's configuration. */
static int finish_run(rg_synth_opts *o, const rg_enum_space *sp, const char *command, char **cand, size_t len,
                      const rg_synth_counts *c, const rg_collapse_counts *cc, const rg_generalize_counts *gc) {
  rg_strbuf cfg;
  config_of(o, sp, command, &cfg);
  char why[64], gen_why[128];
  rg_finish_stage rows[5];
  const rg_finish_stage *first;
  int n_rows = rows_before_finish(o, c, cc, gc, why, gen_why, rows, &first);
  finish_opts(o);
  o->fin.config = rg_sb_str(&cfg);
  int rc = rg_synth_finish(cand, len, &o->fin, first, n_rows);
  rg_sb_free(&cfg);
  return rc;
}

/* The renaming collapse and generalize, or what they made for this output before, taken from
 * OUT.generalized (synth/generalized.h), which a run with an output file keeps for the next. */
static int collapse_and_generalize(const rg_synth_opts *o, const rg_enum_space *sp, char **mem, size_t *len,
                                   rg_collapse_counts *cc, rg_generalize_counts *gc, int **off, int **of) {
  char key[RG_GENERALIZED_KEY];
  bool keep = rg_checkpoint_beside(o->out_path);
  rg_generalized g;
  if (keep) rg_generalized_key(*mem, *len, !o->no_generalize, key);
  if (keep && rg_generalized_load(o->out_path, key, &g)) {
    free(*mem);
    *mem = g.text, *len = g.len, *cc = g.cc, *gc = g.gc, *off = g.general_off, *of = g.general_of;
    fprintf(o->table, "renaming     %llu -> %llu candidates, then %llu generalizations: taken from %s.generalized\n",
            (unsigned long long)cc->in, (unsigned long long)cc->out, (unsigned long long)gc->added, o->out_path);
    return 0;
  }
  int rc = collapse(o, sp, *mem, len, cc);
  if (!rc && !o->no_generalize) rc = generalize(o, sp, mem, len, gc, off, of);
  if (rc || !keep || (o->stop && *o->stop)) return rc;
  g = (rg_generalized){*mem, *len, *off, *of, *cc, *gc};
  rg_err err;
  if (rg_generalized_save(o->out_path, key, &g, &err)) {
    fprintf(stderr, "rulegen: warning: %s (a resumed run will redo the renaming collapse and generalize)\n", err.msg);
  } else { /* the chunks are in it now */
    char *dir = chunks_dir(o);
    if (dir) rg_gen_chunks_remove(dir);
    free(dir);
  }
  return 0;
}

/* The first line of the candidate text: what made the candidates (synth/resume.h). */
static void candidate_header(const rg_synth_opts *o, const rg_enum_space *sp, rg_strbuf *sb) {
  rg_sb_init(sb);
  rg_sb_printf(sb, "# rulegen synth: depth %d, %d operator variants, %d inputs, fingerprint seed %llu, "
                   "test seed %llu, %d+%d trials at %d other shape sets",
               o->depth, sp->n_variants, sp->inputs.n, (unsigned long long)o->fp.seed,
               (unsigned long long)o->rt.seed, o->rt.zp_trials, o->rt.f64_trials, o->rt.other_shapes);
}

/* A JSON string of a row's text (names and reasons are ours: no quotes or controls in them). */
static void json_row(FILE *out, const rg_finish_stage *r, bool first) {
  fprintf(out, "%s{\"stage\": \"%s\", \"in\": %lld, \"out\": %lld, \"dropped\": \"%s\", \"seconds\": %.3f}",
          first ? "" : ", ", r->name, (long long)r->n_in, (long long)r->n_out, r->dropped, r->seconds);
}

/* The run's counters (stats.def), and when the stages after testing ran, the whole stage table
 * and the proof summary, as one JSON object in o->json_path (atomically). */
static int write_json(const rg_synth_opts *o, const rg_synth_counts *c, const rg_finish_report *rep) {
  rg_atomic_file a;
  rg_err err;
  if (rg_atomic_open(&a, o->json_path, &err)) return report(&err), 1;
  fprintf(a.f, "{\"synth\": ");
  rg_synth_counts_json(c, a.f);
  if (rep->filled) {
    fprintf(a.f, ",\n \"stages\": [");
    for (int k = 0; k < rep->n_rows; k++) json_row(a.f, &rep->rows[k], k == 0);
    fprintf(a.f, "],\n \"prove\": ");
    rg_prove_summary_json(&rep->sum, a.f);
    rg_spread_json(a.f);
  }
  fprintf(a.f, "}\n");
  if (rg_atomic_commit(&a, &err)) return report(&err), 1;
  return 0;
}

/* A run with an output that goes past the test stage, run again after it saved its candidates
 * (then failed, or was stopped or killed), goes on from them: one command resumes at any
 * stage (the spill folder covers the stages before). Candidates of other options are not
 * taken: this run replaces them. */
static void resume_from_saved(rg_synth_opts *o, const rg_enum_space *sp, char **saved) {
  *saved = NULL;
  if (o->resume_path || !o->out_path || o->stop_after <= RG_SYNTH_STOP_TEST) return;
  char *path = rg_path_with_suffix(o->out_path, ".candidates");
  rg_strbuf block;
  candidate_header(o, sp, &block);
  rg_sb_puts(&block, "\n");
  rg_synth_resume_lines(o, &block);
  if (path && rg_synth_candidates_made_by(path, rg_sb_str(&block))) {
    fprintf(stderr, "rulegen: going on from %s, which this command saved (remove it to start again)\n", path);
    o->resume_path = *saved = path;
  } else {
    free(path);
  }
  rg_sb_free(&block);
}

/* The candidates, from the passes or from a resumed run's file; returns the exit status. */
static int candidates(const rg_synth_opts *o, const rg_enum_space *sp, char **mem, size_t *len,
                      rg_synth_counts *c) {
  rg_strbuf header;
  candidate_header(o, sp, &header);
  int rc;
  if (o->resume_path) {
    rc = rg_synth_load_candidates(o->resume_path, rg_sb_str(&header), mem, len, &c->written);
    if (!rc)
      fprintf(o->table, "candidates   %llu tested candidates read from %s\n", (unsigned long long)c->written,
              o->resume_path);
  } else {
    rc = synthesize(o, sp, rg_sb_str(&header), mem, len, c);
  }
  rg_sb_free(&header);
  return rc;
}

/* The stage table goes to memory while the run lasts and to stderr, whole, when it ends (also
 * when it fails or is interrupted): progress lines and messages never cut it in pieces. */
static int run_with_table(rg_synth_opts *o, const char *command);

int rg_synth_run_argv(rg_synth_opts *o, int argc, char **argv) {
  rg_strbuf command;
  rg_sb_init(&command);
  rg_sb_puts(&command, "rulegen");
  for (int i = 1; i < argc; i++) rg_sb_printf(&command, " %s", argv[i]);
  int rc = rg_synth_run(o, rg_sb_str(&command));
  rg_sb_free(&command);
  return rc;
}

/* A worker of an MPI job: rank 0 runs the stages and hands out the work of the enumeration,
 * the test stage and the proof rounds (synth/spread.h). Returns the exit status. */
static int serve(rg_synth_opts *o) {
  finish_opts(o);
  rg_enum_space sp;
  rg_err err;
  /* what a killed run was writing beside the output goes (a resumed run may never rewrite it) */
  if (o->out_path) rg_atomic_remove_stale_beside(o->out_path);
  if (rg_enum_space_init(&sp, &o->choices, &o->inputs, o->depth, &err)) {
    report(&err);
    rg_enum_space_free(&sp);
    return 2;
  }
  rg_cluster_work works[RG_CLUSTER_KINDS] = {{0}};
  rg_synth_records_ctx records = {o, &sp, false};
  rg_synth_records_works(&records, works);
  rg_generalize_opts go = generalize_opts(o, &sp, NULL);
  go.quiet = true;
  rg_generalize_work(&go, &works[RG_SPREAD_GENERALIZE]);
  rg_derive_work(o->stop, &works[RG_SPREAD_DERIVE]);
  int rc = rg_spread_serve(&o->fin, works);
  rg_enum_space_free(&sp);
  return rc;
}

int rg_synth_run(rg_synth_opts *o, const char *command) {
  if (o->no_fail_fast && o->fin.prove.fail_fast)
    return fprintf(stderr, "rulegen: --fail-fast and --no-fail-fast contradict\n"), 2;
  /* under --require both a rule z3 does not prove fails anyway: cvc5 is asked only what z3
   * proved (the same rules, about half the proof stage: TASO's depth 3, 5:54 -> 3:07) */
  if (!o->no_fail_fast && o->fin.prove.require == RG_REQUIRE_BOTH) o->fin.prove.fail_fast = true;
  /* -j bounds every stage: derivability and the kernels size their teams from OpenMP's default */
  omp_set_num_threads(o->threads);
  int pre = rg_synth_preflight(o); /* before hours of work, not after */
  if (pre) return pre;
  if (rg_cluster_rank() != 0) return serve(o);
  char *text = NULL;
  size_t len = 0;
  FILE *table = open_memstream(&text, &len);
  o->table = o->fin.table = table ? table : stderr;
  int rc = run_with_table(o, command);
  if (table && fclose(table) == 0 && len) fprintf(stderr, "\n%s", text);
  free(text);
  o->table = o->fin.table = NULL;
  return rc;
}

static int run_with_table(rg_synth_opts *o, const char *command) {
  rg_enum_space sp;
  rg_err err;
  /* what a killed run was writing beside the output goes (a resumed run may never rewrite it) */
  if (o->out_path) rg_atomic_remove_stale_beside(o->out_path);
  if (rg_enum_space_init(&sp, &o->choices, &o->inputs, o->depth, &err)) {
    report(&err); /* the message names the input when it is one */
    rg_enum_space_free(&sp);
    return 2;
  }
  if (o->stop_after >= RG_SYNTH_STOP_FINGERPRINT && !o->resume_path && o->fp.mem_limit < RG_FP_MIN_MEM) {
    fprintf(stderr, "rulegen: --mem-limit %zu bytes is too small to make progress: give at least %u MB\n",
            o->fp.mem_limit, RG_FP_MIN_MEM >> 20);
    rg_enum_space_free(&sp);
    return 2;
  }
  char *mem = NULL;
  size_t len = 0;
  rg_synth_counts c = {0};
  rg_collapse_counts cc = {0};
  rg_generalize_counts gc = {0};
  int *general_off = NULL, *general_of = NULL;
  bool finishing = o->stop_after > RG_SYNTH_STOP_TEST;
  rg_finish_report rep = {.filled = false};
  o->fin.report = &rep;
  char *saved;
  resume_from_saved(o, &sp, &saved);
  int rc = candidates(o, &sp, &mem, &len, &c);
  if (!rc && finishing) rc = collapse_and_generalize(o, &sp, &mem, &len, &cc, &gc, &general_off, &general_of);
  o->fin.general_off = general_off, o->fin.general_of = general_of;
  if (!rc && finishing) rc = finish_run(o, &sp, command, &mem, len, &c, &cc, &gc);
  /* a run that wrote its output writes its figures, also when it exits 1 for a disagreement */
  if (o->json_path && (rc == 0 || (rc == 1 && rep.filled))) {
    int jrc = write_json(o, &c, &rep);
    if (!rc) rc = jrc;
  }
  o->fin.report = NULL;
  if (saved) o->resume_path = NULL;
  free(saved);
  free(mem);
  free(general_off), free(general_of);
  rg_enum_space_free(&sp);
  return rc;
}
