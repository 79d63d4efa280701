/* rulesdb/diff.c: rule-set differences between two databases. */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

#include "contentid.h"

/* Per rule: one line per proof, test and certificate record of what it attests, sorted and
 * joined, so equal evidence gives equal strings whatever the row order. A proof's seconds are
 * left out: they differ on every run, and a proof cache hands them back rounded, so a
 * regenerated set would otherwise show every proved rule "changed". */
typedef struct {
  char **ev; /* [rules.n], NULL when a rule has none */
  size_t *idx;
} evidence;

typedef struct {
  long rule;
  char *text;
} ev_line;

static int cmp_line(const void *a, const void *b) {
  const ev_line *x = a, *y = b;
  return x->rule != y->rule ? (x->rule < y->rule ? -1 : 1) : strcmp(x->text, y->text);
}

/* The record lines of db's rules (records of rules not in db are left out); NULL when out of
 * memory, else *n lines sorted by rule then text. */
static ev_line *record_lines(const rg_db *db, const size_t *idx, size_t *n) {
  size_t total = db->proofs.n + db->tests.n + db->certs.n, k = 0;
  ev_line *v = calloc(total + 1, sizeof *v);
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (size_t i = 0; v && i < total; i++) {
    rg_sb_clear(&sb);
    const rg_db_id *rule;
    if (i < db->proofs.n) {
      const rg_db_proof *p = &db->proofs.v[i];
      rule = &p->rule_id;
      rg_sb_printf(&sb, "proof %d %s %s %s %s %s", (int)p->output, p->solver, p->version, p->result, p->obligation.hex,
                   p->unsat_core);
    } else if (i < db->proofs.n + db->tests.n) {
      const rg_db_test *t = &db->tests.v[i - db->proofs.n];
      rule = &t->rule_id;
      rg_sb_printf(&sb, "test %s %d %llu %s | %s | %s", t->domain, (int)t->trials, (unsigned long long)t->seed,
                   t->shapes, t->params, t->result);
    } else {
      const rg_db_cert *c = &db->certs.v[i - db->proofs.n - db->tests.n];
      rg_db_id d;
      rg_db_digest(c->body, c->len, &d);
      rule = &c->rule_id;
      rg_sb_printf(&sb, "cert %d %s", (int)c->version, d.hex);
    }
    long r = rg_db_index_find(db, idx, rule->hex);
    if (r < 0) continue;
    char *s = sb.failed ? NULL : strdup(rg_sb_str(&sb));
    if (!s) {
      while (k) free(v[--k].text);
      free(v), v = NULL;
      break;
    }
    v[k++] = (ev_line){r, s};
  }
  rg_sb_free(&sb);
  if (v && k) qsort(v, k, sizeof *v, cmp_line);
  *n = k;
  return v;
}

