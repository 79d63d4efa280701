/* cli/docs_rulesdb.c: the help and option tables of rulesdb's commands (cli/docs_rulesdb.h), each
 * declared once as data: getopt's tables and --help are built from them. */
#include "docs_rulesdb.h"

#include "verify/verify.h"

/* The rows every database reader's option table has. */
#define RDB_READER_ROWS                                                                            \
  RG_CLI_OPT(PUB, "public key to verify DB with"),                                                 \
      RG_CLI_OPT(ALLOW_UNSIGNED, "read DB even if it is unsigned or fails verification")

static const rg_cli_option keygen_options[] = {
    RG_CLI_OPT_META(OUTPUT, "NAME", "file name prefix (default: rulegen)"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option verify_options[] = {
    RG_CLI_OPT(PUB, "the public key (required)"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option sign_options[] = {
    RG_CLI_OPT(KEY, "the secret key to sign with (required)"),
    RG_CLI_OPT_META(PUB, "OLD.pub", "a signed DB's current key, checked before re-signing (default: KEY's own)"),
    RG_CLI_OPT(VERIFIED_ONLY, "keep only the verified rules, with their proof, test and certificate records (other rules and the pruning records dropped): what an optimizer needs, as graphopt's default set ships"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option migrate_options[] = {
    RG_CLI_HELP_ROW,
};

static const rg_cli_option show_options[] = {
    RG_CLI_OPT(OP, "only rules that use operator OP (e.g. conv2d)"),
    RG_CLI_OPT(STATUS, "only rules of status S (imported unproved tested certified verified)"),
    RG_CLI_OPT(LIST, "every rule, one line each, before the summary"),
    RG_CLI_OPT(CONFIG, "also the generator's configuration"),
    RG_CLI_OPT(PNG, "draw the rule ID-PREFIX names with Graphviz's dot (installed)"),
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option diff_options[] = {
    RG_CLI_OPT(JSON, "write one JSON object (mode, added, removed, changed, counts) to FILE instead of the "
                     "listing; - is standard output"),
    RG_CLI_OPT(LOST, "NEW is a regenerated set: exit 1 when it lost any rule BASE had (whatever its status, "
                     "gone without a pruning record in NEW) or any proof (a rule at a lower status); list "
                     "only those. BASE must verify with --pub"),
    RG_CLI_OPT(LOST_TEXT, "NEW is rule text imported ('rulesdb import --format text'): exit 1 when a rule BASE "
                          "ships (verified, no pruning record in BASE) is not in it; statuses not compared"),
    RG_CLI_OPT(NEW_PUB, "verify NEW with this key instead of --pub (a set the CI job signed with its own key)"),
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option export_options[] = {
    RG_CLI_OPT(FORMAT, "tensat, taso, json or dot (required)"),
    RG_CLI_OPT_META(OUTPUT, "OUT", "output file (json: default standard output); dot: a folder"),
    RG_CLI_OPT(PER_RULE, "dot: the folder (as -o DIR)"),
    RG_CLI_OPT(STATUS, "only rules of this status (e.g. verified)"),
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option import_options[] = {
    RG_CLI_OPT(FORMAT, "taso (rules.proto binary, e.g. graph_subst.pb), tensat (LHS=>RHS per line), "
                       "tensat-multi (consecutive line pairs) or text (ours: ir/text.h)"),
    RG_CLI_OPT_META(OUTPUT, "OUT", "OUT.db: a rule database (status imported); otherwise rule text"),
    RG_CLI_OPT(KEY, "sign the database with this secret key"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option audit_options[] = {
    RG_CLI_OPT(SAMPLE, "audit N rules chosen by --seed (and their records) instead of all"),
    RG_CLI_OPT(SEED, "seed of the sample (default 1)"),
    RG_CLI_OPT(AXIOMS, "axioms the obligations were made from (default: this tree's)"),
    RG_CLI_OPT(ALL_AXIOMS,
               "obligations assert every axiom (default: the configuration's prove.all_axioms, else only the relevant ones)"),
    RG_CLI_OPT(TIMEOUT_MS, "per solver query (default " RG_DEFAULT_TIMEOUT_MS_TEXT ")"),
    RG_CLI_OPT(CVC5, "a cvc5 binary to answer instead of rulegen-cvc5 (cvc5's API)"),
    RG_CLI_OPT(NO_SOLVERS, "do not re-run the solvers (proof records count as not re-checked)"),
    RG_CLI_OPT(DEEP, "also recheck every verified, tested or imported rule at N drawn shape assignments (default 64; as "
                     "rulegen recheck, from its test record's shapes first): one whose sides differ fails"),
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

#define DOC_OPTIONS(table) .options = table, .n_options = RG_CLI_COUNT(table)

const rg_cli_doc rg_doc_rulesdb_keygen = {
    "rulesdb keygen [-o NAME]",
    "Writes a new Ed25519 key pair: NAME.key (secret, mode 0600) and NAME.pub (public;\n"
    "give it to everyone who reads your databases). Never overwrites an existing key.\n",
    DOC_OPTIONS(keygen_options)};

const rg_cli_doc rg_doc_rulesdb_verify = {
    "rulesdb verify DB --pub KEY.pub",
    "Checks DB's signature against the public key: the signed manifest (sorted rule ids\n"
    "and digests of every rule, proof, test, certificate, pruning record, stage count\n"
    "and configuration value) must match the content. Says which records changed.\n",
    DOC_OPTIONS(verify_options),
    .after = "Exit status: 0 good, 1 unsigned / wrong key / bad signature / tampered, 2 error.\n"};

const rg_cli_doc rg_doc_rulesdb_sign = {
    "rulesdb sign DB --key KEY.key [--pub OLD.pub]",
    "Signs DB in place with KEY.key: a database made by 'rulesdb import' without --key, or\n"
    "one to re-sign with another key. A signed DB is re-signed only when its current\n"
    "signature verifies (with OLD.pub, default KEY's own public key), so re-signing never\n"
    "vouches for tampered content. The file is replaced whole or not at all.\n",
    DOC_OPTIONS(sign_options),
    .after = "Exit status: 0 signed, 1 the current signature does not verify, 2 error.\n"};

const rg_cli_doc rg_doc_rulesdb_migrate = {
    "rulesdb migrate DB",
    "Rewrites DB, made by an older rulesdb, in this version's schema (a rule's operators\n"
    "and variable shapes as tables, indexes, the rule_verdicts view). Every reader reads\n"
    "old versions as they are; this upgrades the file for other SQLite readers. The\n"
    "signed content is the same in every version, so the signature is kept as it is.\n",
    DOC_OPTIONS(migrate_options),
    .after = "Exit status: 0 migrated (or already current), 2 error.\n"};

const rg_cli_doc rg_doc_rulesdb_show = {
    "rulesdb show DB [ID-PREFIX [--png OUT.png]] [--op OP] [--status S] [--list] [--config]",
    "Without a filter: a summary of DB: its record counts, its rules by status and by\n"
    "source/target size, and the stage-count table (--list: every rule first). With a\n"
    "filter, only the matching rules (id, status, source/target size, text); ID-PREFIX\n"
    "shows them in full with their proof, test and certificate records. --png OUT.png\n"
    "draws the one rule ID-PREFIX names (Graphviz's dot program must be installed).\n",
    DOC_OPTIONS(show_options)};

const rg_cli_doc rg_doc_rulesdb_diff = {
    "rulesdb diff BASE.db NEW.db (--pub KEY.pub | --allow-unsigned) [--new-pub NEW.pub]\n"
    "             [--lost | --lost-text] [--json FILE]",
    "Lists rules added (+), removed (-) and changed (~: status or evidence) from BASE to\n"
    "NEW, matched by content id. A rule verified or certified in BASE that NEW lost\n"
    "(without a pruning record saying which rules imply it) or downgraded below both is a\n"
    "REGRESSION. Both databases are verified with --pub (NEW with --new-pub if given).\n"
    "--lost guards a regenerated set against its signed reference BASE: every rule BASE\n"
    "had must be in NEW at the same status or higher, or named by a pruning record of NEW;\n"
    "each one that is not is listed with its whole id and text (scripts/ruleset-regress.sh).\n",
    DOC_OPTIONS(diff_options),
    .after = "Exit status: 0 no regression (nothing lost), 1 regression (something lost), 2 error;\n"
             "without --lost a refused signature is 1, with --lost or --lost-text it is 2 (bad input).\n"};

const rg_cli_doc rg_doc_rulesdb_export = {
    "rulesdb export DB --format FMT [-o OUT] [--status S] (--pub KEY.pub | --allow-unsigned)",
    "Writes the rules of DB (verified first) in another format:\n"
    "  tensat  TENSAT's text: single-output rules to OUT, two-output rules as line pairs to\n"
    "          OUT with _multi before the extension; no trailing newline (OUT required)\n"
    "  taso    TASO's rules.proto binary (GraphSubst.RuleCollection) to OUT (required):\n"
    "          each variable an input of its own (opId -1 .. -20 for TASO's 20 inputs by\n"
    "          rulegen's names x1-x3, w1-w13, i1-i3, s0, the others -21, -22, ...); the rules\n"
    "          TASO's rule loader reads (no pools, constants or bias)\n"
    "  json    one JSON object per line (id, status, text, sizes, operators, proofs)\n"
    "  dot     Graphviz, one file per rule: OUT/<id>.dot (source and target side by side,\n"
    "          operand order on edges, input shapes) and OUT/index.txt listing them;\n"
    "          render with dot -Tsvg -O OUT/*.dot, or one with 'rulesdb show --png'\n"
    "Rules a format cannot express are skipped: stderr counts them by reason, then names\n"
    "each with its reason.\n",
    DOC_OPTIONS(export_options)};

const rg_cli_doc rg_doc_rulesdb_import = {
    "rulesdb import --format FMT FILE -o OUT [--key KEY.key]",
    "Reads third-party rules into our text format, so they can be tested, proved and\n"
    "audited. Rules with no counterpart of ours are skipped, each named with the reason.\n",
    DOC_OPTIONS(import_options)};

const rg_cli_doc rg_doc_rulesdb_audit = {
    "rulesdb audit DB --pub KEY.pub [--sample N] [--seed N] [solver options]",
    "Re-checks DB without trusting the machine that wrote it: the signature; every rule's\n"
    "content id and record against its re-parsed text; every random-test record, re-run;\n"
    "every proof record: the obligation regenerated from the rule text must hash as stored,\n"
    "and the solver re-runs it (a stored unsat must come back unsat); every certificate,\n"
    "re-checked against the rule's programs; statuses against the evidence; pruning\n"
    "records against the rules. Parallel (OpenMP). Re-deriving pruned rules is not done\n"
    "(reported as not re-checked, never as passed).\n",
    DOC_OPTIONS(audit_options),
    .after = "Exit status: 0 everything re-checked and passed, 1 a failure, 2 error,\n"
             "3 nothing failed but some records were not re-checked.\n"};
