/* rulesdb/exchange_util.c: what importers share (groups inferred, rules added) and parameters read. */
#include "exchange_util.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"

int32_t rg_xchg_param(const rg_node *nd, int k) {
  return nd->params[rg_op_param_slot((rg_op)nd->op, k)];
}

bool rg_xchg_conv_expressible(const rg_node *nd) {
  return rg_xchg_param(nd, 4) == 1 && rg_xchg_param(nd, 5) == 1;
}

rg_status rg_xchg_infer_groups(rg_rule *r, rg_err *err) {
  const rg_graph *g = r->g;
  int32_t n = rg_graph_size(g), nt = rg_graph_n_tvars(g);
  rg_graph *ng = rg_graph_new();
  int32_t *map = calloc((size_t)n + 1, sizeof *map);
  rg_shape (*shape)[RG_MAX_OUTPUTS] = calloc((size_t)n + 1, sizeof *shape);
  uint8_t *known = calloc((size_t)n + 1, 1);
  rg_status st = ng && map && shape && known ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* Same variables in the same order, so indices and names carry over. */
  for (int32_t v = 0; st == RG_OK && v < nt; v++) {
    const char *name = rg_graph_tvar_name(g, v);
    if (rg_graph_tvar(ng, name, (int)strlen(name)) < 0) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int32_t v = 0; st == RG_OK && v < rg_graph_n_pvars(g); v++) {
    const char *name = rg_graph_pvar_name(g, v);
    if (rg_graph_pvar(ng, name, (int)strlen(name)) < 0) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int32_t id = 0; st == RG_OK && id < n; id++) {
    rg_node nd = *rg_graph_node(g, id);
    bool inputs_known = nd.var_mask == 0;
    const rg_shape *in[RG_MAX_INPUTS];
    for (int k = 0; k < nd.n_in; k++) {
      int32_t child = nd.in[k].node;
      inputs_known = inputs_known && known[child];
      in[k] = &shape[child][nd.in[k].out];
      nd.in[k].node = map[child];
    }
    if (nd.op == RG_OP_INPUT) {
      known[id] = (uint8_t)rg_taso_input_shape(rg_taso_input_number(rg_graph_tvar_name(g, nd.params[0])), &shape[id][0]);
    } else {
      int32_t *groups = nd.op == RG_OP_CONV2D ? &nd.params[rg_op_param_slot(RG_OP_CONV2D, 6)] : NULL;
      if (groups && *groups == 1 && inputs_known && in[0]->rank == 4 && in[1]->rank == 4 &&
          in[1]->dim[1] > 0 && in[0]->dim[1] % in[1]->dim[1] == 0)
        *groups = in[0]->dim[1] / in[1]->dim[1];
      known[id] = inputs_known &&
                  rg_shape_infer((rg_op)nd.op, nd.params, nd.n_in, in, shape[id], NULL) == RG_OK;
    }
    map[id] = rg_graph_add(ng, &nd);
    if (map[id] < 0) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  if (st == RG_OK) {
    for (int o = 0; o < r->n_src; o++) r->src[o].node = map[r->src[o].node];
    for (int o = 0; o < r->n_tgt; o++) r->tgt[o].node = map[r->tgt[o].node];
    rg_graph_free(r->g);
    r->g = ng;
    ng = NULL;
  }
  rg_graph_free(ng);
  free(map);
  free(shape);
  free(known);
  return st;
}

rg_status rg_xchg_add_imported(const char *text, const char *label, int line, rg_ruleset *out, rg_strbuf *skipped,
                               rg_err *err) {
  rg_rule *rule;
  rg_err e;
  if (rg_text_parse_rule(text, &rule, &e)) {
    rg_sb_printf(skipped, "%s: %s (as %s)\n", label, e.msg, text);
    return RG_OK;
  }
  rule->line = line;
  rg_status st = rg_xchg_infer_groups(rule, err);
  if (st) return rg_rule_free(rule), st;
  st = rg_ruleset_add(out, rule);
  if (st) rg_err_set(err, st, "out of memory");
  return st;
}
