/* rulesdb/audit_prune.c: the audit's checks of pruning records (audit_internal.h): their
 * references to other rules, and the replay of prune/'s removal records. */
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"
#include "contentid.h"
#include "ir/ir.h"
#include "prune/prune.h"

static int cmp_hex(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether hex (l characters in the record) names a rule db holds or one it pruned (pruned:
 * sorted ids, NULL when out of memory). */
static bool known(const rg_db *db, const size_t *idx, const char **pruned, const char *hex, size_t l) {
  const char *key = hex;
  return l == RG_DB_ID_LEN && (rg_db_index_find(db, idx, hex) >= 0 ||
                               (pruned && bsearch(&key, pruned, db->prunes.n, sizeof *pruned, cmp_hex)));
}

/* The implying rules of p, space-separated ids; each must be known. */
static void check_implied(const rg_db *db, const size_t *idx, const char **pruned, const rg_db_prune *p,
                          rg_audit_tally *t) {
  const char *s = p->implied_by;
  int n = 0;
  for (;;) {
    while (*s == ' ')
      s++;
    if (!*s) break;
    char hex[RG_DB_ID_LEN + 1] = {0};
    size_t l = strcspn(s, " ");
    memcpy(hex, s, l < RG_DB_ID_LEN ? l : RG_DB_ID_LEN);
    s += l, n++;
    if (!known(db, idx, pruned, hex, l)) {
      rg_audit_fail(t, RG_AUDIT_PRUNE_REFS, "FAIL pruned %.16s: implied by %.16s, which is not in the database\n",
                    p->removed_id.hex, hex);
      break;
    }
  }
  if (!n) rg_audit_fail(t, RG_AUDIT_PRUNE_REFS, "FAIL pruned %.16s: names no implying rule\n", p->removed_id.hex);
}

/* Whether the removed rule's text parses and hashes to its id (a failure reported if not). */
static bool check_removed_id(const rg_db_prune *p, rg_strbuf *sb, rg_audit_tally *t) {
  rg_rule *r;
  rg_err e;
  rg_db_id id;
  if (rg_text_parse_rule(p->removed_text, &r, &e)) {
    rg_audit_fail(t, RG_AUDIT_PRUNE_REFS, "FAIL pruned %.16s: text does not parse: %s\n", p->removed_id.hex, e.msg);
    return false;
  }
  rg_sb_clear(sb);
  rg_rule_content_id(r, sb, &id);
  rg_rule_free(r);
  if (!strcmp(id.hex, p->removed_id.hex)) return true;
  rg_audit_fail(t, RG_AUDIT_PRUNE_REFS, "FAIL pruned %.16s: id is not the hash of its text\n", p->removed_id.hex);
  return false;
}

void rg_audit_prune_refs(const rg_db *db, const size_t *idx, rg_audit_tally *t) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  /* An implying rule may itself have been pruned (a renamed copy of a rule later found an
   * instance of another): it is then in the database as a prune record, whose own references are
   * checked here, and the replay checks that such chains end in kept rules. */
  const char **pruned = malloc(sizeof *pruned * (db->prunes.n + 1));
  for (size_t i = 0; pruned && i < db->prunes.n; i++) pruned[i] = db->prunes.v[i].removed_id.hex;
  if (pruned) qsort(pruned, db->prunes.n, sizeof *pruned, cmp_hex);
  for (size_t i = 0; i < db->prunes.n; i++) {
    t->res->cat[RG_AUDIT_PRUNE_REFS].checked++;
    if (check_removed_id(&db->prunes.v[i], &sb, t)) check_implied(db, idx, pruned, &db->prunes.v[i], t);
  }
  rg_sb_free(&sb);
  free(pruned);
}

/* The rules db keeps: verified and not removed by a pruning record. */
static void kept_rules(const rg_db *db, rg_ruleset *kept) {
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    bool removed = r->status != RG_DB_VERIFIED;
    for (size_t k = 0; !removed && k < db->prunes.n; k++) removed = !strcmp(db->prunes.v[k].removed_id.hex, r->id.hex);
    rg_rule *rule;
    rg_err e;
    if (!removed && rg_text_parse_rule(r->text, &rule, &e) == RG_OK && rg_ruleset_add(kept, rule)) break;
  }
}

void rg_audit_derivations(const rg_db *db, rg_audit_tally *t) {
  /* Pruning derivations: the removal records prune/ wrote are replayed by prune/'s auditor,
   * which trusts nothing in them. */
  const char *records = NULL;
  for (size_t i = 0; i < db->config.n; i++)
    if (!strcmp(db->config.v[i].key, "prune.records")) records = db->config.v[i].value;
  if (!records) {
    t->res->cat[RG_AUDIT_DERIVATIONS].unchecked += db->prunes.n;
    return;
  }
  rg_ruleset kept;
  rg_ruleset_init(&kept);
  kept_rules(db, &kept);
  rg_audit_report rep;
  rg_err e;
  if (rg_prune_audit(&kept, records, strlen(records), &rep, &e)) {
    t->res->cat[RG_AUDIT_DERIVATIONS].checked++;
    rg_audit_fail(t, RG_AUDIT_DERIVATIONS, "FAIL pruning records, line %d: %s\n", e.line, e.msg);
  } else {
    t->res->cat[RG_AUDIT_DERIVATIONS].checked += (size_t)rep.records;
  }
  rg_ruleset_free(&kept);
}
