/* certify/certify.h: the certify module's public header: PET-style partial-equivalence
 * certificates for multilinear programs (PET, OSDI'21), done as the paper says: box
 * propagation with affine index maps (boxes.h), m+1 positions per box over F_p with p = 2^61-1
 * or 2^127-1 (check.h), deterministic versioned certificates (cert.h) re-checked by an auditor that
 * trusts only the programs (audit.h), and generators of PET's partially-equivalent mutants
 * (mutant.h); programs.h reads what a certification starts from, session.h runs one as a
 * program does. */
#ifndef RG_CERTIFY_CERTIFY_H
#define RG_CERTIFY_CERTIFY_H

#include "audit.h"
#include "boxes.h"
#include "cert.h"
#include "check.h"
#include "mutant.h"
#include "pair.h"
#include "programs.h"
#include "session.h"

#endif
