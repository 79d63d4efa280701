/* certify/session.c: one certification or check as a program runs it (certify/session.h). */
#include "session.h"

#include <string.h>

#include "audit.h"
#include "cert.h"
#include "ir/clock.h"
#include "programs.h"

/* Progress of box mode: nothing during the first second (short runs stay quiet), then a line
 * every two seconds or so with the box checks done, the rate and the time left, and a closing
 * line once any was printed. */
typedef struct {
  const char *who;
  FILE *log;
  double t0, next_ms;
  bool printed;
} progress;

static double ms_since(double t0) { return (rg_clock_seconds() - t0) * 1e3; }

static void on_progress(void *user, int64_t done, int64_t total) {
  progress *pg = user;
  double ms = ms_since(pg->t0);
  if (done < total ? ms < pg->next_ms : !pg->printed) return;
  double rate = (double)done / (ms > 1 ? ms : 1) * 1e3;
  if (done < total)
    fprintf(pg->log, "%s: %lld of %lld box checks (%.0f%%), %.0f/s, about %.1f s left\n", pg->who, (long long)done,
            (long long)total, 100.0 * (double)done / (double)total, rate, (double)(total - done) / (rate > 0 ? rate : 1));
  else
    fprintf(pg->log, "%s: %lld box checks done in %.1f s (%.0f/s)\n", pg->who, (long long)total, ms / 1e3, rate);
  pg->printed = true;
  pg->next_ms = ms + 2000;
}

/* Loads the programs and builds the pair, or prints them (print). cert_shapes: the
 * certificate's, for check. */
static rg_status open_pair(const rg_cert_session *s, char **files, int nfiles, const char *cert_shapes, FILE *out,
                           rg_pet_pair **pp, const char **where, rg_err *err) {
  rg_pet_source src = {s->mutant, s->dims, files, nfiles, s->shapes, cert_shapes};
  rg_pet_programs prog;
  rg_status st = rg_pet_programs_load(&src, &prog, where, err);
  if (st == RG_OK && s->print)
    fprintf(out, "original: %s\nmutant:   %s\nshapes:   %s\n", prog.original, prog.mutant,
            prog.shapes ? prog.shapes : "(none)");
  else if (st == RG_OK)
    st = rg_pet_pair_new(prog.original, prog.mutant, prog.shapes, pp, err);
  rg_pet_programs_free(&prog);
  return st;
}

/* Full mode: every element where the programs differ must lie in a correction region, i.e.
 * the corrected mutant (the mutant outside the regions, the original inside) is equivalent. */
static rg_status full_check(const rg_pet_pair *pp, const rg_cert *c, const rg_pet_opts *po, FILE *log, rg_err *err) {
  double t0 = rg_clock_seconds();
  int64_t differing, outside;
  rg_status st = rg_cert_full_check(pp, c, po, &differing, &outside, NULL, err);
  if (st) return st;
  fprintf(log, "certify: full mode: %lld differing elements, %lld outside the correction regions (%.1f ms)\n",
          (long long)differing, (long long)outside, ms_since(t0));
  if (outside)
    return rg_err_set(err, RG_ERR_ARG, "full mode finds %lld differing elements outside the correction regions",
                      (long long)outside);
  return RG_OK;
}

/* check: audits the certificate against the programs, then full mode if asked. */
static rg_status run_check(const rg_cert_session *s, const char *cert_path, rg_cert *parsed, rg_pet_pair *pp,
                           rg_pet_hooks *hooks, FILE *out, FILE *log, int *verdict, rg_err *err) {
  double t0 = rg_clock_seconds();
  rg_audit a;
  rg_status st = rg_cert_audit(parsed, pp, hooks, &a, err);
  if (st) return st;
  fprintf(out, "%s: %s\n", cert_path, a.valid ? "VALID" : "REJECTED");
  if (!a.valid) fprintf(out, "  reason: %s\n", a.why);
  fprintf(log, "certify check: %lld boxes, %lld evaluations, %.1f ms\n", (long long)a.boxes,
          (long long)a.evaluations, ms_since(t0));
  *verdict = a.valid ? 0 : 1;
  if (a.valid && s->full)
    st = full_check(pp, parsed, &(rg_pet_opts){parsed->res.trials, parsed->res.p, hooks}, log, err);
  return st;
}

/* certify: box mode, the certificate written, then full mode if asked. */
static rg_status run_certify(const rg_cert_session *s, rg_pet_pair *pp, rg_cert *c, rg_pet_hooks *hooks, FILE *log,
                             rg_err *err) {
  double t0 = rg_clock_seconds();
  rg_pet_opts po = {s->trials, s->p, hooks};
  rg_pet_result res;
  rg_status st = rg_pet_check(pp, &po, &res, err);
  double ms = ms_since(t0);
  if (st == RG_OK) st = rg_cert_make(pp, &res, c, err);
  if (st) return st;
  int64_t neq = rg_pet_result_neq(&c->res);
  fprintf(log,
          "certify: %lld boxes (%lld NEQ, %lld correction regions), %lld positions, %lld evaluations, "
          "%d trials, error bound %s%s, %.1f ms\n",
          (long long)c->res.n_boxes, (long long)neq, (long long)c->n_regions, (long long)c->res.positions,
          (long long)c->res.evaluations, c->res.trials, strcmp(c->bound, "none") ? "2^" : "", c->bound, ms);
  st = rg_cert_save(c, s->out, err);
  if (st == RG_OK && s->full) st = full_check(pp, c, &po, log, err);
  return st;
}

rg_status rg_cert_session_run(const rg_cert_session *s, char **args, int nargs, FILE *out, FILE *log,
                              int *verdict, const char **where, rg_err *err) {
  const char *cert_path = NULL;
  rg_pet_pair *pp = NULL;
  rg_cert c = {0}, parsed = {0};
  rg_status st = RG_OK;
  *verdict = 0, *where = NULL;
  if (s->check && nargs < 1) return rg_err_set(err, RG_ERR_ARG, "give the certificate file first (see --help)");
  if (s->check) {
    cert_path = args[0], args++, nargs--;
    if ((st = rg_cert_load(cert_path, &parsed, err)) != RG_OK) *where = cert_path;
  }
  if (st == RG_OK) st = open_pair(s, args, nargs, s->check ? parsed.shapes : NULL, out, &pp, where, err);
  if (st == RG_OK && !s->print) {
    progress pg = {s->prog, log, rg_clock_seconds(), 1000, false};
    rg_pet_hooks hooks = {s->cancel, on_progress, &pg};
    st = s->check ? run_check(s, cert_path, &parsed, pp, &hooks, out, log, verdict, err)
                  : run_certify(s, pp, &c, &hooks, log, err);
  }
  rg_cert_free(&c);
  rg_cert_free(&parsed);
  rg_pet_pair_free(pp);
  return st;
}
