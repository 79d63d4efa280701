/* prune/state.c: a pruning result as text and back (see state.h). */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include "state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir/textpack.h"
#include "prune.h"

/* Derivations held before the pack trains its dictionary on them (ir/textpack.h). */
enum { RG_PRUNE_STEPS_TRAIN = 20000 };

static void put_ints(FILE *f, const char *tag, const int *v, int n) {
  fputs(tag, f);
  for (int i = 0; i < n; i++) fprintf(f, " %d", v[i]);
  fputc('\n', f);
}

/* A derivation's steps, one 's' line each, appended to sb. */
static rg_status steps_text(const rg_derivation *d, rg_strbuf *sb, rg_err *err) {
  for (int s = 0; s < d->n; s++) {
    const rg_derive_step *st = &d->steps[s];
    if (strchr(st->state, '\n'))
      return rg_err_set(err, RG_ERR_ARG,
                        "a derivation step's term holds a newline: it cannot be saved");
    rg_sb_puts(sb, "s ");
    rg_sb_put_int(sb, st->tag);
    rg_sb_puts(sb, st->reverse ? " 1 " : " 0 ");
    rg_sb_put_int(sb, st->output);
    rg_sb_append(sb, " ", 1);
    rg_sb_puts(sb, st->state);
    rg_sb_append(sb, "\n", 1);
  }
  return sb->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* Entry i's held 's' lines unpacked into sb (nothing for a rule not derived). */
static rg_status held_text(const rg_prune_result *res, int i, rg_strbuf *sb, rg_err *err) {
  const rg_prune_entry *e = &res->e[i];
  if (e->steps) rg_textpack_unpack(res->steps_pack, e->steps, sb);
  return sb->failed ? rg_err_set(err, RG_ERR_NOMEM,
                                 "out of memory, or a held derivation that does not unpack")
                    : RG_OK;
}

static rg_status put_text(FILE *f, const rg_strbuf *sb, rg_err *err) {
  if (sb->len && fwrite(sb->s, 1, sb->len, f) != sb->len)
    return rg_err_set(err, RG_ERR_IO, "write error (disk full?)");
  return RG_OK;
}

/* The end of a write: sb freed, the stream's error checked unless st already failed. */
static rg_status close_write(FILE *f, rg_strbuf *sb, rg_status st, rg_err *err) {
  rg_sb_free(sb);
  if (!st && ferror(f)) st = rg_err_set(err, RG_ERR_IO, "write error (disk full?)");
  return st;
}

/* The same, sb's lines written out first unless st failed. */
static rg_status end_write(FILE *f, rg_strbuf *sb, rg_status st, rg_err *err) {
  if (!st) st = put_text(f, sb, err);
  return close_write(f, sb, st, err);
}

rg_status rg_prune_state_write(FILE *f, const rg_prune_result *res, rg_err *err) {
  fprintf(f, "prune-state %d %d %d %d\n", res->n, res->kept, res->interrupted ? 1 : 0, res->removal_seq_n);
  for (int k = 0; k < RG_PRUNE_STAGES; k++) {
    const rg_prune_stage *s = &res->stage[k];
    fprintf(f, "stage %d %d %d %d %.6f\n", k, s->run ? 1 : 0, s->in, s->out, s->seconds);
  }
  if (res->derive_pass) fprintf(f, "derive %d %d %d\n", res->derive_pass, res->derive_next, res->derive_seq1);
  put_ints(f, "order", res->order, res->n);
  put_ints(f, "seq", res->removal_seq, res->removal_seq_n);
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = RG_OK;
  for (int i = 0; !st && i < res->n; i++) {
    const rg_prune_entry *e = &res->e[i];
    char hex[RG_CONTENT_ID_HEX];
    rg_content_id_hex(&e->id, hex);
    fprintf(f, "e %d %d", (int)e->fate, e->n_by);
    for (int b = 0; b < e->n_by; b++) fprintf(f, " %d", e->by[b]);
    fprintf(f, " %d %s\n", e->n_steps, hex);
    rg_sb_clear(&sb);
    st = held_text(res, i, &sb, err);
    if (!st) st = put_text(f, &sb, err);
  }
  return close_write(f, &sb, st, err);
}

rg_status rg_prune_derivation_write(FILE *f, int i, const rg_derivation *d, rg_err *err) {
  fprintf(f, "d %d %d\n", i, d->n);
  rg_strbuf sb;
  rg_sb_init(&sb);
  return end_write(f, &sb, steps_text(d, &sb, err), err);
}

rg_status rg_prune_removal_write(FILE *f, const rg_prune_result *res, int i, rg_err *err) {
  fprintf(f, "d %d %d\n", i, res->e[i].n_steps);
  rg_strbuf sb;
  rg_sb_init(&sb);
  return end_write(f, &sb, held_text(res, i, &sb, err), err);
}

/* Entry i holds the 's' lines in sb (n_steps of them), packed. */
static rg_status hold_text(rg_prune_result *res, int i, int n_steps, const rg_strbuf *sb,
                           rg_err *err) {
  rg_prune_entry *e = &res->e[i];
  free(e->steps);
  e->steps = NULL, e->n_steps = 0; /* set once the steps are held: never a count without them */
  if (!n_steps) return RG_OK;
  if (!res->steps_pack) res->steps_pack = rg_textpack_new(RG_PRUNE_STEPS_TRAIN);
  if (res->steps_pack && !sb->failed) e->steps = rg_textpack_pack(res->steps_pack, sb->s, sb->len);
  if (!e->steps) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  e->n_steps = n_steps;
  return RG_OK;
}

rg_status rg_prune_hold_derivation(rg_prune_result *res, int i, rg_derivation *d, rg_err *err) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = steps_text(d, &sb, err);
  if (!st) st = hold_text(res, i, d->n, &sb, err);
  rg_sb_free(&sb);
  if (!st) rg_derivation_free(d);
  return st;
}

