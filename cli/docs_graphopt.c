/* cli/docs_graphopt.c: the help and option tables of graphopt's commands (cli/docs_graphopt.h), each
 * declared once as data: getopt's tables and --help are built from them. */
#include "docs_graphopt.h"

/* The row every command's table has. */
#define GRAPHOPT_DIM_OPTION                                                                                      \
  RG_CLI_OPT(DIM, "value to import a symbolic input dimension (dim_param) at, one --dim per name (without it: " \
                  "1, said); the model written keeps it symbolic")
#define GRAPHOPT_MACHINE_HELP \
  "the roofline's machine figures: a file, or a shipped machine by name (cpu-default, the "    \
  "default; gpu-h100)"

#define GRAPHOPT_EXTERNAL_OPTIONS                                                                                       \
  RG_CLI_OPT(EXTERNAL_DATA, "write the weights to a side file NAME next to OUT (default OUT.data); without this, "     \
                            "they go outside only where IN kept them outside or OUT would pass 2 GiB"),                \
      RG_CLI_OPT(NO_EXTERNAL_DATA, "keep every weight inside OUT (an error past protobuf's 2 GiB)"),                  \
      RG_CLI_OPT(EXTERNAL_THRESHOLD, "weights of fewer bytes stay inside OUT (default 1024; 0: none, as onnx's size_threshold)")

