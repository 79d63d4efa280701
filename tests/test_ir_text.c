#define _POSIX_C_SOURCE 200809L
/* tests/test_ir_text.c: the rule text format: round trips of every operator and of
 * multi-output rules, canonical printing, hash-consing of parsed graphs (also once compacted), and parse errors with
 * line and column; the text buffer's formatting at every fill of its room; a file sealed with
 * an end line read without it, and refused once altered. */
#include <limits.h>
#include <omp.h>

#include "check.h"

#include <sodium.h>
#include <unistd.h>

#include "ir/endline.h"

static char *print(const rg_rule *r) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  char *s = strdup(rg_sb_str(&sb));
  rg_sb_free(&sb);
  return s;
}

/* parse(text) prints as canonical, and canonical parses back to a rule printing the same. */
static void round_trip(const char *text, const char *canonical) {
  rg_rule *r, *r2;
  rg_err err;
  if (rg_text_parse_rule(text, &r, &err)) {
    CHECK_MSG(0, "'%s' did not parse: %d:%d %s", text, err.line, err.col, err.msg);
    return;
  }
  char *p1 = print(r);
  CHECK_MSG(strcmp(p1, canonical) == 0, "printed '%s', want '%s'", p1, canonical);
  if (rg_text_parse_rule(p1, &r2, &err) == RG_OK) {
    char *p2 = print(r2);
    CHECK_MSG(strcmp(p1, p2) == 0, "reprinted '%s' as '%s'", p1, p2);
    CHECK(rg_graph_size(r->g) == rg_graph_size(r2->g));
    free(p2);
    rg_rule_free(r2);
  } else {
    CHECK_MSG(0, "canonical '%s' did not parse: %s", p1, err.msg);
  }
  free(p1);
  rg_rule_free(r);
}

static void test_round_trips(void) {
  const char *same[] = {
      "(ewadd ?x ?y) => (ewadd ?y ?x)",
      "(ewmul ?x ?y) => (ewmul ?y ?x)",
      "(smul (smul ?x ?s) ?t) => (smul ?x (smul ?s ?t))",
      "(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))",
      "(matmul relu ?x ?y) => (relu (matmul ?x ?y))",
      "(conv2d 2 1 valid sigmoid ?x ?w) => (sigmoid (conv2d 2 1 valid ?x ?w))",
      "(relu (tanh (sigmoid ?x)))",
      "(poolavg 3 3 1 1 same none ?x) => (conv2d ?x (Cpool 4 3 3))",
      "(poolmax 3 1 2 2 valid relu ?x)",
      "(transpose 10 (transpose 10 ?x)) => ?x",
      "(transpose 0213 ?x)",
      "(conv2d ?x ?w) => (conv2d ?x (enlarge 3 3 ?w))",
      "(concat 1 ?x ?y ?z)",
      "(split.0 ?a (concat ?a ?x ?y)) => ?x",
      "(split.1 0 (concat 0 ?x ?y)) => ?y",
      "(reshape 2x8 (reshape 16 ?x)) => (reshape 2x8 ?x)",
      "(reshape ?s (reshape ?t ?x)) => (reshape ?s ?x)", /* shape variables */
      "(ewmul ?x (Iewmul 2x4)) => ?x",
      "(matmul ?x (Imatmul 4)) => ?x",
      "(conv2d ?x (Iconv 4 3 3)) => ?x",
      "(conv2d ?sh ?sw ?p ?c ?x (smul ?w ?k)) => (smul (conv2d ?sh ?sw ?p ?c ?x ?w) ?k)",
      "(ewadd (ewadd ?x ?y) ?x)",
      "(relu ?x) ; (relu ?y) => (split.0 1 (relu (concat 1 ?x ?y))) ; (split.1 1 (relu (concat 1 "
      "?x ?y)))",
  };
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) round_trip(same[i], same[i]);
  /* Defaults are left out; spacing, comments and names are normalised. */
  round_trip("  (matmul none ?x   ?y)=>(matmul none ?y ?x)   # a comment", "(matmul ?x ?y) => (matmul ?y ?x)");
  round_trip("(conv2d 1 1 same none ?x ?w)", "(conv2d ?x ?w)");
  round_trip("(conv2d 1 1 same relu ?x ?w)", "(conv2d 1 1 same relu ?x ?w)");
  round_trip("(conv2d 2 2 ?x ?w)", "(conv2d 2 2 ?x ?w)");
  round_trip("(conv2d 2 2 same none ?x ?w)", "(conv2d 2 2 ?x ?w)");
  round_trip("(conv2d 1 1 valid ?x ?w)", "(conv2d 1 1 valid ?x ?w)");
  /* dilation is trailing and defaulted: printed only when not 1 */
  round_trip("(conv2d 1 1 same none 1 1 ?x ?w)", "(conv2d ?x ?w)");
  round_trip("(conv2d 1 1 same none 2 ?x ?w)", "(conv2d 1 1 same none 2 ?x ?w)");
  round_trip("(conv2d 1 1 same none 2 3 ?x ?w)", "(conv2d 1 1 same none 2 3 ?x ?w)");
  round_trip("(pad 3 1 2 ?x)", "(pad 3 1 2 ?x)");
  round_trip("(slice 0 1 3 (pad 1 0 4 ?x))", "(slice 0 1 3 (pad 1 0 4 ?x))");
  round_trip("(conv2d 1 1 same ?c ?x ?w)", "(conv2d 1 1 same ?c ?x ?w)");
  round_trip("assoc:(ewadd ?a (ewadd ?b ?c))=>(ewadd (ewadd ?a ?b) ?c)",
             "assoc: (ewadd ?a (ewadd ?b ?c)) => (ewadd (ewadd ?a ?b) ?c)");
  round_trip("(relu ?x);(relu ?y)=>(relu ?x) ; (relu ?y)", "(relu ?x) ; (relu ?y) => (relu ?x) ; (relu ?y)");
}

