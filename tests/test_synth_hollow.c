/* tests/test_synth_hollow.c: a hollow rule (synth/hollow.h) prints as it did whole, has the
 * same content id, and comes back whole with the same text, line and name; removal records
 * written from hollow rules' texts are the records written from the whole rules; derivability
 * that lets go of the rules it removes (rg_prune_opts.let_go) gives the whole set's result. Over
 * TASO's 133 rules (named, multi-output) and a few with parameter variables.
 *
 * Candidates that rename one before them, made hollow while they are parsed (synth/renamings.h),
 * leave pruning's result as it is with every rule whole: the same fate, implying rules and
 * visiting order for each rule, and the same removal records. Over TASO's 133 rules with a
 * renamed copy of each (some before their original), a renamed bare graph, in slices of a few
 * lines, at one and three threads. Pruning refuses a rule let go of that renames nothing before
 * it, and one absent with no facts. More rules than train the texts' dictionary, packed with it. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>

#include "check.h"
#include "prune/prune.h"
#include "synth/renamings.h"

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
  CHECK(f && rg_prune_write_records_texts(f, rs, h ? rg_hollow_text : NULL, h, res, &err) == RG_OK);
  fclose(f);
  return text;
}

/* res (freed here) is want: each rule's fate, record and place in the order, and the records
 * written from rs and h. */
static void same_result(const rg_ruleset *rs, const rg_hollow *h, rg_prune_result *res,
                        const rg_prune_result *want, const char *want_records, const char *what) {
  int differ = res->n != want->n || res->kept != want->kept;
  for (int i = 0; !differ && i < res->n; i++)
    differ += res->e[i].fate != want->e[i].fate || res->e[i].n_by != want->e[i].n_by ||
              (res->e[i].n_by && res->e[i].by[0] != want->e[i].by[0]) ||
              res->e[i].n_steps != want->e[i].n_steps || res->order[i] != want->order[i];
  CHECK_MSG(!differ, "%s: not the whole set's fates and order", what);
  char *got = records(rs, h, res);
  CHECK_MSG(!strcmp(got, want_records), "%s: other records", what);
  free(got);
  rg_prune_result_free(res);
}

/* rg_prune_opts.let_go: each rule derivability's first pass removes made hollow there and then. */
typedef struct {
  rg_hollow *h;
  rg_ruleset *rs;
  int calls;
} letting_go;

static rg_status let_go(void *ctx, int i, rg_err *err) {
  letting_go *l = ctx;
  l->calls++;
  return rg_hollow_rule(l->h, l->rs, i, err);
}

/* Derivability letting go of the rules its first pass removes: the same fates, derivations,
 * order and records as with every rule whole, at one and three threads. */
static void let_go_in_derivability(void) {
  rg_err err;
  rg_ruleset whole;
  rg_ruleset_init(&whole);
  CHECK(rg_text_parse_file("data/taso-133.rules", &whole, &err) == RG_OK);
  CHECK(rg_text_parse(extra, strlen(extra), &whole, &err) == RG_OK);
  rg_prune_opts po = rg_prune_opts_default();
  rg_prune_result want;
  CHECK(rg_prune_run(&whole, &po, &want, &err) == RG_OK);
  char *want_records = records(&whole, NULL, &want);
  for (int threads = 1; threads <= 3; threads += 2) {
    rg_ruleset rs;
    rg_ruleset_init(&rs);
    CHECK(rg_text_parse_file("data/taso-133.rules", &rs, &err) == RG_OK);
    CHECK(rg_text_parse(extra, strlen(extra), &rs, &err) == RG_OK);
    rg_hollow h;
    CHECK(rg_hollow_init(&h, rs.n, &err) == RG_OK);
    letting_go l = {&h, &rs, 0};
    po.let_go = let_go, po.let_go_ctx = &l;
    omp_set_num_threads(threads);
    rg_prune_result res;
    CHECK(rg_prune_run(&rs, &po, &res, &err) == RG_OK);
    int absent = 0;
    for (int i = 0; i < rs.n; i++)
      absent += !rs.rules[i];
    CHECK_MSG(l.calls > 0 && absent == l.calls, "%d threads: %d let go of, %d absent", threads,
              l.calls, absent);
    same_result(&rs, &h, &res, &want, want_records,
                threads == 1 ? "let go of, 1 thread" : "let go of, 3 threads");
    rg_hollow_free(&h);
    rg_ruleset_free(&rs);
  }
  free(want_records);
  rg_prune_result_free(&want);
  rg_ruleset_free(&whole);
}

