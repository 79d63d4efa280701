/* tests/test_prune_state.c: a pruning result written and read back (prune/state.h) is the same
 * result: derivability run over a result read back after the other stages gives the records of
 * one run of every stage; derivability saved part way (in either pass, by its save hook or by
 * the stop flag) and read back goes on to the records of a run never stopped; and text that is
 * not such a result (cut, an index out of range,
 * counts that disagree, another number of rules) is refused with its line. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "check.h"
#include "prune/prune.h"

static const char rules[] =
    "(ewadd ?x ?y) => (ewadd ?y ?x)\n"
    "(ewadd ?a ?b) => (ewadd ?b ?a)\n"
    "(ewmul ?x ?y) => (ewmul ?y ?x)\n"
    "(ewadd ?x (ewadd ?y ?z)) => (ewadd (ewadd ?x ?y) ?z)\n"
    "(ewadd (ewadd ?x ?y) ?z) => (ewadd ?z (ewadd ?y ?x))\n"
    "(ewmul ?x (ewadd ?y ?z)) => (ewadd (ewmul ?x ?y) (ewmul ?x ?z))\n"
    "(ewmul (ewadd ?y ?z) ?x) => (ewadd (ewmul ?y ?x) (ewmul ?z ?x))\n";

/* The result as text (malloc'ed). */
static char *text_of(const rg_prune_result *res, size_t *len) {
  char *s = NULL;
  FILE *f = open_memstream(&s, len);
  rg_err err;
  CHECK(f && rg_prune_state_write(f, res, &err) == RG_OK);
  if (f) fclose(f);
  return s;
}

/* The removal records of res over rs (malloc'ed). */
static char *records_of(const rg_ruleset *rs, const rg_prune_result *res) {
  char *s = NULL;
  size_t len;
  FILE *f = open_memstream(&s, &len);
  rg_err err;
  CHECK(f && rg_prune_write_records(f, rs, res, &err) == RG_OK);
  if (f) fclose(f);
  return s;
}

/* Reading text (with line `line` replaced by repl, or cut after `line` lines when repl is
 * NULL) fails at that line. */
static void refused(const char *text, int line, const char *repl, int n, const char *why) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  int k = 1;
  for (const char *p = text; *p; k++) {
    size_t l = strcspn(p, "\n");
    if (k == line && !repl) break;
    rg_sb_printf(&sb, "%.*s\n", (int)(k == line ? strlen(repl) : l), k == line ? repl : p);
    p += l + (p[l] == '\n');
  }
  rg_prune_result res;
  rg_err err = {0};
  CHECK_MSG(rg_prune_state_read(rg_sb_str(&sb), sb.len, n, &res, &err) == RG_ERR_PARSE, "%s", why);
  CHECK_MSG(strstr(err.msg, why) != NULL, "'%s', not '%s'", err.msg, why);
  rg_prune_result_free(&res);
  rg_sb_free(&sb);
}

/* Some of the results derivability hands its save hook, as text, and how many in each pass;
 * the stop flag is raised at save number stop_at (0: never). */
typedef struct {
  char *text[64];
  size_t len[64];
  int in_pass[64];
  int n, pass[3], stop_at, next_at_stop;
  volatile sig_atomic_t *stop;
} saves;

static void keep_save(void *ctx, const rg_prune_result *res) {
  saves *s = ctx;
  CHECK(res->derive_pass == 1 || res->derive_pass == 2);
  int k = s->pass[1] + s->pass[2];
  s->pass[res->derive_pass]++;
  if (k % 29 == 0 && s->n < 64) { /* some of them */
    s->text[s->n] = text_of(res, &s->len[s->n]);
    s->in_pass[s->n++] = res->derive_pass;
  }
  if (s->stop && k + 1 == s->stop_at) *s->stop = 1, s->next_at_stop = res->derive_next;
}

/* Derivability from text saved part way gives want's records. */
static void goes_on_to(const rg_ruleset *rs, const char *text, size_t len, const char *want, const char *what) {
  rg_prune_opts o = rg_prune_opts_default();
  rg_prune_result res;
  rg_err err;
  CHECK_MSG(rg_prune_state_read(text, len, rs->n, &res, &err) == RG_OK, "%s: %s", what, err.msg);
  CHECK_MSG(res.derive_pass != 0, "%s: not marked part way", what);
  CHECK(rg_prune_run_derive(rs, &o, &res, &err) == RG_OK);
  char *got = records_of(rs, &res);
  CHECK_MSG(got && !strcmp(got, want) && !res.derive_pass && !res.interrupted, "%s: other records", what);
  free(got);
  rg_prune_result_free(&res);
}

/* A derivability of some hundred rules (a sample of depth-3 candidates, some of which the second
 * pass removes) saved at every step: from a save in the middle of pass 1 and the last of pass 2,
 * and from a stop in each pass, it goes on to the same records. */
