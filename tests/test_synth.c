/* tests/test_synth.c: the synth module on its own: counters from stats.def, a run up to the
 * test stage (the same candidates for any thread count, the header line a resumed run checks),
 * and a run stopped before it starts (exit status 130, no file). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "synth/generalize.h"
#include "synth/synth.h"
#include "verify/smt.h"

#include <stdlib.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 22);
  *len = buf ? fread(buf, 1, (1 << 22) - 1, f) : 0;
  if (buf) buf[*len] = 0;
  fclose(f);
  return buf;
}

/* Every counter declared in stats.def is summed and reaches the JSON. */
static void test_counts(void) {
  rg_synth_counts a = {0}, b = {0};
  uint64_t k = 1;
#define RG_SYNTH_COUNT(field, what) b.field = k++;
#include "synth/stats.def"
#undef RG_SYNTH_COUNT
  b.verdict[RG_RANDTEST_PASS] = 77;
  rg_synth_counts_add(&a, &b);
  rg_synth_counts_add(&a, &b);
  k = 1;
#define RG_SYNTH_COUNT(field, what) CHECK_MSG(a.field == 2 * k++, "%s", #field);
#include "synth/stats.def"
#undef RG_SYNTH_COUNT
  CHECK(a.verdict[RG_RANDTEST_PASS] == 154);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  rg_synth_counts_json(&a, f);
  fclose(f);
#define RG_SYNTH_COUNT(field, what) CHECK_MSG(strstr(text, "\"" #field "\": ") != NULL, "%s", #field);
#include "synth/stats.def"
#undef RG_SYNTH_COUNT
  CHECK(strstr(text, "\"pass\": 154") != NULL);
  CHECK(text[0] == '{' && text[len - 1] == '}');
  free(text);
}

/* A depth-2 run of TASO's operators up to the test stage with `threads` threads; returns the
 * candidate text (caller frees) and the exit status in *rc. */
static char *run_to_test(int threads, const char *path, int *rc) {
  static volatile sig_atomic_t stop;
  rg_synth_opts o;
  rg_synth_opts_default(&o, &stop);
  o.depth = 2, o.threads = o.fp.threads = threads, o.quiet = true;
  o.rt.seed = o.fp.seed + 1;
  o.stop_after = RG_SYNTH_STOP_TEST;
  o.out_path = path;
  *rc = rg_synth_run(&o, "test_synth");
  size_t len;
  return slurp(path, &len);
}

static void test_run(void) {
  char p1[] = "/tmp/test_synth_1_XXXXXX", p2[] = "/tmp/test_synth_2_XXXXXX";
  close(mkstemp(p1)), close(mkstemp(p2));
  int rc1, rc2;
  char *one = run_to_test(1, p1, &rc1), *two = run_to_test(2, p2, &rc2);
  CHECK(rc1 == 0 && rc2 == 0);
  CHECK(one && two);
  if (one && two) {
    CHECK(!strcmp(one, two)); /* written in bucket order: any thread count gives the same file */
    CHECK(!strncmp(one, "# rulegen synth: depth 2, ", 26));
    int lines = 0;
    for (const char *p = one; (p = strchr(p, '\n')); p++) lines++;
    CHECK_MSG(lines > 20, "%d lines", lines); /* a header and candidates (ewadd commutes, ...) */
    CHECK(strstr(one, "=>") != NULL);
  }
  free(one), free(two);
  remove(p1), remove(p2);
}

/* A run whose stop flag is already set writes nothing and says it was interrupted. */
static void test_interrupted(void) {
  volatile sig_atomic_t stop = 1;
  rg_synth_opts o;
  rg_synth_opts_default(&o, &stop);
  o.depth = 2, o.quiet = true;
  o.rt.seed = o.fp.seed + 1;
  o.stop_after = RG_SYNTH_STOP_TEST;
  char path[] = "/tmp/test_synth_stop_XXXXXX";
  close(mkstemp(path));
  remove(path);
  o.out_path = path;
  CHECK(rg_synth_run(&o, "test_synth") == 130);
  CHECK(access(path, F_OK) != 0);
}

/* The generalize stage parses the candidates a chunk at a time: chunks of 3 rules give the text
 * and the lists of generalizations of one chunk of all (a comment line and a blank line among
 * them, and candidates that generalize and that do not). */
