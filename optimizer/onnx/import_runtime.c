/* optimizer/onnx/import_runtime.c: the nodes onnxruntime's CPU provider does not run, which import
 * refuses (import_internal.h's rg_import_runtime_refuses): graphopt's contract is to read what
 * onnxruntime runs and write back what it runs, so a model onnxruntime cannot open is refused
 * with the reason, not optimized into another model nobody can run. One table, each row a gap
 * in onnxruntime's kernel registrations (onnxruntime 1.30, CPU), probed with one model per
 * operator, version and element type (docs/DESIGN.md has the table):
 *
 *   - an operator's version that opset 7 superseded (Add's `broadcast`, Relu's consumed_inputs,
 *     ...): onnxruntime implements none of them but Reshape's (opaque.h's legacy table);
 *   - Max and Min of int16 or uint16; BitShift of uint16; Pow with an exponent other than
 *     float, double, int32 or int64 (the element types its kernels are registered for);
 *   - GRU, LSTM and RNN with layout 1 (batch first): its kernels refuse them at load;
 *   - the domain ai.onnx.preview.training (Gradient, Adagrad, Adam, Momentum): not in its
 *     inference build;
 *   - StringNormalizer that changes case, where the locale it names (default en_US.UTF-8) is
 *     not installed on this machine: its kernel constructs that locale at load and fails.
 */
#define _POSIX_C_SOURCE 200809L /* newlocale */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "import_internal.h"

/* Operand k's element type as far as it is known (RG_ELEM_UNDEFINED when omitted or unknown). */
static rg_elem operand_elem(const rg_importer *im, const Onnx__NodeProto *n, size_t k) {
  const rg_ival *v = k < n->n_input && n->input[k][0] ? rg_import_get(im, n->input[k]) : NULL;
  if (!v || v->elem != RG_ELEM_UNDEFINED) return v ? v->elem : RG_ELEM_UNDEFINED;
  int32_t var = rg_model_var_of(im->m, v->ref);
  return var >= 0 ? im->m->var[var].elem : RG_ELEM_UNDEFINED;
}

static bool any_operand_of(const rg_importer *im, const Onnx__NodeProto *n, rg_elem a, rg_elem b) {
  for (size_t k = 0; k < n->n_input; k++) {
    rg_elem e = operand_elem(im, n, k);
    if (e == a || e == b) return true;
  }
  return false;
}

static const char *elem_name(rg_elem e) {
  static const char *const names[] = {"undefined", "float", "uint8", "int8",   "uint16",    "int16",
                                      "int32",     "int64", "string", "bool",  "float16",   "double",
                                      "uint32",    "uint64", "complex64", "complex128", "bfloat16"};
  return (unsigned)e < sizeof names / sizeof *names ? names[e] : "another type";
}

/* Whether this machine has the locale a StringNormalizer names (onnxruntime's default on Linux). */
static bool has_locale(const Onnx__NodeProto *n) {
  char name[128];
  locale_t l = newlocale(LC_CTYPE_MASK, rg_onnx_attr_str(n, "locale", name, sizeof name, "en_US.UTF-8"), (locale_t)0);
  if (l) freelocale(l);
  return l != (locale_t)0;
}

static bool is_op(const Onnx__NodeProto *n, const char *op) { return !strcmp(n->op_type ? n->op_type : "", op); }

const char *rg_import_runtime_refuses(const rg_importer *im, const Onnx__NodeProto *n, char *why, size_t len) {
  const char *dom = n->domain ? n->domain : "";
  if (!strcmp(dom, "ai.onnx.preview.training"))
    return snprintf(why, len, "the domain ai.onnx.preview.training, which onnxruntime's inference build does not "
                              "register: graphopt reads only what onnxruntime runs"), why;
  if (dom[0] && strcmp(dom, "ai.onnx")) return NULL;
  bool ort_runs = false, defined = true;
  int64_t since = rg_opaque_legacy_since(n, im->opset, &ort_runs, &defined);
  if (since && !defined)
    return snprintf(why, len, "%s, an operator ONNX defines from opset %lld on, at the model's opset %lld: no runtime "
                    "has it there (convert the model to opset %lld or later with onnx.version_converter)", n->op_type,
                    (long long)since, (long long)im->opset, (long long)since), why;
  if (since && !ort_runs)
    return snprintf(why, len, "the model's opset %lld reads a version of %s that opset %lld superseded, which "
                    "onnxruntime's CPU provider does not implement (convert the model to opset 7 or later with "
                    "onnx.version_converter)", (long long)im->opset, n->op_type, (long long)since), why;
  rg_elem e0 = operand_elem(im, n, 0), e1 = operand_elem(im, n, 1);
  if ((is_op(n, "Max") || is_op(n, "Min")) && any_operand_of(im, n, RG_ELEM_INT16, RG_ELEM_UINT16))
    return snprintf(why, len, "%s of int16 or uint16, which onnxruntime's CPU provider does not implement (cast to "
                    "int32)", n->op_type), why;
  if (is_op(n, "BitShift") && e0 == RG_ELEM_UINT16)
    return snprintf(why, len, "BitShift of uint16, which onnxruntime's CPU provider does not implement (uint8, uint32 "
                    "and uint64 only)"), why;
  if (is_op(n, "Pow") && e1 != RG_ELEM_UNDEFINED && e1 != RG_ELEM_FLOAT && e1 != RG_ELEM_DOUBLE &&
      e1 != RG_ELEM_INT32 && e1 != RG_ELEM_INT64)
    return snprintf(why, len, "Pow with an exponent of %s, which onnxruntime's CPU provider does not implement "
                    "(float, double, int32 and int64 only)", elem_name(e1)), why;
  if ((is_op(n, "GRU") || is_op(n, "LSTM") || is_op(n, "RNN")) && rg_onnx_attr_int(n, "layout", 0) == 1)
    return snprintf(why, len, "%s with layout 1 (batch first), which onnxruntime's CPU provider does not implement",
                    n->op_type), why;
  /* the locale serves changing case and comparing stopwords without case (is_case_sensitive 0) */
  char action[16];
  const Onnx__AttributeProto *stop = rg_onnx_attr(n, "stopwords");
  bool cased = strcmp(rg_onnx_attr_str(n, "case_change_action", action, sizeof action, "NONE"), "NONE") ||
               (!rg_onnx_attr_int(n, "is_case_sensitive", 0) && stop && stop->n_strings);
  if (is_op(n, "StringNormalizer") && cased && !has_locale(n))
    return snprintf(why, len, "StringNormalizer changing or ignoring case in a locale this machine lacks, which "
                    "onnxruntime constructs when it loads the model and fails (install the locale, e.g. "
                    "en_US.UTF-8)"), why;
  return NULL;
}
