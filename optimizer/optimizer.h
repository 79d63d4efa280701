/* optimizer/optimizer.h: the public header of the graph optimizer module (graphopt's engine), an
 * umbrella over its rooms, each a folder with a public header of its own. From the ground up
 * (a room includes only rooms below it, through their public headers):
 *
 * model/model.h       model graphs: the rule IR plus weights and opaque nodes, shapes, roots
 * proto/proto.h       ONNX's protobuf messages: files, tensors, attributes, names
 * opaque/opaque.h     the ONNX operators outside the rule vocabulary: their types and values
 * eval/eval.h         float64 evaluation, the executor table, tensors in test-data files
 * onnx/onnx.h         ONNX models into model graphs and back
 * cuda/cuda.h         the GPU module: operators timed by cuDNN, cuBLAS and kernels of ours
 * cost/cost.h         cost models (roofline, dnnl, cuda) behind one table, the cache of figures
 * search/search.h     rule application and TASO's cost-based backtracking search
 * eqsat/eqsat.h       equality saturation (TENSAT's) over an e-graph, greedy or ILP extraction
 * pet/pet.h           PET's partially-equivalent rewrites at a model's shapes, with certified
 *                     corrections (graphopt --pet)
 * optimize/optimize.h the optimize job around the search: the rules it may apply (proved), the
 *                     numeric check, the model written
 * report/report.h     what graphopt prints about models, costs, evaluations and searches
 */
#ifndef RG_OPTIMIZER_OPTIMIZER_H
#define RG_OPTIMIZER_OPTIMIZER_H

#include "optimizer/cost/cost.h"
#include "optimizer/eqsat/eqsat.h"
#include "optimizer/eval/eval.h"
#include "optimizer/model/model.h"
#include "optimizer/onnx/onnx.h"
#include "optimizer/opaque/opaque.h"
#include "optimizer/optimize/optimize.h"
#include "optimizer/pet/pet.h"
#include "optimizer/proto/proto.h"
#include "optimizer/report/report.h"
#include "optimizer/search/search.h"

#endif
