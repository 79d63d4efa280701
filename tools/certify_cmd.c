/* tools/certify_cmd.c: `rulegen certify`: PET partial-equivalence certificates.
 *
 *   rulegen certify [options] ORIGINAL MUTANT   (two files, one program each)
 *   rulegen certify [options] RULEFILE          (first rule 'ORIGINAL => MUTANT')
 *   rulegen certify [options] --mutant NAME     (a built-in PET mutant)
 *   rulegen certify check [options] CERT (the same three ways to give the programs)
 *
 * Exit status: certify: 0 certificate written; check: 0 valid, 1 rejected; 2 bad input.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, sigaction, clock_gettime */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certify/certify.h"
#include "cli.h"
#include "commands.h"

#define CERT_OPTIONS(X)                                                                          \
  X("shape", 's', 1, "NAME=DIMS", "shape of tensor variable ?NAME; repeatable (check: defaults "  \
                                 "to the certificate's)")                                       \
  X("trials", 't', 1, "N", "independent random inputs per position (default 3)")                \
  X("prime", 'p', 1, "P", "the field's prime: 2^61-1 (default, u64 arithmetic) or 2^127-1 "     \
                          "(u128), as 2^K-1 or in decimal")                                     \
  X("output", 'o', 1, "FILE", "write the certificate to FILE (default: standard output)")       \
  X("mutant", 'm', 1, "NAME", "use a built-in PET mutant: fig1, fold, dilated or merged")             \
  X("dims", 'd', 1, "N,C,H,W,O,K[,P]", "sizes of the built-in mutant (default "                 \
                                       "1,64,56,56,64,3,2)")                                    \
  X("full", 'f', 0, "", "also evaluate whole outputs and check that every differing element "   \
                        "lies in a correction region")                                          \
  X("print", 'P', 0, "", "print the two programs and their shapes, then stop")                  \
  X("help", 'h', 0, "", "show this help")

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
#define X(name, short_, arg, meta, help) fprintf(out, "  -%c, --%-7s %-16s %s\n", short_, name, meta, help);
  CERT_OPTIONS(X)
#undef X
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

/* "2^K-1" (K up to 128) or a decimal number below 2^128; whether it is a supported prime is
 * rg_pet_field_check's to say. */
static bool parse_prime(const char *s, rg_z127 *p) {
  int64_t k;
  if (strncmp(s, "2^", 2) == 0) {
    const char *minus = strstr(s, "-1");
    char buf[8];
    if (!minus || minus[2] || minus - s - 2 >= (long)sizeof buf) return false;
    snprintf(buf, sizeof buf, "%.*s", (int)(minus - s - 2), s + 2);
    if (!rg_cli_parse_i64(buf, 2, 128, &k)) return false;
    *p = k == 128 ? ~(rg_z127)0 : ((rg_z127)1 << k) - 1;
    return true;
  }
  return rg_z127_parse(s, p);
}

/* The canonical text of one side (src or tgt) of a parsed rule. */
static char *side_of(const rg_rule *r, bool target) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int k = 0; k < r->n_src; k++) {
    if (k) rg_sb_puts(&sb, " ; ");
    rg_text_print_ref(r->g, target ? r->tgt[k] : r->src[k], &sb);
  }
  char *s = sb.failed ? NULL : strdup(rg_sb_str(&sb));
  rg_sb_free(&sb);
  return s;
}

/* Reads the programs from files (1 rule file or 2 program files). */
static rg_status read_programs(char **files, int n, char **text, const char **where, rg_err *err) {
  for (int i = 0; i < n; i++) {
    rg_ruleset rs;
    rg_ruleset_init(&rs);
    *where = files[i];
    rg_status st = rg_text_parse_file(files[i], &rs, err);
    if (st == RG_OK && rs.n != 1)
      st = rg_err_set(err, RG_ERR_PARSE, "holds %d lines of rule text; give one program (or one rule) per file", rs.n);
    if (st == RG_OK && n == 1 && rs.rules[0]->n_tgt == 0)
      st = rg_err_set(err, RG_ERR_PARSE, "a single file must hold a rule 'ORIGINAL => MUTANT'");
    if (st == RG_OK && n == 2 && rs.rules[0]->n_tgt)
      st = rg_err_set(err, RG_ERR_PARSE, "holds a rule; give one program per file (or one rule file alone)");
    if (st == RG_OK) {
      if (n == 1) text[0] = side_of(rs.rules[0], false), text[1] = side_of(rs.rules[0], true);
      else text[i] = side_of(rs.rules[0], false);
      if (!text[0] || (n == 1 && !text[1])) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    }
    rg_ruleset_free(&rs);
    if (st) return st;
  }
  *where = NULL;
  return RG_OK;
}

