/* tests/test_prune_state.c: a pruning result written and read back (prune/state.h) is the same
 * result: derivability run over a result read back after the other stages gives the records of
 * one run of every stage; and text that is not such a result (cut, an index out of range,
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

int main(void) {
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
