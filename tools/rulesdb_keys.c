/* tools/rulesdb_keys.c: `rulesdb keygen`, `rulesdb verify`, `rulesdb sign` and `rulesdb migrate`. */
#include <stdio.h>

#include "rulesdb_cmds.h"

/* Where an option's value goes (cli/fields.h): the key's name, the verifier's public key. */
typedef struct {
  const char *name, *pub, *key;
  bool verified_only; /* sign */
} key_args;
static const rg_cli_field key_fields[] = {RG_CLI_STORE(RG_OPT_OUTPUT, RG_CLI_TEXT, key_args, name),
                                          RG_CLI_STORE(RG_OPT_PUB, RG_CLI_TEXT, key_args, pub),
                                          RG_CLI_STORE(RG_OPT_KEY, RG_CLI_TEXT, key_args, key),
                                          RG_CLI_STORE(RG_OPT_VERIFIED_ONLY, RG_CLI_SET, key_args, verified_only)};

int rdb_keygen(int argc, char **argv) {
  key_args a = {.name = "rulegen"};
  int rc = rg_cli_parse("rulesdb keygen", &rg_doc_rulesdb_keygen, NULL, key_fields, 1, NULL, &a, argc, argv);
  if (rc != RG_CLI_GO_ON) return rc;
  if (optind != argc) return fprintf(stderr, "rulesdb keygen: unexpected argument '%s'\n", argv[optind]), 2;
  char sec[4096], pub[4096];
  snprintf(sec, sizeof sec, "%s.key", a.name);
  snprintf(pub, sizeof pub, "%s.pub", a.name);
  rg_err err;
  rg_db_pubkey pk;
  rg_db_id id;
  if (rg_db_keygen(sec, pub, &err) || rg_db_load_pubkey(pub, &pk, &err))
    return fprintf(stderr, "rulesdb keygen: %s\n", err.msg), 2;
  rg_db_key_id(&pk, &id);
  printf("wrote %s (secret, mode 0600) and %s (public); key id %.16s...\n", sec, pub, id.hex);
  return 0;
}

int rdb_verify(int argc, char **argv) {
  key_args a = {0};
  int rc = rg_cli_parse("rulesdb verify", &rg_doc_rulesdb_verify, NULL, key_fields + 1, 1, NULL, &a, argc, argv);
  if (rc != RG_CLI_GO_ON) return rc;
  if (optind + 1 != argc) return fprintf(stderr, "rulesdb verify: give one database (see --help)\n"), 2;
  if (!a.pub) return fprintf(stderr, "rulesdb verify: --pub KEY.pub is required\n"), 2;
  const char *path = argv[optind];
  rg_err err;
  rg_db_pubkey pk;
  rg_db *db;
  if (rg_db_load_pubkey(a.pub, &pk, &err) || rg_db_read(path, &db, &err))
    return fprintf(stderr, "rulesdb verify: %s\n", err.msg), 2;
  rg_strbuf rep;
  rg_sb_init(&rep);
  rg_db_verdict v = rg_db_verify(db, &pk, &rep);
  fprintf(v == RG_DB_VERIFY_OK ? stdout : stderr, "%s: %s", path, rg_sb_str(&rep));
  rg_sb_free(&rep);
  rg_db_free(db);
  return v == RG_DB_VERIFY_OK ? 0 : v == RG_DB_VERIFY_ERROR ? 2 : 1;
}

int rdb_sign(int argc, char **argv) {
  key_args a = {0};
  int rc = rg_cli_parse("rulesdb sign", &rg_doc_rulesdb_sign, NULL, key_fields + 1, 3, NULL, &a, argc, argv);
  if (rc != RG_CLI_GO_ON) return rc;
  if (optind + 1 != argc) return fprintf(stderr, "rulesdb sign: give one database (see --help)\n"), 2;
  if (!a.key) return fprintf(stderr, "rulesdb sign: --key KEY.key is required (make one with 'rulesdb keygen')\n"), 2;
  const char *path = argv[optind];
  rg_db_sign_opts so = {a.key, a.pub, a.verified_only};
  rg_strbuf log;
  rg_sb_init(&log);
  rg_err err;
  rg_cli_catch_interrupts();
  rg_status st = rg_db_sign_file(path, &so, &(rg_db_write_opts){rdb_write_progress, (void *)path}, &log, &err);
  fputs(rg_sb_str(&log), stderr);
  rg_sb_free(&log);
  if (st) fprintf(stderr, "rulesdb sign: %s\n", err.msg);
  return st == RG_ERR_ARG ? 1 : st ? 2 : 0;
}

int rdb_migrate(int argc, char **argv) {
  key_args a = {0};
  int rc = rg_cli_parse("rulesdb migrate", &rg_doc_rulesdb_migrate, NULL, key_fields, 0, NULL, &a, argc, argv);
  if (rc != RG_CLI_GO_ON) return rc;
  if (optind + 1 != argc) return fprintf(stderr, "rulesdb migrate: give one database (see --help)\n"), 2;
  const char *path = argv[optind];
  rg_strbuf log;
  rg_sb_init(&log);
  rg_err err;
  rg_cli_catch_interrupts();
  rg_status st = rg_db_migrate_file(path, &(rg_db_write_opts){rdb_write_progress, (void *)path}, &log, &err);
  fputs(rg_sb_str(&log), stderr);
  rg_sb_free(&log);
  if (st) fprintf(stderr, "rulesdb migrate: %s\n", err.msg);
  return st ? 2 : 0;
}
