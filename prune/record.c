/* prune/record.c: writing removal records, and auditing them (format in record.h). */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#include "prune.h"

rg_status rg_prune_write_records(FILE *f, const rg_ruleset *rs, const rg_prune_result *res,
                                 rg_err *err) {
  return rg_prune_write_records_texts(f, rs, NULL, NULL, res, err);
}

rg_status rg_prune_write_records_texts(FILE *f, const rg_ruleset *rs, rg_prune_text_fn text,
                                       const void *ctx, const rg_prune_result *res, rg_err *err) {
  fprintf(f,
          "# rulegen prune: removal records, in the order of removal (format: prune/record.h)\n");
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = RG_OK;
  for (int k = 0; !st && k < res->removal_seq_n; k++) {
    const rg_prune_entry *e = &res->e[res->removal_seq[k]];
    char hex[RG_CONTENT_ID_HEX];
    rg_content_id_hex(&e->id, hex);
    fprintf(f, "removed %s %s by %s", hex, rg_prune_fate_name(e->fate), e->n_by ? "" : "-");
    for (int b = 0; b < e->n_by; b++) {
      rg_content_id_hex(&res->e[e->by[b]].id, hex);
      fprintf(f, "%s%s", b ? "," : "", hex);
    }
    if (e->fate == RG_FATE_DERIVED) fprintf(f, " steps %d", e->n_steps);
    rg_sb_clear(&sb);
    const rg_rule *r = rs->rules[res->removal_seq[k]];
    if (r) rg_text_print_rule(r, &sb);
    else if (text)
      text(ctx, rs, res->removal_seq[k], &sb);
    else
      sb.failed = true; /* a caller's bug: no text for a rule let go of */
    fprintf(f, "\n  rule: %s\n", rg_sb_str(&sb));
    rg_derivation d;
    st = rg_prune_derivation_of(res, res->removal_seq[k], &d, err);
    for (int s = 0; !st && s < d.n; s++) {
      const rg_derive_step *sp = &d.steps[s];
      rg_content_id_hex(&res->e[sp->tag].id, hex);
      fprintf(f, "  step %d %s %s: %s\n", sp->output + 1, hex, sp->reverse ? "rev" : "fwd",
              sp->state);
    }
    rg_derivation_free(&d);
  }
  bool failed = sb.failed;
  rg_sb_free(&sb);
  if (st) return st;
  if (failed)
    return rg_err_set(err, RG_ERR_NOMEM,
                      "out of memory writing records, or a removed rule's text lost");
  if (fflush(f) != 0 || ferror(f))
    return rg_err_set(err, RG_ERR_IO, "cannot write the removal records");
  return RG_OK;
}

rg_status rg_prune_write_records_end(FILE *f, rg_err *err) {
  fprintf(f, "end\n");
  if (fflush(f) != 0 || ferror(f)) return rg_err_set(err, RG_ERR_IO, "cannot write the removal records");
  return RG_OK;
}

/* ---- reading ---- */

typedef struct {
  int output;
  rg_content_id rule;
  bool reverse;
  char *term;
} rstep;

typedef struct {
  int line;
  rg_content_id id;
  rg_prune_fate fate;
  rg_content_id *by;
  int n_by;
  int steps_declared;
  rg_rule *rule;
  rstep *steps;
  int n_steps;
} record;

typedef struct {
  record *r;
  int n;
} record_list;

static void records_free(record_list *l) {
  for (int i = 0; i < l->n; i++) {
    free(l->r[i].by);
    rg_rule_free(l->r[i].rule);
    for (int s = 0; s < l->r[i].n_steps; s++)
      free(l->r[i].steps[s].term);
    free(l->r[i].steps);
  }
  free(l->r);
}

static const char *word(const char *p, const char *end, size_t *n) {
  while (p < end && *p == ' ')
    p++;
  *n = 0;
  while (p + *n < end && p[*n] != ' ')
    (*n)++;
  return p;
}