/* Every operator of the table appears in at least one round trip above or here. */
static void test_every_op_printed(void) {
  const char *all = "(ewadd (ewmul (smul ?a ?s) ?a) (reshape 2x4 (transpose 10 (split.0 0 (concat 0 ?b ?b)))))";
  round_trip(all, all);
  const char *more = "(conv2d (poolavg 3 3 1 1 same none (poolmax 3 3 1 1 same none (relu (tanh (sigmoid ?i))))) "
                     "(enlarge 3 3 (ewadd (Iconv 4 1 1) (Cpool 4 1 1))))";
  round_trip(more, more);
  const char *consts = "(matmul (Iewmul 4x4) (Imatmul 4))";
  round_trip(consts, consts);
}

static void test_hash_consing(void) {
  rg_rule *r;
  rg_err err;
  CHECK(rg_text_parse_rule("(ewadd (relu ?x) (relu ?x)) => (ewmul (relu ?x) ?x)", &r, &err) == RG_OK);
  /* nodes: input x, relu x, ewadd, ewmul: the three (relu ?x) are one node */
  CHECK(rg_graph_size(r->g) == 4);
  const rg_node *add = rg_graph_node(r->g, r->src[0].node);
  CHECK(add->in[0].node == add->in[1].node);
  CHECK(rg_graph_node(r->g, r->tgt[0].node)->in[0].node == add->in[0].node);
  rg_rule_free(r);
  rg_graph *g = rg_graph_new();
  int32_t x = rg_graph_input(g, rg_graph_tvar(g, "x", 1));
  rg_node n = rg_node_init(RG_OP_RELU);
  n.n_in = 1;
  n.in[0] = (rg_ref){x, 0};
  int32_t a = rg_graph_add(g, &n), b = rg_graph_add(g, &n);
  CHECK(a == b && rg_graph_size(g) == 2);
  /* many distinct nodes force rehashing; all stay findable */
  int32_t prev = x;
  for (int i = 0; i < 1000; i++) {
    rg_node m = rg_node_init(RG_OP_EWADD);
    m.n_in = 2;
    m.in[0] = (rg_ref){prev, 0};
    m.in[1] = (rg_ref){x, 0};
    prev = rg_graph_add(g, &m);
    CHECK(prev == rg_graph_add(g, &m));
  }
  CHECK(rg_graph_size(g) == 1002);
  /* compacted (as a rule set's rules are), every node is still found, not added again */
  rg_graph_compact(g);
  CHECK(rg_graph_add(g, &n) == a && rg_graph_size(g) == 1002);
  rg_node fresh = rg_node_init(RG_OP_TANH);
  fresh.n_in = 1;
  fresh.in[0] = (rg_ref){prev, 0};
  int32_t t = rg_graph_add(g, &fresh);
  CHECK(t == 1002 && rg_graph_add(g, &fresh) == t && rg_graph_size(g) == 1003);
  /* names packed by compaction are found, and a new name after it keeps the old ones (20
   * names: the table's index is in play too) */
  char name[16];
  for (int i = 0; i < 20; i++) snprintf(name, sizeof name, "v%d", i), rg_graph_tvar(g, name, (int)strlen(name));
  rg_graph_pvar(g, "k", 1);
  rg_graph_compact(g);
  CHECK(rg_graph_find_tvar(g, "v7") == 8 && !strcmp(rg_graph_tvar_name(g, 20), "v19"));
  CHECK(rg_graph_tvar(g, "v3", 2) == 4 && rg_graph_n_tvars(g) == 21);
  CHECK(rg_graph_tvar(g, "late", 4) == 21 && rg_graph_find_tvar(g, "v19") == 20);
  CHECK(!strcmp(rg_graph_tvar_name(g, 0), "x") && !strcmp(rg_graph_tvar_name(g, 21), "late"));
  CHECK(!strcmp(rg_graph_pvar_name(g, 0), "k"));
  rg_graph_compact(g);
  CHECK(rg_graph_find_tvar(g, "late") == 21 && rg_graph_find_pvar(g, "k") == 0);
  rg_graph_free(g);
}

