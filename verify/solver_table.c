/* verify/solver_table.c: the table of solver backends (solvers.def), and the names and lookups
 * every user of a solver kind goes through, so that no code outside a backend's own file names a
 * solver. */
#include <string.h>

#include "solver_impl.h"

static const rg_solver_backend *const backends[RG_SOLVER_COUNT] = {
#define RG_SOLVER(ID, name) &rg_solver_backend_##name,
#include "solvers.def"
#undef RG_SOLVER
};

const rg_solver_backend *rg_solver_backend_of(rg_solver_kind kind) {
  return (int)kind >= 0 && kind < RG_SOLVER_COUNT ? backends[kind] : NULL;
}

const char *rg_solver_kind_name(rg_solver_kind kind) {
  const rg_solver_backend *b = rg_solver_backend_of(kind);
  return b ? b->name : "?";
}

int rg_solver_kind_of(const char *name) {
  for (int k = 0; k < RG_SOLVER_COUNT; k++)
    if (!strcmp(name, backends[k]->name)) return k;
  return -1;
}