/* A decimal number below 10^6 of n digits, or -1. */
static int parse_count(const char *s, size_t n) {
  if (n == 0 || n > 6) return -1;
  int v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

static rg_status parse_header(const char *p, const char *end, int line, record *r, rg_err *err) {
  size_t n;
  const char *w = word(p + strlen("removed"), end, &n);
  if (!rg_content_id_parse(w, n, &r->id))
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(w - p) + 1,
                     "expected a content id (64 hex digits)");
  w = word(w + n, end, &n);
  bool known = false;
  for (int f = RG_FATE_RENAMING; f <= RG_FATE_DERIVED && !known; f++)
    if (strlen(rg_prune_fate_name((rg_prune_fate)f)) == n &&
        !strncmp(w, rg_prune_fate_name((rg_prune_fate)f), n))
      r->fate = (rg_prune_fate)f, known = true;
  if (!known)
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(w - p) + 1,
                     "expected a reason: renaming, subgraph, supergraph or derived");
  w = word(w + n, end, &n);
  if (n != 2 || strncmp(w, "by", 2))
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(w - p) + 1, "expected 'by'");
  w = word(w + n, end, &n);
  const char *ids = w;
  bool none = n == 1 && *w == '-'; /* a rule whose sides are equal needs no other rule */
  r->n_by = none ? 0 : (int)(n + 1) / (RG_CONTENT_ID_HEX);
  r->by = malloc(sizeof *r->by * ((size_t)r->n_by + 1));
  if (!r->by) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int b = 0; b < r->n_by; b++) {
    const char *h = ids + (size_t)b * RG_CONTENT_ID_HEX;
    if (!rg_content_id_parse(h, RG_CONTENT_ID_HEX - 1, &r->by[b]) ||
        (b + 1 < r->n_by && h[RG_CONTENT_ID_HEX - 1] != ','))
      r->n_by = 0;
  }
  if (!none && (r->n_by == 0 || (size_t)r->n_by * RG_CONTENT_ID_HEX != n + 1))
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(ids - p) + 1,
                     "expected content ids separated by commas");
  w = word(w + n, end, &n);
  r->steps_declared = -1;
  if (n == 5 && !strncmp(w, "steps", 5)) {
    const char *num = word(w + n, end, &n);
    int v = parse_count(num, n);
    if (v < 0)
      return rg_err_at(err, RG_ERR_PARSE, line, (int)(num - p) + 1, "expected a step count");
    r->steps_declared = v;
    w = word(num + n, end, &n);
  }
  if (n)
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(w - p) + 1, "unexpected '%.*s'", (int)n, w);
  return RG_OK;
}

static rg_status parse_step(const char *p, const char *end, int line, record *r, rg_err *err) {
  size_t n;
  const char *w = word(p, end, &n); /* "step" */
  w = word(w + n, end, &n);
  int out = parse_count(w, n);
  if (out < 1)
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(w - p) + 1, "expected an output number");
  rstep s = {out - 1, {{0}}, false, NULL};
  w = word(w + n, end, &n);
  if (!rg_content_id_parse(w, n, &s.rule))
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(w - p) + 1,
                     "expected a content id (64 hex digits)");
  w = word(w + n, end, &n);
  if (n == 4 && (!strncmp(w, "fwd:", 4) || !strncmp(w, "rev:", 4)))
    s.reverse = w[0] == 'r';
  else
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(w - p) + 1, "expected 'fwd:' or 'rev:'");
  w += n;
  while (w < end && *w == ' ')
    w++;
  s.term = malloc((size_t)(end - w) + 1);
  rstep *steps = realloc(r->steps, sizeof *steps * ((size_t)r->n_steps + 1));
  if (!s.term || !steps) {
    free(s.term);
    if (steps) r->steps = steps;
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  memcpy(s.term, w, (size_t)(end - w));
  s.term[end - w] = 0;
  r->steps = steps;
  r->steps[r->n_steps++] = s;
  return RG_OK;
}

