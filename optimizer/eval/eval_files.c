/* optimizer/eval/eval_files.c: what evaluating a model for a person needs around rg_model_eval: its
 * inputs read from ONNX test-data files or shared with another model, its outputs evaluated into
 * new arrays and written back as test data (eval.h). */
#include "eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_io.h"

/* Input variable v's values from path, which must hold a tensor of v's shape. */
static rg_status read_input(const rg_model *m, int32_t v, const char *path, double **vals, rg_err *err) {
  rg_elem elem;
  rg_shape s;
  char *name, sa[128], sb[128];
  rg_status st = rg_tensor_file_read(path, &elem, &s, vals, &name, err);
  if (st) return st;
  free(name);
  if (rg_shape_dims_eq(&s, &m->var[v].shape)) return RG_OK;
  free(*vals), *vals = NULL;
  return rg_err_set(err, RG_ERR_SHAPE, "%s: shape %s, but input '%s' is %s", path,
                    rg_shape_format(&s, sa, sizeof sa), rg_graph_tvar_name(m->g, v),
                    rg_shape_format(&m->var[v].shape, sb, sizeof sb));
}

rg_status rg_model_inputs_read(const rg_model *m, const char *dir, double ***out, rg_err *err) {
  double **in = calloc((size_t)m->n_var + 1, sizeof *in);
  if (!in) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t v = 0, k = 0; v < m->n_var; v++) {
    if (m->var[v].kind != RG_MVAR_INPUT) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/input_%d.pb", dir, k++);
    if (!m->var[v].typed) continue; /* an opaque input, never evaluated: its file is not read */
    rg_status st = read_input(m, v, path, &in[v], err);
    if (st) return rg_model_inputs_free(m, in), st;
  }
  *out = in;
  return RG_OK;
}

rg_status rg_model_inputs_for(const rg_model *other, const rg_model *m, double *const *in, double ***out,
                              rg_err *err) {
  double **o = calloc((size_t)other->n_var + 1, sizeof *o);
  if (!o) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t v = 0; v < other->n_var; v++) {
    if (other->var[v].kind != RG_MVAR_INPUT || !other->var[v].typed) continue;
    int32_t mv = rg_graph_find_tvar(m->g, rg_graph_tvar_name(other->g, v));
    if (mv < 0 || m->var[mv].kind != RG_MVAR_INPUT || !rg_shape_dims_eq(&m->var[mv].shape, &other->var[v].shape)) {
      free(o);
      return rg_err_set(err, RG_ERR_ARG,
                        "the models' inputs differ: '%s' is not an input of the same shape in both",
                        rg_graph_tvar_name(other->g, v));
    }
    o[v] = in[mv];
  }
  *out = o;
  return RG_OK;
}

rg_status rg_model_outputs_eval(const rg_executor *x, const rg_model *m, const double *const *in, double ***out,
                                rg_err *err) {
  if (!x) x = rg_executor_get(0);
  double **o = calloc((size_t)m->n_out + 1, sizeof *o);
  if (!o) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = x->eval_refs(m, in, m->out, m->n_out, o, err);
  if (st) return free(o), st;
  *out = o;
  return RG_OK;
}

void rg_model_outputs_free(const rg_model *m, double **out) {
  for (int32_t i = 0; out && i < m->n_out; i++) free(out[i]);
  free(out);
}

int32_t rg_model_output_match(const rg_model *other, const rg_model *m, int32_t i) {
  int32_t j = i;
  for (int32_t q = 0; q < other->n_out; q++)
    if (!strcmp(other->out_name[q], m->out_name[i])) j = q;
  return j < other->n_out ? j : -1;
}

/* The element type of output i (float unless it is an int64 variable passed through). */
static rg_elem out_elem(const rg_model *m, int32_t i) {
  int32_t v = rg_model_var_of(m, m->out[i]);
  return v >= 0 ? m->var[v].elem : RG_ELEM_FLOAT;
}

rg_status rg_model_io_save(const rg_model *m, const char *dir, double *const *in, double *const *out, rg_err *err) {
  char path[4096];
  rg_status st = RG_OK;
  for (int32_t v = 0, k = 0; !st && v < m->n_var; v++) {
    if (m->var[v].kind != RG_MVAR_INPUT) continue;
    snprintf(path, sizeof path, "%s/input_%d.pb", dir, k++);
    if (!m->var[v].typed) continue; /* an opaque input: no values were drawn */
    st = rg_tensor_file_write(path, rg_graph_tvar_name(m->g, v), m->var[v].elem, &m->var[v].shape, in[v], err);
  }
  for (int32_t i = 0; !st && i < m->n_out; i++) {
    snprintf(path, sizeof path, "%s/output_%d.pb", dir, i);
    st = rg_tensor_file_write(path, m->out_name[i], out_elem(m, i), rg_model_shape(m, m->out[i]), out[i], err);
  }
  return st;
}