/* rule text with every variable renamed (?x -> ?xq) */
static void renamed(const char *line, rg_strbuf *sb) {
  for (const char *p = line; *p && *p != '\n'; p++) {
    rg_sb_append(sb, p, 1);
    if (*p == '?') {
      while (p[1] && (p[1] == '_' || (p[1] >= 'a' && p[1] <= 'z') || (p[1] >= '0' && p[1] <= '9')))
        rg_sb_append(sb, ++p, 1);
      rg_sb_puts(sb, "q");
    }
  }
  rg_sb_puts(sb, "\n");
}

/* TASO's rules, unnamed, each followed by a renamed copy; every seventh copy comes first. */
static void candidates(rg_strbuf *text) {
  rg_ruleset taso;
  rg_ruleset_init(&taso);
  rg_err err;
  CHECK(rg_text_parse_file("data/taso-133.rules", &taso, &err) == RG_OK);
  for (int i = 0; i < taso.n; i++) {
    rg_strbuf one;
    rg_sb_init(&one);
    taso.rules[i]->name[0] = 0;
    rg_text_print_rule(taso.rules[i], &one);
    if (i % 7 == 3) renamed(rg_sb_str(&one), text);
    rg_sb_printf(text, "%s\n", rg_sb_str(&one));
    if (i % 7 != 3) renamed(rg_sb_str(&one), text);
    rg_sb_free(&one);
  }
  rg_sb_puts(text,
             "(ewadd ?a ?b)\n(ewadd ?c ?d) => (ewadd ?d ?c)\n(ewadd ?e ?f) => (ewadd ?f ?e)\n");
  rg_ruleset_free(&taso);
}

static rg_prune_opts opts(rg_renamings *r) {
  rg_prune_opts po = rg_prune_opts_default();
  po.stages = RG_PRUNE_RENAMING | RG_PRUNE_SUBGRAPH | RG_PRUNE_SUPERGRAPH;
  po.absent = rg_renamings_facts, po.absent_ctx = r;
  return po;
}

/* Parsed with the renamings let go of, pruned: the same as the whole set's result. */
static void same_as_whole(const rg_strbuf *text, const rg_prune_result *want,
                          const char *want_records, int threads, size_t slice) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_hollow h;
  rg_err err;
  rg_renamings r;
  CHECK(rg_hollow_init(&h, 0, &err) == RG_OK);
  rg_renamings_init(&r, &h, threads);
  char *copy = strdup(text->s);
  CHECK(rg_text_parse_slices(copy, text->len, slice, &rs, rg_renamings_parsed, &r, &err) == RG_OK);
  rg_renamings_parse_done(&r);
  free(copy);
  int absent = 0, renamings = 0;
  for (int i = 0; i < rs.n; i++)
    absent += !rs.rules[i], renamings += want->e[i].fate == RG_FATE_RENAMING;
  CHECK_MSG(absent == renamings && absent > 130, "%d rules let go of, %d renamings", absent,
            renamings);
  rg_prune_opts po = opts(&r);
  rg_prune_result res;
  CHECK(rg_prune_run(&rs, &po, &res, &err) == RG_OK);
  char what[64];
  snprintf(what, sizeof what, "%d threads, slices of %zu bytes", threads, slice);
  same_result(&rs, &h, &res, want, want_records, what);
  rg_renamings_free(&r);
  rg_hollow_free(&h);
  rg_ruleset_free(&rs);
}

/* The facts of one absent rule, the caller's own. */
typedef struct {
  int i;
  rg_prune_facts f;
} one_absent;

static const rg_prune_facts *facts_of_one(void *ctx, int i) {
  const one_absent *a = ctx;
  return i == a->i ? &a->f : NULL;
}

