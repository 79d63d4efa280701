/* ir/text.c: parser and printer of the rule text format (grammar in text.h). */
#include "text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endline.h"
#include "plan.h"
#include "readfile.h"

typedef struct {
  const char *s;
  size_t len, i, line_start;
  int line;
  rg_err *err;
  bool target_params_free; /* rg_text_parse_axioms: the target may name new parameter variables */
  size_t *close;           /* for each '(' of the current line, at its offset: where its group
                            * ends (its ')', or the line's end); see index_groups */
  size_t close_cap;
} parser;

static int col(const parser *p) { return (int)(p->i - p->line_start) + 1; }
static int peek(const parser *p) { return p->i < p->len ? (unsigned char)p->s[p->i] : -1; }
static bool at_eol(const parser *p) { return peek(p) < 0 || peek(p) == '\n'; }

static void skip_ws(parser *p) {
  while (peek(p) == ' ' || peek(p) == '\t' || peek(p) == '\r') p->i++;
}

static bool is_ident(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

/* A token runs to whitespace, a parenthesis, ';', '#' or the end of the line. */
static size_t token_len(const parser *p) {
  size_t j = p->i;
  while (j < p->len && !strchr(" \t\r\n();#", p->s[j])) j++;
  return j - p->i;
}

static rg_status fail(parser *p, int c, const char *fmt, const char *a, int alen) {
  char msg[400];
  snprintf(msg, sizeof msg, fmt, alen, a);
  return rg_err_at(p->err, RG_ERR_PARSE, p->line, c, "%s", msg);
}

static rg_status bad_byte(parser *p) {
  return rg_err_at(p->err, RG_ERR_PARSE, p->line, col(p),
                   "unexpected byte 0x%02x: rule files are plain text", (unsigned)peek(p));
}

/* Checks the variable token t (n bytes, starting with '?') and copies its name without '?'. */
static rg_status var_name(parser *p, const char *t, size_t n, int c0, char name[RG_RULE_MAX_NAME]) {
  bool ok = n >= 2 && n < RG_RULE_MAX_NAME;
  for (size_t k = 1; ok && k < n; k++) ok = is_ident((unsigned char)t[k]);
  if (!ok) return fail(p, c0, "bad variable name '%.*s': use ? and letters, digits, _ or -", t, (int)n);
  memcpy(name, t + 1, n - 1); /* n < RG_RULE_MAX_NAME: checked above */
  name[n - 1] = 0;
  return RG_OK;
}

static bool parse_uint(const char *s, size_t n, int64_t max, int32_t *out) {
  if (n == 0 || n > 10) return false;
  int64_t v = 0;
  for (size_t k = 0; k < n; k++) {
    if (s[k] < '0' || s[k] > '9') return false;
    v = v * 10 + (s[k] - '0');
  }
  if (v > max) return false;
  *out = (int32_t)v;
  return true;
}

/* A parameter variable ?NAME in slot `slot`: one Int variable per slot (a shape variable ?S is
 * ?S its rank and ?S.1 .. its dimensions). */
static rg_status param_var(parser *p, rg_rule *r, rg_node *nd, const rg_param_spec *ps, int slot,
                           const char *t, size_t n, int c0) {
  char name[RG_RULE_MAX_NAME];
  rg_status st = var_name(p, t, n, c0, name);
  if (st) return st;
  if (rg_graph_find_tvar(r->g, name) >= 0)
    return fail(p, c0, "'%.*s' is used both as a tensor and as a parameter", t, (int)n);
  int n_slots = ps->kind == RG_PK_SHAPE ? RG_SHAPE_SLOTS : 1;
  for (int k = 0; k < n_slots; k++) {
    char slot_name[RG_RULE_MAX_NAME + 4];
    int len = k ? snprintf(slot_name, sizeof slot_name, "%s.%d", name, k)
                : snprintf(slot_name, sizeof slot_name, "%s", name);
    int32_t v = rg_graph_pvar(r->g, slot_name, len);
    if (v < 0) return rg_err_set(p->err, RG_ERR_NOMEM, "out of memory");
    nd->params[slot + k] = v;
    nd->var_mask |= (uint8_t)(1u << (slot + k));
  }
  return RG_OK;
}

/* A literal value of kind ps->kind into params[slot] (a shape fills its slots). */
static bool param_value(const rg_param_spec *ps, const char *t, size_t n, int32_t *params) {
  int32_t v = 0;
  bool ok = false;
  int perm[RG_MAX_RANK];
  switch (ps->kind) {
  case RG_PK_INT: ok = parse_uint(t, n, ps->hi, &v) && v >= ps->lo; break;
  case RG_PK_AXIS: ok = parse_uint(t, n, RG_MAX_RANK - 1, &v); break;
  case RG_PK_PAD: ok = (v = rg_pad_by_name(t, (int)n)) >= 0; break;
  case RG_PK_ACT: ok = (v = rg_act_by_name(t, (int)n)) >= 0; break;
  case RG_PK_PERM:
    ok = n <= RG_MAX_RANK;
    for (size_t d = 0; ok && d < n; d++) {
      ok = t[d] >= '0' && t[d] <= '9';
      perm[d] = t[d] - '0';
    }
    ok = ok && rg_perm_unpack(v = rg_perm_pack(perm, (int)n), perm) == (int)n;
    break;
  case RG_PK_SHAPE: {
    rg_shape s;
    rg_err e;
    if (rg_shape_parse(t, (int)n, &s, &e) != RG_OK) return false;
    params[0] = s.rank;
    for (int d = 0; d < s.rank; d++) params[1 + d] = s.dim[d];
    return true;
  }
  case RG_PK_TVAR:
  case RG_PK_NONE: break;
  }
  if (ok) params[0] = v;
  return ok;
}

/* What a parameter of kind ps->kind must look like, for messages. */
static const char *param_wanted(const rg_param_spec *ps, char *buf, size_t size) {
  switch (ps->kind) {
  case RG_PK_INT: snprintf(buf, size, "an integer in %d..%d", ps->lo, ps->hi); return buf;
  case RG_PK_AXIS: return "an axis 0..5";
  case RG_PK_PAD: return "same or valid";
  case RG_PK_ACT: return "none, relu, sigmoid or tanh";
  case RG_PK_PERM: return "a permutation written as digits, e.g. 10 or 0213";
  case RG_PK_SHAPE: return "a shape like 2x4 (dimensions 1..16777216) or scalar";
  default: return "a value";
  }
}

static rg_status parse_param(parser *p, rg_rule *r, rg_node *nd, int k, const char *opname) {
  rg_op op = (rg_op)nd->op;
  const rg_param_spec *ps = &rg_op_get(op)->params[k];
  int slot = rg_op_param_slot(op, k);
  int c0 = col(p);
  const char *t = p->s + p->i;
  size_t n = token_len(p);
  p->i += n;
  if (n == 0)
    return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0, "%s: expected parameter '%s' here",
                     opname, ps->name);
  if (t[0] == '?') return param_var(p, r, nd, ps, slot, t, n, c0);
  if (param_value(ps, t, n, nd->params + slot)) return RG_OK;
  char range[64], msg[400];
  snprintf(msg, sizeof msg, "%s: bad value '%.*s' for parameter %s: expected %s", opname, (int)n,
           t, ps->name, param_wanted(ps, range, sizeof range));
  return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0, "%s", msg);
}