static const rg_cli_option convert_options[] = {
    RG_CLI_OPT_META(OUTPUT, "OUT.onnx", "where to write the model (required for convert)"),
    GRAPHOPT_DIM_OPTION,
    RG_CLI_OPT(QUIET, "print only errors"),
    RG_CLI_OPT(FORCE, "let -o name the input model and the side file written the input's (replacing them)"),
    GRAPHOPT_EXTERNAL_OPTIONS,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option info_options[] = {
    GRAPHOPT_DIM_OPTION,
    RG_CLI_OPT(QUIET, "print only errors"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option eval_options[] = {
    RG_CLI_OPT(COMPARE, "also evaluate OTHER on the same inputs and print how far each output of IN is from OTHER's"),
    RG_CLI_OPT_META(INPUTS, "DIR", "read the inputs from DIR/input_0.pb, input_1.pb, ... (ONNX test data)"),
    RG_CLI_OPT(EXPECT, "compare the outputs with DIR/output_0.pb, output_1.pb, ..."),
    RG_CLI_OPT(SAVE, "write the inputs and outputs there as input_K.pb and output_K.pb"),
    RG_CLI_OPT(SEED, "seed of the drawn inputs (default 1)"),
    RG_CLI_OPT(INT_MAX, "int64 inputs are drawn from [0, N) (default 100)"),
    RG_CLI_OPT(TOLERANCE, "largest relative difference that counts as equal (default 1e-4)"),
    GRAPHOPT_DIM_OPTION,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option cost_options[] = {
    RG_CLI_OPT(COST, "the cost model (below; default: the first)"),
    RG_CLI_OPT(MACHINE, GRAPHOPT_MACHINE_HELP),
    RG_CLI_OPT(CACHE, "dnnl's, cuda's and ort's SQLite cache of timings (default: $XDG_CACHE_HOME/rulegen/costs.sqlite)"),
    RG_CLI_OPT(NO_CACHE, "time every configuration, remember nothing"),
    GRAPHOPT_DIM_OPTION,
    RG_CLI_HELP_ROW,
};

static const rg_cli_option optimize_options[] = {
    RG_CLI_OPT(RULES, "the rules: a signed database (.db) or rule text (default: the default set, below)"),
    RG_CLI_OPT(PUB, "verify the database's signature with this key"),
    RG_CLI_OPT(ALLOW_UNSIGNED, "use a database whose signature is missing or not checked (its rules are then proved)"),
    RG_CLI_OPT(UNPROVED_RULES, "apply rules without proving them (rule text, unsigned databases); every report warns"),
    RG_CLI_OPT(PROOF_CACHE, "keep and reuse proofs here (default $RULEGEN_PROOF_CACHE, else ~/.cache/rulegen/proofs)"),
    RG_CLI_OPT(NO_PROOF_CACHE, "prove every rule again and keep nothing"),
    RG_CLI_OPT(AXIOMS, "prove rules from these axioms (default: the installed axioms.rules)"),
    RG_CLI_OPT_META(OUTPUT, "OUT.onnx", "write the optimized model here (required)"),
    RG_CLI_OPT(FORCE, "let -o name the input model or the rules, the side file written the input's (replacing them)"),
    GRAPHOPT_EXTERNAL_OPTIONS,
    RG_CLI_OPT(COST, "the cost model (below; default: the first)"),
    RG_CLI_OPT(MACHINE, GRAPHOPT_MACHINE_HELP),
    RG_CLI_OPT(CACHE, "dnnl's, cuda's and ort's cost cache (default ~/.cache/rulegen/costs.sqlite)"),
    RG_CLI_OPT(NO_CACHE, "dnnl, cuda, ort: time every configuration, keep nothing"),
    RG_CLI_OPT(GUARD, "time the optimized model and the original in onnxruntime; write the optimized one only if it "
                      "is faster beyond the noise (the default with this CPU's costs: not --cost cuda nor another "
                      "--machine; $GRAPHOPT_GUARD=on, off or auto sets the default)"),
    RG_CLI_OPT(NO_GUARD, "write the optimized model without timing it (the default with --cost cuda or another "
                         "--machine)"),
    RG_CLI_OPT(SEARCH, "eqsat (equality saturation, TENSAT's; default) or backtrack (TASO's search)"),
    RG_CLI_OPT(ALPHA, "backtrack: queue models cheaper than A x the best (default 1.05; 1 is greedy)"),
    RG_CLI_OPT(BUDGET, "backtrack: models explored at most (default 1000)"),
    RG_CLI_OPT(TIME_LIMIT, "seconds of search (eqsat: of exploration) at most (default 10, 0 none)"),
    RG_CLI_OPT(EXTRACT, "eqsat: greedy (and local moves; default) or ilp (then CBC's ILP, kept if cheaper)"),
    RG_CLI_OPT(MAX_ENODES, "eqsat: stop exploring past N e-nodes (default 200000)"),
    RG_CLI_OPT(ITERATIONS, "eqsat: iterations at most (default 15)"),
    RG_CLI_OPT(MULTI_ROUNDS, "eqsat: iterations applying multi-output rules (default 2: a merge, then the bias through its split; more rounds merge more branches, within --max-enodes); a rule whose outputs share no variable is not applied there"),
    RG_CLI_OPT(ILP_TIME_LIMIT, "eqsat: seconds for the ILP solver (default 10, 0 none)"),
    RG_CLI_OPT(MEM_LIMIT, "memory the search may take, e.g. 512M, 4G (default 1/2 of RAM); then it stops and keeps its best"),
    RG_CLI_OPT(SEED, "seed of the numeric check's inputs (default 1)"),
    RG_CLI_OPT(TOLERANCE, "largest relative difference the check allows (default 1e-4)"),
    RG_CLI_OPT(PET, "also offer PET's partially-equivalent rewrites at the model's convolutions (fig1, dilated, fold, "
                    "merged) and pairs of products (mmrows, mmcols), each with its correction, certified at the model's shapes (off by default; a candidate "
                    "certified in more than 10 s is refused; Ctrl-C while certifying writes nothing; backtrack's 2x "
                    "growth bound keeps them out of models of a few operators)"),
    RG_CLI_OPT(CERTS, "write each PET rewrite's certificates and programs into this folder, for `rulegen certify check` "
                      "(implies --pet)"),
    RG_CLI_OPT(EXPLAIN, "print each rule applied (eqsat: each whose target the model uses): id, text, where, cost"),
    RG_CLI_OPT(JSON, "also write costs, rules applied, counts and time as JSON"),
    GRAPHOPT_DIM_OPTION,
    RG_CLI_OPT(QUIET, "no progress on standard error"),
    RG_CLI_HELP_ROW,
};

#define DOC_OPTIONS(table) .options = table, .n_options = RG_CLI_COUNT(table)

#define IMPORT_EXIT "exit status: 0 done, 2 bad input (the message names the file, node and operator)\n"
const rg_cli_doc rg_doc_graphopt_convert = {
    "graphopt convert IN.onnx -o OUT.onnx [options]",
    "Imports an ONNX model (opsets 1 to 21) into a model graph and exports it again, applying\n"
    "no rules: a model that computes what IN computes, with its inputs, outputs and opset.\n"
    "Operators of the rule vocabulary become graph nodes; the rest stay opaque nodes, written\n"
    "back unchanged. Prints what the model holds and the import and export times.\n"
    "Symbolic input dimensions (dim_param, or neither value nor name) are imported at --dim's\n"
    "values, else at 1, and written back symbolic, with the shape plumbing and the Reshape and\n"
    "Slice arguments read; the model written is read again at two other values of them and\n"
    "must compute IN's outputs there (else nothing is written, exit status 2).\n",
    DOC_OPTIONS(convert_options), .after = IMPORT_EXIT};
const rg_cli_doc rg_doc_graphopt_info = {
    "graphopt info IN.onnx [options]",
    "Imports an ONNX model and prints what it becomes: inputs, outputs, operators of the rule\n"
    "vocabulary, opaque nodes by operator, weights.\n",
    DOC_OPTIONS(info_options), .after = IMPORT_EXIT};

const rg_cli_doc rg_doc_graphopt_eval = {
    "graphopt eval IN.onnx [options]",
    "Evaluates a model in float64 (graphopt's own interpreter: no outside runtime) and prints\n"
    "each output's shape and checksum (sum and sum of magnitudes). Inputs are drawn from a seeded\n"
    "generator, the same as models/ort_run.js --seed draws, or read with --inputs. With\n"
    "--compare or --expect it prints each output's largest relative difference: max |a - b| over\n"
    "max |b|, b the reference.\n",
    DOC_OPTIONS(eval_options),
    .after = "example:\n  graphopt eval model.onnx --compare model.opt.onnx\n"
             "exit status: 0 done (and equal within the tolerance), 1 an output differs, 2 bad input\n"};

const rg_cli_doc rg_doc_graphopt_cost = {
    "graphopt cost IN.onnx [options]",
    "Prints what a model's operators of the rule vocabulary cost by a cost model, in\n"
    "microseconds: each operator's nodes and their cost, and the total. Weight-only nodes cost\n"
    "nothing (export folds them); opaque nodes are not counted (every rewrite keeps them).\n"
    "dnnl (CPU), cuda (GPU) and ort (onnxruntime on the CPU, in a node helper process:\n"
    "models/ort_cost_server.js, or $RG_ORT_HELPER) time each distinct configuration once and\n"
    "keep it in their cache, so a second run times nothing. cuda with no GPU to see (or a\n"
    "graphopt built without CUDA), and ort without node and onnxruntime-node, are errors, exit\n"
    "status 2.\n",
    DOC_OPTIONS(cost_options),
    .after = "exit status: 0 done, 2 bad input or arguments\n"};

const rg_cli_doc rg_doc_graphopt_optimize = {
    "graphopt optimize IN.onnx [--rules RULES] -o OUT.onnx [options]\n"
    "       graphopt [--rules RULES] IN.onnx -o OUT.onnx [options]",
    "Rewrites a model with verified rules (both ways round) by equality saturation: every rule\n"
    "applied everywhere in an e-graph, then the cheapest model it holds extracted (greedily,\n"
    "then improved by local moves priced as models are; --extract ilp also solves TENSAT's ILP\n"
    "with CBC from there). Or (--search backtrack) by TASO's cost-based backtracking search:\n"
    "the cheapest model first, every rule everywhere, models within --alpha of the best kept,\n"
    "at most twice the original's operators. On the model zoo equality saturation finds models\n"
    "as cheap or cheaper in less time (bench/README.md). A rule applies only where its other side\n"
    "type-checks at the model's shapes with the same output shapes.\n"
    "Only proved rules are applied: a signed database's verified ones (checked with --pub), or\n"
    "rules that z3 and cvc5 prove here from the axioms before the search, as rulegen prove\n"
    "does, through a proof cache so that no rule is proved twice; a rule they do not prove is\n"
    "named and left out (--unproved-rules applies it anyway, and every report says so).\n"
    "Before writing, the optimized model is evaluated against the original on seeded random\n"
    "inputs at several scales (and each rewritten value against the one it replaced); if they\n"
    "differ, nothing is written and the first rule application after which they differ is\n"
    "named. Where graphopt cannot evaluate the whole model (an operator, element type or\n"
    "subgraph it does not run), each rewritten region is checked alone, the float values that\n"
    "opaque nodes make drawn at random, and the report says \"regions only\" and why.\n"
    "A model with symbolic input dimensions is optimized at --dim's values (else 1) and\n"
    "written with them symbolic; it is read again at two other values of them and must compute\n"
    "IN's outputs there too: a rule whose rewrites hold only at the values imported is dropped\n"
    "(said) and the search run again without it.\n"
    "Then (the measured guard, by default where the costs are this CPU's) the optimized model\n"
    "and IN are timed in onnxruntime in interleaved pairs, and OUT is the optimized model only\n"
    "if it is faster beyond the noise those pairs show; otherwise it is a copy of IN, said with\n"
    "both latencies. Without node and onnxruntime-node the optimized model is written\n"
    "unmeasured, said (--guard makes that an error).\n"
    "When no rule makes the model cheaper, OUT is a copy of IN. Ctrl-C (CBC's ILP too),\n"
    "--mem-limit and running out of memory stop the search; it keeps the best model found so far\n"
    "and says why it stopped. Outputs are checked before any work: -o and --json\n"
    "must differ, neither may name a file the run reads (the input, the rules, the default set,\n"
    "its key, the axioms) unless --force, devices and FIFOs are written in place, a symbolic\n"
    "link's target is written, a read-only file is refused.\n",
    DOC_OPTIONS(optimize_options),
    .after = "default rules: the signed database rules/default.db installed with graphopt\n"
             "(PREFIX/share/rulegen/), checked with its key rules/default.pub: made by\n"
             "`rulegen --ops taso,bias --depth 3` (scripts/default-rules.sh)\n"
             "examples:\n  graphopt resnext50.onnx -o resnext50.opt.onnx\n"
             "  graphopt --rules rules.db --pub rules.pub resnext50.onnx -o resnext50.opt.onnx\n"
             "exit status: 0 written (also when no rule helps), 1 the numeric check failed, 2 bad\n"
             "input or arguments, or a guard asked for that cannot time the models, 130 interrupted\n"
             "(1, 2, 130: nothing written, --json's report neither), 3 the model was written but\n"
             "the --json report could not be written\n"};
