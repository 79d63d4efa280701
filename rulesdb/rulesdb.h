/* rulesdb/rulesdb.h: the public header of the rule database module.
 *
 * A rule database is SQLite plus an Ed25519 signature over a canonical manifest of its content.
 * records.h   the content in memory (rules, proofs, tests, certificates, pruning, stages, config)
 * contentid.h content ids of rules, digests
 * manifest.h  the canonical manifest that is signed
 * sign.h      keys, signing, verifying (naming what failed)
 * store.h     atomic writes, reading with clear errors, rg_db_open = read + verify
 * diff.h      comparing two databases for CI
 * exchange.h  export (TENSAT text, TASO protobuf, DOT) and import (TASO, TENSAT)
 * dbexchange.h a database's rules chosen, exported (JSON lines and the above), imported
 * audit.h     re-checking records, random tests, proofs (solvers), certificates, statuses
 * proofrec.h  proof records from verify/'s results
 * sqlite_util.h the SQLite plumbing (opening, identifying a file, quick_check, one-value pragmas,
 *             binding and running statements, walking rows) the store and other modules' SQLite
 *             files (optimizer/'s cost cache) share
 */
#ifndef RG_RULESDB_RULESDB_H
#define RG_RULESDB_RULESDB_H

#include "audit.h"
#include "contentid.h"
#include "dbexchange.h"
#include "diff.h"
#include "exchange.h"
#include "manifest.h"
#include "proofrec.h"
#include "records.h"
#include "sign.h"
#include "sqlite_util.h"
#include "store.h"

#endif