static rg_status parse_term(parser *p, rg_rule *r, rg_ref *out, int depth);

static rg_status parse_var(parser *p, rg_rule *r, rg_ref *out) {
  int c0 = col(p);
  const char *t = p->s + p->i;
  size_t n = token_len(p);
  p->i += n;
  char name[RG_RULE_MAX_NAME];
  rg_status st = var_name(p, t, n, c0, name);
  if (st) return st;
  if (rg_graph_find_pvar(r->g, name) >= 0)
    return fail(p, c0, "'%.*s' is used both as a parameter and as a tensor", t, (int)n);
  int32_t v = rg_graph_tvar(r->g, t + 1, (int)n - 1);
  int32_t id = v < 0 ? v : rg_graph_input(r->g, v);
  if (id < 0) return rg_err_set(p->err, RG_ERR_NOMEM, "out of memory");
  *out = (rg_ref){id, 0};
  return RG_OK;
}

static rg_status parse_op_name(parser *p, rg_op *op, int *out_idx, const char **name, int *nlen) {
  int c0 = col(p);
  const char *t = p->s + p->i;
  size_t n = token_len(p);
  p->i += n;
  if (n == 0) return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0, "expected an operator name after '('");
  size_t base = n;
  *out_idx = -1;
  if (n >= 2 && t[n - 2] == '.' && t[n - 1] >= '0' && t[n - 1] <= '9') {
    base = n - 2;
    *out_idx = t[n - 1] - '0';
  }
  int o = rg_op_by_name(t, (int)base);
  if (o < 0 || o == RG_OP_INPUT) {
    char known[600] = "";
    for (int i = RG_OP_INPUT + 1; i < RG_OP_COUNT; i++) {
      strncat(known, rg_op_get((rg_op)i)->name, sizeof known - strlen(known) - 1);
      if (i + 1 < RG_OP_COUNT) strncat(known, " ", sizeof known - strlen(known) - 1);
    }
    return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0, "unknown operator '%.*s' (known: %s)",
                     (int)n, t, known);
  }
  *op = (rg_op)o;
  *name = rg_op_get(*op)->name;
  *nlen = (int)base;
  int nout = rg_op_get(*op)->n_outputs;
  if (*out_idx < 0 && nout > 1)
    return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0,
                     "%s has %d outputs: write %s.0 .. %s.%d to pick one", *name, nout, *name,
                     *name, nout - 1);
  if (*out_idx >= nout)
    return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0, "%s has no output %d (it has %d)", *name,
                     *out_idx, nout);
  if (*out_idx < 0) *out_idx = 0;
  return RG_OK;
}

