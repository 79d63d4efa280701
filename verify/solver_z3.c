/* verify/solver_z3.c: the z3 backend: every query runs in the rulegen-z3 helper (z3's C API:
 * z3_serve.h; its client is solver_helper.c). z3 has no binary mode. */
#include "solver_impl.h"

static const rg_helper_spec z3_helper = {"rulegen-z3", "z3", "RG_Z3_HELPER",
                                         RG_Z3_HELPER_BUILD_PATH};

const rg_solver_backend rg_solver_backend_z3 = {"z3", &z3_helper, NULL, NULL, NULL};