static rg_status parse_records(const char *text, size_t len, record_list *l, rg_err *err) {
  int line = 0, end_line = 0;
  rg_status st = RG_OK;
  if (memchr(text, 0, len)) return rg_err_at(err, RG_ERR_PARSE, 1, 1, "removal records with a NUL byte: damaged");
  for (size_t i = 0; !st && i < len;) {
    const char *p = text + i, *end = memchr(p, '\n', len - i);
    if (!end) end = text + len;
    i = (size_t)(end - text) + 1;
    line++;
    if (end > p && end[-1] == '\r') end--;
    if (end == p || *p == '#') continue;
    if (end_line)
      return rg_err_at(err, RG_ERR_PARSE, line, 1, "text after the 'end' line of line %d", end_line);
    record *cur = l->n ? &l->r[l->n - 1] : NULL;
    if (end - p == 3 && !strncmp(p, "end", 3)) {
      end_line = line;
    } else if ((size_t)(end - p) > 8 && !strncmp(p, "removed ", 8)) {
      record *r = realloc(l->r, sizeof *r * ((size_t)l->n + 1));
      if (!r) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      l->r = r;
      memset(&l->r[l->n], 0, sizeof *r);
      l->r[l->n].line = line;
      st = parse_header(p, end, line, &l->r[l->n++], err);
    } else if ((size_t)(end - p) > 8 && !strncmp(p, "  rule: ", 8) && cur && !cur->rule) {
      char *t = malloc((size_t)(end - p));
      if (!t) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      memcpy(t, p + 8, (size_t)(end - p) - 8);
      t[end - p - 8] = 0;
      rg_err pe;
      if (rg_text_parse_rule(t, &cur->rule, &pe) != RG_OK)
        st = rg_err_at(err, RG_ERR_PARSE, line, pe.col + 8, "%s", pe.msg);
      else if (cur->rule->n_tgt == 0)
        st = rg_err_at(err, RG_ERR_PARSE, line, 9, "a removed rule must have '=>'");
      free(t);
    } else if ((size_t)(end - p) > 7 && !strncmp(p, "  step ", 7) && cur && cur->rule) {
      st = parse_step(p, end, line, cur, err);
    } else {
      st = rg_err_at(
          err, RG_ERR_PARSE, line, 1,
          "expected 'removed ID REASON by IDS', then '  rule: RULE', then '  step' lines");
    }
  }
  for (int k = 0; !st && k < l->n; k++)
    if (!l->r[k].rule)
      st = rg_err_at(err, RG_ERR_PARSE, l->r[k].line, 1, "this record has no '  rule:' line");
  if (!st && !end_line)
    st = rg_err_at(err, RG_ERR_PARSE, line + 1, 1,
                   "no 'end' line: the removal records are cut or empty (%d records read)", l->n);
  return st;
}

/* ---- auditing ---- */

typedef struct {
  rg_content_id id;
  int kept;   /* index in the kept set, or -1 */
  int record; /* index of the record removing it, or -1 */
} known;

typedef struct {
  known *k;
  int n;
} known_table;

static int cmp_known(const void *a, const void *b) {
  return rg_content_id_cmp(&((const known *)a)->id, &((const known *)b)->id);
}

/* A rule with this id that is kept, or else removed by a record after `after`; NULL if none. */
static const rg_rule *resolve(const known_table *t, const rg_ruleset *kept, const record_list *l,
                              const rg_content_id *id, int after) {
  known key = {*id, 0, 0};
  const known *k = bsearch(&key, t->k, (size_t)t->n, sizeof key, cmp_known);
  if (!k) return NULL;
  while (k > t->k && rg_content_id_cmp(&k[-1].id, id) == 0)
    k--;
  const rg_rule *later = NULL;
  for (; k < t->k + t->n && rg_content_id_cmp(&k->id, id) == 0; k++) {
    if (k->kept >= 0) return kept->rules[k->kept];
    if (k->record > after && !later) later = l->r[k->record].rule;
  }
  return later;
}

