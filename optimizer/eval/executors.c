/* optimizer/eval/executors.c: the table of ways to run a model (eval.h's rg_executor). Today one: the
 * float64 interpreter of eval.c. Adding one (the CUDA executor in optimizer/cuda/, say) is a new
 * file with its eval_refs function and a row here; callers that pass no executor get row 0. */
#include "eval.h"

#include <string.h>

static const rg_executor executors[] = {
    {"float64", "graphopt's own float64 interpreter on the CPU (the reference)", rg_model_eval_refs},
};

int rg_executor_count(void) { return (int)(sizeof executors / sizeof *executors); }

const rg_executor *rg_executor_get(int i) {
  return i >= 0 && i < rg_executor_count() ? &executors[i] : NULL;
}

const rg_executor *rg_executor_find(const char *name) {
  for (int i = 0; name && i < rg_executor_count(); i++)
    if (!strcmp(executors[i].name, name)) return &executors[i];
  return NULL;
}
