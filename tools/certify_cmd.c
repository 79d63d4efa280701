/* tools/certify_cmd.c: `rulegen certify`: PET partial-equivalence certificates.
 *
 *   rulegen certify [options] ORIGINAL MUTANT   (two files, one program each)
 *   rulegen certify [options] RULEFILE          (first rule 'ORIGINAL => MUTANT')
 *   rulegen certify [options] --mutant NAME     (a built-in PET mutant)
 *   rulegen certify check [options] CERT (the same three ways to give the programs)
 *
 * Exit status: certify: 0 certificate written; check: 0 valid, 1 rejected; 2 bad input.
 */
#define _POSIX_C_SOURCE 200809L /* sigaction, clock_gettime */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certify/certify.h"
#include "cli.h"
#include "commands.h"

static const rg_cli_option cert_options[] = {
    {"shape", 's', 1, "NAME=DIMS", "shape of tensor variable ?NAME; repeatable (check: defaults " "to the certificate's)"},
    {"trials", 't', 1, "N", "independent random inputs per position (default 3)"},
    {"prime", 'p', 1, "P", "the field's prime: 2^61-1 (default, u64 arithmetic) or 2^127-1 " "(u128), as 2^K-1 or in decimal"},
    {"output", 'o', 1, "FILE", "write the certificate to FILE (default: standard output)"},
    {"mutant", 'm', 1, "NAME", "use a built-in PET mutant: fig1, fold, dilated or merged"},
    {"dims", 'd', 1, "N,C,H,W,O,K[,P]", "sizes of the built-in mutant (default " "1,64,56,56,64,3,2)"},
    {"full", 'f', 0, "", "also evaluate whole outputs and check that every differing element " "lies in a correction region"},
    {"print", 'P', 0, "", "print the two programs and their shapes, then stop"},
    {"help", 'h', 0, "", "show this help"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen certify [options] ORIGINAL MUTANT | RULEFILE | --mutant NAME\n"
          "       rulegen certify check [options] CERT ORIGINAL MUTANT | CERT RULEFILE | CERT --mutant NAME\n"
          "\n"
          "Certifies a partially-equivalent transformation of a multilinear program (PET,\n"
          "OSDI'21): splits each output into boxes with affine index maps, evaluates both programs\n"
          "at m+1 positions per box on t random inputs over Z_p, and writes a certificate with the\n"
          "verdict of every box (EQ, or NEQ with a witness), correction regions covering the NEQ\n"
          "boxes and the error bound. 'check' re-derives everything from the programs and accepts\n"
          "the certificate only if it all agrees (in the certificate's field). ORIGINAL and\n"
          "MUTANT are files holding one program each (rule text, see ir/text.h); a RULEFILE's first\n"
          "rule is ORIGINAL => MUTANT. Runs longer than a second report progress on stderr; Ctrl-C\n"
          "stops between boxes.\n"
          "\n"
          "options:\n");
  rg_cli_print_options(out, cert_options, RG_CLI_COUNT(cert_options), 7, 16);
  fprintf(out, "\n"
               "examples:\n"
               "  rulegen certify --mutant fig1 -o fig1.cert\n"
               "  rulegen certify --mutant fig1 -p 2^127-1 -o fig1-127.cert\n"
               "  rulegen certify check fig1.cert --mutant fig1\n"
               "  rulegen certify -s x=1x8x16x16 -s w=8x8x3x3 orig.rules mutant.rules -o c.cert\n"
               "exit status: 0 done (check: certificate valid), 1 check rejected it, 2 bad input\n");
}

typedef struct {
  rg_strbuf shapes;
  int trials;
  rg_z127 p;
  const char *out, *mutant, *dims;
  bool full, print;
} cert_opts;

/* Loads the programs (from files or a built-in mutant) and builds the pair, or prints them
 * (--print). cert_shapes: the certificate's, for check. */
