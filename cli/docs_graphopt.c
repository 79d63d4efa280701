/* cli/docs_graphopt.c: the help and option tables of graphopt's commands (cli/docs_graphopt.h), each
 * declared once as data: getopt's tables and --help are built from them. */
#include "docs_graphopt.h"

/* Rows every command's table ends with. */
#define GRAPHOPT_DIM_OPTION {"dim", 'd', 1, "NAME=N", "value of a named (dynamic) input dimension; repeatable"}

static const rg_cli_option convert_options[] = {
    {"output", 'o', 1, "OUT.onnx", "where to write the model (required for convert)"},
    GRAPHOPT_DIM_OPTION,
    {"quiet", 'q', 0, "", "print only errors"},
    RG_CLI_HELP_ROW,
};

static const rg_cli_option eval_options[] = {
    {"compare", 'c', 1, "OTHER.onnx", "also evaluate OTHER on the same inputs and print how far each output of IN is from OTHER's"},
    {"inputs", 'i', 1, "DIR", "read the inputs from DIR/input_0.pb, input_1.pb, ... (ONNX test data)"},
    {"expect", 'e', 1, "DIR", "compare the outputs with DIR/output_0.pb, output_1.pb, ..."},
    {"save", 'w', 1, "DIR", "write the inputs and outputs there as input_K.pb and output_K.pb"},
    {"seed", 'S', 1, "N", "seed of the drawn inputs (default 1)"},
    {"int-max", 'I', 1, "N", "int64 inputs are drawn from [0, N) (default 100)"},
    {"tolerance", 't', 1, "T", "largest relative difference that counts as equal (default 1e-4)"},
    GRAPHOPT_DIM_OPTION,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option cost_options[] = {
    {"cost", 'c', 1, "NAME", "the cost model (below; default: the first)"},
    {"machine", 'm', 1, "FILE", "the roofline's machine figures (default: optimizer/machines/cpu-default.txt)"},
    {"cache", 'C', 1, "PATH", "dnnl's SQLite cache of timings (default: $XDG_CACHE_HOME/rulegen/costs.sqlite)"},
    {"no-cache", 'N', 0, "", "time every configuration, remember nothing"},
    GRAPHOPT_DIM_OPTION,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option optimize_options[] = {
    {"rules", 'r', 1, "FILE", "the rules: a signed database (.db) or rule text (required)"},
    {"pub", 'p', 1, "KEY.pub", "verify the database's signature with this key"},
    {"allow-unsigned", 'U', 0, "", "use a database whose signature is missing or not checked"},
    {"output", 'o', 1, "OUT.onnx", "write the optimized model here (required)"},
    {"cost", 'c', 1, "NAME", "the cost model (below; default: the first)"},
    {"machine", 'M', 1, "FILE", "the roofline's machine figures (default optimizer/machines/)"},
    {"cache", 'C', 1, "PATH", "dnnl's cost cache (default ~/.cache/rulegen/costs.sqlite)"},
    {"no-cache", 'N', 0, "", "dnnl: time every configuration, keep nothing"},
    {"search", RG_CLI_LONG_ONLY('s'), 1, "NAME", "backtrack (TASO's search, default) or eqsat (equality saturation, TENSAT's)"},
    {"alpha", 'a', 1, "A", "backtrack: queue models cheaper than A x the best (default 1.05; 1 is greedy)"},
    {"budget", 'b', 1, "N", "models explored at most (default 1000)"},
    {"time-limit", 'T', 1, "S", "seconds of search (eqsat: of exploration) at most (default 10, 0 none)"},
    {"extract", RG_CLI_LONG_ONLY('x'), 1, "HOW", "eqsat: ilp (optimal, CBC; default) or greedy"},
    {"max-enodes", RG_CLI_LONG_ONLY('E'), 1, "N", "eqsat: stop exploring past N e-nodes (default 50000)"},
    {"iterations", RG_CLI_LONG_ONLY('I'), 1, "N", "eqsat: iterations at most (default 15)"},
    {"multi-rounds", RG_CLI_LONG_ONLY('k'), 1, "N", "eqsat: iterations applying multi-output rules (default 1)"},
    {"ilp-time-limit", RG_CLI_LONG_ONLY('L'), 1, "S", "eqsat: seconds for the ILP solver (default 60, 0 none)"},
    {"seed", 'S', 1, "N", "seed of the numeric check's inputs (default 1)"},
    {"tolerance", 't', 1, "T", "largest relative difference the check allows (default 1e-4)"},
    {"explain", 'e', 0, "", "print each rule applied: id, text, where, cost before and after"},
    GRAPHOPT_DIM_OPTION,
    {"quiet", 'q', 0, "", "no progress on standard error"},
    RG_CLI_HELP_ROW,
};

#define DOC_OPTIONS(table) .options = table, .n_options = RG_CLI_COUNT(table)

#define IMPORT_EXIT "exit status: 0 done, 2 bad input (the message names the file, node and operator)\n"
const rg_cli_doc rg_doc_graphopt_convert = {
    "graphopt convert IN.onnx -o OUT.onnx [options]",
    "Imports an ONNX model (opsets 11 to 17) into a model graph and exports it again, applying\n"
    "no rules: a model that computes what IN computes, with its inputs, outputs and opset.\n"
    "Operators of the rule vocabulary become graph nodes; the rest stay opaque nodes, written\n"
    "back unchanged. Prints what the model holds and the import and export times.\n",
    DOC_OPTIONS(convert_options), .name_w = 7, .meta_w = 9, .after = IMPORT_EXIT};
const rg_cli_doc rg_doc_graphopt_info = {
    "graphopt info IN.onnx [options]",
    "Imports an ONNX model and prints what it becomes: inputs, outputs, operators of the rule\n"
    "vocabulary, opaque nodes by operator, weights.\n",
    .options = convert_options + 1, .n_options = RG_CLI_COUNT(convert_options) - 1, /* no -o */
    .name_w = 7, .meta_w = 9, .after = IMPORT_EXIT};

const rg_cli_doc rg_doc_graphopt_eval = {
    "graphopt eval IN.onnx [options]",
    "Evaluates a model in float64 (graphopt's own interpreter: no outside runtime) and prints\n"
    "each output's shape and checksum (sum and sum of magnitudes). Inputs are drawn from a seeded\n"
    "generator, the same as models/ort_run.js --seed draws, or read with --inputs. With\n"
    "--compare or --expect it prints each output's largest relative difference: max |a - b| over\n"
    "max |b|, b the reference.\n",
    DOC_OPTIONS(eval_options), .name_w = 9, .meta_w = 10,
    .after = "example:\n  graphopt eval model.onnx --compare model.opt.onnx\n"
             "exit status: 0 done (and equal within the tolerance), 1 an output differs, 2 bad input\n"};

const rg_cli_doc rg_doc_graphopt_cost = {
    "graphopt cost IN.onnx [options]",
    "Prints what a model's operators of the rule vocabulary cost by a cost model, in\n"
    "microseconds: each operator's nodes and their cost, and the total. Weight-only nodes cost\n"
    "nothing (export folds them); opaque nodes are not counted (every rewrite keeps them).\n"
    "dnnl times each distinct configuration once and keeps it in its cache, so a second run\n"
    "times nothing.\n",
    DOC_OPTIONS(cost_options), .name_w = 9, .meta_w = 7,
    .after = "exit status: 0 done, 2 bad input or arguments\n"};

const rg_cli_doc rg_doc_graphopt_optimize = {
    "graphopt optimize IN.onnx --rules RULES -o OUT.onnx [options]\n"
    "       graphopt --rules RULES IN.onnx -o OUT.onnx [options]",
    "Rewrites a model with verified rules (both ways round) by TASO's cost-based backtracking\n"
    "search: the cheapest model first, every rule everywhere, models within --alpha of the best\n"
    "kept, at most twice the original's operators. Or (--search eqsat) by equality saturation:\n"
    "every rule applied everywhere in an e-graph, then the cheapest model it holds extracted (an\n"
    "ILP solved by CBC, or greedily). A rule applies only where its other side\n"
    "type-checks at the model's shapes with the same output shapes. Before writing, the\n"
    "optimized model is evaluated against the original on seeded random inputs; if they\n"
    "differ, nothing is written and the first rule application after which they differ is\n"
    "named. When no rule makes the model cheaper, OUT is a copy of IN. Only the database's\n"
    "verified rules are used (certified ones need corrections). Ctrl-C stops the search and\n"
    "keeps the best model found so far.\n",
    DOC_OPTIONS(optimize_options), .name_w = 14, .meta_w = 9,
    .after = "example:\n  graphopt --rules rules.db --pub rules.pub resnext50.onnx -o resnext50.opt.onnx\n"
             "exit status: 0 written (also when no rule helps), 1 the numeric check failed (nothing\n"
             "written), 2 bad input or arguments\n"};