static void expect_error(const char *text, int line, int col, const char *needle) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err = {0};
  rg_status st = rg_text_parse(text, strlen(text), &rs, &err);
  CHECK_MSG(st != RG_OK && err.line == line && err.col == col && strstr(err.msg, needle),
            "'%s': status %d at %d:%d '%s'; want %d:%d '%s'", text, st, err.line, err.col, err.msg,
            line, col, needle);
  rg_ruleset_free(&rs);
}

static void test_errors(void) {
  expect_error("(matmul ?x ?y", 1, 14, "missing ')' to close the '(' of matmul at column 1");
  expect_error("# ok\n(relu ?x)) => ?x", 2, 10, "unbalanced ')'");
  expect_error("(frob ?x) => ?x", 1, 2, "unknown operator 'frob'");
  expect_error("(poolavg 3 3 ?x)", 1, 1, "poolavg takes 6 parameters (kernel_h kernel_w stride_h stride_w pad act) then 1 tensor input");
  expect_error("(ewadd ?x) => ?x", 1, 1, "ewadd takes 0 parameters () then 2 tensor inputs, but has 1");
  expect_error("(relu ?x ?y)", 1, 1, "relu takes 0 parameters () then 1 tensor input, but has 2");
  expect_error("(conv2d 1 1 middle none ?x ?w)", 1, 13, "bad value 'middle' for parameter pad");
  expect_error("(conv2d 0 1 same none ?x ?w)", 1, 9, "bad value '0' for parameter stride_h");
  expect_error("(transpose 11 ?x)", 1, 12, "expected a permutation");
  expect_error("(concat 9 ?x ?y)", 1, 9, "expected an axis");
  expect_error("(reshape 2x0 ?x)", 1, 10, "expected a shape");
  expect_error("(split 0 ?x)", 1, 2, "split has 2 outputs: write split.0 .. split.1");
  expect_error("(relu.1 ?x)", 1, 2, "relu has no output 1");
  expect_error("?x => ?y", 1, 1, "the target uses ?y, which the source does not bind");
  expect_error("(relu ?x) ; (relu ?y) => (relu ?x)", 1, 26, "the source has 2 outputs but the target has 1");
  expect_error("(relu ?x) junk", 1, 11, "unexpected 'junk' after the rule");
  expect_error("(relu ?x\x01)", 1, 9, "unexpected byte 0x01");
  expect_error("(ewadd ?x (concat ?x ?x ?y))", 1, 19, "'?x' is used both as a tensor and as a parameter");
  expect_error("(relu ?)", 1, 7, "bad variable name");
  expect_error("(relu", 1, 6, "missing ')' to close the '(' of relu");
  expect_error("\n\n   =>", 3, 4, "expected a term");
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  CHECK(rg_text_parse("", 0, &rs, &err) == RG_OK && rs.n == 0);
  const char *comments = "# only\n\n  # comments\n";
  CHECK(rg_text_parse(comments, strlen(comments), &rs, &err) == RG_OK && rs.n == 0);
  const char *two = "a: (relu ?x) => (relu ?x)\n\nb: ?x => ?x\n";
  CHECK(rg_text_parse(two, strlen(two), &rs, &err) == RG_OK && rs.n == 2);
  CHECK(rs.n == 2 && rs.rules[1]->line == 3 && strcmp(rs.rules[1]->name, "b") == 0);
  rg_ruleset_free(&rs);
}