static void test_part_way(void) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  CHECK(rg_text_parse_file("../bench/data/d3-tested-sample1000.rules", &rs, &err) == RG_OK);
  rg_prune_opts o = rg_prune_opts_default();
  static saves s;
  o.save = keep_save, o.save_ctx = &s, o.save_every = 0;
  rg_prune_result whole; /* saved on the way, never stopped */
  CHECK(rg_prune_run(&rs, &o, &whole, &err) == RG_OK);
  char *want = records_of(&rs, &whole);
  CHECK(want && !whole.derive_pass && !whole.interrupted);
  CHECK_MSG(s.pass[1] > 50 && s.pass[2] > 50, "saves: %d in pass 1, %d in pass 2", s.pass[1], s.pass[2]);
  for (int p = 1; p <= 2; p++) { /* one from the middle of pass 1, the last of pass 2 (rules it removed disabled) */
    int at[64], m = 0;
    for (int k = 0; k < s.n; k++)
      if (s.in_pass[k] == p) at[m++] = k;
    CHECK(m > 1);
    char what[64];
    snprintf(what, sizeof what, "saved in pass %d", p);
    int k = m ? at[p == 1 ? m / 2 : m - 1] : 0;
    if (m) goes_on_to(&rs, s.text[k], s.len[k], want, what);
  }
  int n_saves = s.n, first = s.pass[1];
  for (int k = 0; k < n_saves; k++) free(s.text[k]);
  /* the stop flag in pass 1, then in pass 2: the result it leaves is marked and goes on */
  const int stops[2] = {first / 2, first + s.pass[2] / 2};
  for (int t = 0; t < 2; t++) {
    volatile sig_atomic_t stop = 0;
    memset(&s, 0, sizeof s);
    s.stop = &stop, s.stop_at = stops[t];
    o.stop = &stop;
    rg_prune_result cut;
    CHECK(rg_prune_run(&rs, &o, &cut, &err) == RG_OK);
    /* raised as the save before a batch (or rule) is handed over: that one goes again */
    CHECK(cut.interrupted && cut.derive_pass == t + 1 && cut.derive_next == s.next_at_stop);
    size_t len;
    char *text = text_of(&cut, &len);
    goes_on_to(&rs, text, len, want, t ? "stopped in pass 2" : "stopped in pass 1");
    free(text);
    for (int k = 0; k < s.n; k++) free(s.text[k]);
    rg_prune_result_free(&cut);
  }
  free(want);
  rg_prune_result_free(&whole);
  rg_ruleset_free(&rs);
}

int main(void) {
  test_part_way();
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  CHECK(rg_text_parse(rules, strlen(rules), &rs, &err) == RG_OK);
  rg_prune_opts o = rg_prune_opts_default();
  rg_prune_result whole, part, back;
  CHECK(rg_prune_run(&rs, &o, &whole, &err) == RG_OK);
  o.stages &= ~(unsigned)RG_PRUNE_DERIVE;
  CHECK(rg_prune_run(&rs, &o, &part, &err) == RG_OK);
  size_t len;
  char *text = text_of(&part, &len);
  CHECK(rg_prune_state_read(text, len, rs.n, &back, &err) == RG_OK);
  size_t len2;
  char *again = text_of(&back, &len2);
  CHECK(len == len2 && !memcmp(text, again, len)); /* read back, it writes the same text */
  CHECK(rg_prune_run_derive(&rs, &o, &back, &err) == RG_OK);
  char *r1 = records_of(&rs, &whole), *r2 = records_of(&rs, &back);
  CHECK(whole.kept == back.kept && whole.kept < rs.n && r1 && r2 && !strcmp(r1, r2));
  char *derived = text_of(&back, &len2);
  CHECK(strstr(derived, "\ns ") != NULL); /* a derivation's steps went through the text */
  rg_prune_result_free(&back);
  CHECK(rg_prune_state_read(derived, len2, rs.n, &back, &err) == RG_OK);
  char *r3 = records_of(&rs, &back);
  CHECK(r3 && !strcmp(r1, r3));

  refused(derived, 0, NULL, rs.n + 1, "a result of 7 rules, not of the 8 given");
  refused(derived, 8, NULL, rs.n, "the file ends early");
  refused(derived, 6, "order 0 1 2 3 4 5 7", rs.n, "a number out of range");
  refused(derived, 2, "stage 0 1 7 7 x", rs.n, "not a time in seconds");
  refused(derived, 8, "e 0 1 2 0 0000000000000000000000000000000000000000000000000000000000000000", rs.n,
          "a kept rule with a removal record");
  int n, kept, stopped, seq;
  CHECK(sscanf(derived, "prune-state %d %d %d %d", &n, &kept, &stopped, &seq) == 4);
  char head[64];
  snprintf(head, sizeof head, "prune-state %d %d %d %d", n, kept + 1, stopped, seq);
  refused(derived, 1, head, rs.n, "rules kept and");
  rg_prune_result_free(&whole), rg_prune_result_free(&part), rg_prune_result_free(&back);
  free(text), free(again), free(derived), free(r1), free(r2), free(r3);
  rg_ruleset_free(&rs);
  return check_done("test_prune_state");
}
