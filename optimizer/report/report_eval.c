/* optimizer/report/report_eval.c: `graphopt eval`'s work: inputs drawn or read, a model (and another
 * to compare with) evaluated, each output reported with its difference from a reference
 * (report.h). */
#include <stdio.h>
#include <stdlib.h>

#include "optimizer/eval/eval.h"
#include "report.h"

/* The reference of output i (r's other, else the expected file; *owned: the caller frees it),
 * or NULL when there is none; errors as rg_outputs_print says. */
static rg_status reference(const rg_model *m, const rg_eval_refs *r, int32_t i, const double **vals, rg_shape *rs,
                           bool *owned, rg_err *err) {
  *owned = false, *vals = NULL;
  if (r->other) {
    int32_t j = rg_model_output_match(r->other, m, i);
    if (j < 0) return rg_err_set(err, RG_ERR_ARG, "%s has no output '%s'", r->other_name, m->out_name[i]);
    *rs = *rg_model_shape(r->other, r->other->out[j]), *vals = r->ref[j];
    return RG_OK;
  }
  if (!r->expect) return RG_OK;
  char path[4096], *name;
  rg_elem elem;
  double *v;
  snprintf(path, sizeof path, "%s/output_%d.pb", r->expect, i);
  rg_status st = rg_tensor_file_read(path, &elem, rs, &v, &name, err);
  if (st) return st;
  free(name);
  *owned = true, *vals = v;
  return RG_OK;
}

rg_status rg_outputs_print(const rg_model *m, double *const *vals, const rg_eval_refs *r, bool *differs,
                            rg_strbuf *out, rg_err *err) {
  for (int32_t i = 0; i < m->n_out; i++) {
    const rg_shape *s = rg_model_shape(m, m->out[i]);
    int64_t n = rg_shape_numel(s);
    char buf[128];
    double sum = 0, mag = 0;
    for (int64_t k = 0; k < n; k++) sum += vals[i][k], mag += vals[i][k] < 0 ? -vals[i][k] : vals[i][k];
    rg_sb_printf(out, "%s: %s sum %.9g abs %.9g", m->out_name[i], rg_shape_format(s, buf, sizeof buf), sum, mag);
    rg_shape rs;
    bool owned;
    const double *ref;
    rg_status st = reference(m, r, i, &ref, &rs, &owned, err);
    if (st) return rg_sb_puts(out, "\n"), st;
    if (ref) {
      bool same = rg_shape_dims_eq(s, &rs);
      double d = same ? rg_values_rel_diff(vals[i], ref, n) : 1.0 / 0.0;
      rg_sb_printf(out, same ? " rel-diff %.3g%s" : " rel-diff %g (shapes differ)%s", d,
                   d > r->tolerance ? " DIFFERS" : "");
      *differs = *differs || d > r->tolerance;
      if (owned) free((double *)ref);
    }
    rg_sb_puts(out, "\n");
  }
  return RG_OK;
}

/* The inputs io says: read from io->dir, else drawn. */
static rg_status inputs_of(const rg_model *m, const rg_eval_inputs *io, double ***in, rg_err *err) {
  if (io->dir) return rg_model_inputs_read(m, io->dir, in, err);
  *in = rg_model_random_inputs(m, io->seed, io->int_max);
  return *in ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory drawing the inputs");
}

rg_status rg_eval_run_print(const rg_model *m, const rg_eval_inputs *io, const rg_eval_refs *refs, bool *differs,
                         rg_strbuf *out, rg_err *err) {
  const rg_model *other = refs->other;
  double **in = NULL, **vals = NULL, **other_in = NULL, **other_out = NULL;
  rg_status st = inputs_of(m, io, &in, err);
  if (!st && other) st = rg_model_inputs_for(other, m, in, &other_in, err);
  if (!st) st = rg_model_outputs_eval(NULL, m, (const double *const *)in, &vals, err);
  if (!st && other) st = rg_model_outputs_eval(NULL, other, (const double *const *)other_in, &other_out, err);
  if (!st && io->save) st = rg_model_io_save(m, io->save, in, vals, err);
  rg_eval_refs r = *refs;
  r.ref = other_out;
  if (!st) st = rg_outputs_print(m, vals, &r, differs, out, err);
  rg_model_outputs_free(m, vals);
  if (other) rg_model_outputs_free(other, other_out);
  free(other_in);
  rg_model_inputs_free(m, in);
  return st;
}