/* What the slice callback saw: each call's rules follow the last call's, with the whole text's
 * line numbers; stop_at ends the parse once that many rules are in. */
typedef struct {
  int calls, next, bad_lines, stop_at;
} slices_seen;

static rg_status on_slice(void *ctx, rg_ruleset *out, int first, rg_err *err) {
  slices_seen *s = ctx;
  s->calls++;
  if (first != s->next) s->bad_lines++;
  for (int i = first; i < out->n; i++) s->bad_lines += out->rules[i]->line <= (i ? out->rules[i - 1]->line : 0);
  s->next = out->n;
  if (s->stop_at && out->n >= s->stop_at) return rg_err_set(err, RG_ERR_ARG, "enough");
  return RG_OK;
}

/* Whether two parses hold the same rules (their canonical text) at the same lines. */
static bool same_rules(const rg_ruleset *x, const rg_ruleset *y) {
  bool same = x->n == y->n;
  for (int i = 0; same && i < x->n; i++) {
    rg_strbuf a, b;
    rg_sb_init(&a), rg_sb_init(&b);
    rg_text_print_rule(x->rules[i], &a), rg_text_print_rule(y->rules[i], &b);
    same = !strcmp(rg_sb_str(&a), rg_sb_str(&b)) && x->rules[i]->line == y->rules[i]->line;
    rg_sb_free(&a), rg_sb_free(&b);
  }
  return same;
}

/* rg_text_parse_slices: the rules and line numbers of one whole parse, at any slice size (a
 * slice ends at a line's end: even one byte a slice parses whole lines), and a bad line in a
 * later slice reported at its line in the whole text. The text is dropped as it goes, so each
 * parse gets a fresh copy. */
