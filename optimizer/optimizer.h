/* optimizer/optimizer.h: the public header of the graph optimizer module (graphopt's engine).
 *
 * model.h     model graphs: the rule IR plus weights and opaque nodes, shapes, roots, counts
 * import.h    ONNX files into model graphs       export.h   model graphs back into ONNX files
 * opaque.h    the ONNX operators outside the rule vocabulary: their types and values
 * eval.h      float64 evaluation, the executor table, inputs and outputs as test-data files
 * tensor_io.h single tensors in files (ONNX test data), relative differences
 * cost.h      cost models (a table of backends: roofline, dnnl) and sums over a model
 * cost_cache.h the SQLite cache of measured costs
 * proved_rules.h the rules it may apply: a signed database's, or proved through the proof cache
 * apply.h     rule application          search.h   TASO's cost-based backtracking search
 * eqsat.h     equality saturation (TENSAT's), over the e-graph of egraph.h, greedy or ILP extraction
 * numcheck.h  the numeric check         optimize.h the optimize job's steps around the search
 * report.h    what graphopt prints about models, costs, evaluations and searches (into a buffer)
 *
 * names.h, onnx_io.h, egraph.h and the *_internal.h headers are private to optimizer/.
 */
#ifndef RG_OPTIMIZER_OPTIMIZER_H
#define RG_OPTIMIZER_OPTIMIZER_H

#include "apply.h"
#include "cost.h"
#include "cost_cache.h"
#include "eqsat.h"
#include "eval.h"
#include "export.h"
#include "import.h"
#include "model.h"
#include "numcheck.h"
#include "opaque.h"
#include "optimize.h"
#include "proved_rules.h"
#include "report.h"
#include "search.h"
#include "tensor_io.h"

#endif
