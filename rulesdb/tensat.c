/* rulesdb/tensat.c: TENSAT's rule text read into our rules (grammar in exchange.h /
 * anchors/README.md); export is tensat_export.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "exchange_util.h"

/* ---- import ---- */

/* A parsed s-expression: an atom (n_kids < 0) or a list. */
typedef struct sx {
  const char *atom;
  int len, n_kids, col;
  struct sx **kids;
} sx;

static void sx_free(sx *s) {
  if (!s) return;
  for (int i = 0; i < s->n_kids; i++)
    sx_free(s->kids[i]);
  free(s->kids);
  free(s);
}

/* Deeper terms are refused: the parser recurses, and no real rule comes near this. */
#define MAX_DEPTH 256

typedef struct {
  const char *p, *line_start, *end;
  int line, depth;
  rg_err *err;
} lexer;

static rg_status lex_err(lexer *lx, const char *what) {
  return rg_err_at(lx->err, RG_ERR_PARSE, lx->line, (int)(lx->p - lx->line_start) + 1, "%s", what);
}

static rg_status sx_parse(lexer *lx, sx **out) {
  *out = NULL;
  while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
    lx->p++;
  if (lx->p >= lx->end || *lx->p == '\n') return lex_err(lx, "expected a term");
  if (*lx->p == ')') return lex_err(lx, "unbalanced ')'");
  if (lx->depth >= MAX_DEPTH) return lex_err(lx, "terms nested more than 256 deep");
  sx *s = calloc(1, sizeof *s);
  if (!s) return rg_err_set(lx->err, RG_ERR_NOMEM, "out of memory");
  s->col = (int)(lx->p - lx->line_start) + 1;
  if (*lx->p != '(') {
    s->atom = lx->p, s->n_kids = -1;
    while (lx->p < lx->end && !strchr(" \t\n()", *lx->p) &&
           !(lx->p[0] == '=' && lx->p + 1 < lx->end && lx->p[1] == '>'))
      lx->p++;
    s->len = (int)(lx->p - s->atom);
    if (s->len == 0) { /* at '=>' or a NUL: nothing read, and a list would never end */
      free(s);
      return lex_err(lx, *lx->p == '=' ? "unexpected '=>' inside a term (a ')' missing before it?)"
                                       : "unexpected character (a NUL byte?)");
    }
    *out = s;
    return RG_OK;
  }
  lx->p++;
  int cap = 0;
  for (;;) {
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
      lx->p++;
    if (lx->p >= lx->end || *lx->p == '\n') return sx_free(s), lex_err(lx, "missing ')'");
    if (*lx->p == ')') break;
    if (s->n_kids == cap) {
      cap = cap ? 2 * cap : 8;
      sx **nk = realloc(s->kids, sizeof *nk * (size_t)cap);
      if (!nk) return sx_free(s), rg_err_set(lx->err, RG_ERR_NOMEM, "out of memory");
      s->kids = nk;
    }
    lx->depth++;
    rg_status st = sx_parse(lx, &s->kids[s->n_kids]);
    lx->depth--;
    if (st) return sx_free(s), st;
    s->n_kids++;
  }
  lx->p++;
  if (s->n_kids == 0 || s->kids[0]->n_kids >= 0)
    return sx_free(s), lex_err(lx, "a list must start with an operator name");
  *out = s;
  return RG_OK;
}

static int is(const sx *s, const char *name) {
  return s->n_kids < 0 && (int)strlen(name) == s->len && !memcmp(s->atom, name, (size_t)s->len);
}

/* An integer atom in [lo, hi]; -1 (with *ok = 0) otherwise. */
static int int_atom(const sx *s, int lo, int hi, int *ok) {
  if (s->n_kids >= 0 || s->len == 0 || s->len > 6) return *ok = 0, -1;
  int v = 0;
  for (int i = 0; i < s->len; i++) {
    if (!isdigit((unsigned char)s->atom[i])) return *ok = 0, -1;
    v = v * 10 + (s->atom[i] - '0');
  }
  if (v < lo || v > hi) return *ok = 0, -1;
  return v;
}

typedef struct {
  rg_strbuf *out;
  char why[200]; /* set when the term has no counterpart of ours */
  int bad_col;   /* set for malformed terms */
  const char *bad;
} importer;

