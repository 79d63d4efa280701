/* tools/rulesdb_keys.c: `rulesdb keygen` and `rulesdb verify`. */
#include <stdio.h>
#include <string.h>

#include "rulesdb_cmds.h"

static const rg_cli_option keygen_options[] = {
    {"output", 'o', 1, "NAME", "file name prefix (default: rulegen)"},
    RG_CLI_HELP_ROW,
};

static int keygen_usage(int c) {
  FILE *out = c == 'h' ? stdout : stderr;
  fprintf(out, "usage: rulesdb keygen [-o NAME]\n\n"
               "Writes a new Ed25519 key pair: NAME.key (secret, mode 0600) and NAME.pub (public;\n"
               "give it to everyone who reads your databases). Never overwrites an existing key.\n");
  rg_cli_print_options(out, keygen_options, RG_CLI_COUNT(keygen_options), 7, 5);
  return c == 'h' ? 0 : 2;
}

int rdb_keygen(int argc, char **argv) {
  const char *name = "rulegen";
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, keygen_options, RG_CLI_COUNT(keygen_options));
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c != 'o') return keygen_usage(c);
    name = optarg;
  }
  if (optind != argc)
    return fprintf(stderr, "rulesdb keygen: unexpected argument '%s'\n", argv[optind]), 2;
  char sec[4096], pub[4096];
  snprintf(sec, sizeof sec, "%s.key", name);
  snprintf(pub, sizeof pub, "%s.pub", name);
  rg_err err;
  if (rg_db_keygen(sec, pub, &err)) return fprintf(stderr, "rulesdb keygen: %s\n", err.msg), 2;
  rg_db_pubkey pk;
  rg_db_id id;
  if (rg_db_load_pubkey(pub, &pk, &err)) return fprintf(stderr, "rulesdb keygen: %s\n", err.msg), 2;
  rg_db_key_id(&pk, &id);
  printf("wrote %s (secret, mode 0600) and %s (public); key id %.16s...\n", sec, pub, id.hex);
  return 0;
}

static const rg_cli_option verify_options[] = {
    {"pub", 'p', 1, "KEY.pub", "the public key (required)"},
    RG_CLI_HELP_ROW,
};

static int verify_usage(int c) {
  FILE *out = c == 'h' ? stdout : stderr;
  fprintf(out, "usage: rulesdb verify DB --pub KEY.pub\n\n"
               "Checks DB's signature against the public key: the signed manifest (sorted rule ids\n"
               "and digests of every rule, proof, test, certificate, pruning record, stage count\n"
               "and configuration value) must match the content. Says which records changed.\n"
               "Exit status: 0 good, 1 unsigned / wrong key / bad signature / tampered, 2 error.\n");
  rg_cli_print_options(out, verify_options, RG_CLI_COUNT(verify_options), 4, 7);
  return c == 'h' ? 0 : 2;
}

int rdb_verify(int argc, char **argv) {
  const char *pub = NULL;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, verify_options, RG_CLI_COUNT(verify_options));
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c != 'p') return verify_usage(c);
    pub = optarg;
  }
  if (optind + 1 != argc)
    return fprintf(stderr, "rulesdb verify: give one database (see --help)\n"), 2;
  if (!pub) return fprintf(stderr, "rulesdb verify: --pub KEY.pub is required\n"), 2;
  const char *path = argv[optind];
  rg_err err;
  rg_db_pubkey pk;
  if (rg_db_load_pubkey(pub, &pk, &err)) return fprintf(stderr, "rulesdb verify: %s\n", err.msg), 2;
  rg_db *db;
  if (rg_db_read(path, &db, &err)) return fprintf(stderr, "rulesdb verify: %s\n", err.msg), 2;
  rg_strbuf rep;
  rg_sb_init(&rep);
  rg_db_verdict v = rg_db_verify(db, &pk, &rep);
  fprintf(v == RG_DB_VERIFY_OK ? stdout : stderr, "%s: %s", path, rg_sb_str(&rep));
  rg_sb_free(&rep);
  rg_db_free(db);
  return v == RG_DB_VERIFY_OK ? 0 : v == RG_DB_VERIFY_ERROR ? 2 : 1;
}
