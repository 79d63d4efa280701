/* tests/test_verify_journal.c: the proof journal trusts only lines made with its key: answers
 * written by a run are found again, a line forged or changed afterwards (an unsat made up for an
 * obligation, a timeout turned into unsat) is refused, and so is a journal without its key; a
 * journal kept open takes what another handle appended, whole lines only, still under its key;
 * a journal prepared (made, its header checked) has none of its lines read or dropped. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "verify/journal.h"

static const char *const versions[RG_SOLVER_COUNT] = {"z3 4.8.12", "cvc5 1.0.3"};
static const char sha_a[] = "a7ddc29ccadbd8005c9bf8507e39e828c6d08dad28f942433c5d6a9da10c2e41";
static const char sha_b[] = "0000000000000000000000000000000000000000000000000000000000000000";

static rg_status reopen(const char *path, rg_journal **j, rg_err *err) {
  rg_journal_close(*j);
  *j = NULL;
  return rg_journal_open(path, versions, j, err);
}

/* Replaces the first occurrence of from in the file with to (same length). */
static void edit(const char *path, const char *from, const char *to) {
  rg_strbuf sb;
  rg_err err;
  CHECK(rg_text_read_file(path, &sb, &err) == RG_OK);
  char *at = sb.s ? strstr(sb.s, from) : NULL;
  CHECK(at != NULL && strlen(from) == strlen(to));
  if (at) memcpy(at, to, strlen(to));
  FILE *f = fopen(path, "w");
  if (f) fwrite(sb.s, 1, sb.len, f), fclose(f);
  rg_sb_free(&sb);
}

/* The file's last byte (0 when empty or missing). */
static int last_byte(const char *path) {
  FILE *f = fopen(path, "rb");
  int c = 0;
  if (f && fseek(f, -1, SEEK_END) == 0) c = fgetc(f);
  if (f) fclose(f);
  return c;
}

/* Two handles on one cache journal (two runs, or rank 0 and a rank): what one appends, the
 * other takes when it catches up; a forged line is refused; a half-written line is dropped as
 * an open drops it; a journal removed or replaced is read again from its start. */
static void test_catch_up(const char *dir) {
  char path[96], key[104];
  snprintf(path, sizeof path, "%s/c.proofs", dir);
  snprintf(key, sizeof key, "%s.key", path);
  rg_journal *a = NULL, *b = NULL, *c = NULL;
  rg_err err;
  rg_solver_answer u = {.result = RG_SMT_UNSAT, .ms = 3.0}, got;
  snprintf(u.core, sizeof u.core, "goal");
  CHECK(rg_journal_open_cache(path, versions, &a, &err) == RG_OK);
  CHECK(rg_journal_open_cache(path, versions, &b, &err) == RG_OK);
  CHECK(rg_journal_append(a, sha_a, RG_SOLVER_Z3, 300, &u, &err) == RG_OK);
  CHECK(!rg_journal_lookup(b, sha_a, RG_SOLVER_Z3, 300, &got));
  CHECK(rg_journal_catch_up(b, &err) == RG_OK && rg_journal_lookup(b, sha_a, RG_SOLVER_Z3, 300, &got) &&
        got.result == RG_SMT_UNSAT && !strcmp(got.core, "goal"));
  /* a line made up without the key */
  FILE *f = fopen(path, "a");
  if (f) fprintf(f, "%s cvc5 unsat 300 2.0 0123456789abcdef0123456789abcdef goal\n", sha_b), fclose(f);
  CHECK(rg_journal_catch_up(b, &err) == RG_OK && rg_journal_refused(b) == 1);
  CHECK(!rg_journal_lookup(b, sha_b, RG_SOLVER_CVC5, 300, &got));
  /* half a line (a run that died writing it): dropped, so the next answer is a line of its own */
  f = fopen(path, "a");
  if (f) fprintf(f, "%s cvc5 unsat 300 2.0 ", sha_b), fclose(f);
  CHECK(rg_journal_catch_up(b, &err) == RG_OK && last_byte(path) == '\n');
  CHECK(rg_journal_append(b, sha_b, RG_SOLVER_Z3, 300, &u, &err) == RG_OK);
  CHECK(rg_journal_catch_up(a, &err) == RG_OK && rg_journal_lookup(a, sha_b, RG_SOLVER_Z3, 300, &got) &&
        rg_journal_refused(a) == 1);
  /* removed with its key, made again by another run: read from its start, appends reach it */
  unlink(path), unlink(key);
  CHECK(rg_journal_open_cache(path, versions, &c, &err) == RG_OK);
  CHECK(rg_journal_append(c, sha_b, RG_SOLVER_CVC5, 300, &u, &err) == RG_OK);
  CHECK(rg_journal_catch_up(b, &err) == RG_OK && rg_journal_refused(b) == 0);
  CHECK(rg_journal_lookup(b, sha_b, RG_SOLVER_CVC5, 300, &got) && !rg_journal_lookup(b, sha_a, RG_SOLVER_Z3, 300, &got));
  CHECK(rg_journal_append(b, sha_a, RG_SOLVER_CVC5, 300, &u, &err) == RG_OK);
  CHECK(rg_journal_catch_up(c, &err) == RG_OK && rg_journal_lookup(c, sha_a, RG_SOLVER_CVC5, 300, &got));
  /* removed and not made again: made again by the catch-up, as an open would */
  unlink(path), unlink(key);
  CHECK(rg_journal_catch_up(a, &err) == RG_OK && access(path, F_OK) == 0 && access(key, F_OK) == 0);
  rg_journal_close(a), rg_journal_close(b), rg_journal_close(c);
  unlink(path), unlink(key);
}

