/* tools/rulesdb_cmds.h: the subcommands of the rulesdb program and what they share. Each
 * command returns the process exit status: 0 success, 1 the check failed (refused signature,
 * regression, audit failure), 2 bad input or a file error; audit uses 3 for "nothing failed,
 * but this build could not re-check everything". */
#ifndef RG_TOOLS_RULESDB_CMDS_H
#define RG_TOOLS_RULESDB_CMDS_H

#include <stdbool.h>

#include "cli.h"
#include "rulesdb/rulesdb.h"

/* name, function, one-line help */
#define RULESDB_COMMANDS(X)                                                                        \
  X("keygen", rdb_keygen, "write an Ed25519 key pair (NAME.key mode 0600, NAME.pub)")              \
  X("verify", rdb_verify, "check a database's signature; name what was tampered with")             \
  X("sign", rdb_sign, "sign a database in place (one made by import, or re-sign with another key)")   \
  X("migrate", rdb_migrate, "rewrite a database of an older schema version in this one (signature kept)") \
  X("show", rdb_show, "list rules (by id prefix, operator or status) and the stage counts")        \
  X("diff", rdb_diff,                                                                              \
    "added / removed / changed rules between two databases; exit 1 on regression")                 \
  X("export", rdb_export, "write rules as TENSAT text, TASO protobuf, JSON lines or Graphviz")     \
  X("import", rdb_import, "read TASO protobuf, TENSAT text or our text into rules or a database")  \
  X("audit", rdb_audit, "re-check a database: signature, records, random tests, statuses")

#define X(name, fn, help) int fn(int argc, char **argv);
RULESDB_COMMANDS(X)
#undef X

/* Progress callback for rg_db_write: a line on stderr now and then; cancels on Ctrl-C. */
int rdb_write_progress(void *user, int64_t done, int64_t total);

/* Reads and verifies a database as every reader must: with the public key, or with
 * allow_unsigned (then a failed verification is a warning on stderr). *verified (may be NULL)
 * tells whether the signature was checked and good. Returns 0, or the exit status to return
 * (1 refused, 2 unreadable) after printing why. */
int rdb_open(const char *prog, const char *path, const char *pub, bool allow_unsigned, rg_db **out,
             bool *verified);

/* A command's help for option c: on stdout for -h (returns 0), else on stderr (returns 2). */
int rdb_usage(const rg_cli_doc *doc, int c, void (*extra)(FILE *out));

#endif
