/* rulesdb/sign.h: Ed25519 keys (libsodium) and the signature over a database's manifest.
 *
 * Key files are one line of text: "rulegen-ed25519-secret-key <128 hex digits>" (the libsodium
 * secret key, which embeds the public key) and "rulegen-ed25519-public-key <64 hex digits>".
 * The secret key file is created with mode 0600 and never overwritten; loading one that others
 * can read is refused, as ssh does. The signature covers the manifest text (manifest.h) and is
 * stored with it, so a verifier can say which record changed, not only that something did.
 */
#ifndef RG_RULESDB_SIGN_H
#define RG_RULESDB_SIGN_H

#include <stdint.h>

#include "ir/strbuf.h"
#include "records.h"

typedef struct {
  uint8_t pk[32];
} rg_db_pubkey;

typedef struct {
  uint8_t sk[64];
} rg_db_seckey;

/* Writes a new key pair to sec_path (mode 0600) and pub_path. Refuses (RG_ERR_IO, message
 * naming the file) when either exists; nothing is written then. */
rg_status rg_db_keygen(const char *sec_path, const char *pub_path, rg_err *err) RG_MUST_CHECK;
rg_status rg_db_load_pubkey(const char *path, rg_db_pubkey *out, rg_err *err) RG_MUST_CHECK;
/* Also refuses a file readable or writable by group or others. */
rg_status rg_db_load_seckey(const char *path, rg_db_seckey *out, rg_err *err) RG_MUST_CHECK;
/* Wipes a secret key from memory. */
void rg_db_seckey_wipe(rg_db_seckey *k);
/* The key id: BLAKE2b-256 of the 32 public-key bytes. */
void rg_db_key_id(const rg_db_pubkey *pk, rg_db_id *out);

/* Computes db's manifest, signs it, and stores manifest and signature in db->sig. */
rg_status rg_db_sign(rg_db *db, const rg_db_seckey *sk, rg_err *err) RG_MUST_CHECK;

typedef enum {
  RG_DB_VERIFY_OK = 0,
  RG_DB_VERIFY_UNSIGNED,      /* no signature stored */
  RG_DB_VERIFY_WRONG_KEY,     /* signed by another key */
  RG_DB_VERIFY_BAD_SIGNATURE, /* the signature does not match the stored manifest */
  RG_DB_VERIFY_CONTENT,       /* signature good, but the content differs from what was signed */
  RG_DB_VERIFY_ERROR,         /* out of memory */
} rg_db_verdict;

/* Verifies db against pk. Appends a human explanation to report: one line saying which verdict,
 * then for RG_DB_VERIFY_CONTENT one line per changed record (kind and id). */
rg_db_verdict rg_db_verify(const rg_db *db, const rg_db_pubkey *pk, rg_strbuf *report);
const char *rg_db_verdict_name(rg_db_verdict v);

#endif