/* ---- reading ---- */

/* Lines come from a stream, one ahead (the optional derive line is told by its word), and no
 * further than a byte limit: a depth-4 result is 1.2 GB of text, which the reader never holds
 * whole (the checkpoint's end line follows the result in its file). */
typedef struct {
  FILE *f;
  size_t left;         /* bytes the reader may still take from f */
  char *cur, *ahead;   /* the current line and the next (getline's buffers, no '\n') */
  size_t cur_cap, ahead_cap;
  ssize_t ahead_len;   /* -1: no line ahead (the limit or the end of f) */
  const char *at;      /* the current line's next token */
  const char *eol;     /* its end */
  int line;
  rg_err *err;
} reader;

/* Loads the line after the current one; false when out of memory. */
static bool load_ahead(reader *r) {
  r->ahead_len = -1;
  if (!r->left) return true;
  errno = 0;
  ssize_t n = getline(&r->ahead, &r->ahead_cap, r->f);
  if (n < 0) return errno != ENOMEM;
  if ((size_t)n > r->left) n = (ssize_t)r->left; /* the limit cuts the line */
  r->left -= (size_t)n;
  r->ahead_len = n && r->ahead[n - 1] == '\n' ? n - 1 : n;
  return true;
}

static rg_status bad(reader *r, const char *what) {
  return rg_err_at(r->err, RG_ERR_PARSE, r->line, 1, "%s", what);
}

/* Moves to the next line, which must start with the word tag. */
static rg_status line_of(reader *r, const char *tag) {
  if (r->ahead_len < 0) return bad(r, "the file ends early (cut short?)");
  char *swap = r->cur;
  size_t swap_cap = r->cur_cap;
  r->cur = r->ahead, r->cur_cap = r->ahead_cap;
  r->ahead = swap, r->ahead_cap = swap_cap;
  r->at = r->cur, r->eol = r->cur + r->ahead_len;
  r->line++;
  if (!load_ahead(r)) return rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
  size_t n = strlen(tag);
  if ((size_t)(r->eol - r->at) < n || strncmp(r->at, tag, n) != 0 || (r->at + n < r->eol && r->at[n] != ' '))
    return rg_err_at(r->err, RG_ERR_PARSE, r->line, 1, "expected a '%s' line", tag);
  r->at += n;
  return RG_OK;
}

/* The next number on the line, in [lo, hi]. */
static rg_status num(reader *r, long lo, long hi, int *out) {
  if (r->at >= r->eol || *r->at != ' ') return bad(r, "a number is missing");
  char *e;
  errno = 0;
  long v = strtol(++r->at, &e, 10);
  if (e == r->at || errno || v < lo || v > hi || (e < r->eol && *e != ' '))
    return rg_err_at(r->err, RG_ERR_PARSE, r->line, 1, "a number out of range (%ld..%ld expected)", lo, hi);
  r->at = e;
  *out = (int)v;
  return RG_OK;
}

/* The rest of the line after one space, as a word or text (malloc'ed when dup). */
static rg_status rest(reader *r, const char **s, size_t *len) {
  if (r->at >= r->eol || *r->at != ' ' || r->at + 1 >= r->eol) return bad(r, "text is missing");
  *s = r->at + 1, *len = (size_t)(r->eol - r->at - 1);
  r->at = r->eol;
  return RG_OK;
}

static rg_status line_end(reader *r) { return r->at == r->eol ? RG_OK : bad(r, "more on the line than expected"); }

