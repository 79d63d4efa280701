/* rulesdb/dot.c: a rule as a Graphviz digraph: source and target side by side.
 *
 * Nodes are labelled with the operator and its parameters as the rule text writes them
 * (taken from the canonical term text, so labels and rule text never disagree). A node both
 * sides share (hash-consing makes common subterms one node) sits in a third, middle cluster.
 * Inputs show their shape when the input set knows it; an edge into an operator of several
 * operands says which operand it is (0, 1, ...), one out of a split which output it takes.
 * One rule per digraph: dot lays out one small graph well, never hundreds side by side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enumerate/enumerate.h"
#include "exchange.h"
#include "ir/text.h"

/* The operator and parameters of a node: its term text up to the first tensor input. */
static void label(const rg_graph *g, int32_t id, rg_strbuf *tmp, rg_strbuf *out) {
  const rg_node *nd = rg_graph_node(g, id);
  if (nd->op == RG_OP_INPUT) {
    rg_sb_printf(out, "?%s", rg_graph_tvar_name(g, nd->params[0]));
    return;
  }
  rg_sb_clear(tmp);
  rg_text_print_ref(g, (rg_ref){id, 0}, tmp);
  const char *s = rg_sb_str(tmp) + 1; /* skip '(' */
  for (int first = 1; *s; first = 0) {
    const char *e = s;
    while (*e && *e != ' ' && *e != ')')
      e++;
    int is_tvar = 0;
    if (*s == '?') {
      char name[RG_RULE_MAX_NAME];
      int n = (int)(e - s - 1) < RG_RULE_MAX_NAME - 1 ? (int)(e - s - 1) : RG_RULE_MAX_NAME - 1;
      memcpy(name, s + 1, (size_t)n), name[n] = 0;
      is_tvar = rg_graph_find_tvar(g, name) >= 0 && rg_graph_find_pvar(g, name) < 0;
    }
    if (*s == '(' || is_tvar || *s == ')') break;
    if (!first) rg_sb_puts(out, " ");
    if (first && nd->op == RG_OP_SPLIT) /* "split.0" names output 0 only: the node has both */
      rg_sb_puts(out, "split");
    else
      rg_sb_append(out, s, (size_t)(e - s));
    s = *e == ' ' ? e + 1 : e;
  }
}

static void quoted(rg_strbuf *out, const char *s) {
  rg_sb_puts(out, "\"");
  for (; *s; s++) {
    if (*s == '\n') { /* a line break inside the label */
      rg_sb_puts(out, "\\n");
      continue;
    }
    if (*s == '"' || *s == '\\') rg_sb_puts(out, "\\");
    rg_sb_append(out, s, 1);
  }
  rg_sb_puts(out, "\"");
}

/* The label of an input node: its name, and its shape when the input set knows it. */
static void input_label(const rg_graph *g, int32_t id, const rg_enum_inputset *inputs, rg_strbuf *tmp,
                        rg_strbuf *out) {
  label(g, id, tmp, out);
  const rg_shape *shp = inputs ? rg_enum_inputs_shape(inputs, rg_graph_tvar_name(g, rg_graph_node(g, id)->params[0])) : NULL;
  char dims[64];
  if (shp) rg_sb_printf(out, "\n%s", rg_shape_format(shp, dims, sizeof dims));
}

/* Operand k of node i, from output o of its producer: "0", "1", ... where i takes several
 * operands, "out o" where the producer has several outputs. */
static void edge(const rg_graph *g, int32_t i, int k, rg_strbuf *out) {
  const rg_node *nd = rg_graph_node(g, i);
  rg_ref in = nd->in[k];
  bool many_in = nd->n_in > 1, many_out = rg_op_get((rg_op)rg_graph_node(g, in.node)->op)->n_outputs > 1;
  rg_sb_printf(out, "  n%d -> n%d", in.node, i);
  if (many_in && many_out) rg_sb_printf(out, " [label=\"%d\", taillabel=\"out %d\"]", k, in.out);
  else if (many_in) rg_sb_printf(out, " [label=\"%d\"]", k);
  else if (many_out) rg_sb_printf(out, " [taillabel=\"out %d\"]", in.out);
  rg_sb_puts(out, ";\n");
}

