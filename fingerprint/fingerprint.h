/* fingerprint/fingerprint.h: the public header of the fingerprint stage: Z_p fingerprints of
 * enumerated graphs (seeded inputs and keyed functions), the bounded record table, records
 * spilled to disk for runs that outgrow memory or must resume, buckets. */
#ifndef RG_FINGERPRINT_FINGERPRINT_H
#define RG_FINGERPRINT_FINGERPRINT_H

#include "collect.h"
#include "hash.h"
#include "kernels.h"
#include "opeval.h"
#include "spill.h"
#include "table.h"

#endif
