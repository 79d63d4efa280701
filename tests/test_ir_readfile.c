/* tests/test_ir_readfile.c: whole files read within bounds (ir/readfile.h): a regular file whole,
 * a stream that does not end (/dev/zero, a FIFO) refused past its kind's bound or at its first
 * bytes that its kind's check refuses (rule text at /dev/zero's first byte), a folder and a
 * regular file past the bound refused by name; each promptly and without reading on. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* Refuses a stream at its first 'z'. */
static rg_status no_z(const char *path, const char *data, size_t len, size_t *done, rg_err *err) {
  for (; *done < len; ++*done)
    if (data[*done] == 'z') return rg_err_set(err, RG_ERR_PARSE, "%s: a 'z' at byte %zu", path, *done);
  return RG_OK;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) fputs(text, f), fclose(f);
}

/* What reading path as kind k says: its status, and whether the message holds want. */
static void expect(const char *path, const rg_file_kind *k, rg_status status, const char *want) {
  rg_strbuf sb;
  rg_err err = {0};
  rg_status st = rg_file_read(path, k, &sb, &err);
  CHECK_MSG(st == status, "%s: status %d, want %d (%s)", path, st, status, err.msg);
  CHECK_MSG(!want || strstr(err.msg, want), "%s: '%s' lacks '%s'", path, err.msg, want);
  CHECK(st || sb.s[sb.len] == 0);
  rg_sb_free(&sb);
}

/* A regular file: read whole, or refused past its kind's bound; a folder, a missing file. */
static void regular_files(const char *dir) {
  char path[128];
  snprintf(path, sizeof path, "%s/small.txt", dir);
  write_file(path, "0123456789");
  const rg_file_kind text = {"text", SIZE_MAX, 1 << 20, NULL}, small = {"small text", 4, 4, NULL};
  rg_strbuf sb;
  rg_err err;
  CHECK(rg_file_read(path, &text, &sb, &err) == RG_OK && sb.len == 10 && !strcmp(sb.s, "0123456789"));
  rg_sb_free(&sb);
  expect(path, &small, RG_ERR_LIMIT, "10 bytes, more than the 4 bytes that small text may hold");
  expect(dir, &text, RG_ERR_IO, "is a folder, not text");
  expect("/nonexistent/x", &text, RG_ERR_IO, "cannot open /nonexistent/x");
  unlink(path);
}

/* Streams that never end: /dev/zero refused after the bound (1 MiB here), or at its first byte
 * by rule text's check; a FIFO whose writer never stops, at the check's first 'z'. */
static void streams(const char *dir) {
  const rg_file_kind text = {"text", SIZE_MAX, 1 << 20, NULL}, checked = {"text without z", SIZE_MAX, 1u << 30, no_z};
  expect("/dev/zero", &text, RG_ERR_LIMIT, "/dev/zero: a character device that gave more than 1 MiB");
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  CHECK(rg_text_parse_file("/dev/zero", &rs, &err) == RG_ERR_PARSE && strstr(err.msg, "unexpected byte 0x00") &&
        err.line == 1 && err.col == 1);
  rg_ruleset_free(&rs);
  char fifo[128];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  pid_t child = fork();
  if (child == 0) {
    FILE *f = fopen(fifo, "w");
    for (int i = 0; f && i < 1 << 20 && fputs("abcz", f) >= 0; i++) {}
    _exit(0);
  }
  expect(fifo, &checked, RG_ERR_PARSE, "a 'z' at byte 3");
  kill(child, SIGKILL), waitpid(child, NULL, 0);
  unlink(fifo);
}

int main(void) {
  char dir[] = "/tmp/rg_readfile_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  regular_files(dir);
  streams(dir);
  rmdir(dir);
  return check_done("test_ir_readfile");
}