static int conv(importer *im, const sx *s);

static int conv_kids(importer *im, const sx *s, int from) {
  for (int i = from; i < s->n_kids; i++) {
    rg_sb_puts(im->out, " ");
    if (conv(im, s->kids[i])) return -1;
  }
  return 0;
}

static int malformed(importer *im, const sx *s, const char *what) {
  im->bad_col = s->col, im->bad = what;
  return -1;
}

/* A leaf: a variable, or a constant we cannot take. */
static int conv_atom(importer *im, const sx *s) {
  if (s->len > 1 && s->atom[0] == '?') {
    /* ?input_N of TASO's 20 inputs by rulegen's name (taso_inputs.c), as TASO import does */
    char var[16];
    int n = 0;
    if (s->len < (int)sizeof var) {
      memcpy(var, s->atom + 1, (size_t)s->len - 1), var[s->len - 1] = 0;
      n = strncmp(var, "input_", 6) ? 0 : rg_taso_input_number(var);
    }
    if (n > 0) rg_taso_var_print(im->out, n);
    else rg_sb_append(im->out, s->atom, (size_t)s->len);
    return 0;
  }
  if (is(s, "Imatmul") || is(s, "Iewmul"))
    return snprintf(im->why, sizeof im->why, "constant %.*s (ours carries its shape, TENSAT's takes it from context)",
                    s->len, s->atom),
           -1;
  return malformed(im, s, "expected a variable ?input_N or a term");
}

/* Whether term s has k arguments (malformed if not). */
static bool arity(importer *im, const sx *s, int k) {
  if (s->n_kids - 1 == k) return true;
  malformed(im, s, "wrong number of arguments for this operator");
  return false;
}

/* conv2d and the pools: their numbers checked and written, then the operands. */
static int conv_windowed(importer *im, const sx *s, const sx *h) {
  int ok = 1;
  if (is(h, "conv2d")) {
    if (!arity(im, s, 6)) return -1;
    int sh = int_atom(s->kids[1], 1, 16, &ok), sw = int_atom(s->kids[2], 1, 16, &ok);
    int pad = int_atom(s->kids[3], 0, 1, &ok), act = int_atom(s->kids[4], 0, 3, &ok);
    if (!ok) return malformed(im, s, "conv2d: stride 1..16, pad 0..1, act 0..3 expected");
    rg_sb_printf(im->out, "(conv2d %d %d %s %s", sh, sw, rg_pad_name(pad), rg_act_name(act));
    return conv_kids(im, s, 5);
  }
  if (!arity(im, s, 7)) return -1;
  int v[6];
  for (int k = 0; k < 6; k++)
    v[k] = int_atom(s->kids[2 + k], 0, 16, &ok);
  if (!ok || v[4] > 1 || v[5] > 3) return malformed(im, s, "pool: kh kw sh sw pad act expected");
  rg_sb_printf(im->out, "(%.*s %d %d %d %d %s %s ", h->len, h->atom, v[0], v[1], v[2], v[3], rg_pad_name(v[4]),
               rg_act_name(v[5]));
  return conv(im, s->kids[1]);
}

/* split_0 / split_1 of (split axis x). */
static int conv_split(importer *im, const sx *s, const sx *h) {
  int ok = 1;
  if (!arity(im, s, 1)) return -1;
  const sx *sp = s->kids[1];
  if (sp->n_kids != 3 || !is(sp->kids[0], "split"))
    return malformed(im, s, "split_0/split_1 must select from (split axis x)");
  int axis = int_atom(sp->kids[1], 0, RG_MAX_RANK - 1, &ok);
  if (!ok) return malformed(im, sp, "split: axis expected");
  rg_sb_printf(im->out, "(split.%c %d ", h->atom[6], axis);
  return conv(im, sp->kids[2]);
}