static void test_slices(void) {
  rg_strbuf text;
  rg_sb_init(&text);
  rg_sb_puts(&text, "# a header\n");
  for (int i = 0; i < 300; i++)
    rg_sb_printf(&text, i % 7 ? "(ewadd ?x%d ?y) => (ewadd ?y ?x%d)\n" : "r%d: (relu (relu ?a)) => (relu ?a)\n\n", i, i);
  rg_sb_puts(&text, "(matmul ?a ?b) => (matmul ?a ?b)"); /* no newline at the end */
  rg_ruleset whole;
  rg_ruleset_init(&whole);
  rg_err err;
  CHECK(rg_text_parse(text.s, text.len, &whole, &err) == RG_OK && whole.n == 301);
  size_t slices[] = {1, 7, 64, 1000, 1 << 20};
  for (size_t k = 0; k < sizeof slices / sizeof *slices; k++) {
    char *copy = malloc(text.len + 1);
    memcpy(copy, text.s, text.len + 1);
    rg_ruleset rs;
    rg_ruleset_init(&rs);
    slices_seen seen = {0};
    CHECK(rg_text_parse_slices(copy, text.len, slices[k], &rs, on_slice, &seen, &err) == RG_OK);
    CHECK_MSG(seen.next == rs.n && seen.bad_lines == 0 && seen.calls >= 1 && (slices[k] > 1000 || seen.calls > 1),
              "slices of %zu bytes: the callback saw %d rules in %d calls (%d out of order)", slices[k], seen.next,
              seen.calls, seen.bad_lines);
    CHECK_MSG(same_rules(&rs, &whole), "slices of %zu bytes: not the whole parse's rules and lines",
              slices[k]);
    rg_ruleset_free(&rs);
    free(copy);
  }
  char bad[] = "(relu ?a) => (relu ?a)\n(relu ?a) => (relu ?a)\n(relu ?a) => (nosuchop ?a)\n";
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  slices_seen stop = {.stop_at = 2};
  char *copy = malloc(text.len + 1);
  memcpy(copy, text.s, text.len + 1);
  CHECK(rg_text_parse_slices(copy, text.len, 30, &rs, on_slice, &stop, &err) == RG_ERR_ARG);
  CHECK_MSG(stop.calls == 2 && rs.n < whole.n && !strcmp(err.msg, "enough"),
            "a callback's error ends the parse: %d calls, %d rules", stop.calls, rs.n);
  free(copy);
  rg_ruleset_free(&rs);
  rg_ruleset_init(&rs);
  CHECK(rg_text_parse_slices(bad, strlen(bad), 5, &rs, NULL, NULL, &err) != RG_OK);
  CHECK_MSG(err.line == 3, "the bad line reported at line %d, not 3", err.line);
  rg_ruleset_free(&rs);
  rg_ruleset_free(&whole);
  rg_sb_free(&text);
}

/* rg_sb_printf against snprintf, with pieces of every length around the room left (the piece
 * that fits exactly, one byte short, one byte over). */
