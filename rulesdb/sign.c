/* rulesdb/sign.c: key files, signing the manifest, verifying it. */
#include "sign.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contentid.h"
#include "manifest.h"

#define SEC_TAG "rulegen-ed25519-secret-key"
#define PUB_TAG "rulegen-ed25519-public-key"

static rg_status init_sodium(rg_err *err) {
  if (sodium_init() < 0) return rg_err_set(err, RG_ERR_IO, "libsodium failed to initialise");
  return RG_OK;
}

/* Creates path exclusively with the given mode and writes "tag hex\n". */
static rg_status write_key(const char *path, mode_t mode, const char *tag, const uint8_t *key,
                           size_t len, rg_err *err) {
  char hex[2 * 64 + 1];
  sodium_bin2hex(hex, sizeof hex, key, len);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
  if (fd < 0)
    return rg_err_set(err, RG_ERR_IO, "%s: cannot create: %s%s", path, strerror(errno),
                      errno == EEXIST
                          ? " (keygen never overwrites a key; remove it or choose another name)"
                          : "");
  char line[256];
  int n = snprintf(line, sizeof line, "%s %s\n", tag, hex);
  sodium_memzero(hex, sizeof hex);
  /* a secret key is 0600 whatever the umask; a public one keeps the umask's mode */
  int ok = (mode != 0600 || fchmod(fd, mode) == 0) && write(fd, line, (size_t)n) == n && fsync(fd) == 0;
  sodium_memzero(line, sizeof line);
  if (close(fd) != 0) ok = 0;
  if (!ok) {
    unlink(path);
    return rg_err_set(err, RG_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
  }
  return RG_OK;
}

rg_status rg_db_keygen(const char *sec_path, const char *pub_path, rg_err *err) {
  rg_status st = init_sodium(err);
  if (st) return st;
  struct stat sb;
  if (stat(sec_path, &sb) == 0 || stat(pub_path, &sb) == 0)
    return rg_err_set(err, RG_ERR_IO,
                      "%s exists: keygen never overwrites a key (remove it or choose another name)",
                      stat(sec_path, &sb) == 0 ? sec_path : pub_path);
  uint8_t pk[32], sk[64];
  crypto_sign_keypair(pk, sk);
  st = write_key(sec_path, 0600, SEC_TAG, sk, sizeof sk, err);
  sodium_memzero(sk, sizeof sk);
  if (st) return st;
  st = write_key(pub_path, 0666, PUB_TAG, pk, sizeof pk, err);
  if (st) unlink(sec_path);
  return st;
}

static rg_status read_key(const char *path, const char *tag, uint8_t *key, size_t len,
                          rg_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return rg_err_set(err, RG_ERR_IO, "%s: cannot open key: %s", path, strerror(errno));
  struct stat st;
  if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode))
    return fclose(f), rg_err_set(err, RG_ERR_IO, "%s is a folder, not a %s file", path, tag);
  char line[512];
  size_t n = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[n] = 0;
  size_t tl = strlen(tag), hl = 2 * len;
  size_t bin_len = 0;
  int ok = n >= tl + 1 + hl && !memcmp(line, tag, tl) && line[tl] == ' ' &&
           sodium_hex2bin(key, len, line + tl + 1, hl, NULL, &bin_len, NULL) == 0 &&
           bin_len == len && (line[tl + 1 + hl] == '\n' || line[tl + 1 + hl] == 0);
  /* a .pub given where the secret key belongs is the common mistake: say so */
  bool public_instead = strcmp(tag, PUB_TAG) && !strncmp(line, PUB_TAG, strlen(PUB_TAG));
  sodium_memzero(line, sizeof line);
  if (!ok && public_instead)
    return rg_err_set(err, RG_ERR_PARSE,
                      "%s: is a public key (%s): signing needs the secret key, NAME.key beside "
                      "NAME.pub ('rulesdb keygen -o NAME' writes both)",
                      path, PUB_TAG);
  if (!ok)
    return rg_err_set(err, RG_ERR_PARSE,
                      "%s: not a %s file (expected one line '%s <%zu hex digits>'; make keys with "
                      "'rulesdb keygen')",
                      path, tag, tag, hl);
  return RG_OK;
}

rg_status rg_db_load_pubkey(const char *path, rg_db_pubkey *out, rg_err *err) {
  return read_key(path, PUB_TAG, out->pk, sizeof out->pk, err);
}

