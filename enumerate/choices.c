/* enumerate/choices.c: the per-operator enumeration table and the choice options.
 *
 * `table` below is indexed by rg_op: each operator says how its variants are generated and, for
 * --help, what it tries by default. Constants draw their shape parameters from the input set:
 * "activations" are the inputs that are not conv weights (a conv weight is a rank-4 input whose
 * two spatial dimensions are both at most 3).
 */
#include "choices.h"

#include <stdlib.h>
#include <string.h>

/* Choice options: name, argument, help (the default is part of the help text). */
#define CHOICE_OPTIONS(X)                                                                        \
  X("conv-stride", "LIST", "conv2d strides, from 1,2 (default 1)")                               \
  X("conv-pad", "LIST", "conv2d padding, from same,valid (default same)")                       \
  X("conv-act", "LIST", "conv2d fused activation, from none,relu,sigmoid,tanh (default none,relu)") \
  X("conv-groups", "LIST", "conv2d groups, from 1..30 (default 1,2,4; only the one that fits a " \
                           "weight applies)")                                                    \
  X("conv-dilation", "LIST", "conv2d dilation, from 1,2 (default 1)")                          \
  X("matmul-act", "LIST", "matmul fused activation (default none)")                             \
  X("pool-act", "LIST", "poolavg/poolmax fused activation (default none)")                      \
  X("kernels", "LIST", "conv2d weight kernels used, and Iconv/Cpool kernels made, e.g. "          \
                       "3x3,1x3,3x1,1x1 (default 3x3,1x3)")                                      \
  X("axes", "LIST", "concat, split, pad, slice and bias axes (default 0,1)")                   \
  X("perms", "2d|all", "transpose: 2d (perm 10) or all non-identity permutations of rank 2-4 "   \
                       "(default 2d)")                                                           \
  X("enlarge", "KHxKW", "enlarge's target kernel (default 3x3)")

static const rg_op taso_ops[] = {RG_OP_EWADD,   RG_OP_EWMUL,    RG_OP_SMUL,    RG_OP_MATMUL,
                                 RG_OP_CONV2D,  RG_OP_RELU,     RG_OP_POOLAVG, RG_OP_POOLMAX,
                                 RG_OP_TRANSPOSE, RG_OP_ENLARGE, RG_OP_CONCAT, RG_OP_SPLIT,
                                 RG_OP_IEWMUL,  RG_OP_IMATMUL,  RG_OP_ICONV,   RG_OP_CPOOL};

void rg_enum_choices_default(rg_enum_choices *c) {
  memset(c, 0, sizeof *c);
  for (size_t k = 0; k < sizeof taso_ops / sizeof taso_ops[0]; k++) c->op[taso_ops[k]] = true;
  c->conv_strides = 1u << 1;
  c->conv_pads = 1u << RG_PAD_SAME;
  c->conv_acts = 1u << RG_ACT_NONE | 1u << RG_ACT_RELU;
  c->conv_groups = 1u << 1 | 1u << 2 | 1u << 4;
  c->conv_dilations = 1u << 1;
  c->matmul_acts = 1u << RG_ACT_NONE;
  c->pool_acts = 1u << RG_ACT_NONE;
  c->n_kernels = 2;
  c->kernel[0][0] = 3, c->kernel[0][1] = 3;
  c->kernel[1][0] = 1, c->kernel[1][1] = 3;
  c->axes = 1u << 0 | 1u << 1;
  c->all_perms = false;
  c->enlarge[0] = c->enlarge[1] = 3;
}

/* ---- variant generators ---- */

typedef struct {
  const rg_enum_choices *c;
  const rg_enum_inputset *in;
  rg_enum_variant *out;
  int n, cap;
} gen;

static void emit(gen *g, rg_op op, int n_in, int out, const int32_t *params, int n_params) {
  if (g->n >= g->cap) return;
  rg_enum_variant *v = &g->out[g->n++];
  memset(v, 0, sizeof *v);
  v->op = (uint16_t)op;
  v->n_in = (uint8_t)n_in;
  v->out = (uint8_t)out;
  if (n_params) memcpy(v->params, params, sizeof(int32_t) * (size_t)n_params);
}