/* Finds, for every '(' of the line that starts at p->line_start (up to a comment), where its
 * group ends, so that count_args steps over a group at once: scanning each nested term's text
 * again at every level made parsing quadratic in the nesting. */
static rg_status index_groups(parser *p) {
  size_t end = p->line_start;
  while (end < p->len && p->s[end] != '\n' && p->s[end] != '#') end++;
  size_t n = end - p->line_start;
  if (n + 1 > p->close_cap) {
    size_t *c = realloc(p->close, sizeof *c * (n + 1));
    if (!c) return rg_err_set(p->err, RG_ERR_NOMEM, "out of memory");
    p->close = c, p->close_cap = n + 1;
  }
  size_t *stack = malloc(sizeof *stack * (n + 1)), top = 0;
  if (!stack) return rg_err_set(p->err, RG_ERR_NOMEM, "out of memory");
  for (size_t j = 0; j < n; j++) {
    char c = p->s[p->line_start + j];
    if (c == '(') stack[top++] = j, p->close[j] = n;
    else if (c == ')' && top) p->close[stack[--top]] = j;
  }
  free(stack);
  return RG_OK;
}

/* Counts the arguments left before the closing ')' without building them: a parenthesised
 * group or a token counts one. Used to tell omitted parameters apart, and for messages. */
static int count_args(const parser *p) {
  int n = 0;
  for (size_t j = p->i; j < p->len && p->s[j] != '\n' && p->s[j] != '#'; j++) {
    char c = p->s[j];
    bool starts_token = !strchr(" \t\r()", c) && (j == p->i || strchr(" \t\r()", p->s[j - 1]));
    if (c == '(') {
      n++;
      size_t end = p->close[j - p->line_start]; /* its ')', or the indexed line's end */
      if (p->line_start + end >= p->len || p->s[p->line_start + end] != ')') break; /* unclosed */
      j = p->line_start + end;
    } else if (c == ')') {
      break;
    } else if (starts_token) {
      n++;
    }
  }
  return n;
}

static rg_status arity_error(parser *p, int c0, rg_op op, int got) {
  const rg_op_info *info = rg_op_get(op);
  char params[200] = "";
  for (int k = 0; k < info->n_params; k++) {
    strncat(params, k ? " " : "", sizeof params - strlen(params) - 1);
    strncat(params, info->params[k].name, sizeof params - strlen(params) - 1);
  }
  int lo = rg_op_min_inputs(op), hi = rg_op_max_inputs(op);
  char ins[40];
  if (lo == hi) snprintf(ins, sizeof ins, "%d", lo);
  else snprintf(ins, sizeof ins, "%d to %d", lo, hi);
  return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0,
                   "%s takes %d parameter%s (%s) then %s tensor input%s, but has %d tensor input%s",
                   info->name, info->n_params, info->n_params == 1 ? "" : "s", params, ins,
                   hi == 1 ? "" : "s", got, got == 1 ? "" : "s");
}

/* Where a term's ')' is missing: a '=>' or ';' (which no term holds), the line's end or a
 * comment; at any of them, the error naming the '(' (of op, at column c0) left open. */
