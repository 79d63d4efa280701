/* verify/verify.h: the public header of the verify module: axioms (axioms.h) and their random
 * checks (axcheck.h), the SMT encoder (smt.h), the solver backends (solver.h) and the proof
 * stage (prove.h), the deep recheck (recheck.h), these stages over files (filerun.h), and the
 * solver helper programs' main (helper.h). */
#ifndef RG_VERIFY_VERIFY_H
#define RG_VERIFY_VERIFY_H

#include "axcheck.h"
#include "axioms.h"
#include "filerun.h"
#include "helper.h"
#include "prove.h"
#include "recheck.h"
#include "smt.h"
#include "solver.h"

#endif