void rg_enum_inputs_for_choices(const rg_enum_choices *c, rg_enum_inputset *s) {
  if (c->op[RG_OP_BIAS]) rg_enum_inputs_add_bias(s);
  if (c->op[RG_OP_BIAS] && c->op[RG_OP_SPLIT]) rg_enum_inputs_add_seamed(s);
}

static bool is_weight(const rg_shape *s) { return s->rank == 4 && s->dim[2] <= 3 && s->dim[3] <= 3; }

static void gen_plain(gen *g, rg_op op) { emit(g, op, rg_op_min_inputs(op), 0, NULL, 0); }

static void gen_acts(gen *g, rg_op op, unsigned acts) {
  for (int a = 0; a < RG_ACT_COUNT; a++)
    if (acts >> a & 1) emit(g, op, 2, 0, (int32_t[]){a}, 1);
}

static void gen_matmul(gen *g, rg_op op) { gen_acts(g, op, g->c->matmul_acts); }

static void gen_conv(gen *g, rg_op op) {
  const rg_enum_choices *c = g->c;
  for (int s = 1; s <= 2; s++)
    for (int p = 0; p < 2; p++)
      for (int a = 0; a < RG_ACT_COUNT; a++)
        for (int d = 1; d <= 2; d++)
          for (int gr = 1; gr < 31; gr++)
            if ((c->conv_strides >> s & 1) && (c->conv_pads >> p & 1) && (c->conv_acts >> a & 1) &&
                (c->conv_dilations >> d & 1) && (c->conv_groups >> gr & 1))
              emit(g, op, 2, 0, (int32_t[]){s, s, p, a, d, d, gr}, 7);
}

static void gen_pool(gen *g, rg_op op) {
  for (int a = 0; a < RG_ACT_COUNT; a++)
    if (g->c->pool_acts >> a & 1) emit(g, op, 1, 0, (int32_t[]){3, 3, 1, 1, RG_PAD_SAME, a}, 6);
}

static void gen_transpose(gen *g, rg_op op) {
  int max_rank = g->c->all_perms ? 4 : 2;
  for (int r = 2; r <= max_rank; r++) {
    int p[RG_MAX_RANK];
    for (int i = 0; i < r; i++) p[i] = i;
    while (rg_perm_next(p, r)) emit(g, op, 1, 0, (int32_t[]){rg_perm_pack(p, r)}, 1);
  }
}

static void gen_enlarge(gen *g, rg_op op) {
  emit(g, op, 1, 0, (int32_t[]){g->c->enlarge[0], g->c->enlarge[1]}, 2);
}

static void gen_concat(gen *g, rg_op op) {
  for (int a = 0; a < RG_MAX_RANK; a++)
    if (g->c->axes >> a & 1) emit(g, op, 2, 0, (int32_t[]){a}, 1);
}

static void gen_split(gen *g, rg_op op) {
  for (int a = 0; a < RG_MAX_RANK; a++)
    if (g->c->axes >> a & 1)
      for (int o = 0; o < 2; o++) emit(g, op, 1, o, (int32_t[]){a}, 1);
}

/* bias: along each of --axes (shape inference keeps the vectors as long as that axis). */
static void gen_bias(gen *g, rg_op op) {
  for (int a = 0; a < RG_MAX_RANK; a++)
    if (g->c->axes >> a & 1) emit(g, op, 2, 0, (int32_t[]){a}, 1);
}

/* pad: one zero before and after, on each of --axes. */
static void gen_pad(gen *g, rg_op op) {
  for (int a = 0; a < RG_MAX_RANK; a++)
    if (g->c->axes >> a & 1) emit(g, op, 1, 0, (int32_t[]){a, 1, 1}, 3);
}