rg_status rg_db_load_seckey(const char *path, rg_db_seckey *out, rg_err *err) {
  rg_status st = read_key(path, SEC_TAG, out->sk, sizeof out->sk, err); /* a public key: said there */
  struct stat sb;
  if (!st && stat(path, &sb) != 0)
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot open key: %s", path, strerror(errno));
  else if (!st && (sb.st_mode & 077))
    st = rg_err_set(err, RG_ERR_IO, "%s: secret key is accessible by others (mode %03o); run 'chmod 600 %s'",
                    path, (unsigned)(sb.st_mode & 0777), path);
  if (st) rg_db_seckey_wipe(out);
  return st;
}

void rg_db_seckey_wipe(rg_db_seckey *k) { sodium_memzero(k->sk, sizeof k->sk); }

void rg_db_key_id(const rg_db_pubkey *pk, rg_db_id *out) {
  rg_db_digest(pk->pk, sizeof pk->pk, out);
}

rg_status rg_db_sign(rg_db *db, const rg_db_seckey *sk, rg_err *err) {
  rg_status st = init_sodium(err);
  if (st) return st;
  rg_strbuf m;
  rg_sb_init(&m);
  st = rg_db_manifest(db, &m, err);
  if (st) return rg_sb_free(&m), st;
  rg_db_pubkey pk;
  crypto_sign_ed25519_sk_to_pk(pk.pk, sk->sk);
  free(db->sig.manifest);
  db->sig.manifest = m.s; /* the buffer moves into db */
  crypto_sign_detached(db->sig.sig, NULL, (const unsigned char *)m.s, m.len, sk->sk);
  rg_db_key_id(&pk, &db->sig.key_id);
  db->sig.present = 1, db->sig.malformed = 0;
  return RG_OK;
}

const char *rg_db_verdict_name(rg_db_verdict v) {
  switch (v) {
  case RG_DB_VERIFY_OK: return "signature good";
  case RG_DB_VERIFY_UNSIGNED: return "unsigned";
  case RG_DB_VERIFY_WRONG_KEY: return "signed with another key";
  case RG_DB_VERIFY_BAD_SIGNATURE: return "bad signature";
  case RG_DB_VERIFY_CONTENT: return "tampered content";
  case RG_DB_VERIFY_ERROR: return "error";
  }
  return "?";
}

rg_db_verdict rg_db_verify(const rg_db *db, const rg_db_pubkey *pk, rg_strbuf *report) {
  if (sodium_init() < 0)
    return rg_sb_puts(report, "libsodium failed to initialise\n"), RG_DB_VERIFY_ERROR;
  if (!db->sig.present) {
    rg_sb_puts(report, "unsigned: the database carries no signature (sign it with 'rulegen --key', "
                       "or pass --allow-unsigned to use it anyway)\n");
    return RG_DB_VERIFY_UNSIGNED;
  }
  if (db->sig.malformed) {
    rg_sb_puts(
        report,
        "bad signature: the signature table was altered (not exactly one 64-byte signature)\n");
    return RG_DB_VERIFY_BAD_SIGNATURE;
  }
  rg_db_id want;
  rg_db_key_id(pk, &want);
  if (strcmp(want.hex, db->sig.key_id.hex)) {
    rg_sb_printf(report,
                 "signed with another key: the database names key %.16s..., the public key given "
                 "is %.16s...\n",
                 db->sig.key_id.hex, want.hex);
    return RG_DB_VERIFY_WRONG_KEY;
  }
  if (crypto_sign_verify_detached(db->sig.sig, (const unsigned char *)db->sig.manifest,
                                  strlen(db->sig.manifest), pk->pk) != 0) {
    rg_sb_puts(report, "bad signature: the stored signature or signed manifest was altered\n");
    return RG_DB_VERIFY_BAD_SIGNATURE;
  }
  rg_strbuf cur;
  rg_sb_init(&cur);
  rg_err err;
  if (rg_db_manifest(db, &cur, &err)) {
    rg_sb_free(&cur);
    rg_sb_printf(report, "%s\n", err.msg);
    return RG_DB_VERIFY_ERROR;
  }
  rg_strbuf diffs;
  rg_sb_init(&diffs);
  size_t n = rg_db_manifest_compare(db->sig.manifest, rg_sb_str(&cur), 20, &diffs);
  rg_sb_free(&cur);
  if (n) {
    rg_sb_printf(report, "tampered content: %zu record%s differ from what was signed:\n%s", n,
                 n == 1 ? "" : "s", rg_sb_str(&diffs));
  } else {
    rg_sb_printf(report, "signature good (key %.16s..., %zu rules)\n", want.hex, db->rules.n);
  }
  rg_sb_free(&diffs);
  return n ? RG_DB_VERIFY_CONTENT : RG_DB_VERIFY_OK;
}