/* enlarge to one of TASO's 4-d inputs: ours takes that input's kernel size. */
static int conv_enlarge(importer *im, const sx *s) {
  if (!arity(im, s, 2)) return -1;
  const sx *ref = s->kids[2];
  rg_shape shp;
  int num = ref->n_kids < 0 && ref->len > 7 && !memcmp(ref->atom, "?input_", 7) ? atoi(ref->atom + 7) : 0;
  if (!rg_taso_input_shape(num, &shp) || shp.rank != 4)
    return snprintf(im->why, sizeof im->why,
                    "enlarge to a reference tensor that is not one of TASO's 4-d inputs (ours "
                    "needs the kernel size)"),
           -1;
  rg_sb_printf(im->out, "(enlarge %d %d ", shp.dim[2], shp.dim[3]);
  return conv(im, s->kids[1]);
}

/* The operators with a parameter or none: element-wise, activations, matmul, concat. */
static int conv_simple(importer *im, const sx *s, const sx *h) {
  int ok = 1;
  if (is(h, "matmul")) {
    if (!arity(im, s, 3)) return -1;
    int act = int_atom(s->kids[1], 0, 3, &ok);
    if (!ok) return malformed(im, s->kids[1], "matmul: activation must be 0..3");
    rg_sb_printf(im->out, "(matmul %s", rg_act_name(act));
    return conv_kids(im, s, 2);
  }
  if (is(h, "concat")) {
    if (!arity(im, s, 4)) return -1;
    int axis = int_atom(s->kids[1], 0, RG_MAX_RANK - 1, &ok);
    int_atom(s->kids[2], 1, RG_MAX_RANK, &ok);
    if (!ok) return malformed(im, s, "concat: axis and ndim expected");
    rg_sb_printf(im->out, "(concat %d", axis);
    return conv_kids(im, s, 3);
  }
  if (!arity(im, s, is(h, "relu") || is(h, "tanh") || is(h, "sigmoid") ? 1 : 2)) return -1;
  rg_sb_printf(im->out, "(%.*s", h->len, h->atom);
  return conv_kids(im, s, 1);
}

/* A name "d0_d1_..." (TENSAT's permutation or shape): its numbers into d; the count, or -1. */
static int dims_of_name(const sx *s, int32_t *d) {
  if (s->n_kids >= 0) return -1;
  for (int n = 0, i = 0;;) {
    int64_t v = 0;
    int start = i;
    while (i < s->len && isdigit((unsigned char)s->atom[i]) && v <= INT32_MAX) v = v * 10 + (s->atom[i++] - '0');
    if (i == start || v > INT32_MAX || n == RG_MAX_RANK) return -1;
    d[n++] = (int32_t)v;
    if (i == s->len) return n;
    if (s->atom[i++] != '_') return -1;
  }
}

/* (transpose x PERM shuffle) and (reshape x SHAPE): ours take the permutation or shape first. */
static int conv_named(importer *im, const sx *s, const sx *h) {
  int transpose = is(h, "transpose"), ok = 1, seen = 0;
  if (!arity(im, s, transpose ? 3 : 2)) return -1;
  int32_t d[RG_MAX_RANK];
  int n = dims_of_name(s->kids[2], d);
  if (transpose) int_atom(s->kids[3], 0, 1, &ok);
  for (int i = 0; transpose && i < n; i++) seen |= d[i] < n ? 1 << d[i] : 1 << RG_MAX_RANK;
  if (transpose && n > 0 && seen != (1 << n) - 1) return malformed(im, s->kids[2], "transpose: not a permutation");
  if (n < 1 || !ok)
    return malformed(im, s, transpose ? "transpose: x, a permutation like 1_0 and shuffle 0 or 1 expected"
                                      : "reshape: x and a shape like 8_4 expected");
  rg_sb_printf(im->out, "(%s ", transpose ? "transpose" : "reshape");
  for (int i = 0; i < n; i++) {
    if (transpose) rg_sb_printf(im->out, "%d", d[i]);
    else rg_sb_printf(im->out, "%s%d", i ? "x" : "", d[i]);
  }
  rg_sb_puts(im->out, " ");
  return conv(im, s->kids[1]);
}