static rg_status ints(reader *r, const char *tag, int *v, int n, int hi) {
  rg_status st = line_of(r, tag);
  for (int i = 0; !st && i < n; i++) st = num(r, 0, hi - 1, &v[i]);
  return st ? st : line_end(r);
}

/* n_steps 's' lines, each checked (tags of rules below n): into *d when d is not NULL, and as
 * they are (with their '\n') appended to sb when sb is not NULL. */
static rg_status read_steps(reader *r, rg_derivation *d, rg_strbuf *sb, int n_steps, int n) {
  if (d && n_steps && !(d->steps = calloc((size_t)n_steps, sizeof *d->steps)))
    return rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
  rg_status st = RG_OK;
  for (int s = 0; !st && s < n_steps; s++) {
    rg_derive_step step = {0};
    int rev = 0;
    st = line_of(r, "s");
    if (!st) st = num(r, 0, n - 1, &step.tag);
    if (!st) st = num(r, 0, 1, &rev);
    if (!st) st = num(r, 0, 1 << 20, &step.output);
    const char *term = NULL;
    size_t len = 0;
    if (!st) st = rest(r, &term, &len);
    if (!st && sb) rg_sb_append(sb, r->cur, (size_t)(r->eol - r->cur)), rg_sb_append(sb, "\n", 1);
    if (!st && d && !(step.state = strndup(term, len)))
      st = rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
    step.reverse = rev;
    if (!st && d) d->steps[d->n++] = step;
  }
  return st;
}

static rg_status read_entry(reader *r, rg_prune_result *res, int i) {
  rg_prune_entry *e = &res->e[i];
  int fate, n_by, n_steps, n = res->n;
  rg_status st = line_of(r, "e");
  if (!st) st = num(r, RG_FATE_KEPT, RG_FATE_DERIVED, &fate);
  if (!st) st = num(r, 0, n, &n_by);
  if (st) return st;
  e->fate = (rg_prune_fate)fate;
  e->by = n_by ? malloc(sizeof *e->by * (size_t)n_by) : NULL;
  if (n_by && !e->by) return rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
  e->n_by = n_by;
  for (int b = 0; !st && b < n_by; b++) st = num(r, 0, n - 1, &e->by[b]);
  if (!st) st = num(r, 0, 1 << 20, &n_steps);
  const char *hex = NULL; /* set by rest() when st is 0; -O3 cannot tell */
  size_t len = 0;
  if (!st) st = rest(r, &hex, &len);
  if (!st && !rg_content_id_parse(hex, len, &e->id)) st = bad(r, "not a content id");
  if (!st && fate == RG_FATE_KEPT && (n_by || n_steps)) st = bad(r, "a kept rule with a removal record");
  if (!st && n_steps && fate != RG_FATE_DERIVED) st = bad(r, "steps for a rule not removed as derived");
  if (st || !n_steps) return st;
  rg_strbuf sb;
  rg_sb_init(&sb);
  st = read_steps(r, NULL, &sb, n_steps, n);
  if (!st) st = hold_text(res, i, n_steps, &sb, r->err);
  rg_sb_free(&sb);
  return st;
}

/* Where derivability part way goes on from (see prune.h). */
static rg_status read_derive(reader *r, rg_prune_result *res) {
  rg_status st = line_of(r, "derive");
  if (!st) st = num(r, 1, 2, &res->derive_pass);
  if (!st) st = num(r, 0, res->n - (res->derive_pass == 2), &res->derive_next);
  if (!st) st = num(r, 0, res->derive_pass == 2 ? res->removal_seq_n : 0, &res->derive_seq1);
  return st ? st : line_end(r);
}