static bool at_missing_close(const parser *p) {
  int c = peek(p);
  return at_eol(p) || c == '#' || c == ';' || (c == '=' && p->i + 1 < p->len && p->s[p->i + 1] == '>');
}

static rg_status missing_close(parser *p, const char *op, int c0) {
  if (at_eol(p) || peek(p) == '#')
    return rg_err_at(p->err, RG_ERR_PARSE, p->line, col(p), "missing ')' to close the '(' of %s at column %d", op, c0);
  return rg_err_at(p->err, RG_ERR_PARSE, p->line, col(p), "missing ')' to close the '(' of %s at column %d (before "
                   "'%s')", op, c0, peek(p) == ';' ? ";" : "=>");
}

static rg_status parse_app(parser *p, rg_rule *r, rg_ref *out, int depth) {
  int c0 = col(p);
  p->i++; /* '(' */
  skip_ws(p);
  rg_op op = RG_OP_INPUT;
  int out_idx = 0, nlen = 0;
  const char *name = "";
  rg_status st = parse_op_name(p, &op, &out_idx, &name, &nlen);
  if (st) return st;
  const rg_op_info *info = rg_op_get(op);
  rg_node nd = rg_node_init(op);
  /* Trailing parameters with defaults may be left out; a fixed arity tells how many were given. */
  int given = info->n_params;
  if (info->n_inputs != RG_VARIADIC) {
    int extra = count_args(p) - info->n_inputs;
    if (extra >= rg_op_required_params(op) && extra < info->n_params) given = extra;
  }
  for (int k = given; k < info->n_params; k++)
    nd.params[rg_op_param_slot(op, k)] = info->params[k].def;
  for (int k = 0; k < given; k++) {
    skip_ws(p);
    if (at_missing_close(p)) return missing_close(p, name, c0);
    if (peek(p) == ')' || peek(p) == '(') return arity_error(p, c0, op, 0);
    if ((st = parse_param(p, r, &nd, k, name))) return st;
  }
  int n_in = 0;
  for (;;) {
    skip_ws(p);
    int c = peek(p);
    if (c == ')') break;
    if (at_missing_close(p)) return missing_close(p, name, c0);
    if (n_in == rg_op_max_inputs(op)) return arity_error(p, c0, op, n_in + count_args(p));
    if ((st = parse_term(p, r, &nd.in[n_in], depth + 1))) return st;
    n_in++;
  }
  p->i++; /* ')' */
  if (n_in < rg_op_min_inputs(op)) return arity_error(p, c0, op, n_in);
  nd.n_in = (uint8_t)n_in;
  /* Concrete parameters are checked now, so a bad value is reported where it was written. */
  rg_err e;
  if (rg_params_check(op, nd.params, nd.var_mask, &e) != RG_OK)
    return rg_err_at(p->err, RG_ERR_PARSE, p->line, c0, "%s", e.msg);
  int32_t id = rg_graph_add(r->g, &nd);
  if (id < 0) return rg_err_set(p->err, RG_ERR_NOMEM, "out of memory");
  *out = (rg_ref){id, out_idx};
  return RG_OK;
}

#define MAX_DEPTH 200

static rg_status parse_term(parser *p, rg_rule *r, rg_ref *out, int depth) {
  skip_ws(p);
  if (depth > MAX_DEPTH)
    return rg_err_at(p->err, RG_ERR_LIMIT, p->line, col(p), "terms nested deeper than %d", MAX_DEPTH);
  int c = peek(p);
  if (c == '?') return parse_var(p, r, out);
  if (c == '(') return parse_app(p, r, out, depth);
  if (c == ')') return rg_err_at(p->err, RG_ERR_PARSE, p->line, col(p), "unbalanced ')': no '(' to close");
  if (at_eol(p) || c == '#')
    return rg_err_at(p->err, RG_ERR_PARSE, p->line, col(p), "expected a term ('(' or '?var') before the end of the line");
  if (c < 0x20 || c >= 0x7f) return bad_byte(p);
  return fail(p, col(p), "expected a term ('(op ...)' or '?var'), found '%.*s'", p->s + p->i,
              (int)(token_len(p) ? token_len(p) : 1));
}