static void test_strbuf_printf(void) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  char want[8192], piece[80];
  size_t len = 0;
  for (int i = 0; i < 400; i++) {
    int w = i % 71;
    snprintf(piece, sizeof piece, "%*d|", w, i);
    rg_sb_printf(&sb, "%*d|", w, i);
    memcpy(want + len, piece, strlen(piece) + 1);
    len += strlen(piece);
    if (len > sizeof want - 100) break;
    CHECK_MSG(sb.len == len && !strcmp(rg_sb_str(&sb), want), "after piece %d: %zu bytes, want %zu", i, sb.len, len);
  }
  rg_sb_free(&sb);
  rg_sb_printf(&sb, "%s", ""); /* nothing into nothing */
  CHECK(sb.len == 0 && !strcmp(rg_sb_str(&sb), ""));
  sb.failed = true; /* a failed buffer stays as it was */
  rg_sb_printf(&sb, "%d", 12345);
  CHECK(sb.len == 0 && !strcmp(rg_sb_str(&sb), ""));
  rg_sb_free(&sb);
  /* the conversions written by hand (%s %c %% %d %u %ld %lu %lld %llu %zu) as snprintf writes
   * them, the ends of each type's range included, beside ones that go to vsnprintf */
  const long long wide[] = {0, 1, -1, 9, 10, -10, INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, LLONG_MIN};
  for (size_t k = 0; k < sizeof wide / sizeof *wide; k++) {
    long long v = wide[k];
    char got[400];
    rg_sb_clear(&sb);
    rg_sb_printf(&sb, "%s=%d%%%c|%u|%ld|%lu|%lld|%llu|%zu|%5d|%.2s.", "x", (int)v, 'A' + (int)k,
                 (unsigned)v, (long)v, (unsigned long)v, v, (unsigned long long)v, (size_t)v,
                 (int)k, "abc");
    snprintf(got, sizeof got, "%s=%d%%%c|%u|%ld|%lu|%lld|%llu|%zu|%5d|%.2s.", "x", (int)v,
             'A' + (int)k, (unsigned)v, (long)v, (unsigned long)v, v, (unsigned long long)v,
             (size_t)v, (int)k, "abc");
    CHECK_MSG(!strcmp(rg_sb_str(&sb), got), "%s against %s", rg_sb_str(&sb), got);
    rg_sb_clear(&sb); /* without the last two: every conversion written by hand */
    rg_sb_printf(&sb, "%s=%d%%%c|%u|%ld|%lu|%lld|%llu|%zu|", "x", (int)v, 'A' + (int)k, (unsigned)v,
                 (long)v, (unsigned long)v, v, (unsigned long long)v, (size_t)v);
    snprintf(got, sizeof got, "%s=%d%%%c|%u|%ld|%lu|%lld|%llu|%zu|", "x", (int)v, 'A' + (int)k,
             (unsigned)v, (long)v, (unsigned long)v, v, (unsigned long long)v, (size_t)v);
    CHECK_MSG(!strcmp(rg_sb_str(&sb), got) && sb.len == strlen(got), "%s against %s",
              rg_sb_str(&sb), got);
  }
  rg_sb_clear(&sb);
  rg_sb_printf(&sb, "[%.*s|%.*s|%.*s|%.*s]", 2, "abc", 9, "abc", -1, "abc", 0, "abc");
  CHECK_MSG(!strcmp(rg_sb_str(&sb), "[ab|abc|abc|]"), "%s", rg_sb_str(&sb));
  /* plain pieces of every length across the buffer's growth */
  char long_piece[80], want_plain[8192] = "";
  rg_sb_free(&sb);
  for (int i = 0; i < 200 && strlen(want_plain) < sizeof want_plain - 200; i++) {
    memset(long_piece, 'a' + i % 26, 80);
    long_piece[i % 79] = 0;
    rg_sb_printf(&sb, "%d:%s|", i, long_piece);
    snprintf(want_plain + strlen(want_plain), 100, "%d:%s|", i, long_piece);
    CHECK_MSG(sb.len == strlen(want_plain) && !strcmp(rg_sb_str(&sb), want_plain),
              "after plain piece %d", i);
  }
  rg_sb_clear(&sb);
  rg_sb_printf(&sb, "100%%");
  rg_sb_printf(&sb, "%c%s", 'z', "");
  CHECK(!strcmp(rg_sb_str(&sb), "100%z") && sb.len == 5);
  /* rg_sb_put_int writes what "%ld" writes, the ends of long's range included */
  const long ints[] = {0, 7, -7, 10, -10, 99, 1000000007, -2147483648L, LONG_MAX, LONG_MIN};
  for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) {
    rg_sb_clear(&sb);
    rg_sb_put_int(&sb, ints[k]);
    snprintf(piece, sizeof piece, "%ld", ints[k]);
    CHECK_MSG(!strcmp(rg_sb_str(&sb), piece), "%ld printed as %s", ints[k], rg_sb_str(&sb));
  }
  rg_sb_free(&sb);
}

/* Writes body then its end line (or, when alter >= 0, the body with byte alter changed) to a
 * temporary file whose path goes to path. */
static void write_sealed(char path[64], const char *body, int alter) {
  unsigned char h[crypto_hash_sha256_BYTES];
  char hex[65], *text = strdup(body);
  crypto_hash_sha256(h, (const unsigned char *)body, strlen(body));
  sodium_bin2hex(hex, sizeof hex, h, sizeof h);
  if (alter >= 0) text[alter] ^= 1;
  strcpy(path, "/tmp/rg_sealed_XXXXXX");
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  CHECK(f != NULL);
  if (f) fprintf(f, "%send %s\n", text, hex), fclose(f);
  free(text);
}