static rg_status parse_dims(const char *s, rg_mutant_dims *d, rg_err *err) {
  int32_t v[7];
  int n = 0;
  const char *p = s;
  while (*p && n < 7) {
    char *end;
    long x = strtol(p, &end, 10);
    if (end == p || x < 1 || x > 4096) break;
    v[n++] = (int32_t)x;
    p = *end == ',' ? end + 1 : end;
    if (!*end) break;
  }
  if (*p && (n == 7 || strchr(p, ',') || (*p < '0' || *p > '9')))
    return rg_err_set(err, RG_ERR_ARG, "bad --dims '%s': expected N,C,H,W,O,K or N,C,H,W,O,K,P (1..4096 each)", s);
  if (n != 6 && n != 7)
    return rg_err_set(err, RG_ERR_ARG, "bad --dims '%s': expected N,C,H,W,O,K or N,C,H,W,O,K,P (1..4096 each)", s);
  *d = (rg_mutant_dims){v[0], v[1], v[2], v[3], v[4], v[5], n == 7 ? v[6] : 2};
  return RG_OK;
}

/* Builds the pair from files or a built-in mutant. shapes may be replaced by the mutant's. */
static rg_status open_pair(const cert_opts *o, char **files, int nfiles, const char *cert_shapes,
                           rg_pet_pair **pp, const char **where, rg_err *err) {
  char *text[2] = {NULL, NULL};
  rg_mutant m;
  const char *shapes = o->shapes.len ? rg_sb_str(&o->shapes) : cert_shapes;
  rg_status st = RG_OK;
  *where = NULL;
  if (o->mutant) {
    int kind = rg_mutant_by_name(o->mutant);
    rg_mutant_dims d = rg_mutant_default();
    if (nfiles) st = rg_err_set(err, RG_ERR_ARG, "give either --mutant or program files, not both");
    else if (kind < 0) st = rg_err_set(err, RG_ERR_ARG, "unknown mutant '%s': use fig1, fold, dilated or merged", o->mutant);
    if (st == RG_OK && o->dims) st = parse_dims(o->dims, &d, err);
    if (st == RG_OK) st = rg_mutant_make((rg_mutant_kind)kind, &d, &m, err);
    if (st == RG_OK) {
      text[0] = strdup(m.original), text[1] = strdup(m.mutant);
      if (!o->shapes.len && !cert_shapes) shapes = m.shapes;
      if (!text[0] || !text[1]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    }
  } else if (nfiles == 1 || nfiles == 2) {
    st = read_programs(files, nfiles, text, where, err);
  } else {
    st = rg_err_set(err, RG_ERR_ARG, "give ORIGINAL and MUTANT files, one RULEFILE, or --mutant NAME (see --help)");
  }
  if (st == RG_OK && o->print) {
    printf("original: %s\nmutant:   %s\nshapes:   %s\n", text[0], text[1], shapes ? shapes : "(none)");
  } else if (st == RG_OK) {
    st = rg_pet_pair_new(text[0], text[1], shapes, pp, err);
  }
  free(text[0]);
  free(text[1]);
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

static rg_status read_file(const char *path, rg_strbuf *sb, rg_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return rg_err_set(err, RG_ERR_IO, "cannot open %s", path);
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) rg_sb_append(sb, chunk, n);
  bool bad = ferror(f);
  fclose(f);
  if (bad) return rg_err_set(err, RG_ERR_IO, "cannot read %s", path);
  return sb->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory reading %s", path) : RG_OK;
}

/* The certificate to path, whole or not at all (ir/atomic.h), or to standard output (NULL). */
static rg_status write_cert(const char *path, const rg_strbuf *sb, rg_err *err) {
  if (!path) {
    bool ok = fwrite(sb->s, 1, sb->len, stdout) == sb->len && fflush(stdout) == 0;
    return ok ? RG_OK : rg_err_set(err, RG_ERR_IO, "cannot write the certificate to standard output");
  }
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  if (st) return st;
  if (fwrite(sb->s, 1, sb->len, a.f) != sb->len) {
    rg_atomic_abort(&a);
    return rg_err_set(err, RG_ERR_IO, "cannot write the certificate to %s", path);
  }
  return rg_atomic_commit(&a, err);
}

/* Full mode: every element where the programs differ must lie in a correction region, i.e.
 * the corrected mutant (the mutant outside the regions, the original inside) is equivalent. */
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

static int run(bool check, cert_opts *o, char **args, int nargs) {
  rg_err err = {0};
  const char *where = NULL;
  rg_pet_pair *pp = NULL;
  rg_cert c, parsed;
  memset(&c, 0, sizeof c);
  memset(&parsed, 0, sizeof parsed);
  rg_status st = RG_OK;
  int rc = 0;
  const char *cert_path = NULL;
  if (check) {
    if (nargs < 1) {
      fprintf(stderr, "rulegen certify check: give the certificate file first (see --help)\n");
      return 2;
    }
    cert_path = args[0], args++, nargs--;
    rg_strbuf sb;
    rg_sb_init(&sb);
    st = read_file(cert_path, &sb, &err);
    if (st == RG_OK) st = rg_cert_parse(sb.s ? sb.s : "", sb.len, &parsed, &err);
    rg_sb_free(&sb);
    if (st) where = cert_path;
  }
  if (st == RG_OK) st = open_pair(o, args, nargs, check ? parsed.shapes : NULL, &pp, &where, &err);
  if (st == RG_OK && o->print) goto done;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  progress pg = {check ? "rulegen certify check" : "rulegen certify", t0, 1000, false};
  rg_pet_hooks hooks = {&rg_cli_interrupted, on_progress, &pg};
  if (st == RG_OK && check) {
    rg_audit a;
    st = rg_cert_audit(&parsed, pp, &hooks, &a, &err);
    if (st == RG_OK) {
      printf("%s: %s\n", cert_path, a.valid ? "VALID" : "REJECTED");
      if (!a.valid) printf("  reason: %s\n", a.why);
      fprintf(stderr, "certify check: %lld boxes, %lld evaluations, %.1f ms\n", (long long)a.boxes,
              (long long)a.evaluations, ms_since(&t0));
      rc = a.valid ? 0 : 1;
      if (a.valid && o->full) st = full_check(pp, &parsed, &(rg_pet_opts){parsed.res.trials, parsed.res.p, &hooks}, &err);
    }
  } else if (st == RG_OK) {
    rg_pet_opts po = {o->trials, o->p, &hooks};
    rg_pet_result res;
    st = rg_pet_check(pp, &po, &res, &err);
    double ms = ms_since(&t0);
    if (st == RG_OK) st = rg_cert_make(pp, &res, &c, &err);
    if (st == RG_OK) {
      int64_t neq = 0;
      for (int64_t i = 0; i < c.res.n_boxes; i++) neq += c.res.box[i].verdict == RG_BOX_NEQ;
      fprintf(stderr,
              "certify: %lld boxes (%lld NEQ, %lld correction regions), %lld positions, %lld evaluations, "
              "%d trials, error bound %s%s, %.1f ms\n",
              (long long)c.res.n_boxes, (long long)neq, (long long)c.n_regions, (long long)c.res.positions,
              (long long)c.res.evaluations, c.res.trials, strcmp(c.bound, "none") ? "2^" : "", c.bound, ms);
      rg_strbuf sb;
      rg_sb_init(&sb);
      rg_cert_write(&c, &sb);
      st = sb.failed ? rg_err_set(&err, RG_ERR_NOMEM, "out of memory") : write_cert(o->out, &sb, &err);
      rg_sb_free(&sb);
    }
    if (st == RG_OK && o->full) st = full_check(pp, &c, &po, &err);
  }
done:
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
  static const struct option longopts[] = {
#define X(name, short_, arg, meta, help) {name, arg, NULL, short_},
      CERT_OPTIONS(X)
#undef X
      {NULL, 0, NULL, 0}};
  cert_opts o = {{0}, 3, RG_ZP_P, NULL, NULL, NULL, false, false};
  rg_sb_init(&o.shapes);
  bool check = argc > 1 && strcmp(argv[1], "check") == 0;
  if (check) argc--, argv++;
  int c, rc = 0;
  optind = 1;
  while (rc == 0 && (c = getopt_long(argc, argv, "s:t:p:o:m:d:fPh", longopts, NULL)) != -1) {
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
      if (!parse_prime(optarg, &o.p)) {
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
