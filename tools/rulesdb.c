/* tools/rulesdb.c: the rulesdb program: dispatches to its subcommands (rulesdb_cmds.h) and
 * holds what they share: opening a database as a verifying reader, help, write progress. */
#include <stdio.h>

#include "cli.h"
#include "rulesdb_cmds.h"

int rdb_write_progress(void *user, int64_t done, int64_t total) {
  const char *path = user;
  if (total >= 200000 && done % 100000 < 1024)
    fprintf(stderr, "rulesdb: writing %s: %lld of %lld rows\n", path, (long long)done,
            (long long)total);
  return rg_cli_interrupted != 0;
}

int rdb_open(const char *prog, const char *path, const char *pub, bool allow_unsigned,
             rg_db **out, bool *verified) {
  rg_err err;
  rg_strbuf warn;
  rg_sb_init(&warn);
  rg_status st = rg_db_open_keyed(path, pub, allow_unsigned, out, &warn, &err);
  if (warn.len) fprintf(stderr, "%s: warning (--allow-unsigned): %s", prog, rg_sb_str(&warn));
  if (verified) *verified = st == RG_OK && pub && warn.len == 0;
  rg_sb_free(&warn);
  if (st) {
    fprintf(stderr, "%s: %s\n", prog, err.msg);
    return st == RG_ERR_ARG ? 1 : 2; /* 1: refused (a signature); 2: no key, or it cannot be read */
  }
  return 0;
}

int rdb_usage(const rg_cli_doc *doc, int c, void (*extra)(FILE *out)) {
  rg_cli_doc_usage(c == RG_OPT_HELP ? stdout : stderr, doc, extra);
  return c == RG_OPT_HELP ? 0 : 2;
}

static const rg_cli_command commands[] = {
#define X(name, fn, help) {name, fn, help},
    RULESDB_COMMANDS(X)
#undef X
};

int main(int argc, char **argv) {
  return rg_cli_dispatch(
      "rulesdb",
      "rulesdb reads, checks and converts signed rule databases written by rulegen.\n"
      "Every command that reads a database verifies its signature first (--pub KEY.pub)\n"
      "and refuses an unsigned, tampered or wrongly-keyed one unless --allow-unsigned.\n",
      commands, (int)(sizeof commands / sizeof *commands), NULL, argc, argv);
}