/* slice: the two halves [0, d/2) and [d/2, d) of each size d >= 2 the inputs have on each of
 * --axes (a split without a seam). */
static void gen_slice(gen *g, rg_op op) {
  int first = g->n;
  for (int a = 0; a < RG_MAX_RANK; a++) {
    if (!(g->c->axes >> a & 1)) continue;
    for (int i = 0; i < g->in->n; i++) {
      const rg_shape *s = &g->in->in[i].shape;
      if (s->rank <= a || s->dim[a] < 2) continue;
      int32_t d = s->dim[a];
      int32_t halves[2][3] = {{a, 0, d / 2}, {a, d / 2, d}};
      for (int h = 0; h < 2; h++) {
        bool seen = false;
        for (int k = first; k < g->n; k++) seen |= !memcmp(g->out[k].params, halves[h], sizeof halves[h]);
        if (!seen) emit(g, op, 1, 0, halves[h], 3);
      }
    }
  }
}

/* Shape parameters: rank then dims. Adds s unless an equal one was already emitted for op. */
static void emit_shape(gen *g, rg_op op, int first, const rg_shape *s) {
  int32_t slots[RG_SHAPE_SLOTS] = {s->rank};
  for (int d = 0; d < s->rank; d++) slots[1 + d] = s->dim[d];
  for (int k = first; k < g->n; k++)
    if (!memcmp(g->out[k].params, slots, sizeof slots)) return;
  emit(g, op, op == RG_OP_RESHAPE ? 1 : 0, 0, slots, RG_SHAPE_SLOTS);
}

/* reshape: to every shape of the input set, and to each input's 2-D flattening (d0, rest). */
static void gen_reshape(gen *g, rg_op op) {
  int first = g->n;
  for (int i = 0; i < g->in->n; i++)
    if (g->in->in[i].shape.rank >= 1) emit_shape(g, op, first, &g->in->in[i].shape);
  for (int i = 0; i < g->in->n; i++) {
    const rg_shape *s = &g->in->in[i].shape;
    if (s->rank < 3) continue;
    int32_t d[2] = {s->dim[0], (int32_t)(rg_shape_numel(s) / s->dim[0])};
    rg_shape f = rg_shape_make(2, d);
    emit_shape(g, op, first, &f);
  }
}

static void gen_iewmul(gen *g, rg_op op) {
  int first = g->n;
  for (int i = 0; i < g->in->n; i++) {
    const rg_shape *s = &g->in->in[i].shape;
    if (s->rank >= 1 && !is_weight(s)) emit_shape(g, op, first, s);
  }
}

static void gen_imatmul(gen *g, rg_op op) {
  int first = g->n;
  for (int i = 0; i < g->in->n; i++) {
    const rg_shape *s = &g->in->in[i].shape;
    if (s->rank != 2) continue;
    int32_t n = s->dim[1];
    bool seen = false;
    for (int k = first; k < g->n; k++) seen |= g->out[k].params[0] == n;
    if (!seen) emit(g, op, 0, 0, &n, 1);
  }
}

/* Iconv and Cpool: channels of each rank-4 activation, times each kernel. */
static void gen_kernel_const(gen *g, rg_op op) {
  int first = g->n;
  for (int i = 0; i < g->in->n; i++) {
    const rg_shape *s = &g->in->in[i].shape;
    if (s->rank != 4 || is_weight(s)) continue;
    for (int k = 0; k < g->c->n_kernels; k++) {
      int32_t p[3] = {s->dim[1], g->c->kernel[k][0], g->c->kernel[k][1]};
      bool seen = false;
      for (int j = first; j < g->n; j++) seen |= !memcmp(g->out[j].params, p, sizeof p);
      if (!seen) emit(g, op, 0, 0, p, 3);
    }
  }
}

typedef struct {
  void (*gen)(gen *g, rg_op op);
  const char *doc;   /* what is tried, for --help */
  bool commutative;  /* op(a, b) = op(b, a): the swapped order is recorded, not extended */
} op_entry;

