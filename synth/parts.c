/* synth/parts.c: the test stage's parts and their files (synth/parts.h). */
#define _POSIX_C_SOURCE 200809L
#include "parts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "candidates.h"
#include "verify/smt.h"

#define PART_TAG "# rulegen test part "

/* Parts p..q tested together keep their lines in test-PP-QQ.cand. */
char *rg_part_path(const rg_fp_spill *s, int p, int q) {
  const char *dir = rg_fp_spill_dir(s);
  size_t n = strlen(dir) + 32;
  char *path = malloc(n);
  if (path) snprintf(path, n, "%s/test-%02d-%02d.cand", dir, p, q);
  return path;
}

/* The last part tested with part p: parts are joined while their records stay under a target
 * (small runs test in few loads: each load and its parallel loops cost a little), which is
 * the same in every run over these records, so a run that goes on finds the same groups. */
int rg_part_group_end(const rg_fp_spill *spill, const rg_fp_opts *fp, int p) {
  uint64_t target = rg_fp_record_cap(fp) / 2, sum = rg_fp_spill_part_records(spill, p);
  if (target > (1u << 20)) target = 1u << 20;
  int q = p;
  while (q + 1 < RG_FP_SPILL_PARTS && sum + rg_fp_spill_part_records(spill, q + 1) <= target)
    sum += rg_fp_spill_part_records(spill, ++q);
  return q;
}

/* A tested part read back: its lines to out, its counts to c. False when there is none, or it
 * is not whole (then it is tested again). */
bool rg_part_read(const char *path, int p, int q, FILE *out, rg_synth_counts *c) {
  rg_strbuf sb;
  rg_err err;
  if (access(path, F_OK) != 0) return false;
  bool ok = !rg_text_read_file(path, &sb, &err);
  const char *s = rg_sb_str(&sb), *end = NULL, *text = NULL;
  char tag[64], sha[65], want[65];
  int n = snprintf(tag, sizeof tag, PART_TAG "%d-%d:", p, q);
  unsigned long long len = 0;
  rg_synth_counts pc;
  ok = ok && !strncmp(s, tag, (size_t)n) && rg_synth_counts_parse(s + n, &end, &pc) &&
       sscanf(end, " %llu %64s", &len, want) == 2 && (text = strchr(end, '\n')) && strlen(++text) == len;
  if (ok) rg_sha256_hex(text, len, sha);
  if (ok && !strcmp(sha, want)) {
    rg_synth_counts_add(c, &pc);
    if (out) fputs(text, out);
  } else {
    fprintf(stderr, "rulegen: %s is not a whole tested part: testing it again\n", path);
    ok = false;
  }
  rg_sb_free(&sb);
  return ok;
}

/* Writes a tested part: its counts, the length and SHA-256 of its lines, then the lines. Not
 * synced: a part a machine restart cut is found so by read_part and tested again. */
rg_status rg_part_save(const char *path, int p, int q, const rg_synth_counts *pc, const char *text, size_t len,
                           rg_err *err) {
  rg_strbuf head;
  rg_sb_init(&head);
  char sha[65];
  rg_sha256_hex(text ? text : "", len, sha);
  rg_sb_printf(&head, PART_TAG "%d-%d:", p, q);
  rg_synth_counts_save(pc, &head);
  rg_sb_printf(&head, " %zu %s\n", len, sha);
  char *tmp = rg_path_with_suffix(path, ".tmp");
  FILE *f = tmp ? fopen(tmp, "w") : NULL;
  bool ok = f && fputs(rg_sb_str(&head), f) >= 0 && (!len || fwrite(text, 1, len, f) == len);
  ok = (f && fclose(f) == 0) && ok && rename(tmp, path) == 0;
  rg_status st = ok ? RG_OK : rg_err_set(err, RG_ERR_IO, "writing %s: %s", tmp ? tmp : path, strerror(errno));
  if (!ok && tmp) unlink(tmp);
  free(tmp);
  rg_sb_free(&head);
  return st;
}

/* Tests parts p..q, in pieces when their records exceed the memory limit; the lines into *text. */
rg_status rg_part_test(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp, const rg_fp_spill *spill,
                           int p, int q, rg_randtest_cache *cache, char **text, size_t *len, rg_synth_counts *pc,
                           rg_err *err) {
  FILE *mem = open_memstream(text, len);
  if (!mem) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_synth_opts quiet = *o; /* one progress line over the parts, not one per part */
  quiet.quiet = true;
  rg_status st = RG_OK;
  uint64_t lo = rg_fp_spill_part_lo(p), hi = rg_fp_spill_part_hi(q);
  for (int piece = 0; !st && !*o->stop; piece++) {
    rg_fp_table t;
    st = rg_fp_spill_load(spill, sp, fp, lo, hi, &t, err);
    if (!st) {
      pc->records += t.n;
      pc->passes++;
      st = rg_synth_test_pass(&quiet, sp, &t, cache, mem, pc, err);
    }
    uint64_t covered = t.hi;
    rg_fp_table_free(&t);
    if (st || covered == hi) break;
    if (!piece)
      fprintf(stderr, "rulegen: the records of part %d of %d did not fit in --mem-limit: testing it in pieces\n",
              p + 1, RG_FP_SPILL_PARTS); /* a group holds one part when a part is this large */
    lo = covered + 1;
  }
  if (fclose(mem) != 0 && !st) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return st;
}