/* A sealed file (OUT.generalized) reads as its rules; the end line that does not hold is named. */
static void test_sealed_file(void) {
  const char *body = "(relu (relu ?x)) => (relu ?x)\n(ewadd ?x ?y) => (ewadd ?y ?x)\n";
  char path[64];
  bool sealed;
  rg_err err = {0};
  write_sealed(path, body, -1);
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  CHECK_MSG(rg_text_parse_file(path, &rs, &err) == RG_OK && rs.n == 2, "%s", err.msg);
  rg_ruleset_free(&rs);
  unlink(path);
  write_sealed(path, body, 9); /* (relu (relv ... */
  rg_ruleset_init(&rs);
  CHECK(rg_text_parse_file(path, &rs, &err) == RG_ERR_PARSE && strstr(err.msg, ":3: its end line is not"));
  rg_ruleset_free(&rs);
  unlink(path);
  /* The line's shape alone: a body and a line that is no end line are not sealed files. */
  CHECK(rg_end_line(body, strlen(body), &sealed) == NULL && !sealed);
  const char *short_hash = "(relu ?x) => (relu ?x)\nend 0123\n";
  CHECK(rg_end_line(short_hash, strlen(short_hash), &sealed) == NULL);
  char mid[200];
  snprintf(mid, sizeof mid, "(relu ?x) => (relu ?x)\nxend %064d\n", 0);
  CHECK(rg_end_line(mid, strlen(mid), &sealed) == NULL);
  snprintf(mid, sizeof mid, "(relu ?x) => (relu ?x)\nend %064d\n", 0);
  CHECK(rg_end_line(mid, strlen(mid), &sealed) != NULL && !sealed);
}

/* A slice of several MiB is parsed in parts on several threads: the same rules, line numbers and
 * first error (its line in the whole text) as one parse. */
static void test_parts(void) {
  omp_set_num_threads(3);
  rg_strbuf text;
  rg_sb_init(&text);
  for (int i = 0; i < 72000; i++) /* about 3.3 MB: three parts of at least a MiB */
    rg_sb_printf(&text,
                 i % 5 ? "(ewadd ?x%d ?y) => (ewadd ?y ?x%d)\n"
                       : "r%d: (relu (relu ?a)) => (relu ?a)\n\n",
                 i, i);
  rg_ruleset whole, rs;
  rg_ruleset_init(&whole), rg_ruleset_init(&rs);
  rg_err err;
  CHECK(rg_text_parse(text.s, text.len, &whole, &err) == RG_OK && whole.n == 72000);
  char *copy = malloc(text.len + 1);
  memcpy(copy, text.s, text.len + 1);
  CHECK(rg_text_parse_slices(copy, text.len, text.len, &rs, NULL, NULL, &err) == RG_OK);
  CHECK_MSG(same_rules(&rs, &whole),
            "parsed in parts: %d rules, not the whole parse's %d and their lines", rs.n, whole.n);
  rg_ruleset_free(&rs);
  /* two bad lines in the last quarter: the first is the one reported */
  rg_sb_puts(&text, "(relu ?a) => (nosuchop ?a)\n(relu ?a) => (alsonot ?a)\n");
  for (int i = 0; i < 1000; i++)
    rg_sb_puts(&text, "(relu ?a) => (relu ?a)\n");
  rg_err one;
  rg_ruleset_init(&rs);
  CHECK(rg_text_parse(text.s, text.len, &rs, &one) != RG_OK && one.line == 86401);
  rg_ruleset_free(&rs);
  rg_ruleset_init(&rs);
  copy = realloc(copy, text.len + 1);
  memcpy(copy, text.s, text.len + 1);
  CHECK(rg_text_parse_slices(copy, text.len, text.len, &rs, NULL, NULL, &err) != RG_OK);
  CHECK_MSG(err.line == one.line && err.col == one.col && !strcmp(err.msg, one.msg) &&
                rs.n == 72000,
            "parsed in parts: the error at line %d (%s), %d rules before it; one parse: line %d",
            err.line, err.msg, rs.n, one.line);
  free(copy);
  rg_ruleset_free(&rs);
  rg_ruleset_free(&whole);
  rg_sb_free(&text);
}

int main(void) {
  test_sealed_file();
  test_strbuf_printf();
  test_round_trips();
  test_every_op_printed();
  test_hash_consing();
  test_errors();
  test_slices();
  test_parts();
  return check_done("test_ir_text");
}