static int conv(importer *im, const sx *s) {
  if (s->n_kids < 0) return conv_atom(im, s);
  const sx *h = s->kids[0];
  int rc;
  if (is(h, "ewadd") || is(h, "ewmul") || is(h, "smul") || is(h, "relu") || is(h, "tanh") || is(h, "sigmoid") ||
      is(h, "matmul") || is(h, "concat"))
    rc = conv_simple(im, s, h);
  else if (is(h, "conv2d") || is(h, "poolmax") || is(h, "poolavg"))
    rc = conv_windowed(im, s, h);
  else if (is(h, "split_0") || is(h, "split_1"))
    rc = conv_split(im, s, h);
  else if (is(h, "transpose") || is(h, "reshape"))
    rc = conv_named(im, s, h);
  else if (is(h, "enlarge"))
    rc = conv_enlarge(im, s);
  else {
    snprintf(im->why, sizeof im->why, "operator %.*s%s", h->len, h->atom,
             is(h, "Iconv") || is(h, "Cpool") ? " (ours carries the channel count, TENSAT's does not)"
                                                 : "");
    return -1;
  }
  if (rc) return -1;
  rg_sb_puts(im->out, ")");
  return 0;
}

/* One TENSAT line: "LHS=>RHS" as two parsed terms. */
static rg_status parse_line(lexer *lx, sx **lhs, sx **rhs) {
  *lhs = *rhs = NULL;
  rg_status st = sx_parse(lx, lhs);
  if (st) return st;
  while (lx->p < lx->end && *lx->p == ' ')
    lx->p++;
  if (lx->end - lx->p < 2 || lx->p[0] != '=' || lx->p[1] != '>')
    return sx_free(*lhs), *lhs = NULL, lex_err(lx, "expected '=>'");
  lx->p += 2;
  if ((st = sx_parse(lx, rhs))) return sx_free(*lhs), *lhs = NULL, st;
  while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\r'))
    lx->p++;
  if (lx->p < lx->end && *lx->p != '\n') {
    st = lex_err(lx, "unexpected text after the rule");
    sx_free(*lhs), sx_free(*rhs), *lhs = *rhs = NULL;
  }
  return st;
}

rg_status rg_tensat_import(const char *text, size_t len, int multi, rg_ruleset *out,
                           rg_strbuf *skipped, rg_err *err) {
  lexer lx = {text, text, text + len, 1, 0, err};
  int group = multi ? 2 : 1;
  sx *l[2] = {0}, *r[2] = {0};
  int have = 0, first_line = 1;
  rg_status st = RG_OK;
  rg_strbuf ours;
  rg_sb_init(&ours);
  while (!st && lx.p < lx.end) {
    if (*lx.p == '\n' || *lx.p == '\r') { /* blank lines: TENSAT would choke, we skip them */
      if (*lx.p == '\n') lx.line++, lx.line_start = lx.p + 1;
      lx.p++;
      continue;
    }
    if (!have) first_line = lx.line;
    if ((st = parse_line(&lx, &l[have], &r[have]))) break;
    if (++have < group) continue;
    importer im = {&ours, "", 0, NULL};
    rg_sb_clear(&ours);
    int bad = 0;
    for (int i = 0; i < group && !bad; i++)
      bad = conv(&im, l[i]) != 0, rg_sb_puts(&ours, i + 1 < group ? " ; " : "");
    rg_sb_puts(&ours, " => ");
    for (int i = 0; i < group && !bad; i++)
      bad = conv(&im, r[i]) != 0, rg_sb_puts(&ours, i + 1 < group ? " ; " : "");
    for (int i = 0; i < group; i++)
      sx_free(l[i]), sx_free(r[i]), l[i] = r[i] = NULL;
    have = 0;
    if (im.bad) {
      st = rg_err_at(err, RG_ERR_PARSE, first_line, im.bad_col, "%s", im.bad);
      break;
    }
    if (bad) {
      rg_sb_printf(skipped, "line %d: no counterpart of ours: %s\n", first_line, im.why);
      continue;
    }
    char label[32];
    snprintf(label, sizeof label, "line %d", first_line);
    st = rg_xchg_add_imported(rg_sb_str(&ours), label, first_line, out, skipped, err);
  }
  for (int i = 0; i < 2; i++)
    sx_free(l[i]), sx_free(r[i]);
  if (!st && have)
    st = rg_err_at(err, RG_ERR_PARSE, first_line, 1,
                   "a two-output rule needs two lines; the file ends after one");
  rg_sb_free(&ours);
  return st;
}
