/* rulesdb/dbexport.c: a database's rules chosen, parsed back and written in another format
 * (dbexchange.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbexchange.h"
#include "diff.h"
#include "exchange.h"
#include "ir/text.h"

/* Does the space-separated list contain word? */
static bool has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return true;
  return false;
}

bool rg_db_rule_selected(const rg_db_rule *r, const rg_db_select *s) {
  if (s->prefix && strncmp(r->id.hex, s->prefix, strlen(s->prefix))) return false;
  if (s->op && !has_word(r->ops, s->op)) return false;
  return s->status < 0 || (int)r->status == s->status;
}

rg_status rg_db_rules_parse(const rg_db *db, int status, rg_ruleset *rs, const rg_db_rule ***recs,
                            rg_err *err) {
  rg_ruleset_init(rs);
  *recs = malloc(sizeof **recs * (db->rules.n + 1));
  if (!*recs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *rec = &db->rules.v[i];
    if (status >= 0 && (int)rec->status != status) continue;
    rg_rule *r;
    rg_err e;
    if (rg_text_parse_rule(rec->text, &r, &e))
      return rg_err_set(err, RG_ERR_PARSE, "rule %.16s: stored text does not parse: %s", rec->id.hex, e.msg);
    (*recs)[rs->n] = rec;
    if (rg_ruleset_add(rs, r)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

/* The space-separated operators as a JSON array. */
static void json_ops(rg_strbuf *o, const char *s) {
  rg_sb_puts(o, "[");
  for (int k = 0; *s; k++) {
    size_t l = strcspn(s, " ");
    rg_sb_printf(o, "%s\"%.*s\"", k ? "," : "", (int)l, s);
    s += l;
    while (*s == ' ')
      s++;
  }
  rg_sb_puts(o, "]");
}

static void json_proof(rg_strbuf *o, const rg_db_proof *pr, bool first) {
  rg_sb_printf(o, "%s{\"output\":%d,\"solver\":", first ? "" : ",", pr->output);
  rg_json_string(o, pr->solver);
  rg_sb_puts(o, ",\"version\":");
  rg_json_string(o, pr->version);
  rg_sb_puts(o, ",\"result\":");
  rg_json_string(o, pr->result);
  rg_sb_printf(o, ",\"seconds\":%.6g,\"obligation\":\"%s\"}", pr->seconds, pr->obligation.hex);
}

static void json_rule(rg_strbuf *o, const rg_db *db, const rg_db_rule *r, const long *next_proof, long first) {
  rg_sb_printf(o, "{\"id\":\"%s\",\"status\":\"%s\",\"text\":", r->id.hex, rg_db_status_name(r->status));
  rg_json_string(o, r->text);
  rg_sb_printf(o, ",\"outputs\":%d,\"src_size\":%d,\"tgt_size\":%d,\"ops\":", r->n_outputs, r->src_size,
               r->tgt_size);
  json_ops(o, r->ops);
  rg_sb_puts(o, ",\"proofs\":[");
  for (long p = first; p >= 0; p = next_proof[p]) json_proof(o, &db->proofs.v[p], p == first);
  rg_sb_puts(o, "]}\n");
}

rg_status rg_db_export_json(const rg_db *db, int status, rg_strbuf *out, rg_err *err) {
  rg_db_groups g;
  rg_status st = rg_db_groups_build(db, &g, err);
  if (st) return st;
  for (size_t i = 0; i < db->rules.n; i++)
    if (status < 0 || (int)db->rules.v[i].status == status) json_rule(out, db, &db->rules.v[i], g.next_proof, g.proof[i]);
  rg_db_groups_free(&g);
  return RG_OK;
}

void rg_db_export_tensat(const rg_ruleset *rs, const rg_db_rule *const *recs, const rg_enum_inputset *inputs,
                         rg_strbuf *single, rg_strbuf *multi, rg_strbuf *skipped, size_t *written) {
  *written = 0;
  for (int i = 0; i < rs->n; i++) {
    rg_strbuf *dst = rs->rules[i]->n_src == 2 ? multi : single;
    size_t before = dst->len;
    rg_err err;
    if (dst->len) rg_sb_puts(dst, "\n");
    if (rg_tensat_export_rule(rs->rules[i], inputs, dst, &err)) {
      if (dst->s) dst->s[dst->len = before] = 0;
      rg_sb_printf(skipped, "rule %.16s: %s\n", recs[i]->id.hex, err.msg);
    } else
      (*written)++;
  }
}

void rg_tensat_multi_path(const char *path, char *out, size_t n) {
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash))
    snprintf(out, n, "%s_multi", path);
  else
    snprintf(out, n, "%.*s_multi%s", (int)(dot - path), path, dot);
}

rg_status rg_db_export_taso(const rg_ruleset *rs, const rg_db_rule *const *recs, const rg_enum_inputset *inputs,
                            uint8_t **buf, size_t *len, size_t *written, rg_strbuf *skipped, rg_err *err) {
  char(*ids)[17] = malloc(sizeof *ids * ((size_t)rs->n + 1));
  const char **names = malloc(sizeof *names * ((size_t)rs->n + 1));
  rg_status st = ids && names ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < rs->n; i++) {
    snprintf(ids[i], sizeof ids[i], "%.16s", recs[i]->id.hex);
    names[i] = ids[i];
  }
  if (!st) st = rg_taso_export((const rg_rule *const *)rs->rules, names, (size_t)rs->n, inputs, buf, len, written, skipped,
                           err);
  free(ids), free(names);
  return st;
}
