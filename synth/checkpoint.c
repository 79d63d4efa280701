/* synth/checkpoint.c: the checkpoints of the stages after testing (see synth/checkpoint.h). */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/ir.h"
#include "ir/sha256.h"

#define MAGIC "# rulegen checkpoint, format 1: "
#define RUN_TAG "# run: "
#define BINDING_TAG "# binding: "

static const char *const kind_name[RG_CHECKPOINT_KINDS] = {"pruned", "derived", "final"};

void rg_checkpoint_key_text(rg_checkpoint_key *k, const char *cand, size_t len) {
  rg_sha256_hex(cand, len, k->text_sha256);
  size_t first = len && cand[0] == '#' ? strcspn(cand, "\n") : 0;
  snprintf(k->run, sizeof k->run, "%.*s", (int)(first < sizeof k->run ? first : sizeof k->run - 1), cand);
}

void rg_checkpoint_key_init(rg_checkpoint_key *k, int n, unsigned stages, const int *general_off,
                            const int *general_of) {
  char gen_hex[RG_SHA256_HEX + 1] = "none";
  if (general_off) {
    rg_sha256_state s;
    rg_sha256_init(&s);
    rg_sha256_update(&s, (const unsigned char *)general_off, sizeof(int) * ((size_t)n + 1));
    rg_sha256_update(&s, (const unsigned char *)general_of, sizeof(int) * (size_t)general_off[n]);
    rg_sha256_final_hex(&s, gen_hex);
  }
  rg_derive_limits lim = rg_prune_opts_default().limits;
  snprintf(k->binding, sizeof k->binding,
           "%d rules, candidate text sha256 %s, generalizations sha256 %s, prune stages %u, derive limits "
           "%d/%d/%d, second pass",
           n, k->text_sha256, gen_hex, stages, lim.max_steps, lim.max_states, lim.max_growth);
  k->n = n;
}

void rg_checkpoint_key_final(rg_checkpoint_key *k, const rg_checkpoint_key *run, const int *verified, int n) {
  char hex[RG_SHA256_HEX + 1];
  rg_sha256_hex(verified, sizeof(int) * (size_t)n, hex);
  *k = *run;
  snprintf(k->binding, sizeof k->binding, "%.300s; %d proved rules sha256 %s", run->binding, n, hex);
  k->n = n;
}

char *rg_checkpoint_path(const char *out_path, rg_checkpoint_kind kind) {
  static const char *const suffix[RG_CHECKPOINT_KINDS] = {".pruned", ".derived", ".final"};
  return rg_path_with_suffix(out_path, suffix[kind]);
}

/* The SHA-256 of the next (at most) limit bytes of f, in hex. */
static rg_status hash_stream(FILE *f, size_t limit, char hex[RG_SHA256_HEX + 1], rg_err *err) {
  rg_sha256_state s;
  rg_sha256_init(&s);
  unsigned char buf[1 << 16];
  size_t got;
  while (limit && (got = fread(buf, 1, limit < sizeof buf ? limit : sizeof buf, f)) > 0) {
    rg_sha256_update(&s, buf, got);
    limit -= got;
  }
  if (ferror(f)) return rg_err_set(err, RG_ERR_IO, "a read error");
  rg_sha256_final_hex(&s, hex);
  return RG_OK;
}

/* The SHA-256 of the file at path so far, in hex. */
static rg_status hash_file(const char *path, char hex[RG_SHA256_HEX + 1], rg_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return rg_err_set(err, RG_ERR_IO, "%s: %s", path, strerror(errno));
  rg_status st = hash_stream(f, SIZE_MAX, hex, err);
  fclose(f);
  return st ? rg_err_set(err, RG_ERR_IO, "%s: a read error", path) : RG_OK;
}

bool rg_checkpoint_beside(const char *out_path) {
  char *real = NULL;
  bool direct = true;
  rg_err err;
  bool keep = out_path && !rg_path_output_target(out_path, &real, &direct, &err) && !direct;
  free(real);
  return keep;
}