/* THE table: one entry per operator of ir/ops.def (input excepted). */
static const op_entry table[RG_OP_COUNT] = {
    [RG_OP_EWADD] = {gen_plain, "every pair of equal-shaped tensors", true},
    [RG_OP_EWMUL] = {gen_plain, "every pair of equal-shaped tensors", true},
    [RG_OP_SMUL] = {gen_plain, "every tensor times every scalar"},
    [RG_OP_MATMUL] = {gen_matmul, "--matmul-act"},
    [RG_OP_CONV2D] = {gen_conv, "--conv-stride x --conv-pad x --conv-act x --conv-dilation x "
                                "--conv-groups, weights of --kernels"},
    [RG_OP_RELU] = {gen_plain, "every tensor"},
    [RG_OP_TANH] = {gen_plain, "every tensor"},
    [RG_OP_SIGMOID] = {gen_plain, "every tensor"},
    [RG_OP_POOLAVG] = {gen_pool, "3x3 window, stride 1, same, --pool-act"},
    [RG_OP_POOLMAX] = {gen_pool, "3x3 window, stride 1, same, --pool-act"},
    [RG_OP_TRANSPOSE] = {gen_transpose, "--perms"},
    [RG_OP_ENLARGE] = {gen_enlarge, "--enlarge, where the kernel is smaller"},
    [RG_OP_CONCAT] = {gen_concat, "two tensors on each of --axes"},
    [RG_OP_SPLIT] = {gen_split, "split.0 and split.1 on each of --axes (one operator each)"},
    [RG_OP_RESHAPE] = {gen_reshape, "to each input-set shape and each input's 2-D flattening (not its own)"},
    [RG_OP_PAD] = {gen_pad, "one zero before and after, on each of --axes"},
    [RG_OP_SLICE] = {gen_slice, "both halves of each input size, on each of --axes (not a whole axis)"},
    [RG_OP_IEWMUL] = {gen_iewmul, "each activation shape of the input set"},
    [RG_OP_IMATMUL] = {gen_imatmul, "n = each column count of the rank-2 inputs"},
    [RG_OP_ICONV] = {gen_kernel_const, "channels of each image input x --kernels"},
    [RG_OP_CPOOL] = {gen_kernel_const, "channels of each image input x --kernels"},
    [RG_OP_BIAS] = {gen_bias, "a vector along each of --axes (the default inputs gain b1, b2 of size 4)"},
};

bool rg_enum_op_supported(rg_op op) {
  return op > RG_OP_INPUT && op < RG_OP_COUNT && table[op].gen != NULL;
}

bool rg_enum_op_commutative(rg_op op) { return rg_enum_op_supported(op) && table[op].commutative; }

int rg_enum_op_variants(rg_op op, const rg_enum_choices *c, const rg_enum_inputset *in,
                        rg_enum_variant *out, int cap) {
  if (!rg_enum_op_supported(op) || !c->op[op]) return 0;
  gen g = {c, in, out, 0, cap};
  table[op].gen(&g, op);
  return g.n;
}

/* ---- options ---- */

/* Selects the operators of one name of an --ops list (a group or an operator); false for none. */
static bool select_name(const char *p, int len, bool *sel) {
  if (len == 3 && !strncmp(p, "all", 3)) {
    for (int op = 0; op < RG_OP_COUNT; op++) sel[op] = sel[op] || rg_enum_op_supported((rg_op)op);
    return true;
  }
  if (len == 4 && !strncmp(p, "taso", 4)) {
    for (size_t k = 0; k < sizeof taso_ops / sizeof taso_ops[0]; k++) sel[taso_ops[k]] = true;
    return true;
  }
  int op = rg_op_by_name(p, len);
  if (op < 0 || !rg_enum_op_supported((rg_op)op)) return false;
  sel[op] = true;
  return true;
}