static void test_generalize_chunks(void) {
  volatile sig_atomic_t stop = 0;
  rg_synth_opts o;
  rg_synth_opts_default(&o, &stop);
  rg_enum_space sp;
  rg_err err;
  CHECK(rg_enum_space_init(&sp, &o.choices, &o.inputs, 2, &err) == RG_OK);
  static const char text[] = "# candidates\n(ewadd (relu ?i1) ?i1) => (ewadd ?i1 (relu ?i1))\n(ewadd ?w1 ?w1) => (ewadd ?w1 ?w1)\n"
                             "\n(ewmul ?i1 ?i1) => (ewmul ?i1 ?i1)\n(relu (relu ?i1)) => (relu ?i1)\n"
                             "(ewadd ?w13 ?w13) => (ewadd ?w13 ?w13)\n(matmul ?w1 ?w1) => (matmul ?w1 ?w1)\n"
                             "(ewadd (relu ?i1) (relu ?i1)) => (ewadd (relu ?i1) (relu ?i1))\n";
  char *got[2];
  size_t len[2];
  int *off[2], *of[2];
  rg_generalize_counts c[2];
  for (int k = 0; k < 2; k++) {
    rg_generalize_opts go = {&sp, o.rt, rg_generalize_limits_default(), 1, 1 << 20, &stop, true, k ? 3 : 0, NULL, NULL};
    len[k] = strlen(text);
    got[k] = malloc(len[k] + 1);
    memcpy(got[k], text, len[k] + 1);
    CHECK_MSG(rg_synth_generalize(&got[k], &len[k], &go, &c[k], &off[k], &of[k], &err) == RG_OK, "%s", err.msg);
  }
  CHECK_MSG(c[0].in == 7 && c[0].added > 0 && c[0].in == c[1].in && c[0].added == c[1].added, "%llu in, %llu added",
            (unsigned long long)c[0].in, (unsigned long long)c[0].added);
  CHECK(len[0] == len[1] && !strcmp(got[0], got[1]));
  int total = (int)(c[0].in + c[0].added);
  CHECK(!memcmp(off[0], off[1], sizeof(int) * (size_t)(total + 1)) &&
        !memcmp(of[0], of[1], sizeof(int) * (size_t)c[0].added));
  for (int k = 0; k < 2; k++) free(got[k]), free(off[k]), free(of[k]);
  rg_enum_space_free(&sp);
}

/* An MPI rank reads its generalize chunk from the text rank 0 kept in the folder: the bytes it
 * was sent the sum of, and none other (an altered byte, a text cut short: an error naming the
 * file, no chunk). */
static void test_generalize_text(void) {
  char folder[] = "/tmp/rg_gentext_XXXXXX"; /* the stage's folder, made empty */
  CHECK(mkdtemp(folder) != NULL);
  rg_gen_chunks kept;
  rg_err err;
  CHECK_MSG(rg_gen_chunks_open(&kept, folder, "text abc", false, &err) == RG_OK, "%s", err.msg);
  static const char text[] = "(relu ?x) => (relu ?x)\n(ewadd ?x ?x) => (ewadd ?x ?x)\n";
  rg_gen_chunk ch = {23, sizeof text - 1, 1, 1};
  char sha[65], *buf = NULL;
  rg_sha256_hex(text + ch.pos, ch.end - ch.pos, sha);
  CHECK_MSG(rg_gen_chunks_save_text(&kept, text, sizeof text - 1, &err) == RG_OK, "%s", err.msg);
  CHECK_MSG(rg_gen_chunks_read_text(&kept, &ch, sha, &buf, &err) == RG_OK, "%s", err.msg);
  CHECK(buf && !strcmp(buf, text + ch.pos));
  free(buf);
  char other[sizeof text];
  memcpy(other, text, sizeof text);
  other[30] = 'X';
  CHECK(rg_gen_chunks_save_text(&kept, other, sizeof text - 1, &err) == RG_OK);
  CHECK(rg_gen_chunks_read_text(&kept, &ch, sha, &buf, &err) == RG_ERR_IO && !buf);
  CHECK_MSG(strstr(err.msg, "c-text") && strstr(err.msg, "not the candidates rank 0 wrote"), "%s", err.msg);
  CHECK(rg_gen_chunks_save_text(&kept, text, 40, &err) == RG_OK);
  CHECK(rg_gen_chunks_read_text(&kept, &ch, sha, &buf, &err) == RG_ERR_IO && !buf);
  CHECK_MSG(strstr(err.msg, "shorter"), "%s", err.msg);
  char text_path[64];
  snprintf(text_path, sizeof text_path, "%s/c-text", folder);
  rg_gen_chunks_drop_text(&kept);
  CHECK(access(text_path, F_OK) != 0);
  CHECK(rg_gen_chunks_save_text(&kept, text, sizeof text - 1, &err) == RG_OK);
  rg_gen_chunks_close(&kept, true);
  CHECK(access(folder, F_OK) != 0); /* a text left went with the folder */
}

int main(void) {
  test_counts();
  test_run();
  test_interrupted();
  test_generalize_chunks();
  test_generalize_text();
  return check_done("test_synth");
}
