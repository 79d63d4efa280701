/* cli/docs_rulesdb.h: the help and option tables of rulesdb's commands (cli/docs_rulesdb.c). */
#ifndef RG_CLI_DOCS_RULESDB_H
#define RG_CLI_DOCS_RULESDB_H

#include "doc.h"

/* rulesdb keygen, verify, sign, migrate, show, diff, export, import, audit. The readers' tables (show, diff,
 * export, audit) share -p/--pub KEY.pub and -U/--allow-unsigned (cli/flags.def). */
extern const rg_cli_doc rg_doc_rulesdb_keygen, rg_doc_rulesdb_verify, rg_doc_rulesdb_sign, rg_doc_rulesdb_migrate,
    rg_doc_rulesdb_show, rg_doc_rulesdb_diff,
    rg_doc_rulesdb_export, rg_doc_rulesdb_import, rg_doc_rulesdb_audit;

#endif