/* A rule absent with no facts, or absent with its facts but renaming nothing before it: refused. */
static void refused(const rg_strbuf *text) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_hollow h;
  rg_err err;
  CHECK(rg_text_parse(text->s, text->len, &rs, &err) == RG_OK);
  CHECK(rg_hollow_init(&h, rs.n, &err) == RG_OK);
  one_absent a = {0};
  CHECK(rg_prune_facts_of(rs.rules[0], &a.f, &err) ==
        RG_OK); /* TASO's first rule, its copy after it */
  CHECK(rg_hollow_rule(&h, &rs, 0, &err) == RG_OK);
  rg_prune_opts po = rg_prune_opts_default();
  po.stages = RG_PRUNE_RENAMING | RG_PRUNE_SUBGRAPH;
  rg_prune_result res;
  CHECK(rg_prune_run(&rs, &po, &res, &err) == RG_ERR_ARG && strstr(err.msg, "no facts"));
  rg_prune_result_free(&res);
  po.absent = facts_of_one, po.absent_ctx = &a;
  CHECK(rg_prune_run(&rs, &po, &res, &err) == RG_ERR_ARG &&
        strstr(err.msg, "renames no rule before it"));
  rg_prune_result_free(&res);
  rg_hollow_free(&h);
  rg_ruleset_free(&rs);
}

/* synth/renamings.h over TASO's rules with a renamed copy of each. */
static void renamings(void) {
  rg_strbuf text;
  rg_sb_init(&text);
  candidates(&text);
  rg_err err;
  rg_ruleset rs; /* pruning refuses a bare graph: the set without it */
  rg_ruleset_init(&rs);
  rg_strbuf rules;
  rg_sb_init(&rules);
  const char *bare = strstr(text.s, "(ewadd ?a ?b)\n");
  rg_sb_append(&rules, text.s, (size_t)(bare - text.s));
  rg_sb_puts(&rules, bare + strlen("(ewadd ?a ?b)\n"));
  CHECK(rg_text_parse(rules.s, rules.len, &rs, &err) == RG_OK);
  rg_prune_opts po = rg_prune_opts_default();
  po.stages = RG_PRUNE_RENAMING | RG_PRUNE_SUBGRAPH | RG_PRUNE_SUPERGRAPH;
  rg_prune_result want;
  CHECK(rg_prune_run(&rs, &po, &want, &err) == RG_OK);
  char *want_records = records(&rs, NULL, &want);
  same_as_whole(&rules, &want, want_records, 1, 200);
  same_as_whole(&rules, &want, want_records, 3, 1);
  same_as_whole(&rules, &want, want_records, 2, 1 << 20);
  refused(&rules);
  /* a renamed bare graph is never let go of (pruning refuses the set, naming its line) */
  rg_ruleset bares;
  rg_ruleset_init(&bares);
  rg_hollow h;
  rg_renamings r;
  CHECK(rg_hollow_init(&h, 0, &err) == RG_OK);
  rg_renamings_init(&r, &h, 1);
  char twice[] = "(ewadd ?a ?b)\n(ewadd ?c ?d)\n";
  CHECK(rg_text_parse_slices(twice, strlen(twice), 1, &bares, rg_renamings_parsed, &r, &err) ==
        RG_OK);
  CHECK(bares.n == 2 && bares.rules[0] && bares.rules[1]);
  printf("%d rules, %d renamings\n", rs.n, want.stage[0].in - want.stage[0].out);
  rg_renamings_free(&r);
  rg_hollow_free(&h);
  rg_ruleset_free(&bares);
  free(want_records);
  rg_prune_result_free(&want);
  rg_ruleset_free(&rs);
  rg_sb_free(&rules);
  rg_sb_free(&text);
}

/* More rules than RG_HOLLOW_TRAIN made hollow: the later ones packed with the dictionary trained
 * on the first (ir/textpack.h), and each prints, hashes and comes back as it was whole. */