rg_status rg_checkpoint_save(const char *out_path, rg_checkpoint_kind kind, const rg_checkpoint_key *k,
                             const rg_prune_result *res, rg_err *err) {
  char *path = rg_checkpoint_path(out_path, kind);
  if (!path) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  free(path);
  if (st) return st;
  fprintf(a.f, MAGIC "%s\n" RUN_TAG "%s\n" BINDING_TAG "%s\n", kind_name[kind], k->run, k->binding);
  st = rg_prune_state_write(a.f, res, err);
  /* The last line is the SHA-256 of every byte before it: a cut or altered file shows. */
  char hex[RG_SHA256_HEX + 1];
  if (!st && (fflush(a.f) || !a.tmp)) st = rg_err_set(err, RG_ERR_IO, "%s: cannot be written", a.path);
  if (!st) st = hash_file(a.tmp, hex, err);
  if (!st) fprintf(a.f, "end %s\n", hex);
  if (st) {
    rg_atomic_abort(&a);
    return st;
  }
  return rg_atomic_commit(&a, err);
}

typedef enum { FOUND_OK, FOUND_NONE, FOUND_OTHER, FOUND_DAMAGED } found;

/* A header line: the tag, then the rest of the line into *s (its length *n); false when the
 * line at p is not one. Moves p past it. */
static bool header_line(const char **p, const char *end, const char *tag, const char **s, int *n) {
  size_t t = strlen(tag);
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  if (!nl || (size_t)(nl - *p) < t || strncmp(*p, tag, t)) return false;
  *s = *p + t, *n = (int)(nl - *s);
  *p = nl + 1;
  return true;
}

/* Whether f (size bytes) ends in a line of its own that is the SHA-256 of what precedes it (the
 * end line, ir/endline.h), checked here as the file streams by: the file may be 1.2 GB. */
static bool end_line_holds(FILE *f, size_t size) {
  char line[RG_END_LINE_LEN + 1], hex[RG_SHA256_HEX + 1];
  rg_err err;
  if (size < RG_END_LINE_LEN || fseeko(f, (off_t)(size - RG_END_LINE_LEN - (size > RG_END_LINE_LEN)), SEEK_SET))
    return false;
  if (size > RG_END_LINE_LEN && fgetc(f) != '\n') return false;
  if (fread(line, 1, RG_END_LINE_LEN, f) != RG_END_LINE_LEN || strncmp(line, "end ", 4) ||
      line[RG_END_LINE_LEN - 1] != '\n')
    return false;
  rewind(f);
  return !hash_stream(f, size - RG_END_LINE_LEN, hex, &err) &&
         !strncmp(line + 4, hex, 2 * RG_SHA256_BYTES);
}

/* The next header line of f into *line (getline's buffer), checked as header_line does. */
static bool next_header(FILE *f, char **line, size_t *cap, const char *tag, const char **v, int *vn, size_t *used) {
  ssize_t n = getline(line, cap, f);
  if (n <= 0) return false;
  const char *p = *line;
  *used += (size_t)n;
  return header_line(&p, *line + n, tag, v, vn);
}

/* The checks of load, in the order their messages name them, then the result itself, read a
 * line at a time (never the whole file: 1.2 GB at depth 4). */
static found read_checked(FILE *f, size_t size, rg_checkpoint_kind kind, const rg_checkpoint_key *k,
                          rg_prune_result *res, rg_prune_entry_fn each, void *ctx, char *why, size_t why_len) {
  char *line = NULL;
  size_t cap = 0, used = 0;
  const char *v;
  int vn;
  found fd = FOUND_DAMAGED;
  long after_magic = 0;
  bool magic = next_header(f, &line, &cap, MAGIC, &v, &vn, &used);
  if (!magic)
    snprintf(why, why_len, "line 1: not a rulegen checkpoint (format 1)");
  else if (vn != (int)strlen(kind_name[kind]) || strncmp(v, kind_name[kind], (size_t)vn))
    snprintf(why, why_len, "line 1: a '%.*s' checkpoint, not '%s'", vn, v, kind_name[kind]);
  else if ((after_magic = ftell(f)) < 0 || !end_line_holds(f, size) || fseek(f, after_magic, SEEK_SET))
    snprintf(why, why_len, "its last line is not the SHA-256 of what precedes it: the file is cut short or altered");
  else if (!next_header(f, &line, &cap, RUN_TAG, &v, &vn, &used))
    snprintf(why, why_len, "line 2: not its '" RUN_TAG "' line");
  else if (vn != (int)strlen(k->run) || strncmp(v, k->run, (size_t)vn))
    fd = FOUND_OTHER, snprintf(why, why_len, "made from other candidates (%.*s)", vn > 200 ? 200 : vn, v);
  else if (!next_header(f, &line, &cap, BINDING_TAG, &v, &vn, &used))
    snprintf(why, why_len, "line 3: not its '" BINDING_TAG "' line");
  else if (vn != (int)strlen(k->binding) || strncmp(v, k->binding, (size_t)vn))
    fd = FOUND_OTHER, snprintf(why, why_len, "made by a run with other candidate text or pruning options");
  else {
    rg_err err = {0};
    if (rg_prune_state_read_file(f, size - RG_END_LINE_LEN - used, k->n, res, each, ctx, &err))
      snprintf(why, why_len, "line %d: %s", 3 + err.line, err.msg);
    else
      fd = FOUND_OK;
  }
  free(line);
  return fd;
}

