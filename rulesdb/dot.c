/* rulesdb/dot.c: a rule as a Graphviz digraph: source and target side by side.
 *
 * Nodes are labelled with the operator and its parameters as the rule text writes them
 * (taken from the canonical term text, so labels and rule text never disagree). A node both
 * sides share (hash-consing makes common subterms one node) sits in a third, middle cluster.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (*s == '"' || *s == '\\') rg_sb_puts(out, "\\");
    rg_sb_append(out, s, 1);
  }
  rg_sb_puts(out, "\"");
}

/* The nodes and edges of one rule; node names start with p, cluster names with p too. */
static void emit(const rg_rule *r, const char *p, rg_strbuf *out) {
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
  static const char *clusters[] = {"source", "target", "shared"};
  for (int c = 0; c < 3; c++) {
    int any = 0;
    for (int32_t i = 0; i < size; i++) {
      const rg_node *nd = rg_graph_node(r->g, i);
      int where = ms[i] && mt[i] ? 2 : ms[i] ? 0 : mt[i] ? 1 : -1;
      if (where != c || nd->op == RG_OP_INPUT) continue;
      if (!any)
        rg_sb_printf(out, "  subgraph cluster_%s%s {\n    label=\"%s\";\n", p, clusters[c],
                     clusters[c]);
      any = 1;
      rg_sb_clear(&lab);
      label(r->g, i, &tmp, &lab);
      rg_sb_printf(out, "    %sn%d [label=", p, i);
      quoted(out, rg_sb_str(&lab));
      rg_sb_puts(out, "];\n");
    }
    if (any) rg_sb_puts(out, "  }\n");
  }
  for (int32_t i = 0; i < size; i++) {
    const rg_node *nd = rg_graph_node(r->g, i);
    if ((!ms[i] && !mt[i]) || nd->op != RG_OP_INPUT) continue;
    rg_sb_clear(&lab);
    label(r->g, i, &tmp, &lab);
    rg_sb_printf(out, "  %sn%d [shape=ellipse, label=", p, i);
    quoted(out, rg_sb_str(&lab));
    rg_sb_puts(out, "];\n");
  }
  for (int32_t i = 0; i < size; i++) {
    if (!ms[i] && !mt[i]) continue;
    const rg_node *nd = rg_graph_node(r->g, i);
    for (int k = 0; k < nd->n_in; k++)
      rg_sb_printf(out, "  %sn%d -> %sn%d%s;\n", p, nd->in[k].node, p, i,
                   rg_op_get((rg_op)rg_graph_node(r->g, nd->in[k].node)->op)->n_outputs > 1
                       ? (nd->in[k].out ? " [label=\"1\"]" : " [label=\"0\"]")
                       : "");
  }
  /* Each output pair: the two sides must agree there. */
  for (int i = 0; i < r->n_tgt; i++)
    rg_sb_printf(out,
                 "  %sn%d -> %sn%d [style=dashed, dir=both, constraint=false, label=\"out %d\"];\n",
                 p, r->src[i].node, p, r->tgt[i].node, i);
  rg_sb_free(&tmp), rg_sb_free(&lab);
  free(ms), free(mt);
}

static void header(const char *name, rg_strbuf *out) {
  rg_sb_puts(out, "digraph rules {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n");
  if (name) {
    rg_sb_puts(out, "  label=");
    quoted(out, name);
    rg_sb_puts(out, ";\n  labelloc=t;\n");
  }
}

void rg_dot_rule(const rg_rule *r, const char *name, rg_strbuf *out) {
  header(name, out);
  emit(r, "", out);
  rg_sb_puts(out, "}\n");
}

void rg_dot_rules(const rg_rule *const *rules, const char *const *names, size_t n, rg_strbuf *out) {
  header(NULL, out);
  for (size_t k = 0; k < n; k++) {
    char p[32];
    snprintf(p, sizeof p, "r%zu_", k);
    rg_sb_printf(out, "subgraph cluster_r%zu {\n  label=", k);
    quoted(out, names && names[k] ? names[k] : "");
    rg_sb_puts(out, ";\n");
    emit(rules[k], p, out);
    rg_sb_puts(out, "}\n");
  }
  rg_sb_puts(out, "}\n");
}