static rg_status parse_side(parser *p, rg_rule *r, rg_ref *refs, int *n) {
  *n = 0;
  for (;;) {
    if (*n == RG_RULE_MAX_OUTPUTS)
      return rg_err_at(p->err, RG_ERR_LIMIT, p->line, col(p), "more than %d outputs on one side",
                       RG_RULE_MAX_OUTPUTS);
    rg_status st = parse_term(p, r, &refs[*n], 0);
    if (st) return st;
    (*n)++;
    skip_ws(p);
    if (peek(p) != ';') return RG_OK;
    p->i++;
  }
}

/* Every variable the target reads must be bound by the source, or the rule cannot be applied. */
static rg_status check_target_vars(parser *p, rg_rule *r) {
  int32_t n = rg_graph_size(r->g);
  uint8_t *ms = calloc((size_t)n, 1), *mt = calloc((size_t)n, 1);
  if (!ms || !mt) {
    free(ms), free(mt);
    return rg_err_set(p->err, RG_ERR_NOMEM, "out of memory");
  }
  rg_graph_mark_reachable(r->g, r->src, r->n_src, ms);
  rg_graph_mark_reachable(r->g, r->tgt, r->n_tgt, mt);
  uint64_t src_pvars = 0;
  for (int32_t id = 0; id < n; id++) {
    const rg_node *nd = rg_graph_node(r->g, id);
    for (int k = 0; ms[id] && k < RG_MAX_PARAMS; k++)
      if (nd->var_mask >> k & 1) src_pvars |= UINT64_C(1) << (nd->params[k] & 63);
  }
  rg_status st = RG_OK;
  for (int32_t id = 0; id < n && st == RG_OK; id++) {
    const rg_node *nd = rg_graph_node(r->g, id);
    if (!mt[id]) continue;
    if (nd->op == RG_OP_INPUT && !ms[id])
      st = rg_err_at(p->err, RG_ERR_PARSE, p->line, 1,
                     "the target uses ?%s, which the source does not bind",
                     rg_graph_tvar_name(r->g, nd->params[0]));
    for (int k = 0; st == RG_OK && k < RG_MAX_PARAMS; k++)
      if (nd->var_mask >> k & 1 && !(src_pvars >> (nd->params[k] & 63) & 1) && !p->target_params_free)
        st = rg_err_at(p->err, RG_ERR_PARSE, p->line, 1,
                       "the target uses parameter ?%s, which the source does not bind",
                       rg_graph_pvar_name(r->g, nd->params[k]));
  }
  free(ms);
  free(mt);
  return st;
}

/* Parses one line into *out (NULL for a blank or comment line). */
static rg_status parse_line(parser *p, rg_rule **out) {
  *out = NULL;
  skip_ws(p);
  if (at_eol(p) || peek(p) == '#') return RG_OK;
  rg_status ist = index_groups(p);
  if (ist) return ist;
  rg_rule *r = rg_rule_new();
  if (!r) return rg_err_set(p->err, RG_ERR_NOMEM, "out of memory");
  r->line = p->line;
  rg_status st = RG_OK;
  /* An optional name: identifier characters followed by ':'. */
  size_t j = p->i;
  while (j < p->len && is_ident((unsigned char)p->s[j])) j++;
  if (j > p->i && j < p->len && p->s[j] == ':') {
    if (j - p->i >= RG_RULE_MAX_NAME)
      st = rg_err_at(p->err, RG_ERR_PARSE, p->line, col(p), "rule name longer than %d characters",
                     RG_RULE_MAX_NAME - 1);
    else
      memcpy(r->name, p->s + p->i, j - p->i);
    p->i = j + 1;
  }
  if (!st) st = parse_side(p, r, r->src, &r->n_src);
  skip_ws(p);
  if (!st && peek(p) == '=' && p->i + 1 < p->len && p->s[p->i + 1] == '>') {
    p->i += 2;
    skip_ws(p);
    int c0 = col(p);
    st = parse_side(p, r, r->tgt, &r->n_tgt);
    if (!st && r->n_tgt != r->n_src)
      st = rg_err_at(p->err, RG_ERR_PARSE, p->line, c0,
                     "the source has %d output%s but the target has %d: outputs are mapped in order",
                     r->n_src, r->n_src == 1 ? "" : "s", r->n_tgt);
    if (!st) st = check_target_vars(p, r);
  }
  skip_ws(p);
  if (!st && peek(p) == '#')
    while (!at_eol(p)) p->i++;
  if (!st && !at_eol(p)) {
    int c = peek(p);
    if (c == ')') st = rg_err_at(p->err, RG_ERR_PARSE, p->line, col(p), "unbalanced ')': no '(' to close");
    else if (c < 0x20 || c >= 0x7f) st = bad_byte(p);
    else st = fail(p, col(p), "unexpected '%.*s' after the rule (expected '=>', ';' or the end of the line)",
                   p->s + p->i, (int)(token_len(p) ? token_len(p) : 1));
  }
  if (st) {
    rg_rule_free(r);
    return st;
  }
  *out = r;
  return RG_OK;
}

