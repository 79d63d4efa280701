/* cli/catalog.c: every command's help of every program (cli/catalog.h). */
#include "catalog.h"

#include "docs_graphopt.h"
#include "docs_rulegen.h"
#include "docs_rulesdb.h"

static const rg_cli_doc_entry docs[] = {
    {"rulegen", "synth", &rg_doc_synth, rg_doc_synth_choices},
    {"rulegen", "prove", &rg_doc_prove, NULL},
    {"rulegen", "recheck", &rg_doc_recheck, NULL},
    {"rulegen", "check-axioms", &rg_doc_check_axioms, NULL},
    {"rulegen", "certify", &rg_doc_certify, NULL},
    {"rulegen", "eval", &rg_doc_eval, NULL},
    {"rulegen", "prune", &rg_doc_prune, NULL},
    {"rulegen", "covers", &rg_doc_covers, NULL},
    {"rulesdb", "keygen", &rg_doc_rulesdb_keygen, NULL},
    {"rulesdb", "verify", &rg_doc_rulesdb_verify, NULL},
    {"rulesdb", "sign", &rg_doc_rulesdb_sign, NULL},
    {"rulesdb", "migrate", &rg_doc_rulesdb_migrate, NULL},
    {"rulesdb", "show", &rg_doc_rulesdb_show, NULL},
    {"rulesdb", "diff", &rg_doc_rulesdb_diff, NULL},
    {"rulesdb", "export", &rg_doc_rulesdb_export, NULL},
    {"rulesdb", "import", &rg_doc_rulesdb_import, NULL},
    {"rulesdb", "audit", &rg_doc_rulesdb_audit, NULL},
    {"graphopt", "convert", &rg_doc_graphopt_convert, NULL},
    {"graphopt", "info", &rg_doc_graphopt_info, NULL},
    {"graphopt", "eval", &rg_doc_graphopt_eval, NULL},
    {"graphopt", "cost", &rg_doc_graphopt_cost, NULL},
    {"graphopt", "optimize", &rg_doc_graphopt_optimize, NULL},
};

static const rg_cli_program programs[] = {
    {"rulegen", "synthesize, test, prove and prune rewrite rules for tensor computation graphs", "synth"},
    {"rulesdb", "sign, verify, show, compare, export, import and audit rule databases", NULL},
    {"graphopt", "optimize ONNX models with verified rewrite rules", "optimize"},
};

const rg_cli_doc_entry *rg_cli_all_docs(int *n) {
  *n = RG_CLI_COUNT(docs);
  return docs;
}

const rg_cli_program *rg_cli_programs(int *n) {
  *n = RG_CLI_COUNT(programs);
  return programs;
}