static void packed(void) {
  static const char *const forms[] = {
      "(ewmul (ewadd ?a%d ?b%d) ?c%d) => (ewadd (ewmul ?a%d ?c%d) (ewmul ?b%d ?c%d))\n",
      "(relu (matmul ?x%d (transpose 10 ?w%d))) => (relu (matmul ?x%d (transpose 10 ?w%d)))\n",
      "(tanh (ewadd ?p%d (sigmoid ?q%d))) => (tanh (ewadd (sigmoid ?q%d) ?p%d))\n"};
  int n = RG_HOLLOW_TRAIN + 5000, zipped = 0, same = 0;
  rg_strbuf text;
  rg_sb_init(&text);
  for (int k = 0; k < n; k++) {
    int a = k % 97, b = k / 97, c = k % 13 + k / 1000;
    if (k % 3 == 0)
      rg_sb_printf(&text, forms[0], a, b, c, a, c, b, c);
    else if (k % 3 == 1)
      rg_sb_printf(&text, forms[1], a, b, a, b);
    else
      rg_sb_printf(&text, forms[2], b, c, c, b);
  }
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  CHECK(!text.failed && rg_text_parse(text.s, text.len, &rs, &err) == RG_OK && rs.n == n);
  rg_hollow h;
  CHECK(rg_hollow_init(&h, n, &err) == RG_OK);
  char **whole = calloc((size_t)n, sizeof *whole);
  rg_db_id *ids = calloc((size_t)n, sizeof *ids);
  for (int i = 0; i < n; i++) {
    whole[i] = printed(&h, &rs, i);
    CHECK(rg_hollow_content_id(&h, &rs, i, &ids[i], &err) == RG_OK);
    CHECK(rg_hollow_rule(&h, &rs, i, &err) == RG_OK);
  }
  for (int i = 0; i < n; i++) {
    zipped += rg_textpack_compressed(h.text[i]);
    char *p = printed(&h, &rs, i);
    rg_db_id id;
    CHECK(rg_hollow_content_id(&h, &rs, i, &id, &err) == RG_OK);
    CHECK(rg_hollow_restore(&h, &rs, i, &err) == RG_OK);
    char *q = printed(&h, &rs, i);
    same += !strcmp(p, whole[i]) && !strcmp(q, whole[i]) && !strcmp(id.hex, ids[i].hex);
    free(p), free(q), free(whole[i]);
  }
  CHECK_MSG(zipped > (n - RG_HOLLOW_TRAIN) * 9 / 10, "%d of %d texts packed with the dictionary",
            zipped, n);
  CHECK_MSG(same == n, "%d of %d packed rules print, hash or come back differently", n - same, n);
  printf("%d rules hollow, %d packed with the dictionary\n", n, zipped);
  free(whole), free(ids);
  rg_hollow_free(&h);
  rg_ruleset_free(&rs);
  rg_sb_free(&text);
}

int main(void) {
  let_go_in_derivability();
  renamings();
  packed();
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
    CHECK(rg_hollow_content_id(&h, &rs, i, &ids[i], &err) == RG_OK);
    lines[i] = rs.rules[i]->line;
  }
  rg_prune_opts po = rg_prune_opts_default();
  po.stages = RG_PRUNE_RENAMING | RG_PRUNE_SUBGRAPH;
  rg_prune_result res;
  CHECK(rg_prune_run(&rs, &po, &res, &err) == RG_OK);
  CHECK(res.removal_seq_n > 0); /* the renamed commutativity at least */
  char *before = records(&rs, NULL, &res);
  int hollowed = 0, same = 0;
  for (int i = 0; i < n; i += 2, hollowed++)
    CHECK(rg_hollow_rule(&h, &rs, i, &err) == RG_OK && !rs.rules[i]);
  CHECK(rg_hollow_rule(&h, &rs, 0, &err) == RG_OK); /* hollow already: nothing to do */
  for (int i = 0; i < n; i++) {
    char *p = printed(&h, &rs, i);
    rg_db_id id;
    CHECK(rg_hollow_content_id(&h, &rs, i, &id, &err) == RG_OK);
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
  for (int i = 0; i < n; i++)
    free(whole[i]);
  free(whole), free(ids), free(lines), free(before), free(after);
  rg_prune_result_free(&res);
  rg_hollow_free(&h);
  rg_ruleset_free(&rs);
  return check_done("test_synth_hollow");
}
