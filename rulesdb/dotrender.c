/* rulesdb/dotrender.c: one rule of a database drawn as an image by Graphviz's dot program
 * (`rulesdb show --png`). dot is run, not linked: it is a program users have (Debian's graphviz
 * package), and a missing one is a message saying so, not a build dependency. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dbexchange.h"
#include "exchange.h"
#include "ir/atomic.h"
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

/* Runs dot -T<fmt> -o out in, waiting for it. */
static rg_status run_dot(const char *fmt, const char *in, const char *out, rg_err *err) {
  char tflag[32];
  snprintf(tflag, sizeof tflag, "-T%s", fmt);
  char *argv[] = {"dot", tflag, "-o", (char *)out, (char *)in, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, "dot", NULL, NULL, argv, environ);
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
  /* the DOT text beside the image, as dot's input; removed after */
  char *tmp = rg_path_with_suffix(out, ".dot.tmp");
  FILE *f = tmp ? fopen(tmp, "w") : NULL;
  if (!f || dot.failed) st = rg_err_set(err, RG_ERR_IO, "%s: cannot write: %s", tmp ? tmp : out, strerror(errno));
  else if (fwrite(rg_sb_str(&dot), 1, dot.len, f) != dot.len)
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
  if (f && fclose(f) && !st) st = rg_err_set(err, RG_ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
  if (!st) st = run_dot(fmt, tmp, out, err);
  if (f) unlink(tmp);
  free(tmp);
  rg_sb_free(&dot);
  return st;
}