static rg_status read_result(reader *r, int n, rg_prune_result *res, rg_prune_entry_fn each, void *ctx,
                             rg_err *err) {
  int n_file, kept, interrupted, seq_n;
  rg_status st = line_of(r, "prune-state");
  if (!st) st = num(r, 0, 1 << 30, &n_file);
  if (!st && n_file != n)
    st = rg_err_at(err, RG_ERR_PARSE, 1, 1, "a result of %d rules, not of the %d given", n_file, n);
  if (!st) st = num(r, 0, n, &kept);
  if (!st) st = num(r, 0, 1, &interrupted);
  if (!st) st = num(r, 0, n, &seq_n);
  if (!st) st = line_end(r);
  if (st) return st;
  res->n = n, res->kept = kept, res->interrupted = interrupted, res->removal_seq_n = seq_n;
  for (int k = 0; !st && k < RG_PRUNE_STAGES; k++) {
    rg_prune_stage *s = &res->stage[k];
    int kk, run = 0;
    const char *secs = NULL;
    size_t slen = 0;
    st = line_of(r, "stage");
    if (!st) st = num(r, k, k, &kk);
    if (!st) st = num(r, 0, 1, &run);
    if (!st) st = num(r, 0, n, &s->in);
    if (!st) st = num(r, 0, n, &s->out);
    if (!st) st = rest(r, &secs, &slen);
    char *e;
    if (!st && ((s->seconds = strtod(secs, &e)) < 0 || e != secs + slen)) st = bad(r, "not a time in seconds");
    s->run = run, s->name = rg_prune_stage_name(k);
  }
  if (!st && r->ahead_len >= 7 && !strncmp(r->ahead, "derive ", 7)) st = read_derive(r, res);
  res->e = calloc((size_t)n + 1, sizeof *res->e);
  res->order = malloc(sizeof(int) * ((size_t)n + 1));
  res->removal_seq = malloc(sizeof(int) * ((size_t)n + 1));
  if (!st && (!res->e || !res->order || !res->removal_seq)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = ints(r, "order", res->order, n, n);
  if (!st) st = ints(r, "seq", res->removal_seq, seq_n, n);
  int n_kept = 0;
  for (int i = 0; !st && i < n; i++) {
    st = read_entry(r, res, i);
    n_kept += !st && res->e[i].fate == RG_FATE_KEPT;
    if (!st && each) st = each(ctx, res, i, err);
  }
  if (!st && (n_kept != kept || seq_n != n - kept))
    st = rg_err_at(err, RG_ERR_PARSE, 1, 1, "%d rules kept and %d removed, not %d and %d as it says", n_kept,
                   n - n_kept, kept, seq_n);
  if (!st && r->ahead_len >= 0) st = rg_err_at(err, RG_ERR_PARSE, r->line + 1, 1, "more after the last rule's entry");
  return st;
}

rg_status rg_prune_state_read_file(FILE *f, size_t limit, int n, rg_prune_result *res, rg_prune_entry_fn each,
                                   void *ctx, rg_err *err) {
  memset(res, 0, sizeof *res);
  reader r = {.f = f, .left = limit, .err = err};
  rg_status st = load_ahead(&r) ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = read_result(&r, n, res, each, ctx, err);
  if (!st && ferror(f)) st = rg_err_set(err, RG_ERR_IO, "a read error");
  free(r.cur), free(r.ahead);
  return st;
}

rg_status rg_prune_state_read(const char *text, size_t len, int n, rg_prune_result *res, rg_err *err) {
  memset(res, 0, sizeof *res);
  if (!len) return rg_err_at(err, RG_ERR_PARSE, 0, 1, "the file ends early (cut short?)");
  FILE *f = fmemopen((void *)text, len, "r");
  if (!f) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = rg_prune_state_read_file(f, len, n, res, NULL, NULL, err);
  fclose(f);
  return st;
}

rg_status rg_prune_derivations_read_file(FILE *f, size_t limit, int n, int m, int *idx,
                                         rg_derivation *d, rg_err *err) {
  memset(d, 0, sizeof *d * (size_t)m);
  reader r = {.f = f, .left = limit, .err = err};
  rg_status st = load_ahead(&r) ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int k = 0; !st && k < m; k++) {
    int n_steps = 0;
    st = line_of(&r, "d");
    if (!st) st = num(&r, 0, n - 1, &idx[k]);
    if (!st) st = num(&r, 1, 1 << 20, &n_steps);
    if (!st) st = line_end(&r);
    if (!st) st = read_steps(&r, &d[k], NULL, n_steps, n);
  }
  if (!st && r.ahead_len >= 0)
    st = rg_err_at(err, RG_ERR_PARSE, r.line + 1, 1, "more after the last derivation");
  if (!st && ferror(f)) st = rg_err_set(err, RG_ERR_IO, "a read error");
  free(r.cur), free(r.ahead);
  return st;
}

rg_status rg_prune_derivation_of(const rg_prune_result *res, int i, rg_derivation *d, rg_err *err) {
  memset(d, 0, sizeof *d);
  if (!res->e[i].n_steps) return RG_OK;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = held_text(res, i, &sb, err);
  FILE *f = st ? NULL : fmemopen(sb.s, sb.len, "r");
  if (!st && !f) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  reader r = {.f = f, .left = sb.len, .err = err};
  if (!st && !load_ahead(&r)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = read_steps(&r, d, NULL, res->e[i].n_steps, res->n);
  if (!st && r.ahead_len >= 0) st = bad(&r, "more steps than the entry says");
  if (st && st != RG_ERR_NOMEM) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    st = rg_err_set(err, RG_ERR_ARG,
                    "internal error: rule %d's held derivation does not read back: %s", i + 1, why);
  }
  if (f) fclose(f);
  free(r.cur), free(r.ahead);
  rg_sb_free(&sb);
  return st;
}
