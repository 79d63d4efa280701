/* bench/certify_bench.c: PET certificate production and audit for a built-in mutant (by
 * default PET's Fig. 1 on a 1x64x56x56 input with a 64x64x3x3 kernel, two strips), against
 * full-mode evaluation of both programs. Prints one table row; times are the best of `reps`
 * runs (wall clock; full mode: best of 2).
 *
 *   certify_bench [KIND [N,C,H,W,O,K,P [reps [FIELD]]]]   KIND: fig1 (default), fold, dilated,
 *                                                         merged; FIELD: 61 (default) or 127
 *                                                         for p = 2^61-1 or 2^127-1
 */
#include <stdio.h>
#include <stdlib.h>

#include "certify/certify.h"
#include "ir/ir.h"

/* One certificate made and audited: *cr, and the times of each (ms) folded into the best so
 * far. Non-zero (a message printed) on failure. */
static int certify_once(rg_pet_pair *pp, const rg_pet_opts *o, rg_cert *cr, double *t_cert,
                        double *t_audit) {
  rg_err err;
  double t0 = rg_clock_ms();
  rg_pet_result res;
  if (rg_pet_check(pp, o, &res, &err) || rg_cert_make(pp, &res, cr, &err)) {
    fprintf(stderr, "certify_bench: %s\n", err.msg);
    return 2;
  }
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_cert_write(cr, &sb);
  double t1 = rg_clock_ms();
  rg_cert parsed;
  rg_audit a = {0};
  if (rg_cert_parse(sb.s, sb.len, &parsed, &err) || rg_cert_audit(&parsed, pp, NULL, &a, &err) || !a.valid) {
    fprintf(stderr, "certify_bench: audit failed: %s %s\n", err.msg, a.why);
    return 2;
  }
  double t2 = rg_clock_ms();
  rg_cert_free(&parsed);
  rg_sb_free(&sb);
  if (t1 - t0 < *t_cert) *t_cert = t1 - t0;
  if (t2 - t1 < *t_audit) *t_audit = t2 - t1;
  return 0;
}

/* The best of reps full-mode evaluations (ms) into *t_full. Non-zero on failure. */
static int time_full(rg_pet_pair *pp, const rg_pet_opts *o, int reps, double *t_full) {
  rg_err err;
  for (int r = 0; r < reps; r++) {
    uint8_t *diff[RG_RULE_MAX_OUTPUTS] = {0};
    double t0 = rg_clock_ms();
    if (rg_pet_full(pp, o, diff, &err)) {
      fprintf(stderr, "certify_bench: %s\n", err.msg);
      return 2;
    }
    double t = rg_clock_ms() - t0;
    if (t < *t_full) *t_full = t;
    free(diff[0]);
  }
  return 0;
}

int main(int argc, char **argv) {
  rg_mutant_dims d = rg_mutant_default();
  int kind = argc > 1 ? rg_mutant_by_name(argv[1]) : RG_MUTANT_FIG1;
  if (kind < 0 ||
      (argc > 2 && sscanf(argv[2], "%d,%d,%d,%d,%d,%d,%d", &d.n, &d.c, &d.h, &d.w, &d.o, &d.k, &d.pieces) < 6)) {
    fprintf(stderr, "usage: certify_bench [fig1|fold|dilated|merged|mmrows|mmcols [N,C,H,W,O,K[,P] [reps [61|127]]]]\n");
    return 2;
  }
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (reps < 1) reps = 1;
  bool wide = argc > 4 && atoi(argv[4]) == 127;
  rg_mutant m;
  rg_err err;
  rg_pet_pair *pp = NULL;
  if (rg_mutant_make((rg_mutant_kind)kind, &d, &m, &err) || rg_pet_pair_new(m.original, m.mutant, m.shapes, &pp, &err)) {
    fprintf(stderr, "certify_bench: %s\n", err.msg);
    return 2;
  }
  rg_pet_opts o = {3, wide ? RG_Z127_Q : RG_ZP_P, NULL};
  double t_cert = 1e30, t_audit = 1e30, t_full = 1e30;
  rg_cert c = {0};
  int64_t neq = 0;
  for (int r = 0; r < reps; r++) {
    rg_cert cr;
    if (certify_once(pp, &o, &cr, &t_cert, &t_audit)) return 2;
    rg_cert_free(&c);
    c = cr;
  }
  for (int64_t i = 0; i < c.res.n_boxes; i++) neq += c.res.box[i].verdict == RG_BOX_NEQ;
  int full_reps = reps < 2 ? reps : 2; /* full mode is slow: fewer repetitions */
  if (time_full(pp, &o, full_reps, &t_full)) return 2;
  printf("mutant %s: %s, t=%d, p=%s\n", rg_mutant_name((rg_mutant_kind)kind), m.shapes, o.trials,
         wide ? "2^127-1" : "2^61-1");
  printf("| boxes | NEQ boxes | regions | m+1 positions | evaluations | certify ms | audit ms | full mode ms | full / certify | full / audit |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  printf("| %lld | %lld | %lld | %lld | %lld | %.2f | %.2f | %.1f | %.0fx | %.0fx |\n", (long long)c.res.n_boxes,
         (long long)neq, (long long)c.n_regions, (long long)c.res.positions, (long long)c.res.evaluations, t_cert,
         t_audit, t_full, t_full / t_cert, t_full / t_audit);
  rg_cert_free(&c);
  rg_pet_pair_free(pp);
  return 0;
}
