/* cli/args.c: option values parsed: numbers, NAME=DIMS and NAME=VALUE bindings, input sets
 * (cli/args.h). */
#include "args.h"
#include "fields.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enumerate/enumerate.h"

static rg_status add_shape(rg_cli_bindings *b, const char *s, int len, rg_err *err) {
  const char *eq = memchr(s, '=', (size_t)len);
  rg_shape shape;
  const char *dims = eq ? eq + 1 : s;
  int dlen = eq ? len - (int)(eq + 1 - s) : len;
  rg_status st = rg_shape_parse(dims, dlen, &shape, err);
  if (st) return st;
  if (!eq) {
    b->has_default = true;
    b->default_shape = shape;
    return RG_OK;
  }
  int nlen = (int)(eq - s);
  if (nlen > 0 && s[0] == '?') s++, nlen--;
  if (nlen <= 0 || nlen >= RG_RULE_MAX_NAME)
    return rg_err_set(err, RG_ERR_ARG, "bad shape binding '%.*s': expected NAME=DIMS, e.g. x=2x4", len, s);
  if (b->n_shapes == RG_CLI_MAX_BINDINGS)
    return rg_err_set(err, RG_ERR_LIMIT, "more than %d shape bindings", RG_CLI_MAX_BINDINGS);
  rg_cli_shape *cs = &b->shapes[b->n_shapes++];
  snprintf(cs->name, sizeof cs->name, "%.*s", nlen, s);
  cs->shape = shape;
  return RG_OK;
}

rg_status rg_cli_add_shapes(rg_cli_bindings *b, const char *arg, rg_err *err) {
  const char *p = arg;
  while (*p) {
    while (*p == ' ' || *p == ',') p++;
    const char *q = p;
    while (*q && *q != ' ' && *q != ',') q++;
    if (q > p) {
      rg_status st = rg_shape_comma_check(arg, p, (int)(q - p), err);
      if (!st) st = add_shape(b, p, (int)(q - p), err);
      if (st) return st;
    }
    p = q;
  }
  return RG_OK;
}

bool rg_cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  if (!s || !*s) return false;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

rg_status rg_cli_add_param(rg_cli_bindings *b, const char *arg, rg_err *err) {
  const char *eq = strchr(arg, '=');
  const char *name = arg[0] == '?' ? arg + 1 : arg;
  int64_t v;
  if (!eq || eq == name || eq - name >= RG_RULE_MAX_NAME ||
      !rg_cli_parse_i64(eq + 1, INT32_MIN, INT32_MAX, &v))
    return rg_err_set(err, RG_ERR_ARG, "bad parameter binding '%s': expected NAME=INTEGER, e.g. a=1", arg);
  if (b->n_params == RG_CLI_MAX_BINDINGS)
    return rg_err_set(err, RG_ERR_LIMIT, "more than %d parameter bindings", RG_CLI_MAX_BINDINGS);
  rg_cli_param *cp = &b->params[b->n_params++];
  snprintf(cp->name, sizeof cp->name, "%.*s", (int)(eq - name), name);
  cp->value = (int32_t)v;
  return RG_OK;
}

rg_status rg_cli_bind(const rg_cli_bindings *b, const rg_graph *g, rg_cli_bound *out, rg_err *err) {
  int32_t nt = rg_graph_n_tvars(g), np = rg_graph_n_pvars(g);
  memset(out, 0, sizeof *out);
  out->tvar_shapes = calloc((size_t)nt + 1, sizeof *out->tvar_shapes);
  out->pvar_values = calloc((size_t)np + 1, sizeof *out->pvar_values);
  out->pvar_bound = calloc((size_t)np + 1, 1);
  if (!out->tvar_shapes || !out->pvar_values || !out->pvar_bound) {
    rg_cli_bound_free(out);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int32_t i = 0; i < nt; i++) {
    const char *name = rg_graph_tvar_name(g, i);
    for (int k = b->n_shapes - 1; k >= 0 && !out->tvar_shapes[i]; k--)
      if (strcmp(b->shapes[k].name, name) == 0) out->tvar_shapes[i] = &b->shapes[k].shape;
    if (!out->tvar_shapes[i] && b->has_default) out->tvar_shapes[i] = &b->default_shape;
  }
  for (int32_t i = 0; i < np; i++) {
    const char *name = rg_graph_pvar_name(g, i);
    for (int k = b->n_params - 1; k >= 0 && !out->pvar_bound[i]; k--)
      if (strcmp(b->params[k].name, name) == 0) {
        out->pvar_values[i] = b->params[k].value;
        out->pvar_bound[i] = 1;
      }
  }
  out->binding = (rg_binding){out->tvar_shapes, out->pvar_values, out->pvar_bound};
  return RG_OK;
}

void rg_cli_bound_free(rg_cli_bound *bd) {
  free(bd->tvar_shapes);
  free(bd->pvar_values);
  free(bd->pvar_bound);
  memset(bd, 0, sizeof *bd);
}

bool rg_cli_int_option(const char *prog, const char *opt, const char *arg, int64_t lo, int64_t hi,
                       int64_t *out) {
  if (rg_cli_parse_i64(arg, lo, hi, out)) return true;
  fprintf(stderr, "%s: --%s wants a number from %lld to %lld, not '%s'\n", prog, opt, (long long)lo,
          (long long)hi, arg);
  return false;
}

bool rg_cli_real_option(const char *prog, const char *opt, const char *arg, double lo, double *out) {
  char *end;
  *out = strtod(arg, &end);
  if (!*end && end != arg && *out >= lo) return true;
  return fprintf(stderr, "%s: --%s wants a number >= %g, not '%s'\n", prog, opt, lo, arg), false;
}

bool rg_cli_size_option(const char *prog, const char *opt, const char *arg, size_t *out) {
  if (rg_cli_parse_size(arg, out)) return true;
  return fprintf(stderr, "%s: --%s wants a size such as 512M or 4G, not '%s'\n", prog, opt, arg), false;
}

bool rg_cli_choice_option(const char *prog, const char *opt, const char *arg, const char *const *choices, int *out) {
  for (int i = 0; choices[i]; i++)
    if (!strcmp(arg, choices[i])) return *out = i, true;
  return fprintf(stderr, "%s: --%s wants %s or %s, not '%s'\n", prog, opt, choices[0], choices[1], arg), false;
}

bool rg_cli_load_inputs(const char *prog, const char *path, void *inputs) {
  rg_err err;
  if (!rg_enum_inputs_load(path, inputs, &err)) return true;
  rg_err_print(stderr, prog, path, &err);
  return false;
}

bool rg_cli_file_names_given(const char *prog, const char *const *opts, const char *const *vals, int n) {
  for (int k = 0; k < n; k++)
    if (vals[k] && !*vals[k]) return fprintf(stderr, "%s: %s: an empty file name: give one\n", prog, opts[k]), false;
  return true;
}

void rg_cli_print_lines(FILE *out, const char *prefix, const char *text) {
  for (const char *l = text; *l;) {
    int n = (int)strcspn(l, "\n");
    fprintf(out, "%s%.*s\n", prefix, n, l);
    l += n + (l[n] == '\n');
  }
}
