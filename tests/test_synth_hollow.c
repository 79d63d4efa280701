/* tests/test_synth_hollow.c: a hollow rule (synth/hollow.h) prints as it did whole, has the
 * same content id, and comes back whole with the same text, line and name; removal records
 * written from hollow rules' texts are the records written from the whole rules. Over TASO's
 * 133 rules (named, multi-output) and a few with parameter variables. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "prune/prune.h"
#include "synth/hollow.h"

static const char extra[] = "(concat ?a ?x ?y ?z) => (concat ?a (concat ?a ?x ?y) ?z)\n"
                            "(ewadd ?x ?y) => (ewadd ?y ?x)\n"
                            "(ewadd ?p ?q) => (ewadd ?q ?p)\n";

static char *printed(const rg_hollow *h, const rg_ruleset *rs, int i) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_hollow_print(h, rs, i, &sb);
  return sb.s;
}

static char *records(const rg_ruleset *rs, const rg_hollow *h, const rg_prune_result *res) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  rg_err err;
  CHECK(f && rg_prune_write_records_texts(f, rs, h ? (const char *const *)h->text : NULL, res, &err) == RG_OK);
  fclose(f);
  return text;
}

int main(void) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  CHECK(rg_text_parse_file("data/taso-133.rules", &rs, &err) == RG_OK);
  CHECK(rg_text_parse(extra, strlen(extra), &rs, &err) == RG_OK);
  int n = rs.n;
  CHECK(n > 130);
  rg_hollow h;
  CHECK(rg_hollow_init(&h, n, &err) == RG_OK);
  char **whole = calloc((size_t)n, sizeof *whole);
  rg_db_id *ids = calloc((size_t)n, sizeof *ids);
  int *lines = calloc((size_t)n, sizeof *lines);
  for (int i = 0; i < n; i++) {
    whole[i] = printed(&h, &rs, i);
    rg_hollow_content_id(&h, &rs, i, &ids[i]);
    lines[i] = rs.rules[i]->line;
  }
  rg_prune_opts po = rg_prune_opts_default();
  po.stages = RG_PRUNE_RENAMING | RG_PRUNE_SUBGRAPH;
  rg_prune_result res;
  CHECK(rg_prune_run(&rs, &po, &res, &err) == RG_OK);
  CHECK(res.removal_seq_n > 0); /* the renamed commutativity at least */
  char *before = records(&rs, NULL, &res);
  int hollowed = 0, same = 0;
  for (int i = 0; i < n; i += 2, hollowed++) CHECK(rg_hollow_rule(&h, &rs, i, &err) == RG_OK && !rs.rules[i]);
  CHECK(rg_hollow_rule(&h, &rs, 0, &err) == RG_OK); /* hollow already: nothing to do */
  for (int i = 0; i < n; i++) {
    char *p = printed(&h, &rs, i);
    rg_db_id id;
    rg_hollow_content_id(&h, &rs, i, &id);
    same += !strcmp(p, whole[i]) && !strcmp(id.hex, ids[i].hex);
    free(p);
  }
  CHECK_MSG(same == n, "%d of %d rules print or hash differently hollow", n - same, n);
  char *after = records(&rs, &h, &res);
  CHECK(!strcmp(before, after));
  for (int i = 0; i < n; i += 2) {
    CHECK(rg_hollow_restore(&h, &rs, i, &err) == RG_OK && rs.rules[i] && !h.text[i]);
    char *p = printed(&h, &rs, i);
    CHECK_MSG(!strcmp(p, whole[i]), "restored: '%s' against '%s'", p, whole[i]);
    CHECK(rs.rules[i]->line == lines[i]);
    free(p);
  }
  CHECK(rg_hollow_restore(&h, &rs, 1, &err) == RG_OK); /* whole already */
  printf("%d rules, %d hollowed and restored\n", n, hollowed);
  for (int i = 0; i < n; i++) free(whole[i]);
  free(whole), free(ids), free(lines), free(before), free(after);
  rg_prune_result_free(&res);
  rg_hollow_free(&h);
  rg_ruleset_free(&rs);
  return check_done("test_synth_hollow");
}
