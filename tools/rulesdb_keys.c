/* tools/rulesdb_keys.c: `rulesdb keygen` and `rulesdb verify`. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rulesdb_cmds.h"

int rdb_keygen(int argc, char **argv) {
  const char *name = "rulegen";
  static const struct option lo[] = {{"output", 1, 0, 'o'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
    if (c == 'o')
      name = optarg;
    else {
      fprintf(c == 'h' ? stdout : stderr,
              "usage: rulesdb keygen [-o NAME]\n\n"
              "Writes a new Ed25519 key pair: NAME.key (secret, mode 0600) and NAME.pub (public;\n"
              "give it to everyone who reads your databases). Never overwrites an existing key.\n"
              "  -o, --output NAME   file name prefix (default: rulegen)\n");
      return c == 'h' ? 0 : 2;
    }
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

int rdb_verify(int argc, char **argv) {
  const char *pub = NULL;
  static const struct option lo[] = {{"pub", 1, 0, 'p'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "p:h", lo, NULL)) != -1) {
    if (c == 'p')
      pub = optarg;
    else {
      fprintf(c == 'h' ? stdout : stderr,
              "usage: rulesdb verify DB --pub KEY.pub\n\n"
              "Checks DB's signature against the public key: the signed manifest (sorted rule ids\n"
              "and digests of every rule, proof, test, certificate, pruning record, stage count\n"
              "and configuration value) must match the content. Says which records changed.\n"
              "Exit status: 0 good, 1 unsigned / wrong key / bad signature / tampered, 2 error.\n");
      return c == 'h' ? 0 : 2;
    }
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