rg_status rg_enum_choices_set_ops(rg_enum_choices *c, const char *list, rg_err *err) {
  bool sel[RG_OP_COUNT] = {0};
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    int len = e ? (int)(e - p) : (int)strlen(p);
    if (!select_name(p, len, sel)) {
      char known[1024];
      int used = 0;
      for (int k = 0; k < RG_OP_COUNT; k++)
        if (rg_enum_op_supported((rg_op)k) && used < (int)sizeof known)
          used += snprintf(known + used, sizeof known - (size_t)used, "%s%s", used ? "," : "",
                           rg_op_get((rg_op)k)->name);
      return rg_err_set(err, RG_ERR_ARG, "--ops: unknown operator '%.*s' (known: all, taso, %s)", len, p,
                        known);
    }
    p += len + (e ? 1 : 0);
  }
  bool any = false;
  for (int op = 0; op < RG_OP_COUNT; op++) any |= sel[op];
  if (!any) return rg_err_set(err, RG_ERR_ARG, "--ops: no operator selected");
  memcpy(c->op, sel, sizeof sel);
  return RG_OK;
}

/* Parses a comma list of names (via lookup) or numbers into a bit set. */
static rg_status parse_bits(const char *opt, const char *v, int (*lookup)(const char *, int),
                            int lo, int hi, unsigned *out, rg_err *err) {
  unsigned bits = 0;
  const char *p = v;
  while (*p) {
    const char *e = strchr(p, ',');
    int len = e ? (int)(e - p) : (int)strlen(p);
    int k = lookup ? lookup(p, len) : -1;
    if (!lookup) {
      char *end;
      char num[16];
      snprintf(num, sizeof num, "%.*s", len < 15 ? len : 15, p);
      long x = strtol(num, &end, 10);
      if (len > 0 && len < 15 && *end == 0) k = (int)x;
    }
    if (k < lo || k > hi)
      return rg_err_set(err, RG_ERR_ARG, "--%s: bad value '%.*s' (want a comma list of %s)", opt,
                        len, p,
                        lookup == rg_act_by_name   ? "none,relu,sigmoid,tanh"
                        : lookup == rg_pad_by_name ? "same,valid"
                                                   : "numbers in the allowed range");
    bits |= 1u << k;
    p += len + (e ? 1 : 0);
  }
  if (!bits) return rg_err_set(err, RG_ERR_ARG, "--%s: empty list", opt);
  *out = bits;
  return RG_OK;
}

static rg_status parse_kernel(const char *opt, const char *p, int len, int32_t *k, rg_err *err) {
  rg_shape s;
  if (rg_shape_parse(p, len, &s, NULL) != RG_OK || s.rank != 2 || s.dim[0] > 7 || s.dim[1] > 7)
    return rg_err_set(err, RG_ERR_ARG, "--%s: bad kernel '%.*s' (want KHxKW, each 1..7, e.g. 3x3)",
                      opt, len, p);
  k[0] = s.dim[0], k[1] = s.dim[1];
  return RG_OK;
}