/* Reads one checkpoint; why says what is wrong with one not used. */
static found load(const char *path, rg_checkpoint_kind kind, const rg_checkpoint_key *k, rg_prune_result *res,
                  rg_prune_entry_fn each, void *ctx, char *why, size_t why_len) {
  struct stat sb;
  memset(res, 0, sizeof *res);
  if (stat(path, &sb) && errno == ENOENT) return FOUND_NONE;
  FILE *f = fopen(path, "rb");
  if (!f || fstat(fileno(f), &sb)) {
    snprintf(why, why_len, "%s: %s", path, strerror(errno));
    if (f) fclose(f);
    return FOUND_DAMAGED;
  }
  found fd = FOUND_DAMAGED;
  if (S_ISREG(sb.st_mode)) fd = read_checked(f, (size_t)sb.st_size, kind, k, res, each, ctx, why, why_len);
  else snprintf(why, why_len, "%s: not a regular file", path);
  fclose(f);
  if (fd != FOUND_OK) rg_prune_result_free(res);
  return fd;
}

int rg_checkpoint_resume(const char *out_path, const rg_checkpoint_key *k, bool want_derived, rg_prune_result *res,
                         int *got, rg_prune_entry_fn each, void *ctx) {
  *got = -1;
  char *damaged = NULL, why[600], damaged_why[600] = "";
  int rc = 0;
  for (int kind = want_derived ? RG_CHECKPOINT_DERIVED : RG_CHECKPOINT_PRUNED; kind >= 0 && *got < 0; kind--) {
    char *path = rg_checkpoint_path(out_path, (rg_checkpoint_kind)kind);
    if (!path) return fprintf(stderr, "rulegen: out of memory\n"), 2;
    found fd = load(path, (rg_checkpoint_kind)kind, k, res, each, ctx, why, sizeof why);
    if (fd == FOUND_OK && res->derive_pass) {
      *got = kind;
      fprintf(stderr,
              "rulegen: resuming in derivability's %s pass, at place %d of %d in its order, from %s (saved by an "
              "earlier run of these candidates)\n",
              res->derive_pass == 1 ? "first" : "second", res->derive_next + 1, res->n, path);
    } else if (fd == FOUND_OK) {
      *got = kind;
      fprintf(stderr, "rulegen: resuming after %s from %s (saved by an earlier run of these candidates)\n",
              kind == RG_CHECKPOINT_DERIVED ? "derivability, before the proofs" : "pruning, before derivability",
              path);
    } else if (fd == FOUND_OTHER) {
      fprintf(stderr, "rulegen: note: %s is not this run's checkpoint (%s): not used; this run's replaces it\n", path,
              why);
    } else if (fd == FOUND_DAMAGED && !damaged) {
      damaged = path, path = NULL;
      snprintf(damaged_why, sizeof damaged_why, "%s", why);
    }
    free(path);
  }
  if (damaged && *got >= 0)
    fprintf(stderr, "rulegen: note: %s is damaged (%s): not used\n", damaged, damaged_why);
  else if (damaged) {
    fprintf(stderr,
            "rulegen: %s: a damaged checkpoint: %s\n  remove it (rm %s) and run the same command again: the stages "
            "it saved run again\n",
            damaged, damaged_why, damaged);
    rc = 2;
  }
  free(damaged);
  return rc;
}

bool rg_checkpoint_final(const char *out_path, const rg_checkpoint_key *k, rg_prune_result *res) {
  char *path = rg_checkpoint_path(out_path, RG_CHECKPOINT_FINAL), why[600];
  found fd = path ? load(path, RG_CHECKPOINT_FINAL, k, res, NULL, NULL, why, sizeof why) : FOUND_NONE;
  if (fd == FOUND_OK)
    fprintf(stderr, "rulegen: derivability over the proved rules %s from %s (an earlier run proved the same rules)\n",
            res->derive_pass ? "goes on" : "taken", path);
  else if (fd != FOUND_NONE)
    fprintf(stderr, "rulegen: note: %s is not used (%s): derivability over the proved rules runs again\n", path, why);
  free(path);
  return fd == FOUND_OK;
}
