/* optimizer/onnx/export_order.c: the nodes written in the order the model read had them
 * (export_internal.h). onnxruntime's fusions walk the graph in node order, so a model written
 * node for node but in another order can be fused otherwise and round differently; and a user
 * diffing the two expects the order they wrote. */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

/* Node a goes out before node b (ctx: the keys): the lower key, then the one written first. */
static bool before(const void *ctx, int32_t a, int32_t b) {
  const int64_t *key = ctx;
  return key[a] < key[b] || (key[a] == key[b] && a < b);
}

/* Calls read(ctx, name) for every name node n reads: its inputs, and every input of the nodes of
 * its subgraphs (a name defined there is not one the graph makes, so it adds nothing). */
typedef bool (*read_fn)(void *ctx, const char *name);
static bool reads_graph(const Onnx__GraphProto *g, read_fn read, void *ctx);
static bool reads(const Onnx__NodeProto *n, read_fn read, void *ctx) {
  for (size_t k = 0; k < n->n_input; k++)
    if (n->input[k][0] && !read(ctx, n->input[k])) return false;
  for (size_t a = 0; a < n->n_attribute; a++) {
    if (n->attribute[a]->g && !reads_graph(n->attribute[a]->g, read, ctx)) return false;
    for (size_t i = 0; i < n->attribute[a]->n_graphs; i++)
      if (!reads_graph(n->attribute[a]->graphs[i], read, ctx)) return false;
  }
  return true;
}
static bool reads_graph(const Onnx__GraphProto *g, read_fn read, void *ctx) {
  for (size_t k = 0; k < g->n_node; k++)
    if (!reads(g->node[k], read, ctx)) return false;
  return true;
}

typedef struct {
  const rg_names *made; /* written tensor name -> the node making it */
  int64_t *key;
  int32_t self;         /* the node whose reads are walked */
  bool fresh;           /* it is not a node of the model read: its key follows what it reads */
  int32_t (*edge)[2];   /* [maker, reader] pairs, with count and room */
  size_t n_edge, cap_edge;
  bool ok;
} walk;

static bool on_read(void *ctx, const char *name) {
  walk *w = ctx;
  const int64_t *p = rg_names_find(w->made, name);
  if (!p || *p == w->self) return true;
  if (w->fresh && w->key[*p] + 1 > w->key[w->self]) w->key[w->self] = w->key[*p] + 1;
  if (w->n_edge == w->cap_edge) {
    size_t cap = w->cap_edge ? 2 * w->cap_edge : 256;
    int32_t(*ne)[2] = realloc(w->edge, sizeof *ne * cap);
    if (!ne) return w->ok = false;
    w->edge = ne, w->cap_edge = cap;
  }
  w->edge[w->n_edge][0] = (int32_t)*p, w->edge[w->n_edge++][1] = w->self;
  return true;
}

/* key[i]: a node of the model read sorts at its place there (1024 apart); a new one just after
 * the latest node it reads. Every [maker, reader] pair into w. */
static bool plan(const rg_exporter *ex, walk *w) {
  const Onnx__GraphProto *src = ex->m->source->graph;
  rg_names place = {0};
  int added;
  bool ok = true;
  for (size_t k = 0; ok && k < src->n_node; k++)
    for (size_t j = 0; ok && j < src->node[k]->n_output; j++)
      if (src->node[k]->output[j][0]) {
        int64_t *v = rg_names_add(&place, src->node[k]->output[j], &added);
        if ((ok = v != NULL) && added) *v = (int64_t)k;
      }
  for (size_t i = 0; ok && w->ok && i < ex->n_node; i++) { /* ex->node is in dependency order already */
    const Onnx__NodeProto *n = ex->node[i];
    const int64_t *at = n->n_output && n->output[0][0] ? rg_names_find(&place, n->output[0]) : NULL;
    w->key[i] = at ? *at * 1024 : 0;
    w->self = (int32_t)i, w->fresh = !at;
    reads(n, on_read, w);
  }
  rg_names_free(&place);
  return ok && w->ok;
}

rg_status rg_export_source_order(rg_exporter *ex, rg_err *err) {
  if (!ex->m->source || ex->n_node < 2) return RG_OK;
  size_t n = ex->n_node;
  rg_names made = {0};
  int added;
  walk w = {&made, malloc(sizeof *w.key * n), 0, false, NULL, 0, 0, true};
  int32_t *deg = calloc(n, sizeof *deg), *first = calloc(n + 1, sizeof *first), *reader = NULL, n_heap = 0;
  int32_t *heap = malloc(sizeof *heap * n);
  Onnx__NodeProto **out = malloc(sizeof *out * n);
  size_t n_out = 0;
  bool ok = w.key && deg && first && heap && out;
  for (size_t i = 0; ok && i < n; i++)
    for (size_t j = 0; ok && j < ex->node[i]->n_output; j++)
      if (ex->node[i]->output[j][0]) {
        int64_t *v = rg_names_add(&made, ex->node[i]->output[j], &added);
        if ((ok = v != NULL)) *v = (int64_t)i;
      }
  ok = ok && plan(ex, &w) && (reader = malloc(sizeof *reader * (w.n_edge + 1)));
  /* readers by maker: first[m] .. first[m + 1] in reader (each start moved along as it fills,
   * then moved back) */
  for (size_t e = 0; ok && e < w.n_edge; e++) first[w.edge[e][0] + 1]++, deg[w.edge[e][1]]++;
  for (size_t i = 0; ok && i < n; i++) first[i + 1] += first[i];
  for (size_t e = 0; ok && e < w.n_edge; e++) reader[first[w.edge[e][0]]++] = w.edge[e][1];
  for (size_t i = n; ok && i > 0; i--) first[i] = first[i - 1];
  if (ok) first[0] = 0;
  /* Kahn's order, the lowest key first among the nodes whose operands are all placed */
  for (size_t i = 0; ok && i < n; i++)
    if (!deg[i]) rg_heap_push(heap, &n_heap, (int32_t)i, before, w.key);
  while (ok && n_heap) {
    int32_t e = rg_heap_pop(heap, &n_heap, before, w.key);
    out[n_out++] = ex->node[e];
    for (int32_t r = first[e]; r < first[e + 1]; r++)
      if (!--deg[reader[r]]) rg_heap_push(heap, &n_heap, reader[r], before, w.key);
  }
  if (ok && n_out == n) memcpy(ex->node, out, sizeof *out * n); /* else a cycle through subgraphs' names: as written */
  free(w.key), free(w.edge), free(deg), free(first), free(reader), free(heap), free(out);
  rg_names_free(&made);
  return ok ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}