/* Whether text[from, len) holds only plain text (printable ASCII, tabs, line ends); else an
 * error at the line and column of the first other byte. */
static rg_status plain_text(const char *text, size_t from, size_t len, rg_err *err) {
  size_t i = from;
  while (i < len && ((unsigned char)text[i] >= 0x20 || strchr("\t\r\n", text[i])) && text[i] != 0x7f && text[i]) i++;
  if (i == len) return RG_OK;
  size_t line = 1, ls = 0;
  for (size_t j = 0; j < i; j++)
    if (text[j] == '\n') line++, ls = j + 1;
  return rg_err_at(err, RG_ERR_PARSE, (int)line, (int)(i - ls) + 1, "unexpected byte 0x%02x: rule files are plain text",
                   (unsigned char)text[i]);
}

static rg_status parse_text(const char *text, size_t len, bool target_params_free, rg_ruleset *out, rg_err *err) {
  parser p = {text, len, 0, 0, 1, err, target_params_free, NULL, 0};
  /* Binary input is refused up front, before it can reach the term parser. */
  rg_status st = plain_text(text, 0, len, err);
  while (!st && p.i < p.len) {
    rg_rule *r;
    st = parse_line(&p, &r);
    if (!st && r && (st = rg_ruleset_add(out, r))) st = rg_err_set(err, st, "out of memory");
    while (p.i < p.len && p.s[p.i] != '\n') p.i++;
    if (p.i < p.len) {
      p.i++;
      p.line++;
      p.line_start = p.i;
    }
  }
  free(p.close);
  return st;
}

rg_status rg_text_parse(const char *text, size_t len, rg_ruleset *out, rg_err *err) {
  return parse_text(text, len, false, out, err);
}

rg_status rg_text_parse_axioms(const char *text, size_t len, rg_ruleset *out, rg_err *err) {
  return parse_text(text, len, true, out, err);
}

rg_status rg_text_read_file(const char *path, rg_strbuf *out, rg_err *err) {
  static const rg_file_kind text = {"text", SIZE_MAX, RG_TEXT_MAX_STREAM, NULL};
  return rg_file_read(path, &text, out, err);
}

/* A stream of rule text is refused at its first byte that is not plain text (/dev/zero's first). */
static rg_status check_rule_text(const char *path, const char *data, size_t len, size_t *done, rg_err *err) {
  (void)path;
  rg_status st = plain_text(data, *done, len, err);
  *done = len;
  return st;
}

/* A file rulegen sealed with an end line (OUT.generalized) is read without it, once the line
 * holds; one whose end line does not hold was cut short or altered, and is refused. */
static rg_status sealed_length(const char *path, rg_strbuf *sb, rg_err *err) {
  bool sealed;
  const char *last = sb->s ? rg_end_line(sb->s, sb->len, &sealed) : NULL;
  if (!last) return RG_OK;
  if (!sealed) {
    int line = 1;
    for (const char *p = sb->s; p < last; p++) line += *p == '\n';
    return rg_err_set(err, RG_ERR_PARSE,
                      "%s:%d: its end line is not the SHA-256 of the text before it: the file was cut short "
                      "or altered after it was written (delete that line to read the rules as they are)",
                      path, line);
  }
  sb->len = (size_t)(last - sb->s);
  sb->s[sb->len] = 0;
  return RG_OK;
}

rg_status rg_text_parse_file(const char *path, rg_ruleset *out, rg_err *err) {
  static const rg_file_kind rule_text = {"rule text", SIZE_MAX, RG_TEXT_MAX_STREAM, check_rule_text};
  rg_strbuf sb;
  rg_status st = rg_file_read(path, &rule_text, &sb, err);
  if (st == RG_OK) st = sealed_length(path, &sb, err);
  if (st == RG_OK) {
    int before = out->n;
    st = rg_text_parse(sb.s ? sb.s : "", sb.len, out, err);
    if (st == RG_OK && out->n == before)
      st = rg_err_set(err, RG_ERR_PARSE, "%s holds no rules (it is empty or only comments)", path);
  }
  rg_sb_free(&sb);
  return st;
}

