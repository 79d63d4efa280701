/* rulesdb/dbsign.c: signing a database file that exists (`rulesdb sign`): one made by import
 * without --key, or one to re-sign with another key. A signature vouches for the content, so a
 * signed database is re-signed only when its current signature verifies (with the old public
 * key given, or the new key's own): re-signing must not launder tampered content. */
#include <sodium.h>
#include <string.h>

#include "dbexchange.h"
#include "sign.h"
#include "store.h"

/* A signed db's signature checked with old_pub (a file), else with sk's own public key. */
static rg_status check_current(const rg_db *db, const char *path, const char *old_pub, const rg_db_seckey *sk,
                               rg_strbuf *log, rg_err *err) {
  rg_db_pubkey pk;
  if (old_pub) {
    rg_status st = rg_db_load_pubkey(old_pub, &pk, err);
    if (st) return st;
  } else {
    crypto_sign_ed25519_sk_to_pk(pk.pk, sk->sk);
  }
  rg_strbuf rep;
  rg_sb_init(&rep);
  rg_db_verdict v = rg_db_verify(db, &pk, &rep);
  rg_status st = RG_OK;
  if (v == RG_DB_VERIFY_OK)
    rg_sb_printf(log, "rulesdb sign: %s: current %s", path, rg_sb_str(&rep));
  else
    st = rg_err_set(err, RG_ERR_ARG,
                    "%s is signed and its signature does not verify with %s: %.300s"
                    "(re-signing vouches for its content: give --pub OLD.pub, the key it was signed with)",
                    path, old_pub ? old_pub : "the new key", rg_sb_str(&rep));
  rg_sb_free(&rep);
  return st;
}

rg_status rg_db_sign_file(const char *path, const rg_db_sign_opts *so, const rg_db_write_opts *wo, rg_strbuf *log,
                          rg_err *err) {
  rg_db_seckey sk;
  rg_status st = rg_db_load_seckey(so->key_path, &sk, err);
  if (st) return st;
  rg_db *db = NULL;
  st = rg_db_read(path, &db, err);
  if (!st && db->sig.present) st = check_current(db, path, so->old_pub, &sk, log, err);
  bool was_signed = !st && db->sig.present;
  if (!st && so->verified_only) { /* a part of what the current signature vouched for */
    rg_db *part = NULL;
    st = rg_db_keep_verified(db, &part, err);
    rg_db_free(db);
    db = part;
  }
  if (!st) st = rg_db_sign(db, &sk, err);
  rg_db_seckey_wipe(&sk);
  if (!st) st = rg_db_write(db, path, wo, err);
  if (!st)
    rg_sb_printf(log, "rulesdb sign: %s %s (key %.16s..., %zu rules)\n", was_signed ? "re-signed" : "signed", path,
                 db->sig.key_id.hex, db->rules.n);
  rg_db_free(db);
  return st;
}
