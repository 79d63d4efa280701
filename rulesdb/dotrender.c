/* rulesdb/dotrender.c: one rule of a database drawn as an image by Graphviz's dot program
 * (`rulesdb show --png`). dot is run, not linked: it is a program users have (Debian's graphviz
 * package), and a missing one is a message saying so, not a build dependency. dot reads the
 * rule's DOT text from its standard input, an unnamed temporary file (dot_input). */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dbexchange.h"
#include "exchange.h"
#include "ir/text.h"

extern char **environ;

/* The one rule whose id starts with prefix; RG_ERR_ARG naming how many match otherwise. */
static rg_status find_one(const rg_db *db, const char *prefix, size_t *at, rg_err *err) {
  size_t n = 0;
  const rg_db_select by_id = {.prefix = prefix, .status = -1};
  for (size_t i = 0; i < db->rules.n; i++)
    if (rg_db_rule_selected(&db->rules.v[i], &by_id)) *at = i, n++;
  if (n == 1) return RG_OK;
  return rg_err_set(err, RG_ERR_ARG, "id prefix '%s' matches %zu rules; an image shows one: %s", prefix, n,
                    n ? "give more of the id" : "see 'rulesdb show DB --list' for the ids");
}

/* All of the n bytes of s to fd; 0, or -1 with errno. */
static int write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    s += w, n -= (size_t)w;
  }
  return 0;
}

/* The DOT text in a temporary file that has no name, rewound for dot to read, in *fd: made by
 * mkstemp in $TMPDIR (else /tmp) under an unpredictable name and unlinked at once, before
 * anything is written, so that no way out of this program (an error, Ctrl-C, kill -9) leaves it
 * behind; it goes with the last descriptor. */
static rg_status dot_input(const rg_strbuf *dot, int *fd, rg_err *err) {
  if (dot->failed) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  size_t n = strlen(dir) + 32;
  char *path = malloc(n);
  if (!path) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  snprintf(path, n, "%s/rulesdb-show-XXXXXX", dir);
  *fd = mkstemp(path);
  if (*fd >= 0) unlink(path);
  free(path);
  if (*fd < 0)
    return rg_err_set(err, RG_ERR_IO, "cannot make a temporary file in %s for dot's input: %s (set TMPDIR)",
                      dir, strerror(errno));
  if (write_all(*fd, rg_sb_str(dot), dot->len) == 0 && lseek(*fd, 0, SEEK_SET) == 0) return RG_OK;
  rg_status st = rg_err_set(err, RG_ERR_IO, "cannot write dot's input (a temporary file in %s): %s", dir,
                            strerror(errno));
  close(*fd), *fd = -1;
  return st;
}

/* Runs dot -T<fmt> -o out with in as its standard input, waiting for it. */
static rg_status run_dot(const char *fmt, int in, const char *out, rg_err *err) {
  char tflag[32];
  snprintf(tflag, sizeof tflag, "-T%s", fmt);
  char *argv[] = {"dot", tflag, "-o", (char *)out, NULL};
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (!rc && in != 0) rc = posix_spawn_file_actions_adddup2(&fa, in, 0);
  if (!rc && in != 0) rc = posix_spawn_file_actions_addclose(&fa, in);
  pid_t pid;
  if (!rc) rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc == ENOENT)
    return rg_err_set(err, RG_ERR_IO,
                      "Graphviz's dot program is not on PATH: install it (Debian: apt-get install graphviz) "
                      "or use 'rulesdb export DB --format dot -o DIR' and render elsewhere");
  if (rc) return rg_err_set(err, RG_ERR_IO, "cannot run dot: %s", strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return rg_err_set(err, RG_ERR_IO, "waiting for dot: %s", strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status))
    return rg_err_set(err, RG_ERR_IO, "dot failed rendering %s (%s %d)", out,
                      WIFEXITED(status) ? "exit status" : "signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  return RG_OK;
}

rg_status rg_db_render_rule(const rg_db *db, const char *prefix, const char *fmt, const char *out, rg_err *err) {
  size_t at = 0;
  rg_status st = find_one(db, prefix, &at, err);
  rg_enum_inputset inputs;
  if (!st) st = rg_db_input_set(db, &inputs, err);
  rg_rule *r = NULL;
  rg_err e;
  if (!st && rg_text_parse_rule(db->rules.v[at].text, &r, &e))
    st = rg_err_set(err, RG_ERR_PARSE, "rule %.16s: stored text does not parse: %s", db->rules.v[at].id.hex, e.msg);
  if (st) return st;
  rg_strbuf dot;
  rg_sb_init(&dot);
  rg_dot_rule(r, db->rules.v[at].text, &inputs, &dot);
  rg_rule_free(r);
  int in = -1;
  st = dot_input(&dot, &in, err);
  rg_sb_free(&dot);
  if (!st) st = run_dot(fmt, in, out, err);
  if (in >= 0) close(in);
  return st;
}