static rg_status open_pair(const cert_opts *o, char **files, int nfiles, const char *cert_shapes,
                           rg_pet_pair **pp, const char **where, rg_err *err) {
  rg_pet_source src = {o->mutant, o->dims, files, nfiles, o->shapes.len ? rg_sb_str(&o->shapes) : NULL, cert_shapes};
  rg_pet_programs prog;
  rg_status st = rg_pet_programs_load(&src, &prog, where, err);
  if (st == RG_OK && o->print)
    printf("original: %s\nmutant:   %s\nshapes:   %s\n", prog.original, prog.mutant,
           prog.shapes ? prog.shapes : "(none)");
  else if (st == RG_OK)
    st = rg_pet_pair_new(prog.original, prog.mutant, prog.shapes, pp, err);
  rg_pet_programs_free(&prog);
  return st;
}

static double ms_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Progress of box mode on stderr: nothing during the first second (short runs stay quiet),
 * then a line every two seconds or so with the box checks done, the rate and the time left,
 * and a closing line once any was printed. */
typedef struct {
  const char *who;
  struct timespec t0;
  double next_ms;
  bool printed;
} progress;

static void on_progress(void *user, int64_t done, int64_t total) {
  progress *pg = user;
  double ms = ms_since(&pg->t0);
  if (done < total ? ms < pg->next_ms : !pg->printed) return;
  double rate = (double)done / (ms > 1 ? ms : 1) * 1e3;
  if (done < total)
    fprintf(stderr, "%s: %lld of %lld box checks (%.0f%%), %.0f/s, about %.1f s left\n", pg->who, (long long)done,
            (long long)total, 100.0 * (double)done / (double)total, rate, (double)(total - done) / (rate > 0 ? rate : 1));
  else
    fprintf(stderr, "%s: %lld box checks done in %.1f s (%.0f/s)\n", pg->who, (long long)total, ms / 1e3, rate);
  pg->printed = true;
  pg->next_ms = ms + 2000;
}

/* Full mode: every element where the programs differ must lie in a correction region, i.e.
 * the corrected mutant (the mutant outside the regions, the original inside) is equivalent. */
static rg_status full_check(const rg_pet_pair *pp, const rg_cert *c, const rg_pet_opts *po, rg_err *err) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int64_t differing, outside;
  rg_status st = rg_cert_full_check(pp, c, po, &differing, &outside, NULL, err);
  if (st) return st;
  fprintf(stderr, "certify: full mode: %lld differing elements, %lld outside the correction regions (%.1f ms)\n",
          (long long)differing, (long long)outside, ms_since(&t0));
  if (outside)
    return rg_err_set(err, RG_ERR_ARG, "full mode finds %lld differing elements outside the correction regions",
                      (long long)outside);
  return RG_OK;
}

/* check: audits the certificate against the programs, then full mode if asked. */
static rg_status run_check(const cert_opts *o, const char *cert_path, rg_cert *parsed, rg_pet_pair *pp,
                           rg_pet_hooks *hooks, const struct timespec *t0, int *rc, rg_err *err) {
  rg_audit a;
  rg_status st = rg_cert_audit(parsed, pp, hooks, &a, err);
  if (st) return st;
  printf("%s: %s\n", cert_path, a.valid ? "VALID" : "REJECTED");
  if (!a.valid) printf("  reason: %s\n", a.why);
  fprintf(stderr, "certify check: %lld boxes, %lld evaluations, %.1f ms\n", (long long)a.boxes,
          (long long)a.evaluations, ms_since(t0));
  *rc = a.valid ? 0 : 1;
  if (a.valid && o->full) st = full_check(pp, parsed, &(rg_pet_opts){parsed->res.trials, parsed->res.p, hooks}, err);
  return st;
}