static rg_status evidence_build(const rg_db *db, evidence *e, rg_err *err) {
  size_t n = 0;
  e->ev = calloc(db->rules.n + 1, sizeof *e->ev);
  e->idx = rg_db_rule_index(db);
  ev_line *v = e->ev && e->idx ? record_lines(db, e->idx, &n) : NULL;
  rg_status st = v ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (size_t i = 0; i < n; i++) {
    if (!st) rg_sb_printf(&sb, "%s\n", v[i].text);
    if (!st && (i + 1 == n || v[i + 1].rule != v[i].rule)) {
      e->ev[v[i].rule] = sb.failed ? NULL : strdup(rg_sb_str(&sb));
      if (!e->ev[v[i].rule]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      rg_sb_clear(&sb);
    }
    free(v[i].text);
  }
  rg_sb_free(&sb);
  free(v);
  return st;
}

static void evidence_free(const rg_db *db, evidence *e) {
  for (size_t i = 0; e->ev && i < db->rules.n; i++)
    free(e->ev[i]);
  free(e->ev), free(e->idx);
}

static int push(rg_db_diff *d, size_t *cap, rg_diff_entry e) {
  if (d->n == *cap) {
    size_t nc = *cap ? 2 * *cap : 32;
    rg_diff_entry *nv = realloc(d->v, nc * sizeof *nv);
    if (!nv) return -1;
    d->v = nv, *cap = nc;
  }
  d->v[d->n++] = e;
  return 0;
}

static int cmp_entry(const void *a, const void *b) {
  const rg_diff_entry *x = a, *y = b;
  if (x->kind != y->kind) return (int)x->kind - (int)y->kind;
  const rg_db_rule *rx = x->base ? x->base : x->new_, *ry = y->base ? y->base : y->new_;
  return strcmp(rx->id.hex, ry->id.hex);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The ids db's pruning records name as removed, sorted for bsearch (a depth-4 set has millions). */
static const char **pruned_ids(const rg_db *db) {
  const char **v = malloc((db->prunes.n + 1) * sizeof *v);
  for (size_t i = 0; v && i < db->prunes.n; i++)
    v[i] = db->prunes.v[i].removed_id.hex;
  if (v && db->prunes.n) qsort(v, db->prunes.n, sizeof *v, cmp_str);
  return v;
}

static int is_pruned(const rg_db *db, const char **ids, const char *id) {
  return db->prunes.n && bsearch(&id, ids, db->prunes.n, sizeof *ids, cmp_str) != NULL;
}

/* A database's pruning records by removed id, and what a chain of them proves (memo[need][k]:
 * 0 not yet known, 1 being worked out, 2 holds, 3 does not). */
typedef struct {
  const rg_db_prune **v;
  size_t n;
  signed char *memo[2];
} chains;

static int cmp_prune(const void *a, const void *b) {
  return strcmp((*(const rg_db_prune *const *)a)->removed_id.hex, (*(const rg_db_prune *const *)b)->removed_id.hex);
}

static bool chains_build(const rg_db *db, chains *c) {
  c->n = db->prunes.n;
  c->v = malloc((c->n + 1) * sizeof *c->v);
  c->memo[0] = calloc(c->n + 1, 1), c->memo[1] = calloc(c->n + 1, 1);
  for (size_t i = 0; c->v && i < c->n; i++) c->v[i] = &db->prunes.v[i];
  if (c->v && c->n) qsort(c->v, c->n, sizeof *c->v, cmp_prune);
  return c->v && c->memo[0] && c->memo[1];
}

static void chains_free(chains *c) { free(c->v), free(c->memo[0]), free(c->memo[1]); }

/* The first record that removes hex, or c->n. */
static size_t chains_first(const chains *c, const char *hex) {
  size_t lo = 0, hi = c->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(c->v[mid]->removed_id.hex, hex) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < c->n && !strcmp(c->v[lo]->removed_id.hex, hex) ? lo : c->n;
}

static bool record_holds(const rg_db *db, const size_t *idx, chains *c, size_t k, int need);

/* Whether the rule hex is in db (proved, when need), or removed by a record that holds. */
static bool stands(const rg_db *db, const size_t *idx, chains *c, const char *hex, int need) {
  long j = rg_db_index_find(db, idx, hex);
  if (j >= 0) return !need || rg_db_status_is_proved(db->rules.v[j].status);
  for (size_t k = chains_first(c, hex); k < c->n && !strcmp(c->v[k]->removed_id.hex, hex); k++)
    if (record_holds(db, idx, c, k, need)) return true;
  return false;
}

/* A record accounts for its rule when it names implying rules and each stands: a chain of
 * records that ends in rules the database keeps, never in itself (a cycle) nor in a rule it
 * does not hold. */
static bool record_holds(const rg_db *db, const size_t *idx, chains *c, size_t k, int need) {
  signed char *m = &c->memo[need][k];
  if (*m) return *m == 2; /* 1: this record is on the chain being worked out, a cycle */
  *m = 1;
  const char *s = c->v[k]->implied_by;
  int n = 0;
  bool ok = true;
  while (ok) {
    s += strspn(s, " ");
    size_t l = strcspn(s, " ");
    if (!l) break;
    char hex[RG_DB_ID_LEN + 1] = {0};
    ok = l == RG_DB_ID_LEN && (memcpy(hex, s, l), stands(db, idx, c, hex, need));
    s += l, n++;
  }
  *m = ok && n ? 2 : 3;
  return *m == 2;
}

/* Whether e loses what base had, as mode counts it (diff.h). */
static int regression(rg_diff_mode mode, const rg_diff_entry *e, int pruned_in_base) {
  const rg_db_rule *b = e->base;
  if (mode == RG_DIFF_SHIPPED)
    return e->kind == RG_DIFF_REMOVED && b->status == RG_DB_VERIFIED && !pruned_in_base;
  if (mode == RG_DIFF_PROVED && !rg_db_status_is_proved(b->status)) return 0;
  if (e->kind == RG_DIFF_REMOVED) return !e->pruned;
  return mode == RG_DIFF_PROVED ? !rg_db_status_is_proved(e->new_->status) : e->new_->status < b->status;
}

static void count(rg_db_diff *d) {
  for (size_t i = 0; i < d->n; i++) {
    const rg_diff_entry *e = &d->v[i];
    d->added += e->kind == RG_DIFF_ADDED, d->removed += e->kind == RG_DIFF_REMOVED;
    d->changed += e->kind == RG_DIFF_CHANGED, d->regressions += e->regression != 0;
    d->lost_rules += e->regression && e->kind == RG_DIFF_REMOVED;
    d->lost_proofs += e->regression && e->kind == RG_DIFF_CHANGED;
  }
}

rg_status rg_db_diff_compute(const rg_db *base, const rg_db *new_, rg_diff_mode mode, rg_db_diff *out,
                             rg_err *err) {
  memset(out, 0, sizeof *out);
  out->mode = mode, out->base_rules = base->rules.n;
  evidence eb = {0}, en = {0};
  const char **pb = pruned_ids(base);
  chains cn = {0};
  rg_status st = pb && chains_build(new_, &cn) ? evidence_build(base, &eb, err)
                                                : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = evidence_build(new_, &en, err);
  size_t cap = 0;
  for (size_t i = 0; !st && i < base->rules.n; i++) {
    const rg_db_rule *b = &base->rules.v[i];
    long j = rg_db_index_find(new_, en.idx, b->id.hex);
    rg_diff_entry e = {RG_DIFF_REMOVED, b, NULL, 0, 0, 0};
    if (j < 0) /* accounted for only by records that end in rules new_ keeps, proved if b was */
      e.pruned = stands(new_, en.idx, &cn, b->id.hex, rg_db_status_is_proved(b->status));
    else {
      const rg_db_rule *n = &new_->rules.v[j];
      const char *evb = eb.ev[i] ? eb.ev[i] : "", *evn = en.ev[j] ? en.ev[j] : "";
      if (n->status == b->status && !strcmp(evb, evn)) continue;
      e = (rg_diff_entry){RG_DIFF_CHANGED, b, n, n->status != b->status, 0, 0};
    }
    e.regression = regression(mode, &e, mode == RG_DIFF_SHIPPED && is_pruned(base, pb, b->id.hex));
    if (push(out, &cap, e)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (size_t j = 0; !st && j < new_->rules.n; j++) {
    const rg_db_rule *n = &new_->rules.v[j];
    if (rg_db_index_find(base, eb.idx, n->id.hex) >= 0) continue;
    if (push(out, &cap, (rg_diff_entry){RG_DIFF_ADDED, NULL, n, 0, 0, 0}))
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  evidence_free(base, &eb), evidence_free(new_, &en);
  free(pb), chains_free(&cn);
  if (st) return rg_db_diff_free(out), st;
  if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_entry);
  count(out);
  return RG_OK;
}

void rg_db_diff_free(rg_db_diff *d) {
  free(d->v);
  memset(d, 0, sizeof *d);
}

/* The LOST and SHIPPED listing: only what was lost, with whole ids (rulesdb show DB ID). */
static void print_lost(const rg_db_diff *d, rg_strbuf *out) {
  for (size_t i = 0; i < d->n; i++) {
    const rg_diff_entry *e = &d->v[i];
    if (!e->regression) continue;
    if (e->kind == RG_DIFF_REMOVED)
      rg_sb_printf(out, "LOST rule  %s %s %s\n", e->base->id.hex, rg_db_status_name(e->base->status), e->base->text);
    else
      rg_sb_printf(out, "LOST proof %s %s -> %s %s\n", e->base->id.hex, rg_db_status_name(e->base->status),
                   rg_db_status_name(e->new_->status), e->base->text);
  }
  rg_sb_printf(out, "%zu lost (%zu rule%s gone, %zu proof%s lost) of %zu rules in the reference; %zu added, %zu removed, "
                    "%zu changed\n", d->regressions, d->lost_rules, d->lost_rules == 1 ? "" : "s", d->lost_proofs,
               d->lost_proofs == 1 ? "" : "s", d->base_rules, d->added, d->removed, d->changed);
}

void rg_db_diff_print(const rg_db_diff *d, rg_strbuf *out) {
  if (d->mode != RG_DIFF_PROVED) {
    print_lost(d, out);
    return;
  }
  for (size_t i = 0; i < d->n; i++) {
    const rg_diff_entry *e = &d->v[i];
    const rg_db_rule *r = e->base ? e->base : e->new_;
    const char *mark = e->regression ? "  REGRESSION" : "";
    switch (e->kind) {
    case RG_DIFF_ADDED:
      rg_sb_printf(out, "+ %.12s %-9s %s\n", r->id.hex, rg_db_status_name(r->status), r->text);
      break;
    case RG_DIFF_REMOVED:
      rg_sb_printf(out, "- %.12s %-9s %s%s%s\n", r->id.hex, rg_db_status_name(r->status), r->text,
                   e->pruned ? "  (pruned: implied by kept rules)" : "", mark);
      break;
    case RG_DIFF_CHANGED:
      if (e->status_changed)
        rg_sb_printf(out, "~ %.12s %s -> %s %s%s\n", r->id.hex, rg_db_status_name(e->base->status),
                     rg_db_status_name(e->new_->status), r->text, mark);
      else
        rg_sb_printf(out, "~ %.12s %-9s evidence changed (proof, test or certificate records) %s\n",
                     r->id.hex, rg_db_status_name(r->status), r->text);
      break;
    }
  }
  rg_sb_printf(out, "%zu added, %zu removed, %zu changed, %zu regression%s\n", d->added, d->removed,
               d->changed, d->regressions, d->regressions == 1 ? "" : "s");
}

static void json_rule(rg_strbuf *out, const rg_diff_entry *e) {
  const rg_db_rule *r = e->base ? e->base : e->new_;
  rg_sb_printf(out, "{\"id\":\"%s\",\"text\":", r->id.hex);
  rg_json_string(out, r->text);
  if (e->base) rg_sb_printf(out, ",\"base_status\":\"%s\"", rg_db_status_name(e->base->status));
  if (e->new_) rg_sb_printf(out, ",\"new_status\":\"%s\"", rg_db_status_name(e->new_->status));
  if (e->kind == RG_DIFF_REMOVED) rg_sb_printf(out, ",\"pruned\":%s", e->pruned ? "true" : "false");
  rg_sb_printf(out, ",\"regression\":%s}", e->regression ? "true" : "false");
}

void rg_db_diff_print_json(const rg_db_diff *d, rg_strbuf *out) {
  static const char *names[] = {"added", "removed", "changed"}, *modes[] = {"proved", "lost", "shipped"};
  rg_sb_printf(out, "{\"mode\":\"%s\"", modes[d->mode]);
  for (int k = 0; k < 3; k++) {
    rg_sb_printf(out, ",\"%s\":[", names[k]);
    int first = 1;
    for (size_t i = 0; i < d->n; i++)
      if ((int)d->v[i].kind == k) {
        if (!first) rg_sb_puts(out, ",");
        first = 0;
        json_rule(out, &d->v[i]);
      }
    rg_sb_puts(out, "]");
  }
  rg_sb_printf(out,
               ",\"counts\":{\"added\":%zu,\"removed\":%zu,\"changed\":%zu,\"regressions\":%zu,\"lost_rules\":%zu,"
               "\"lost_proofs\":%zu}}\n",
               d->added, d->removed, d->changed, d->regressions, d->lost_rules, d->lost_proofs);
}
