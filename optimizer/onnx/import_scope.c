/* optimizer/onnx/import_scope.c: the values of the graph that a node's subgraphs read (import_internal.h).
 *
 * An If's branches, a Loop's or Scan's body (any attribute that is a graph) may read the tensors
 * of the graph around them by name, without listing them as the node's inputs (ONNX's implicit
 * inputs). graphopt keeps such a node whole, but those values are its operands all the same:
 * they order the nodes, keep the values alive, and are written back under the names the
 * subgraphs read them by. A name a subgraph reads is one of the graph's when no graph nested in
 * the node defines it (ONNX forbids a subgraph to redefine a name of the graphs around it).
 */
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

/* Subgraphs nested deeper than this are refused: the walk recurses once per level. */
#define MAX_DEPTH 64

typedef struct {
  rg_names defined, seen;
  const char **read; /* names read, each once, in the order first read */
  size_t n_read, cap_read;
} scope_walk;

static bool define(scope_walk *w, const char *name) {
  int added;
  return !name || !name[0] || rg_names_add(&w->defined, name, &added);
}

static bool reads(scope_walk *w, const char *name) {
  int added;
  if (!name || !name[0]) return true;
  if (!rg_names_add(&w->seen, name, &added)) return false;
  if (!added) return true;
  if (w->n_read == w->cap_read) {
    size_t cap = w->cap_read ? 2 * w->cap_read : 16;
    const char **nr = realloc(w->read, sizeof *nr * cap);
    if (!nr) return false;
    w->read = nr, w->cap_read = cap;
  }
  w->read[w->n_read++] = name;
  return true;
}

static rg_status walk_node(rg_importer *im, scope_walk *w, const Onnx__NodeProto *n, int depth, rg_err *err);

/* What graph g and the graphs nested in it define and read. */
static rg_status walk_graph(rg_importer *im, scope_walk *w, const Onnx__GraphProto *g, int depth, rg_err *err) {
  if (depth > MAX_DEPTH)
    return rg_import_fail(im, err, RG_ERR_LIMIT, "subgraphs nested more than %d deep", MAX_DEPTH);
  bool ok = true;
  for (size_t i = 0; ok && i < g->n_input; i++) ok = define(w, g->input[i]->name);
  for (size_t i = 0; ok && i < g->n_initializer; i++) ok = define(w, g->initializer[i]->name);
  for (size_t i = 0; ok && i < g->n_sparse_initializer; i++)
    ok = !g->sparse_initializer[i]->values || define(w, g->sparse_initializer[i]->values->name);
  for (size_t i = 0; ok && i < g->n_output; i++) ok = reads(w, g->output[i]->name);
  rg_status st = ok ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t k = 0; !st && k < g->n_node; k++) st = walk_node(im, w, g->node[k], depth, err);
  return st;
}

static rg_status walk_node(rg_importer *im, scope_walk *w, const Onnx__NodeProto *n, int depth, rg_err *err) {
  bool ok = true;
  for (size_t j = 0; ok && j < n->n_output; j++) ok = define(w, n->output[j]);
  for (size_t j = 0; ok && j < n->n_input; j++) ok = reads(w, n->input[j]);
  rg_status st = ok ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t a = 0; !st && a < n->n_attribute; a++) {
    const Onnx__AttributeProto *at = n->attribute[a];
    if (at->g) st = walk_graph(im, w, at->g, depth + 1, err);
    for (size_t i = 0; !st && i < at->n_graphs; i++) st = walk_graph(im, w, at->graphs[i], depth + 1, err);
  }
  return st;
}

bool rg_import_has_subgraph(const Onnx__NodeProto *n, const char **attr) {
  for (size_t a = 0; a < n->n_attribute; a++)
    if (n->attribute[a]->g || n->attribute[a]->n_graphs) return *attr = n->attribute[a]->name, true;
  return false;
}

/* The implicit operands of node n (one with subgraphs) into im->implicit[k]. */
static rg_status node_scope(rg_importer *im, const Onnx__NodeProto *n, size_t k, rg_err *err) {
  scope_walk w = {0};
  rg_status st = RG_OK;
  for (size_t a = 0; !st && a < n->n_attribute; a++) {
    const Onnx__AttributeProto *at = n->attribute[a];
    if (at->g) st = walk_graph(im, &w, at->g, 1, err);
    for (size_t i = 0; !st && i < at->n_graphs; i++) st = walk_graph(im, &w, at->graphs[i], 1, err);
  }
  size_t kept = 0;
  for (size_t i = 0; !st && i < w.n_read; i++)
    if (!rg_names_find(&w.defined, w.read[i])) w.read[kept++] = w.read[i];
  if (!st) im->implicit[k] = w.read, im->n_implicit[k] = (int32_t)kept, w.read = NULL;
  free(w.read);
  rg_names_free(&w.defined), rg_names_free(&w.seen);
  return st;
}

rg_status rg_import_scopes(rg_importer *im, rg_err *err) {
  size_t n = im->gr->n_node;
  im->implicit = calloc(n + 1, sizeof *im->implicit);
  im->n_implicit = calloc(n + 1, sizeof *im->n_implicit);
  if (!im->implicit || !im->n_implicit) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = RG_OK;
  for (size_t k = 0; !st && k < n; k++) {
    const char *attr;
    if (!rg_import_has_subgraph(im->gr->node[k], &attr)) continue;
    im->node = im->gr->node[k], im->node_k = (int)k;
    st = node_scope(im, im->gr->node[k], k, err);
  }
  im->node = NULL;
  return st;
}

void rg_import_scopes_free(rg_importer *im) {
  for (size_t k = 0; im->implicit && k < im->gr->n_node; k++) free(im->implicit[k]);
  free(im->implicit), free(im->n_implicit);
}

const char *rg_import_operand(const rg_importer *im, size_t k, size_t j) {
  const Onnx__NodeProto *n = im->gr->node[k];
  return j < n->n_input ? n->input[j] : im->implicit[k][j - n->n_input];
}

size_t rg_import_n_operands(const rg_importer *im, size_t k) {
  return im->gr->node[k]->n_input + (size_t)im->n_implicit[k];
}
