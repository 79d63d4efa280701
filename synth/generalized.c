/* synth/generalized.c: OUT.generalized (see generalized.h). */
#define _POSIX_C_SOURCE 200809L
#include "generalized.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/atomic.h"
#include "ir/endline.h"
#include "ir/sha256.h"
#include "verify/smt.h"

#define MAGIC "# rulegen generalized 1\n"

void rg_generalized_key(const char *cand, size_t len, bool generalize, char key[RG_GENERALIZED_KEY]) {
  char hex[65];
  rg_sha256_hex(cand, len, hex);
  snprintf(key, RG_GENERALIZED_KEY, "candidates sha256 %s, generalize %s", hex, generalize ? "yes" : "no");
}

char *rg_generalized_path(const char *out_path) { return rg_path_with_suffix(out_path, ".generalized"); }

void rg_generalized_free(rg_generalized *g) {
  free(g->text), free(g->general_off), free(g->general_of);
  memset(g, 0, sizeof *g);
}

/* Writes n bytes to f and to the running hash. */
static void put(FILE *f, rg_sha256_state *s, const void *p, size_t n) {
  fwrite(p, 1, n, f);
  rg_sha256_update(s, p, n);
}

/* The header's lines (all but the text) into sb. */
static void header(rg_strbuf *sb, const char *key, const rg_generalized *g) {
  const rg_collapse_counts *c = &g->cc;
  const rg_generalize_counts *x = &g->gc;
  rg_sb_printf(sb, MAGIC "# of: %s\n# counts: %" PRIu64 " %" PRIu64 " %.3f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               " %" PRIu64 " %" PRIu64 " %.3f\n# kept:",
               key, c->in, c->out, c->seconds, x->in, x->repeated, x->tried, x->passed, x->added, x->capped, x->seconds);
  for (uint64_t i = 0; g->general_off && i < x->in; i++) {
    int k = g->general_off[i + 1] - g->general_off[i];
    if (k) rg_sb_printf(sb, " %" PRIu64 ":%d", i, k);
  }
  rg_sb_printf(sb, "\n# text: %zu\n", g->len);
}

rg_status rg_generalized_save(const char *out_path, const char *key, const rg_generalized *g, rg_err *err) {
  char *path = rg_generalized_path(out_path);
  if (!path) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  free(path);
  if (st) return st;
  rg_strbuf head;
  rg_sb_init(&head);
  header(&head, key, g);
  rg_sha256_state s;
  rg_sha256_init(&s);
  put(a.f, &s, rg_sb_str(&head), head.len);
  put(a.f, &s, g->text, g->len);
  char hex[RG_SHA256_HEX + 1];
  rg_sha256_final_hex(&s, hex);
  fprintf(a.f, "end %s\n", hex);
  if (head.failed) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_sb_free(&head);
  if (st || ferror(a.f)) {
    rg_atomic_abort(&a);
    return st ? st : rg_err_set(err, RG_ERR_IO, "%s: cannot be written", a.path);
  }
  return rg_atomic_commit(&a, err);
}

/* The line at *p starting with tag: its rest into *v (length *n); moves *p past it. */
static bool line_of(const char **p, const char *end, const char *tag, const char **v, size_t *n) {
  size_t t = strlen(tag);
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  if (!nl || (size_t)(nl - *p) < t || strncmp(*p, tag, t)) return false;
  *v = *p + t, *n = (size_t)(nl - *v);
  *p = nl + 1;
  return true;
}

/* The lists from the "# kept:" line's I:K pairs (n candidates, added generalizations). */
static const char *lists(const char *v, size_t vn, uint64_t n, uint64_t added, rg_generalized *g) {
  size_t total = (size_t)(n + added);
  g->general_off = calloc(total + 1, sizeof *g->general_off);
  g->general_of = malloc(sizeof *g->general_of * ((size_t)added + 1));
  if (!g->general_off || !g->general_of) return "out of memory";
  int *kept = g->general_off + 1; /* kept[i] then summed in place: off[i + 1] = off[i] + kept[i] */
  char *s = strndup(v, vn), *save = NULL;
  if (!s) return "out of memory";
  for (char *tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    unsigned long long i;
    int k;
    if (sscanf(tok, "%llu:%d", &i, &k) != 2 || i >= n || k < 1) return free(s), "a bad '# kept:' entry";
    kept[i] = k;
  }
  free(s);
  for (size_t i = 0; i < total; i++) g->general_off[i + 1] += g->general_off[i];
  if ((uint64_t)g->general_off[total] != added) return "'# kept:' does not add up to the generalizations";
  for (uint64_t k = 0; k < added; k++) g->general_of[k] = (int)(n + k);
  return NULL;
}

/* Parses the header and the text of a file whose end line checked; NULL or what is wrong. */
static const char *parse(char *s, const char *end, const char *key, bool generalized, rg_generalized *g) {
  const char *p = s, *v;
  size_t vn;
  if (strncmp(p, MAGIC, strlen(MAGIC))) return "line 1: not a rulegen generalized file (format 1)";
  p += strlen(MAGIC);
  if (!line_of(&p, end, "# of: ", &v, &vn)) return "line 2: no '# of:' line";
  if (vn != strlen(key) || strncmp(v, key, vn)) return NULL; /* another run's: said by the caller */
  rg_collapse_counts *c = &g->cc;
  rg_generalize_counts *x = &g->gc;
  if (!line_of(&p, end, "# counts: ", &v, &vn) ||
      sscanf(v, "%" SCNu64 " %" SCNu64 " %lf %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %lf",
             &c->in, &c->out, &c->seconds, &x->in, &x->repeated, &x->tried, &x->passed, &x->added, &x->capped,
             &x->seconds) != 10 || x->in + x->added > INT32_MAX)
    return "line 3: a bad '# counts:' line";
  const char *kv;
  size_t kn;
  if (!line_of(&p, end, "# kept:", &kv, &kn)) return "line 4: no '# kept:' line";
  size_t len;
  if (!line_of(&p, end, "# text: ", &v, &vn) || sscanf(v, "%zu", &len) != 1 || len != (size_t)(end - p))
    return "line 5: the text's length is not what the file holds";
  const char *why = generalized ? lists(kv, kn, x->in, x->added, g) : NULL;
  if (why) return why;
  memmove(s, p, len);
  s[len] = 0;
  g->text = s, g->len = len;
  return NULL;
}

bool rg_generalized_load(const char *out_path, const char *key, rg_generalized *g) {
  memset(g, 0, sizeof *g);
  char *path = rg_generalized_path(out_path);
  struct stat sb;
  if (!path || (stat(path, &sb) && errno == ENOENT)) return free(path), false;
  rg_strbuf text;
  rg_err err = {0};
  const char *why = NULL;
  bool good = false;
  if (rg_text_read_file(path, &text, &err)) why = err.msg;
  const char *last = why ? NULL : rg_end_line(text.s, text.len, &good);
  if (!why && !good) why = "cut short or altered: its last line is not the SHA-256 of the rest";
  if (!why) why = parse(text.s, last, key, strstr(key, "generalize yes") != NULL, g);
  bool took = !why && g->text;
  if (!took) {
    fprintf(stderr, "rulegen: %s: not used (%s); the renaming collapse and generalize run again\n", path,
            why ? why : "made from other candidates or options");
    if (g->text == text.s) g->text = NULL; /* one buffer: freed once, as the text's */
    rg_generalized_free(g);
    rg_sb_free(&text);
  }
  free(path);
  return took;
}
