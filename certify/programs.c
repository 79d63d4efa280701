/* certify/programs.c: the programs, shapes, prime and certificate files of a certification
 * (programs.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "programs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rg_pet_parse_prime(const char *s, rg_z127 *p) {
  if (strncmp(s, "2^", 2) != 0) return rg_z127_parse(s, p);
  const char *minus = strstr(s, "-1");
  char buf[8], *end;
  if (!minus || minus[2] || minus - s - 2 >= (long)sizeof buf) return false;
  snprintf(buf, sizeof buf, "%.*s", (int)(minus - s - 2), s + 2);
  errno = 0;
  long long k = strtoll(buf, &end, 10);
  if (!buf[0] || errno || *end || k < 2 || k > 128) return false;
  *p = k == 128 ? ~(rg_z127)0 : ((rg_z127)1 << k) - 1;
  return true;
}

rg_status rg_mutant_parse_dims(const char *s, rg_mutant_dims *d, rg_err *err) {
  int32_t v[10];
  int n = 0;
  for (const char *p = s;; p++) { /* whole numbers 1..4096, a comma between two */
    char *end = (char *)p;
    long x = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;
    if (x < 1 || x > 4096 || n == 10 || (*end && *end != ',')) n = -1;
    if (n < 0) break;
    v[n++] = (int32_t)x, p = end;
    if (!*p) break;
  }
  if (n != 6 && n != 7 && n != 10)
    return rg_err_set(err, RG_ERR_ARG, "bad --dims '%s': expected N,C,H,W,O,K, N,C,H,W,O,K,P or N,C,H,W,O,K,P,KW,DIL,G "
                                       "(1..4096 each)", s);
  *d = (rg_mutant_dims){v[0], v[1], v[2], v[3], v[4], v[5], n >= 7 ? v[6] : 2, n == 10 ? v[7] : 0, n == 10 ? v[8] : 0,
                        n == 10 ? v[9] : 0};
  return RG_OK;
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

/* One file's rule set must be one program (n == 2) or one rule (n == 1). */
static rg_status check_file(const rg_ruleset *rs, int n, rg_err *err) {
  if (rs->n != 1)
    return rg_err_set(err, RG_ERR_PARSE, "holds %d lines of rule text; give one program (or one rule) per file", rs->n);
  if (n == 1 && rs->rules[0]->n_tgt == 0)
    return rg_err_set(err, RG_ERR_PARSE, "a single file must hold a rule 'ORIGINAL => MUTANT'");
  if (n == 2 && rs->rules[0]->n_tgt)
    return rg_err_set(err, RG_ERR_PARSE, "holds a rule; give one program per file (or one rule file alone)");
  return RG_OK;
}

/* Reads the programs from files (1 rule file or 2 program files). */
static rg_status read_programs(char *const *files, int n, char **text, const char **where, rg_err *err) {
  for (int i = 0; i < n; i++) {
    rg_ruleset rs;
    rg_ruleset_init(&rs);
    *where = files[i];
    rg_status st = rg_text_parse_file(files[i], &rs, err);
    if (st == RG_OK) st = check_file(&rs, n, err);
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

/* Whether two shape lists "NAME=DIMS ..." name the same shapes, in any order. */
static bool same_shapes(const char *a, const char *b) {
  int na = 0, nb = 0;
  for (const char *p = a; *p;) { /* every word of a is a word of b */
    size_t n = strcspn(p, " ");
    bool found = false;
    for (const char *q = b; *q && !found;) {
      size_t m = strcspn(q, " ");
      found = m == n && !strncmp(p, q, n);
      q += m + (q[m] == ' ');
    }
    if (!found) return false;
    p += n + (p[n] == ' '), na++;
  }
  for (const char *q = b; *q; q += strcspn(q, " "), q += *q == ' ') nb++;
  return na == nb;
}

static rg_status load_mutant(const rg_pet_source *src, rg_pet_programs *out, rg_err *err) {
  int kind = rg_mutant_by_name(src->mutant);
  rg_mutant_dims d = rg_mutant_default();
  rg_mutant m;
  if (src->n_files) return rg_err_set(err, RG_ERR_ARG, "give either --mutant or program files, not both");
  if (kind < 0)
    return rg_err_set(err, RG_ERR_ARG, "unknown mutant '%s': use fig1, fold, dilated, merged, mmrows or mmcols", src->mutant);
  rg_status st = src->dims ? rg_mutant_parse_dims(src->dims, &d, err) : RG_OK;
  if (st == RG_OK) st = rg_mutant_make((rg_mutant_kind)kind, &d, &m, err);
  if (st) return st;
  /* Checking: a mutant whose sizes live only in its shapes (the products) must be the one the
   * certificate was made at, as the others' sizes in their programs must. */
  if (src->cert_shapes && !src->shapes && !same_shapes(m.shapes, src->cert_shapes))
    return rg_err_set(err, RG_ERR_ARG,
                      "--mutant %s at %s is at shapes %s, but the certificate is at %s: give the --dims it was made "
                      "with", src->mutant, src->dims ? src->dims : "its default sizes", m.shapes, src->cert_shapes);
  out->original = strdup(m.original), out->mutant = strdup(m.mutant);
  if (!src->shapes && !src->cert_shapes) out->shapes = strdup(m.shapes);
  if (!out->original || !out->mutant || (!src->shapes && !src->cert_shapes && !out->shapes))
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return RG_OK;
}

rg_status rg_pet_programs_load(const rg_pet_source *src, rg_pet_programs *out, const char **where, rg_err *err) {
  *out = (rg_pet_programs){NULL, NULL, NULL};
  *where = NULL;
  const char *given = src->shapes ? src->shapes : src->cert_shapes;
  if (given && !(out->shapes = strdup(given))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (src->mutant) return load_mutant(src, out, err);
  if (src->n_files != 1 && src->n_files != 2)
    return rg_err_set(err, RG_ERR_ARG, "give ORIGINAL and MUTANT files, one RULEFILE, or --mutant NAME (see --help)");
  char *text[2] = {NULL, NULL};
  rg_status st = read_programs(src->files, src->n_files, text, where, err);
  out->original = text[0], out->mutant = text[1];
  return st;
}

void rg_pet_programs_free(rg_pet_programs *p) {
  free(p->original);
  free(p->mutant);
  free(p->shapes);
  *p = (rg_pet_programs){NULL, NULL, NULL};
}

rg_status rg_cert_load(const char *path, rg_cert *c, rg_err *err) {
  rg_strbuf sb;
  rg_status st = rg_text_read_file(path, &sb, err);
  if (st == RG_OK) st = rg_cert_parse(sb.s ? sb.s : "", sb.len, c, err);
  rg_sb_free(&sb);
  return st;
}

rg_status rg_cert_save(const rg_cert *c, const char *path, rg_err *err) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_cert_write(c, &sb);
  rg_status st = RG_OK;
  if (sb.failed) {
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  } else if (!path) {
    bool ok = fwrite(sb.s, 1, sb.len, stdout) == sb.len && fflush(stdout) == 0;
    if (!ok) st = rg_err_set(err, RG_ERR_IO, "cannot write the certificate to standard output");
  } else {
    rg_atomic_file a;
    st = rg_atomic_open(&a, path, err);
    if (st == RG_OK && fwrite(sb.s, 1, sb.len, a.f) != sb.len) {
      rg_atomic_abort(&a);
      st = rg_err_set(err, RG_ERR_IO, "cannot write the certificate to %s", path);
    } else if (st == RG_OK) {
      st = rg_atomic_commit(&a, err);
    }
  }
  rg_sb_free(&sb);
  return st;
}
