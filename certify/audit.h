/* certify/audit.h: re-checking a certificate, trusting nothing but the two programs.
 *
 * The auditor hashes the programs it is given, re-derives the seed, the cuts and boxes, every
 * input value and every evaluation (box mode, from scratch), and compares each with the
 * certificate; it checks that each NEQ box lies inside a correction region and re-computes the
 * bound. Any difference rejects the certificate with the first reason found.
 */
#ifndef RG_CERTIFY_AUDIT_H
#define RG_CERTIFY_AUDIT_H

#include "cert.h"

typedef struct {
  bool valid;
  char why[512]; /* the first reason for rejection, when !valid */
  int64_t boxes, evaluations;
} rg_audit;

/* Audits c against the pair (built from the programs the auditor trusts), re-evaluating in the
 * certificate's field (2^61-1 or 2^127-1; any other p rejects it). hooks (may be NULL) give
 * cancellation and progress for the re-evaluation. A rejected certificate is RG_OK with
 * a->valid false; errors are only for what stops the audit itself (memory, interruption). */
rg_status rg_cert_audit(const rg_cert *c, const rg_pet_pair *pp, const rg_pet_hooks *hooks, rg_audit *a,
                        rg_err *err) RG_MUST_CHECK;

#endif
