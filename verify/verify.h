/* verify/verify.h: the public header of the verify module: axioms (axioms.h) and their random
 * checks (axcheck.h), the SMT encoder (smt.h), the solver backends (solver.h) and the proof
 * stage (prove.h) and its cache of proofs (proofcache.h; the passes of the axiom test, the
 * comparisons at shape sets and the recheck kept there: proofcache_checks.h), the deep recheck (recheck.h), these stages over files (filerun.h) and their
 * results as text (report.h), a rule's sides compared as `rulegen eval` shows it (sides.h), and
 * the random testing of candidates (randtest.h, its verdict cache randtest_cache.h), their
 * generalization (generalize.h), the solver helper programs' main (helper.h), and the child
 * processes they run in (child.h: optimizer/'s onnxruntime helper runs in one too). */
#ifndef RG_VERIFY_VERIFY_H
#define RG_VERIFY_VERIFY_H

#include "axcheck.h"
#include "axioms.h"
#include "child.h"
#include "filerun.h"
#include "generalize.h"
#include "helper.h"
#include "journal.h"
#include "proofcache.h"
#include "proofcache_checks.h"
#include "prove.h"
#include "randtest.h"
#include "randtest_cache.h"
#include "recheck.h"
#include "report.h"
#include "sides.h"
#include "smt.h"
#include "timeout.h"
#include "solver.h"

#endif