/* The operator nodes of one cluster (0 source, 1 target, 2 shared by both). */
static void cluster(const rg_rule *r, const uint8_t *ms, const uint8_t *mt, int c, rg_strbuf *tmp, rg_strbuf *lab,
                    rg_strbuf *out) {
  static const char *names[] = {"source", "target", "shared"};
  int any = 0;
  for (int32_t i = 0; i < rg_graph_size(r->g); i++) {
    int where = ms[i] && mt[i] ? 2 : ms[i] ? 0 : mt[i] ? 1 : -1;
    if (where != c || rg_graph_node(r->g, i)->op == RG_OP_INPUT) continue;
    if (!any++) rg_sb_printf(out, "  subgraph cluster_%s {\n    label=\"%s\";\n", names[c], names[c]);
    rg_sb_clear(lab);
    label(r->g, i, tmp, lab);
    rg_sb_printf(out, "    n%d [label=", i);
    quoted(out, rg_sb_str(lab));
    rg_sb_puts(out, "];\n");
  }
  if (any) rg_sb_puts(out, "  }\n");
}

/* The nodes and edges of one rule. */
static void emit(const rg_rule *r, const rg_enum_inputset *inputs, rg_strbuf *out) {
  int32_t size = rg_graph_size(r->g);
  uint8_t *ms = calloc((size_t)size + 1, 1), *mt = calloc((size_t)size + 1, 1);
  if (!ms || !mt) {
    free(ms), free(mt);
    out->failed = true;
    return;
  }
  rg_graph_mark_reachable(r->g, r->src, r->n_src, ms);
  rg_graph_mark_reachable(r->g, r->tgt, r->n_tgt, mt);
  rg_strbuf tmp, lab;
  rg_sb_init(&tmp), rg_sb_init(&lab);
  for (int c = 0; c < 3; c++) cluster(r, ms, mt, c, &tmp, &lab, out);
  for (int32_t i = 0; i < size; i++) {
    if ((!ms[i] && !mt[i]) || rg_graph_node(r->g, i)->op != RG_OP_INPUT) continue;
    rg_sb_clear(&lab);
    input_label(r->g, i, inputs, &tmp, &lab);
    rg_sb_printf(out, "  n%d [shape=ellipse, label=", i);
    quoted(out, rg_sb_str(&lab));
    rg_sb_puts(out, "];\n");
  }
  for (int32_t i = 0; i < size; i++)
    for (int k = 0; (ms[i] || mt[i]) && k < rg_graph_node(r->g, i)->n_in; k++) edge(r->g, i, k, out);
  /* Each output pair: the two sides must agree there (at which output of a split). */
  for (int i = 0; i < r->n_tgt; i++) {
    rg_sb_printf(out, "  n%d -> n%d [style=dashed, dir=both, constraint=false, label=\"out %d\"", r->src[i].node,
                 r->tgt[i].node, i);
    if (rg_op_get((rg_op)rg_graph_node(r->g, r->src[i].node)->op)->n_outputs > 1)
      rg_sb_printf(out, ", taillabel=\"out %d\"", r->src[i].out);
    if (rg_op_get((rg_op)rg_graph_node(r->g, r->tgt[i].node)->op)->n_outputs > 1)
      rg_sb_printf(out, ", headlabel=\"out %d\"", r->tgt[i].out);
    rg_sb_puts(out, "];\n");
  }
  rg_sb_free(&tmp), rg_sb_free(&lab);
  free(ms), free(mt);
}

void rg_dot_rule(const rg_rule *r, const char *name, const rg_enum_inputset *inputs, rg_strbuf *out) {
  rg_sb_puts(out, "digraph rule {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n");
  if (name) {
    rg_sb_puts(out, "  label=");
    quoted(out, name);
    rg_sb_puts(out, ";\n  labelloc=t;\n");
  }
  emit(r, inputs, out);
  rg_sb_puts(out, "}\n");
}
