/* cli/docs_rulegen.c: the help and option tables of rulegen's commands (cli/docs_rulegen.h),
 * each declared once: getopt's tables and --help are built from them. */
#include "docs_rulegen.h"

#include "enumerate/enumerate.h"
#include "verify/verify.h"

/* The derivation-search limits `rulegen prune` and `rulegen covers` share. */
#define DERIVE_LIMIT_ROWS                                                                          \
  RG_CLI_OPT(STEPS, "derivation search: longest derivation per output"),                           \
      RG_CLI_OPT(STATES, "derivation search: terms visited per output"),                           \
      RG_CLI_OPT(GROWTH, "derivation search: operators a term may grow by")

/* The seed and threads of recheck's and check-axioms' draws. */
#define SEED_THREADS_ROWS                                                                          \
  RG_CLI_OPT(SEED, "seed of shapes, inputs and keyed functions (default 1)"),                      \
      RG_CLI_OPT(THREADS, "OpenMP threads (default: all)")

static const rg_cli_option synth_options[] = {
    RG_CLI_OPT(OPS, "operators: names and the groups all, taso; e.g. taso,bias (default taso)"),
    RG_CLI_OPT(DEPTH, "graphs of at most N operators, 1..4 (default 3); split.0 and split.1 of one tensor are one split"),
    RG_CLI_OPT(INPUTS, "input set, one 'NAME DIMS' per line, seams as in 2x8[4] (default TASO's 20 inputs; with --ops bias also b1, b2 of size 4, and with split too xs 2x8[4], is 2x8[4]x5x5)"),
    RG_CLI_OPT(OUTPUT, "write the rules here: rule text, or a signed rule database when FILE ends in .db (default: rule text on standard output)"),
    RG_CLI_OPT(STOP_AFTER, "enumerate, fingerprint, test (candidates), prune (the rules sent to the solvers), prove or all (default all: derivability over the proved rules last)"),
    RG_CLI_OPT(PRUNE, "pruning stages before the proofs: renaming,subgraph,supergraph,derive, all or none (default all; a rule they remove goes back if a rule implying it fails its proof; derive also runs last)"),
    RG_CLI_OPT(REQUIRE, "which solvers must prove a rule: both (default) or any"),
    RG_CLI_OPT(TIMEOUT_MS, "per solver and obligation (default " RG_DEFAULT_TIMEOUT_MS_TEXT ")"),
    RG_CLI_OPT(FAIL_FAST, "ask cvc5 only what z3 proved, given only the axioms of z3's unsat core (the default under --require both, where a rule z3 does not prove fails anyway: the same rules, about half the proof stage's time; cvc5-only proofs not sought)"),
    RG_CLI_OPT(NO_FAIL_FAST, "ask cvc5 every obligation, also what z3 did not prove (the proved-by-cvc5-only count)"),
    RG_CLI_OPT(NO_CORE_HINT, "with --fail-fast, give cvc5 the whole obligation, not only the axioms of z3's unsat core"),
    RG_CLI_OPT(AXIOMS, "axioms for the proofs (default verify/axioms.rules)"),
    RG_CLI_OPT(KEY, "sign a .db output with this secret key (rulesdb keygen)"),
    RG_CLI_OPT(PROOF_CACHE, "keep every solver answer, and the passes of the axiom test and of each recheck, here and take them from here: a rerun asks the solvers only what is new and runs neither check again where it passed (default $RULEGEN_PROOF_CACHE, else ~/.cache/rulegen/proofs)"),
    RG_CLI_OPT(NO_PROOF_CACHE, "keep the answers in OUT.proofs only (with -o), for --resume"),
    RG_CLI_OPT(THREADS, "threads (default: every core)"),
    RG_CLI_OPT(MEM_LIMIT, "memory for the fingerprint records of one part (of 64) at a time, e.g. 512M, 4G (default 1/2 of RAM); a part that does not fit is tested in pieces"),
    RG_CLI_OPT(MAX_RECORDS, "hold at most N records at a time (to exercise the pieces)"),
    RG_CLI_OPT(SPILL, "keep the enumeration's records and the tested parts in DIR (default OUT.spill with -o, else a temporary folder); a run stopped there goes on when the same command runs again; removed once the candidates are kept"),
    RG_CLI_OPT(MAX_OUTPUTS, "most outputs of a graph, 1..4 (default 2, as TASO's rules)"),
    RG_CLI_OPT(KEEP_REDUNDANT, "also extend graphs whose newest tensor equals an older one, and op(b, a) of commutative ops (by default recorded, not extended: their extensions are derivable); and graphs using equal-shaped inputs out of order (renamings)"),
    RG_CLI_OPT(SEED, "fingerprint seed (default 1); testing draws from another seed"),
    RG_CLI_OPT(TRIALS, "random trials per domain and shape set (default 1)"),
    RG_CLI_OPT(SHAPE_SETS, "other shape sets each candidate is tested at (default 3)"),
    RG_CLI_OPT(ALL_PAIRS, "print every pair of a class, not one candidate per member"),
    RG_CLI_OPT(NO_GENERALIZE, "do not generalize candidates before pruning (by default a variable occurring 2..8 times, in a candidate using every input of its shape, is split: its occurrences shared with a fresh variable of its shape, at most 64 such rules tested per candidate; the most general passing ones become candidates too, the candidate an instance of them)"),
    RG_CLI_OPT(RESUME, "start after the test stage from the candidates a run with -o OUT saved in OUT.candidates (that run's options are read from its header; one given that changes them is an error)"),
    RG_CLI_OPT(SAVE_EVERY, "with -o OUT, save derivability's progress in OUT.derived at most this often (default 300), so that a run stopped in it (Ctrl-C, a kill, a restart) goes on from there"),
    RG_CLI_OPT(JSON, "also write the run's counters, stage table and proof summary as JSON"),
    RG_CLI_OPT(QUIET, "no progress on standard error"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option prove_options[] = {
    RG_CLI_OPT(REQUIRE, "what a rule needs to pass: both solvers (default) or one"),
    RG_CLI_OPT(TIMEOUT_MS, "time limit per query and solver (default " RG_DEFAULT_TIMEOUT_MS_TEXT ")"),
    RG_CLI_OPT(THREADS, "OpenMP threads over queries (default: all)"),
    RG_CLI_OPT(AXIOMS, "axiom file (default: verify/axioms.rules of this tree)"),
    RG_CLI_OPT(ALL_AXIOMS, "assert every axiom, not only those over the rule's operators"),
    RG_CLI_OPT(CVC5, "a cvc5 binary to answer instead of rulegen-cvc5 (cvc5's C++ API)"),
    RG_CLI_OPT(DUMP, "write each obligation to DIR/<sha256>.smt2 (re-run with z3/cvc5)"),
    RG_CLI_OPT(NO_CHECK_AXIOMS, "skip the random check of the axioms"),
    RG_CLI_OPT(NO_CHECK_TYPES, "skip checking that each rule type-checks at some shapes (for rule sets already tested at their shapes)"),
    RG_CLI_OPT(REFUTE_SETS, "compare each rule at N shape sets first; one that differs is unproved and not sent to the solvers (default 8, 0 off)"),
    RG_CLI_OPT(RECHECK, "recheck every proved rule at N drawn assignments (default 64, 0 off); one whose sides differ is unproved, its proof false, and its core axioms suspect"),
    RG_CLI_OPT(INPUTS, "shapes of variables by name, one 'NAME DIMS' per line, for the recheck's draws (default TASO's 20 inputs; ?w13_1 takes ?w13's)"),
    RG_CLI_OPT(JOURNAL, "read solver answers from FILE and append new ones as they come: a run stopped and started again asks only what was not answered"),
    RG_CLI_OPT(PROOF_CACHE, "without --journal, the answers and the passes of the axiom test and the recheck go to the proof cache here (default $RULEGEN_PROOF_CACHE, else ~/.cache/rulegen/proofs), shared with every run"),
    RG_CLI_OPT(NO_PROOF_CACHE, "without --journal, keep no answers: ask the solvers everything, test the axioms and recheck every proved rule"),
    RG_CLI_OPT(FAIL_FAST, "ask cvc5 only about obligations z3 proved, given only the axioms of z3's unsat core (a subset of the premises: its unsat still proves the whole obligation) (with --require both: a rule z3 misses fails anyway; halves the time spent on unprovable rules; proved-by-cvc5-only is then not sought)"),
    RG_CLI_OPT(NO_CORE_HINT, "with --fail-fast, give cvc5 the whole obligation, not only the axioms of z3's unsat core"),
    RG_CLI_OPT(QUIET, "print only rules that are not verified, and the summary"),
    RG_CLI_OPT(JSON, "also write the counts by status and each rule's status as JSON"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option recheck_options[] = {
    RG_CLI_OPT(ASSIGNMENTS, "drawn shape/parameter assignments per rule (default 64)"),
    RG_CLI_OPT(TRIALS, "random inputs per assignment and domain (default 1)"),
    SEED_THREADS_ROWS,
    RG_CLI_OPT(INPUTS, "shapes of variables by name ('NAME DIMS' lines) to draw from (default TASO's 20 inputs; ?w13_1 takes ?w13's)"),
    RG_CLI_OPT(QUIET, "print only the rules that differ, and the summary"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option check_axioms_options[] = {
    RG_CLI_OPT(ASSIGNMENTS, "shape/parameter assignments per axiom and direction (default 24)"),
    RG_CLI_OPT(TRIALS, "random inputs per assignment and domain (default 2)"),
    SEED_THREADS_ROWS,
    RG_CLI_OPT(VERBOSE, "print every axiom, not only unsound ones"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option certify_options[] = {
    RG_CLI_OPT(SHAPE, "shape of tensor variable ?NAME; repeatable (check: defaults to the certificate's)"),
    RG_CLI_OPT(TRIALS, "independent random inputs per position (default 3)"),
    RG_CLI_OPT(PRIME, "the field's prime: 2^61-1 (default, u64 arithmetic) or 2^127-1 (u128), as 2^K-1 or in decimal"),
    RG_CLI_OPT(OUTPUT, "write the certificate to FILE (default: standard output)"),
    RG_CLI_OPT(MUTANT, "use a built-in PET mutant: fig1, fold, dilated, merged, or the merged products mmrows or mmcols"),
    RG_CLI_OPT(DIMS, "sizes of the built-in mutant (default 1,64,56,56,64,3,2); then the kernel's width, dilation and "
                     "groups (as the programs graphopt --certs writes name them); mmrows and mmcols read N as the rows, C as the "
                     "inner size and O as the columns of each product (M,K,1,1,N,1)"),
    RG_CLI_OPT(FULL, "also evaluate whole outputs and check that every differing element lies in a correction region"),
    RG_CLI_OPT(PRINT, "print the two programs and their shapes, then stop"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option eval_options[] = {
    RG_CLI_OPT(EXPR, "evaluate this rule (or graph) text instead of a file"),
    RG_CLI_OPT(SHAPE, "shape of tensor variable ?NAME, e.g. x=2x4; a bare DIMS is the default for the rest; repeatable"),
    RG_CLI_OPT(PARAM, "value of parameter variable ?NAME; repeatable"),
    RG_CLI_OPT(TRIALS, "random trials per domain (default 3)"),
    RG_CLI_OPT(SHAPE_SETS, "also evaluate at up to N shape sets found by the shape solver (the given shapes are their base; without -s, shapes are found)"),
    RG_CLI_OPT(SEED, "seed of inputs and keyed functions (default 1)"),
    RG_CLI_OPT(QUIET, "print only rules that differ, and errors"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option prune_options[] = {
    RG_CLI_OPT(OUTPUT, "write the kept rules here (required unless --audit)"),
    RG_CLI_OPT(RECORDS, "write the removal records here (default: OUTPUT.removed)"),
    RG_CLI_OPT(PRUNE, "stages: renaming,subgraph,derive (default: all), or none"),
    DERIVE_LIMIT_ROWS,
    RG_CLI_OPT(ONE_PASS, "derivability: Ruler's pass only, no second pass"),
    RG_CLI_OPT(AUDIT, "instead of pruning: re-check RECORDS against the kept set IN"),
    RG_CLI_OPT(QUIET, "no progress on stderr"),
    RG_CLI_HELP_ROW,
};

static const rg_cli_option covers_options[] = {
    RG_CLI_OPT(WITH, "our rule set (default: rules.rules, as `rulegen -o` names it)"),
    DERIVE_LIMIT_ROWS,
    RG_CLI_OPT(QUIET, "print only rules not covered, and the summary; no progress"),
    RG_CLI_HELP_ROW,
};

const rg_cli_doc rg_doc_synth = {
    "rulegen [synth] --ops OPS --depth N [options]",
    "Enumerates every graph of at most N operators over an input set, fingerprints each in\n"
    "Z_p (p = 2^61-1) on seeded random inputs, and turns fingerprint collisions into\n"
    "candidate rules, each tested on fresh Z_p and float64 trials at the enumeration shapes\n"
    "and at other shape sets. Writes the candidates that pass as rule text (ir/text.h).\n"
    "A graph's outputs are its sinks (operators no other operator uses); an input alone is\n"
    "a graph too. Progress goes to standard error; a table of counts and times ends the\n"
    "run. Ctrl-C stops cleanly without writing a partial file.\n"
    "Under mpirun (a build with MPI) the proof rounds spread over the job's processes, each\n"
    "with its -j threads; rank 0 runs the other stages and writes the same outputs as one\n"
    "process. The proof cache must be a folder every rank sees.\n",
    synth_options, RG_CLI_COUNT(synth_options),
    "examples:\n  rulegen --ops taso --depth 3 --stop-after test -o candidates.rules\n"
    "  mpirun -np 4 rulegen --ops all --depth 3 -j 1 -o d3all.rules\n"
    "exit status: 0 done, 1 error during the run, 2 bad arguments, 130 interrupted\n"};

const rg_cli_doc rg_doc_prove = {
    "rulegen prove [options] FILE.rules",
    "Proves every rule of FILE from the operator axioms: each output pair becomes one\n"
    "SMT-LIB2 obligation, given to z3 (C API, fresh context) and cvc5 (C++ API, a fresh\n"
    "solver, --enum-inst; or the cvc5 binary with --cvc5), each in a helper program.\n"
    "Only unsat proves, and only with the goal in its unsat core (an unsat without it is\n"
    "printed as vacuous: the premises contradict each other). Each rule gets a status:\n"
    "verified (both solvers), proved-by-z3-only, proved-by-cvc5-only or unproved. The\n"
    "axioms are random-tested first, and every rule must be well-typed (its sides' outputs\n"
    "agree in shape) at some shapes. A rule whose sides differ at some shapes (compared\n"
    "first, in Z_p and float64) is unproved with that counterexample and not sent to the\n"
    "solvers. Every rule a solver proves is then rechecked at many drawn shapes (rulegen\n"
    "recheck): one whose sides differ is a false proof, unproved, with the axioms of its\n"
    "unsat cores named as suspects (one of them holds less widely than it claims).\n",
    prove_options, RG_CLI_COUNT(prove_options),
    "example:\n  rulegen prove --timeout-ms 10000 tests/data/taso-133.rules\n"
    "exit status: 0 all pass, 1 some rule fails --require, 2 bad input or unsound axiom,\n"
    "3 the solvers disagreed (one proved, the other refuted), or proved a rule the\n"
    "recheck refutes (an axiom is unsound)\n"};

const rg_cli_doc rg_doc_recheck = {
    "rulegen recheck [options] FILE.rules",
    "Rechecks every rule of FILE where it claims to hold: at N assignments of shapes and\n"
    "parameters drawn by the shape solver (concat operands of unequal sizes, splits out\n"
    "of line with kernels, grouped convs with more kernels, sizes 1 and 2), each again\n"
    "with seams cut into its variables and with trailing axes added, wherever both sides\n"
    "type with outputs of the same type, it compares the sides in float64 and Z_p. A\n"
    "rule that differs is false, whatever proved it: it is printed with the shapes that\n"
    "show it (rulegen eval -s ... reproduces it). A rule whose variables are named as\n"
    "inputs (--inputs) is drawn from their shapes first. Seeded and deterministic. It\n"
    "always runs: the recheck passes a proof cache keeps (rulegen, prove) are not taken.\n",
    recheck_options, RG_CLI_COUNT(recheck_options),
    "example:\n  rulegen recheck --assignments 128 rules.rules\n"
    "exit status: 0 no rule differs, 1 some rule differs, 2 bad input, 130 interrupted\n"};

const rg_cli_doc rg_doc_check_axioms = {
    "rulegen check-axioms [options] [AXIOMS.rules]",
    "Random-tests every axiom (default: the file named below the options) with the float64\n"
    "and Z_p interpreters at many well-typed shape and parameter assignments found by the\n"
    "shape solver, and names every unsound axiom with a counterexample (shapes, parameters,\n"
    "domain, output position, both values). An axiom must hold wherever its source types\n"
    "and its guard holds, with a target that types there with the same output type (shape\n"
    "and seams), and, read right to left, wherever its target types: the SMT encoding\n"
    "states it of every term where its guard holds. So the draws constrain one side only\n"
    "(concat operands of unequal sizes, splits out of line with kernels, seams anywhere),\n"
    "and an axiom whose other side then does not type is unsound too. It always runs: the\n"
    "passes a proof cache keeps for the proof stage (rulegen, prove) are not taken here.\n",
    check_axioms_options, RG_CLI_COUNT(check_axioms_options),
    "exit status: 0 all sound, 1 some axiom unsound, 2 bad input\n"};

const rg_cli_doc rg_doc_certify = {
    "rulegen certify [options] ORIGINAL MUTANT | RULEFILE | --mutant NAME\n"
    "       rulegen certify check [options] CERT ORIGINAL MUTANT | CERT RULEFILE | CERT --mutant NAME",
    "Certifies a partially-equivalent transformation of a multilinear program (PET,\n"
    "OSDI'21): splits each output into boxes with affine index maps, evaluates both programs\n"
    "at m+1 positions per box on t random inputs over Z_p, and writes a certificate with the\n"
    "verdict of every box (EQ, or NEQ with a witness), correction regions covering the NEQ\n"
    "boxes and the error bound. 'check' re-derives everything from the programs and accepts\n"
    "the certificate only if it all agrees (in the certificate's field). ORIGINAL and\n"
    "MUTANT are files holding one program each (rule text, see ir/text.h); a RULEFILE's first\n"
    "rule is ORIGINAL => MUTANT. Runs longer than a second report progress on stderr; Ctrl-C\n"
    "stops between boxes.\n",
    certify_options, RG_CLI_COUNT(certify_options),
    "examples:\n"
    "  rulegen certify --mutant fig1 -o fig1.cert\n"
    "  rulegen certify --mutant fig1 --prime 2^127-1 -o fig1-127.cert\n"
    "  rulegen certify check fig1.cert --mutant fig1\n"
    "  rulegen certify -s x=1x8x16x16 -s w=8x8x3x3 orig.rules mutant.rules -o c.cert\n"
    "exit status: 0 done (check: certificate valid), 1 check rejected it, 2 bad input\n"};

const rg_cli_doc rg_doc_eval = {
    "rulegen eval [options] [FILE]",
    "Evaluates every rule of FILE (one rule per line, see ir/text.h) on random inputs, in\n"
    "float64 (real semantics) and in Z_p (p = 2^61-1, nonlinear ops as keyed random\n"
    "functions), and reports whether source and target agree; if not, the first differing\n"
    "output position. A line without '=>' is a graph: its output shapes and first values\n"
    "are printed. Without FILE or -e, evaluates a built-in set of TASO-style rules.\n",
    eval_options, RG_CLI_COUNT(eval_options),
    "example:\n"
    "  rulegen eval -s 4x4 -e '(matmul ?x ?y) => (matmul ?y ?x)'\n"
    "  rulegen eval -n 5 -e '(split.0 ?a (concat ?a ?x ?y)) => ?x'\n"
    "exit status: 0 all agree, 1 some rule differs, 2 bad input\n"};

const rg_cli_doc rg_doc_prune = {
    "rulegen prune [options] IN.rules -o OUT.rules\n"
    "       rulegen prune --audit RECORDS KEPT.rules",
    "Removes the rules of IN that other kept rules imply, and writes the kept rules (in\n"
    "input order, names kept) to OUT and one removal record per removed rule (why, and by\n"
    "which kept rules; for derivability the rewrite steps) to the records file:\n"
    "  renaming    equal up to renaming variables (same content id): the first is kept\n"
    "  subgraph    an instance of a kept smaller rule (TASO's common subgraph)\n"
    "  supergraph  both sides end in one operator differing in one operand, and the rule\n"
    "              between those operands is kept (TASO's common supergraph)\n"
    "  derive      the rules kept before it (smaller first) rewrite its source into its\n"
    "              target within the limits (Ruler-style); then a second pass removes\n"
    "              kept rules, largest first, that all the other kept rules derive\n"
    "In --prune, 'subgraph' selects both of TASO's checks; 'supergraph' alone the second.\n"
    "Derivation search limits default to 4 steps, 2000 terms, growth 2.\n"
    "Prints the rule count after each stage, and the time it took. Ctrl-C stops\n"
    "derivability: rules not yet decided are kept, the outputs are written.\n",
    prune_options, RG_CLI_COUNT(prune_options),
    "example:\n"
    "  rulegen prune tests/data/prune/assoc.rules -o kept.rules\n"
    "  rulegen prune --audit kept.rules.removed kept.rules\n"
    "exit status: 0 done, 1 audit failed, 2 bad input, 130 interrupted\n"};

const rg_cli_doc rg_doc_covers = {
    "rulegen covers OTHER.rules [--with OURS.rules] [options]",
    "For each rule of OTHER, says whether OURS contains it up to renaming variables (the\n"
    "same content id, in either orientation), derives it (our rules, used in both\n"
    "directions where their variables allow, rewrite one side into the other: the number\n"
    "of steps is given), or does not cover it; then a summary line. Derivations are\n"
    "searched in parallel, bounded by the limits below (defaults: 10 steps, 300000\n"
    "terms, growth 4: wider than pruning's, as a report can afford the time).\n",
    covers_options, RG_CLI_COUNT(covers_options),
    "example:\n"
    "  rulegen covers tests/data/prune/taso-133.rules --with rules.rules\n"
    "exit status: 0 report made, 2 bad input, 130 interrupted (Ctrl-C)\n"};

int rg_doc_synth_choice_rows(rg_cli_flag flags[RG_CLI_MAX_OPTIONS], rg_cli_option rows[RG_CLI_MAX_OPTIONS]) {
  const char *const *names = rg_enum_choices_options();
  int n = 0;
  for (; names[n] && n < RG_CLI_MAX_OPTIONS; n++) {
    const char *meta, *help;
    rg_enum_choices_option_doc(n, &meta, &help);
    flags[n] = (rg_cli_flag){names[n], 0, 1, meta, RG_CLI_EXTRA_CODE + n};
    rows[n] = (rg_cli_option){&flags[n], help, NULL};
  }
  return n;
}

void rg_doc_synth_choices(FILE *out) {
  fprintf(out, "\n  operator choices (wider settings multiply the search):\n");
  rg_cli_flag flags[RG_CLI_MAX_OPTIONS];
  rg_cli_option rows[RG_CLI_MAX_OPTIONS];
  rg_cli_print_options(out, rows, rg_doc_synth_choice_rows(flags, rows));
  fprintf(out, "\n  operators (--ops all: every one; default and 'taso': TASO's set, marked *):\n");
  rg_enum_choices d;
  rg_enum_choices_default(&d);
  for (int op = 0; op < RG_OP_COUNT; op++)
    if (rg_enum_op_supported((rg_op)op)) {
      fprintf(out, "    %c %-10s ", d.op[op] ? '*' : ' ', rg_op_get((rg_op)op)->name);
      rg_cli_print_wrapped(out, rg_enum_op_doc((rg_op)op), 17);
    }
}