/* rg_journal_prepare makes what an open makes and checks the header, but reads no answer and
 * so drops no line: a line cut short stays until an open that reads the lines. */
static void test_prepare(const char *dir) {
  char path[96], key[104];
  snprintf(path, sizeof path, "%s/p.proofs", dir);
  snprintf(key, sizeof key, "%s.key", path);
  rg_err err;
  CHECK(rg_journal_prepare(path, versions, &err) == RG_OK);
  struct stat sj, sk;
  CHECK(stat(path, &sj) == 0 && sj.st_size > 0 && stat(key, &sk) == 0 &&
        (sk.st_mode & 0777) == 0600);
  FILE *f = fopen(path, "a");
  if (f) fputs("a7ddc29cca", f), fclose(f); /* a line cut short */
  off_t cut = stat(path, &sj) == 0 ? sj.st_size : 0;
  CHECK(rg_journal_prepare(path, versions, &err) == RG_OK && stat(path, &sj) == 0 &&
        sj.st_size == cut);
  const char *const others[RG_SOLVER_COUNT] = {"z3 4.13.0", "cvc5 1.0.3"};
  CHECK(rg_journal_prepare(path, others, &err) == RG_ERR_ARG && strstr(err.msg, "other solvers"));
  rg_journal *j = NULL;
  CHECK(rg_journal_open_cache(path, versions, &j, &err) == RG_OK && stat(path, &sj) == 0 &&
        sj.st_size < cut);
  rg_journal_close(j);
  unlink(path), unlink(key);
}

int main(void) {
  char dir[] = "/tmp/rg_journal_key_XXXXXX", path[96], key[104];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/j.proofs", dir);
  snprintf(key, sizeof key, "%s.key", path);
  rg_journal *j = NULL;
  rg_err err;
  CHECK(rg_journal_open(path, versions, &j, &err) == RG_OK);
  struct stat sk;
  CHECK(stat(key, &sk) == 0 && (sk.st_mode & 0777) == 0600); /* the key is its owner's alone */
  rg_solver_answer a = {.result = RG_SMT_UNSAT, .ms = 12.5};
  snprintf(a.core, sizeof a.core, "ewadd-comm");
  rg_solver_answer t = {.result = RG_SMT_TIMEOUT, .ms = 2000};
  CHECK(rg_journal_append(j, sha_a, RG_SOLVER_Z3, 2000, &a, &err) == RG_OK);
  CHECK(rg_journal_append(j, sha_b, RG_SOLVER_Z3, 2000, &t, &err) == RG_OK);
  /* read back with its key */
  CHECK(reopen(path, &j, &err) == RG_OK);
  rg_solver_answer got;
  CHECK(rg_journal_lookup(j, sha_a, RG_SOLVER_Z3, 2000, &got) && got.result == RG_SMT_UNSAT &&
        !strcmp(got.core, "ewadd-comm"));
  CHECK(!rg_journal_lookup(j, sha_a, RG_SOLVER_CVC5, 2000, &got));
  rg_journal_close(j), j = NULL;
  /* a timeout turned into an unsat: its MAC no longer matches */
  edit(path, " z3 timeout ", " z3 unsat   ");
  CHECK(rg_journal_open(path, versions, &j, &err) == RG_ERR_PARSE && strstr(err.msg, "forged") &&
        strstr(err.msg, ":3:"));
  edit(path, " z3 unsat   ", " z3 timeout ");
  CHECK(reopen(path, &j, &err) == RG_OK);
  rg_journal_close(j), j = NULL;
  /* a line made up without the key */
  FILE *f = fopen(path, "a");
  if (f) fprintf(f, "%s cvc5 unsat 2000 9.0 %s ewadd-comm\n", sha_a, "0123456789abcdef0123456789abcdef"), fclose(f);
  CHECK(rg_journal_open(path, versions, &j, &err) == RG_ERR_PARSE && strstr(err.msg, "forged"));
  /* a proof cache's journal refuses that line instead: not believed, counted, the rest read */
  CHECK(rg_journal_open_cache(path, versions, &j, &err) == RG_OK && rg_journal_refused(j) == 1);
  CHECK(!rg_journal_lookup(j, sha_a, RG_SOLVER_CVC5, 2000, &got));
  CHECK(rg_journal_lookup(j, sha_a, RG_SOLVER_Z3, 2000, &got) && got.result == RG_SMT_UNSAT);
  rg_journal_close(j), j = NULL;
  /* a journal without its key is not read at all */
  unlink(key);
  CHECK(rg_journal_open(path, versions, &j, &err) == RG_ERR_ARG && strstr(err.msg, "has no key"));
  unlink(path);
  test_catch_up(dir);
  test_prepare(dir);
  rmdir(dir);
  return check_done("test_verify_journal");
}