rg_status rg_enum_choices_set(rg_enum_choices *c, const char *name, const char *v, rg_err *err) {
  if (!strcmp(name, "conv-stride")) return parse_bits(name, v, NULL, 1, 2, &c->conv_strides, err);
  if (!strcmp(name, "conv-pad")) return parse_bits(name, v, rg_pad_by_name, 0, 1, &c->conv_pads, err);
  if (!strcmp(name, "conv-act")) return parse_bits(name, v, rg_act_by_name, 0, 3, &c->conv_acts, err);
  if (!strcmp(name, "conv-groups")) return parse_bits(name, v, NULL, 1, 30, &c->conv_groups, err);
  if (!strcmp(name, "conv-dilation"))
    return parse_bits(name, v, NULL, 1, 2, &c->conv_dilations, err);
  if (!strcmp(name, "matmul-act"))
    return parse_bits(name, v, rg_act_by_name, 0, 3, &c->matmul_acts, err);
  if (!strcmp(name, "pool-act")) return parse_bits(name, v, rg_act_by_name, 0, 3, &c->pool_acts, err);
  if (!strcmp(name, "axes")) return parse_bits(name, v, NULL, 0, RG_MAX_RANK - 1, &c->axes, err);
  if (!strcmp(name, "perms")) {
    if (strcmp(v, "2d") && strcmp(v, "all"))
      return rg_err_set(err, RG_ERR_ARG, "--perms: bad value '%s' (want 2d or all)", v);
    c->all_perms = !strcmp(v, "all");
    return RG_OK;
  }
  if (!strcmp(name, "enlarge")) return parse_kernel(name, v, (int)strlen(v), c->enlarge, err);
  if (!strcmp(name, "kernels")) {
    int n = 0;
    const char *p = v;
    while (*p) {
      const char *e = strchr(p, ',');
      int len = e ? (int)(e - p) : (int)strlen(p);
      if (n == RG_ENUM_MAX_KERNELS)
        return rg_err_set(err, RG_ERR_ARG, "--kernels: more than %d kernels", RG_ENUM_MAX_KERNELS);
      rg_status st = parse_kernel(name, p, len, c->kernel[n], err);
      if (st) return st;
      n++;
      p += len + (e ? 1 : 0);
    }
    if (!n) return rg_err_set(err, RG_ERR_ARG, "--kernels: empty list");
    c->n_kernels = n;
    return RG_OK;
  }
  return rg_err_set(err, RG_ERR_ARG, "unknown enumeration option --%s", name);
}

const char *const *rg_enum_choices_options(void) {
  static const char *const names[] = {
#define X(n, meta, help) n,
      CHOICE_OPTIONS(X)
#undef X
          NULL};
  return names;
}

void rg_enum_choices_option_doc(int i, const char **meta, const char **help) {
  static const struct {
    const char *meta, *help;
  } docs[] = {
#define X(n, meta, help) {meta, help},
      CHOICE_OPTIONS(X)
#undef X
  };
  *meta = docs[i].meta;
  *help = docs[i].help;
}

const char *rg_enum_op_doc(rg_op op) { return table[op].doc; }

/* A bit set as parse_bits reads it: names (when name is given) or numbers, comma-separated. */
static void format_bits(rg_strbuf *sb, const char *opt, unsigned bits, const char *(*name)(int)) {
  rg_sb_printf(sb, " --%s ", opt);
  bool first = true;
  for (int k = 0; k < 32; k++)
    if (bits >> k & 1) {
      if (name) rg_sb_printf(sb, "%s%s", first ? "" : ",", name(k));
      else rg_sb_printf(sb, "%s%d", first ? "" : ",", k);
      first = false;
    }
}

void rg_enum_choices_format(const rg_enum_choices *c, rg_strbuf *sb) {
  rg_sb_puts(sb, "--ops ");
  bool first = true;
  for (int op = 0; op < RG_OP_COUNT; op++)
    if (c->op[op]) rg_sb_printf(sb, "%s%s", first ? "" : ",", rg_op_get((rg_op)op)->name), first = false;
  format_bits(sb, "conv-stride", c->conv_strides, NULL);
  format_bits(sb, "conv-pad", c->conv_pads, rg_pad_name);
  format_bits(sb, "conv-act", c->conv_acts, rg_act_name);
  format_bits(sb, "conv-groups", c->conv_groups, NULL);
  format_bits(sb, "conv-dilation", c->conv_dilations, NULL);
  format_bits(sb, "matmul-act", c->matmul_acts, rg_act_name);
  format_bits(sb, "pool-act", c->pool_acts, rg_act_name);
  format_bits(sb, "axes", c->axes, NULL);
  rg_sb_puts(sb, " --kernels ");
  for (int k = 0; k < c->n_kernels; k++)
    rg_sb_printf(sb, "%s%dx%d", k ? "," : "", (int)c->kernel[k][0], (int)c->kernel[k][1]);
  rg_sb_printf(sb, " --perms %s --enlarge %dx%d", c->all_perms ? "all" : "2d", (int)c->enlarge[0],
               (int)c->enlarge[1]);
}