static rg_status check_record(const record *r, int idx, const known_table *t,
                              const rg_ruleset *kept, const record_list *l, rg_err *err) {
  char hex[RG_CONTENT_ID_HEX];
  const rg_rule **by = malloc(sizeof *by * ((size_t)r->n_by + 1));
  if (!by) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = RG_OK;
  for (int b = 0; !st && b < r->n_by; b++) {
    by[b] = resolve(t, kept, l, &r->by[b], idx);
    if (!by[b]) {
      rg_content_id_hex(&r->by[b], hex);
      st = rg_err_at(err, RG_ERR_ARG, r->line, 1,
                     "rule %s is neither kept nor removed by a later record", hex);
    }
  }
  bool ok = false;
  if (!st && r->fate != RG_FATE_DERIVED && r->n_by != 1)
    st = rg_err_at(err, RG_ERR_ARG, r->line, 1, "a %s removal names exactly one rule",
                   rg_prune_fate_name(r->fate));
  if (!st && r->fate != RG_FATE_DERIVED && (r->n_steps || r->steps_declared >= 0))
    st = rg_err_at(err, RG_ERR_ARG, r->line, 1, "only a derived removal has steps");
  if (!st && r->fate == RG_FATE_DERIVED && r->steps_declared < 0)
    st = rg_err_at(err, RG_ERR_ARG, r->line, 1, "a derived removal says how many steps: 'steps N'");
  if (!st && r->fate == RG_FATE_RENAMING) {
    ok = rg_content_id_cmp(&r->id, &r->by[0]) == 0;
  } else if (!st && r->fate == RG_FATE_SUBGRAPH) {
    st = rg_rule_is_instance(by[0], r->rule, &ok, err);
  } else if (!st && r->fate == RG_FATE_SUPERGRAPH) {
    st = rg_supergraph_implied(r->rule, by[0], &ok, err);
  } else if (!st) {
    rg_derivation d = {r->n_steps, calloc((size_t)r->n_steps + 1, sizeof(rg_derive_step))};
    if (!d.steps) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (!st && r->steps_declared != r->n_steps)
      st = rg_err_at(err, RG_ERR_ARG, r->line, 1, "the record declares %d steps but lists %d",
                     r->steps_declared, r->n_steps);
    for (int s = 0; !st && s < r->n_steps; s++) {
      int tag = -1;
      for (int b = 0; b < r->n_by && tag < 0; b++)
        if (rg_content_id_cmp(&r->by[b], &r->steps[s].rule) == 0) tag = b;
      if (tag < 0)
        st = rg_err_at(err, RG_ERR_ARG, r->line, 1, "step %d uses a rule not listed after 'by'",
                       s + 1);
      d.steps[s] = (rg_derive_step){tag, r->steps[s].reverse, r->steps[s].output, r->steps[s].term};
    }
    rg_err ce;
    if (!st && rg_derivation_check(r->rule, &d, by, r->n_by, &ce) != RG_OK)
      st = rg_err_at(err, RG_ERR_ARG, r->line, 1, "derivation does not check: %s", ce.msg);
    ok = !st;
    free(d.steps); /* the terms belong to the record */
  }
  if (!st && !ok)
    st =
        rg_err_at(err, RG_ERR_ARG, r->line, 1, "the rule is not a %s consequence of the rule named",
                  rg_prune_fate_name(r->fate));
  free(by);
  return st;
}

rg_status rg_prune_audit(const rg_ruleset *kept, const char *text, size_t len, rg_audit_report *rep,
                         rg_err *err) {
  memset(rep, 0, sizeof *rep);
  record_list l = {NULL, 0};
  known_table t = {NULL, 0};
  rg_status st = parse_records(text, len, &l, err);
  if (!st) {
    t.k = malloc(sizeof *t.k * ((size_t)kept->n + (size_t)l.n + 1));
    if (!t.k) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; !st && i < kept->n; i++) {
    t.k[t.n] = (known){{{0}}, i, -1};
    st = rg_canon_id(kept->rules[i], NULL, &t.k[t.n++].id, err);
  }
  for (int i = 0; !st && i < l.n; i++) {
    t.k[t.n] = (known){{{0}}, -1, i};
    st = rg_canon_id(l.r[i].rule, NULL, &t.k[t.n].id, err);
    if (!st && rg_content_id_cmp(&t.k[t.n].id, &l.r[i].id) != 0)
      st = rg_err_at(err, RG_ERR_ARG, l.r[i].line, 1,
                     "the content id does not match the rule's text");
    t.n++;
  }
  if (!st) qsort(t.k, (size_t)t.n, sizeof *t.k, cmp_known);
  for (int i = 0; !st && i < l.n; i++) {
    st = check_record(&l.r[i], i, &t, kept, &l, err);
    if (!st) rep->by_reason[l.r[i].fate]++;
  }
  rep->records = st ? 0 : l.n;
  rep->kept = kept->n;
  free(t.k);
  records_free(&l);
  return st;
}
