/* ir/op.c: the operator table, expanded from ops.def, and name look-ups. */
#include "op.h"

#include <string.h>

/* Parameter counts and slot counts follow from each op's parameter list, computed at compile
 * time so that ops.def carries no count that could disagree with its list. */
#define RG_SLOTS_TVAR 1
#define RG_SLOTS_INT 1
#define RG_SLOTS_AXIS 1
#define RG_SLOTS_PAD 1
#define RG_SLOTS_ACT 1
#define RG_SLOTS_PERM 1
#define RG_SLOTS_SHAPE RG_SHAPE_SLOTS

#define P(kind, name, lo, hi, def) +1
enum {
#define RG_OP(id, name, nin, nout, lin, flags, params) NPARAMS_##id = 0 params,
#include "ops.def"
#undef RG_OP
};
#undef P

#define P(kind, name, lo, hi, def) +RG_SLOTS_##kind
enum {
#define RG_OP(id, name, nin, nout, lin, flags, params) NSLOTS_##id = 0 params,
#include "ops.def"
#undef RG_OP
};
#undef P

#define P(kind, name, lo, hi, def) {RG_PK_##kind, name, lo, hi, def},
static const rg_op_info table[RG_OP_COUNT] = {
#define RG_OP(id, name, nin, nout, lin, flags, params)                                         \
  [RG_OP_##id] = {name, nin, nout, lin, flags, NPARAMS_##id, NSLOTS_##id, {params}},
#include "ops.def"
#undef RG_OP
};
#undef P

_Static_assert(NSLOTS_RESHAPE <= RG_MAX_PARAMS, "parameter slots exceed RG_MAX_PARAMS");
_Static_assert(NSLOTS_POOLMAX <= RG_MAX_PARAMS, "parameter slots exceed RG_MAX_PARAMS");

static int slots_of(rg_param_kind k) { return k == RG_PK_SHAPE ? RG_SHAPE_SLOTS : 1; }

const rg_op_info *rg_op_get(rg_op op) { return &table[op]; }

int rg_op_by_name(const char *name, int len) {
  for (int i = 0; i < RG_OP_COUNT; i++) {
    const char *n = table[i].name;
    if ((int)strlen(n) == len && memcmp(n, name, (size_t)len) == 0) return i;
  }
  return -1;
}

int rg_op_param_slot(rg_op op, int k) {
  const rg_op_info *info = rg_op_get(op);
  int slot = 0;
  for (int i = 0; i < k && i < info->n_params; i++) slot += slots_of(info->params[i].kind);
  return slot;
}

int rg_op_required_params(rg_op op) {
  const rg_op_info *info = rg_op_get(op);
  int req = 0;
  for (int k = 0; k < info->n_params; k++)
    if (info->params[k].def == RG_NODEF) req = k + 1;
  return req;
}

int rg_op_min_inputs(rg_op op) {
  int n = rg_op_get(op)->n_inputs;
  return n == RG_VARIADIC ? 2 : n;
}

int rg_op_max_inputs(rg_op op) {
  int n = rg_op_get(op)->n_inputs;
  return n == RG_VARIADIC ? RG_MAX_INPUTS : n;
}

int32_t rg_perm_pack(const int *perm, int rank) {
  int32_t v = rank;
  for (int i = 0; i < rank; i++) v |= (int32_t)perm[i] << (3 + 3 * i);
  return v;
}

int rg_perm_unpack(int32_t packed, int *perm) {
  if (packed < 0) return -1;
  int rank = packed & 7;
  if (rank < 1 || rank > RG_MAX_RANK || (packed >> (3 + 3 * rank)) != 0) return -1;
  int seen = 0;
  for (int i = 0; i < rank; i++) {
    perm[i] = (packed >> (3 + 3 * i)) & 7;
    if (perm[i] >= rank || (seen >> perm[i]) & 1) return -1;
    seen |= 1 << perm[i];
  }
  return rank;
}

bool rg_perm_next(int *p, int n) {
  int i = n - 2;
  while (i >= 0 && p[i] >= p[i + 1]) i--;
  if (i < 0) return false;
  int j = n - 1;
  while (p[j] <= p[i]) j--;
  int t = p[i];
  p[i] = p[j], p[j] = t;
  for (int a = i + 1, b = n - 1; a < b; a++, b--) t = p[a], p[a] = p[b], p[b] = t;
  return true;
}

static const char *const pad_names[] = {"same", "valid"};
static const char *const act_names[] = {"none", "sigmoid", "relu", "tanh"};

const char *rg_pad_name(int pad) { return pad >= 0 && pad < 2 ? pad_names[pad] : "?"; }
const char *rg_act_name(int act) { return act >= 0 && act < RG_ACT_COUNT ? act_names[act] : "?"; }

static int lookup(const char *const *names, int n, const char *s, int len) {
  for (int i = 0; i < n; i++)
    if ((int)strlen(names[i]) == len && memcmp(names[i], s, (size_t)len) == 0) return i;
  return -1;
}

int rg_pad_by_name(const char *s, int len) { return lookup(pad_names, 2, s, len); }
int rg_act_by_name(const char *s, int len) { return lookup(act_names, RG_ACT_COUNT, s, len); }