/* certify: box mode, the certificate written, then full mode if asked. */
static rg_status run_certify(const cert_opts *o, rg_pet_pair *pp, rg_cert *c, rg_pet_hooks *hooks,
                             const struct timespec *t0, rg_err *err) {
  rg_pet_opts po = {o->trials, o->p, hooks};
  rg_pet_result res;
  rg_status st = rg_pet_check(pp, &po, &res, err);
  double ms = ms_since(t0);
  if (st == RG_OK) st = rg_cert_make(pp, &res, c, err);
  if (st) return st;
  int64_t neq = 0;
  for (int64_t i = 0; i < c->res.n_boxes; i++) neq += c->res.box[i].verdict == RG_BOX_NEQ;
  fprintf(stderr,
          "certify: %lld boxes (%lld NEQ, %lld correction regions), %lld positions, %lld evaluations, "
          "%d trials, error bound %s%s, %.1f ms\n",
          (long long)c->res.n_boxes, (long long)neq, (long long)c->n_regions, (long long)c->res.positions,
          (long long)c->res.evaluations, c->res.trials, strcmp(c->bound, "none") ? "2^" : "", c->bound, ms);
  st = rg_cert_save(c, o->out, err);
  if (st == RG_OK && o->full) st = full_check(pp, c, &po, err);
  return st;
}

static int run(bool check, cert_opts *o, char **args, int nargs) {
  rg_err err = {0};
  const char *where = NULL, *cert_path = NULL;
  rg_pet_pair *pp = NULL;
  rg_cert c, parsed;
  memset(&c, 0, sizeof c);
  memset(&parsed, 0, sizeof parsed);
  rg_status st = RG_OK;
  int rc = 0;
  if (check) {
    if (nargs < 1) {
      fprintf(stderr, "rulegen certify check: give the certificate file first (see --help)\n");
      return 2;
    }
    cert_path = args[0], args++, nargs--;
    st = rg_cert_load(cert_path, &parsed, &err);
    if (st) where = cert_path;
  }
  if (st == RG_OK) st = open_pair(o, args, nargs, check ? parsed.shapes : NULL, &pp, &where, &err);
  if (st == RG_OK && !o->print) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    progress pg = {check ? "rulegen certify check" : "rulegen certify", t0, 1000, false};
    rg_pet_hooks hooks = {&rg_cli_interrupted, on_progress, &pg};
    st = check ? run_check(o, cert_path, &parsed, pp, &hooks, &t0, &rc, &err)
               : run_certify(o, pp, &c, &hooks, &t0, &err);
  }
  if (st) {
    rg_cli_report(check ? "rulegen certify check" : "rulegen certify", where, &err);
    rc = 2;
  }
  rg_cert_free(&c);
  rg_cert_free(&parsed);
  rg_pet_pair_free(pp);
  return rc;
}

int rg_cmd_certify(int argc, char **argv) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, cert_options, RG_CLI_COUNT(cert_options));
  cert_opts o = {{0}, 3, RG_ZP_P, NULL, NULL, NULL, false, false};
  rg_sb_init(&o.shapes);
  bool check = argc > 1 && strcmp(argv[1], "check") == 0;
  if (check) argc--, argv++;
  int c, rc = 0;
  while (rc == 0 && (c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    int64_t v;
    switch (c) {
    case 's': rg_sb_printf(&o.shapes, "%s%s", o.shapes.len ? " " : "", optarg); break;
    case 't':
      if (!rg_cli_parse_i64(optarg, 1, 1000, &v)) {
        fprintf(stderr, "rulegen certify: --trials wants a number from 1 to 1000, not '%s'\n", optarg);
        rc = 2;
      }
      o.trials = (int)v;
      break;
    case 'p':
      if (!rg_pet_parse_prime(optarg, &o.p)) {
        fprintf(stderr, "rulegen certify: --prime wants 2^K-1 or a decimal number, not '%s'; the supported primes are %s\n",
                optarg, RG_PET_PRIMES);
        rc = 2;
      }
      break;
    case 'o': o.out = optarg; break;
    case 'm': o.mutant = optarg; break;
    case 'd': o.dims = optarg; break;
    case 'f': o.full = true; break;
    case 'P': o.print = true; break;
    case 'h': usage(stdout); rg_sb_free(&o.shapes); return 0;
    default: usage(stderr); rc = 2; break;
    }
  }
  if (rc == 0) {
    rg_cli_catch_interrupts();
    rc = run(check, &o, argv + optind, argc - optind);
    rg_cli_release_interrupts();
    if (rg_cli_interrupted && rc != 2) fprintf(stderr, "rulegen certify: interrupted\n"); /* else reported */
  }
  rg_sb_free(&o.shapes);
  return rc;
}