rg_status rg_text_parse_rule(const char *text, rg_rule **out, rg_err *err) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  *out = NULL;
  rg_status st = rg_text_parse(text, strlen(text), &rs, err);
  if (st == RG_OK && rs.n != 1)
    st = rg_err_set(err, RG_ERR_PARSE, "expected exactly one rule, found %d", rs.n);
  if (st == RG_OK) {
    *out = rs.rules[0];
    rs.n = 0;
  }
  rg_ruleset_free(&rs);
  return st;
}

/* ---- printing ---- */

static void print_param(const rg_graph *g, const rg_node *nd, int k, rg_strbuf *sb) {
  rg_op op = (rg_op)nd->op;
  const rg_param_spec *ps = &rg_op_get(op)->params[k];
  int slot = rg_op_param_slot(op, k);
  int32_t v = nd->params[slot];
  if (nd->var_mask >> slot & 1) {
    rg_sb_append(sb, " ?", 2);
    rg_sb_puts(sb, rg_graph_pvar_name(g, v));
    return;
  }
  int perm[RG_MAX_RANK];
  switch (ps->kind) {
  case RG_PK_PAD: rg_sb_append(sb, " ", 1), rg_sb_puts(sb, rg_pad_name(v)); break;
  case RG_PK_ACT: rg_sb_append(sb, " ", 1), rg_sb_puts(sb, rg_act_name(v)); break;
  case RG_PK_PERM: {
    int r = rg_perm_unpack(v, perm);
    rg_sb_puts(sb, " ");
    for (int i = 0; i < r; i++)
      rg_sb_put_int(sb, perm[i]);
    break;
  }
  case RG_PK_SHAPE: {
    rg_shape s = rg_shape_make(nd->params[slot], &nd->params[slot + 1]);
    char buf[96];
    rg_sb_printf(sb, " %s", rg_shape_format(&s, buf, sizeof buf));
    break;
  }
  default: rg_sb_append(sb, " ", 1), rg_sb_put_int(sb, v); break;
  }
}

void rg_text_print_ref(const rg_graph *g, rg_ref r, rg_strbuf *sb) {
  const rg_node *nd = rg_graph_node(g, r.node);
  if (nd->op == RG_OP_INPUT) {
    rg_sb_append(sb, "?", 1);
    rg_sb_puts(sb, rg_graph_tvar_name(g, nd->params[0]));
    return;
  }
  rg_op op = (rg_op)nd->op;
  const rg_op_info *info = rg_op_get(op);
  rg_sb_append(sb, "(", 1);
  rg_sb_puts(sb, info->name);
  if (info->n_outputs > 1) rg_sb_append(sb, ".", 1), rg_sb_put_int(sb, r.out);
  /* Canonical form: trailing parameters that hold their defaults are left out. */
  int shown = info->n_params;
  while (shown > rg_op_required_params(op)) {
    int slot = rg_op_param_slot(op, shown - 1);
    if (nd->var_mask >> slot & 1 || nd->params[slot] != info->params[shown - 1].def) break;
    shown--;
  }
  for (int k = 0; k < shown; k++) print_param(g, nd, k, sb);
  for (int k = 0; k < nd->n_in; k++) {
    rg_sb_puts(sb, " ");
    rg_text_print_ref(g, nd->in[k], sb);
  }
  rg_sb_puts(sb, ")");
}

static void print_side(const rg_graph *g, const rg_ref *refs, int n, rg_strbuf *sb) {
  for (int i = 0; i < n; i++) {
    if (i) rg_sb_puts(sb, " ; ");
    rg_text_print_ref(g, refs[i], sb);
  }
}

void rg_text_print_rule(const rg_rule *r, rg_strbuf *sb) {
  if (r->name[0]) rg_sb_printf(sb, "%s: ", r->name);
  print_side(r->g, r->src, r->n_src, sb);
  if (r->n_tgt) {
    rg_sb_puts(sb, " => ");
    print_side(r->g, r->tgt, r->n_tgt, sb);
  }
}
