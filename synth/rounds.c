/* synth/rounds.c: the proof rounds' removals kept in OUT.rounds (see synth/rounds.h). */
#define _GNU_SOURCE /* fopencookie */
#include "rounds.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/sha256.h"
#include "prune/prune.h"

#define KEY_BYTES RG_SHA256_BYTES
#define HEX_LEN RG_SHA256_HEX

typedef struct {
  unsigned char key[KEY_BYTES];
  int m;          /* removals */
  long data, len; /* where its removals' lines are */
  long end;       /* the offset after its end line */
} record;

struct rg_rounds {
  char *path;
  FILE *f;
  unsigned char key[KEY_BYTES]; /* this round's */
  int round;                    /* 1 for the first round's put-back */
  record *rec;
  int n_rec;
  long used_end; /* after the last record taken or written: where the next one is written */
};

static void note(const rg_rounds *r, const char *what) {
  fprintf(stderr, "rulegen: note: %s: %s\n", r->path, what);
}

static void hex_of(const unsigned char *h, char hex[HEX_LEN + 1]) {
  sodium_bin2hex(hex, HEX_LEN + 1, h, KEY_BYTES);
}

/* Reads one record from the current place: 1, or 0 at the end of the file, or -1 where the text
 * is not a whole record whose end line is its hash (the records from there on are not taken). */
static int read_record(FILE *f, record *out, char **line, size_t *cap) {
  long start = ftell(f);
  ssize_t n = getline(line, cap, f);
  char hex[HEX_LEN + 1], *e;
  if (n < 0) return 0;
  if (strncmp(*line, "round ", 6) || n < 6 + HEX_LEN + 3) return -1;
  if (sodium_hex2bin(out->key, KEY_BYTES, *line + 6, HEX_LEN, NULL, NULL, NULL) ||
      (*line)[6 + HEX_LEN] != ' ')
    return -1;
  errno = 0;
  long m = strtol(*line + 7 + HEX_LEN, &e, 10);
  if (errno || m < 0 || m > 1 << 30 || *e != '\n') return -1;
  rg_sha256_state s;
  rg_sha256_init(&s);
  rg_sha256_update(&s, (const unsigned char *)*line, (size_t)n);
  out->m = (int)m, out->data = start + n;
  for (;;) {
    long at = ftell(f);
    if ((n = getline(line, cap, f)) < 0) return -1;
    if (!strncmp(*line, "end ", 4)) {
      rg_sha256_final_hex(&s, hex);
      out->len = at - out->data, out->end = at + n;
      return n == 4 + HEX_LEN + 1 && !memcmp(*line + 4, hex, HEX_LEN) && (*line)[n - 1] == '\n'
                 ? 1
                 : -1;
    }
    rg_sha256_update(&s, (const unsigned char *)*line, (size_t)n);
  }
}

/* The records after the header, up to the first that is not whole. */
static void read_records(rg_rounds *r) {
  char *line = NULL;
  size_t cap = 0;
  record one;
  int got;
  while ((got = read_record(r->f, &one, &line, &cap)) == 1) {
    record *grown = realloc(r->rec, sizeof *grown * (size_t)(r->n_rec + 1));
    if (!grown) break;
    r->rec = grown;
    r->rec[r->n_rec++] = one;
  }
  free(line);
  if (got < 0) {
    char what[96];
    snprintf(
        what, sizeof what,
        "the record after its first %d is cut short or altered: it is not taken, nor any after it",
        r->n_rec);
    note(r, what);
  }
}

/* The file's header: the run it belongs to. */
static char *header_of(const rg_checkpoint_key *k) {
  size_t n = strlen(k->run) + strlen(k->binding) + 96;
  char *h = malloc(n);
  if (h)
    snprintf(h, n, "# rulegen rounds, format 1\n# run: %s\n# binding: %s\n", k->run, k->binding);
  return h;
}

/* Opens the file with its records when its header is this run's, else starts it again (a note
 * says so where it held something). Never through a link, and only a regular file: it is
 * written in place. NULL, or why it cannot be used. */
static const char *open_file(rg_rounds *r, const char *header) {
  size_t hl = strlen(header);
  int fd = open(r->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  struct stat sb;
  if (fd < 0) return errno == ELOOP ? "it is a link" : strerror(errno);
  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !(r->f = fdopen(fd, "r+b"))) {
    close(fd);
    return "it is not a regular file";
  }
  char *had = malloc(hl + 1);
  bool ours = had && fread(had, 1, hl, r->f) == hl && !memcmp(had, header, hl);
  free(had);
  r->used_end = (long)hl;
  if (ours) {
    read_records(r);
    long valid = r->n_rec ? r->rec[r->n_rec - 1].end : (long)hl;
    /* what follows the last whole record is never taken: dropped, so it is said once */
    return fflush(r->f) == 0 && ftruncate(fd, valid) == 0 ? NULL : strerror(errno);
  }
  if (sb.st_size > 0)
    note(r, "is another run's (other candidates or options), or not a rounds file: started again");
  bool ok = fflush(r->f) == 0 && ftruncate(fd, 0) == 0 && fseek(r->f, 0, SEEK_SET) == 0 &&
            fputs(header, r->f) >= 0 && fflush(r->f) == 0;
  return ok ? NULL : strerror(errno);
}

rg_rounds *rg_rounds_open(const char *out_path, const rg_checkpoint_key *k) {
  if (sodium_init() < 0) abort(); /* libsodium cannot run at all: nothing here could */
  rg_rounds *r = calloc(1, sizeof *r);
  char *header = header_of(k);
  if (r) r->path = rg_path_with_suffix(out_path, ".rounds");
  if (!r || !r->path || !header) {
    free(header);
    rg_rounds_close(r);
    return NULL;
  }
  rg_sha256(r->key, (const unsigned char *)header, strlen(header));
  const char *why = open_file(r, header);
  if (why) {
    char what[256];
    snprintf(what, sizeof what,
             "cannot be used (%s): the proof rounds' put-back rules are searched each run", why);
    note(r, what);
    if (r->f) fclose(r->f);
    r->f = NULL;
  }
  free(header);
  if (!r->f) rg_rounds_close(r), r = NULL;
  return r;
}

void rg_rounds_close(rg_rounds *r) {
  if (!r) return;
  if (r->f) fclose(r->f);
  free(r->rec);
  free(r->path);
  free(r);
}

void rg_rounds_next(rg_rounds *r, const bool *dropped, const bool *usable, const bool *retry,
                    int n) {
  if (!r) return;
  rg_sha256_state s;
  rg_sha256_init(&s);
  rg_sha256_update(&s, r->key, KEY_BYTES);
  rg_sha256_update(&s, (const unsigned char *)&n, sizeof n);
  const bool *sets[] = {dropped, usable, retry};
  for (int k = 0; k < 3; k++)
    rg_sha256_update(&s, (const unsigned char *)sets[k], (size_t)n);
  rg_sha256_final(&s, r->key);
  r->round++;
}

/* Is each step's term as rulegen prints it (so that OUT.removed, which holds the terms, is what
 * a search writes: no comment, no spacing of the record's own)? */
static bool printed_as_rulegen(const rg_derivation *d) {
  bool same = true;
  for (int s = 0; same && s < d->n; s++) {
    rg_rule *t = NULL;
    rg_err err;
    rg_strbuf sb;
    rg_sb_init(&sb);
    same =
        rg_text_parse_rule(d->steps[s].state, &t, &err) == RG_OK && t->n_src == 1 && t->n_tgt == 0;
    if (same) rg_text_print_ref(t->g, t->src[0], &sb);
    same = same && !sb.failed && !strcmp(rg_sb_str(&sb), d->steps[s].state);
    rg_sb_free(&sb);
    rg_rule_free(t);
  }
  return same;
}

/* The record's facts the checks read: the rules it removes, the rules left to derive from. */
typedef struct {
  const rg_rule *const *rules;
  int n;
  const rg_prune_result *res;
  const bool *usable, *retry;
  const bool *removing; /* the rules this record removes */
} take_ctx;

/* Does removal i by d belong to this round as the search would make it: a rule put back, each
 * step by a proved rule or by one put back that the round keeps (a rule the search removes never
 * joins its set), the terms as rulegen prints them, and d a derivation of it? NULL, or why not. */
static const char *wrong(const take_ctx *c, int i, const rg_derivation *d) {
  for (int s = 0; s < d->n; s++) {
    int t = d->steps[s].tag;
    if (t == i) return "a step by the rule it removes";
    if (!c->rules[t] || !(c->usable[t] || (c->retry[t] && !c->removing[t])))
      return "a step by a rule neither proved nor kept of those put back";
  }
  if (!printed_as_rulegen(d)) return "a step's term not as rulegen prints it";
  rg_err err;
  return rg_derivation_check(c->rules[i], d, c->rules, c->n, &err)
             ? "a derivation that does not replay"
             : NULL;
}

/* The record of this round's key, or NULL. */
static const record *find(const rg_rounds *r) {
  for (int k = 0; k < r->n_rec; k++)
    if (!memcmp(r->rec[k].key, r->key, KEY_BYTES)) return &r->rec[k];
  return NULL;
}

/* Was rule i put back this round (retry: kept, not yet proved)? */
static bool is_put_back(const take_ctx *c, int i) {
  return c->retry[i] && c->res->e[i].fate == RG_FATE_KEPT;
}

/* Reads rec's removals and checks them all: NULL, or why they are not taken. */
static const char *read_checked(rg_rounds *r, const record *rec, take_ctx *c, int *idx,
                                rg_derivation *d) {
  rg_err err;
  if (fseek(r->f, rec->data, SEEK_SET) ||
      rg_prune_derivations_read_file(r->f, (size_t)rec->len, c->n, rec->m, idx, d, &err))
    return "it does not parse";
  bool *removing = calloc((size_t)c->n + 1, sizeof *removing);
  const char *why = removing ? NULL : "out of memory";
  for (int k = 0; !why && k < rec->m; k++) {
    int i = idx[k];
    if (!is_put_back(c, i) || !c->rules[i])
      why = "a rule not put back this round";
    else if (removing[i])
      why = "a rule removed twice";
    removing[i] = true;
  }
  c->removing = removing;
  for (int k = 0; !why && k < rec->m; k++)
    why = wrong(c, idx[k], &d[k]);
  free(removing);
  return why;
}

/* How many rules this round put back: the most a record of it can remove. */
static int put_back(const take_ctx *c) {
  int m = 0;
  for (int i = 0; i < c->n; i++)
    m += is_put_back(c, i);
  return m;
}

rg_status rg_rounds_take(rg_rounds *r, const rg_rule *const *rules, int n, rg_prune_result *res,
                         const bool *usable, const bool *retry, bool *taken, int *removed,
                         rg_err *err) {
  const record *rec = r ? find(r) : NULL;
  *taken = false;
  if (!rec) return RG_OK;
  take_ctx c = {rules, n, res, usable, retry, NULL};
  /* The count is the record's word: held to what the round could remove before any room is
   * taken for it. */
  bool too_many = rec->m > put_back(&c);
  int m = too_many ? 0 : rec->m, *idx = malloc(sizeof *idx * ((size_t)m + 1));
  rg_derivation *d = calloc((size_t)m + 1, sizeof *d);
  rg_status st = idx && d ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  const char *why = too_many ? "more removals than rules put back"
                    : st     ? NULL
                             : read_checked(r, rec, &c, idx, d);
  /* Checked whole before the first removal, so that only memory running out stops it part way
   * (and that ends the run, as it would the search). */
  for (int k = 0; !st && !why && k < m; k++)
    st = rg_prune_remove_derived(res, idx[k], &d[k], err);
  for (int k = 0; d && k < m; k++)
    rg_derivation_free(&d[k]);
  free(idx), free(d);
  if (why) {
    char what[160];
    snprintf(what, sizeof what,
             "round %d's record is not taken (%s): its rules put back are searched again", r->round,
             why);
    note(r, what);
  }
  if (st || why) return st;
  r->used_end = rec->end;
  *taken = true, *removed = m;
  return RG_OK;
}

/* A stream that hashes what it writes on its way to the file: the end line is the hash of the
 * bytes this run wrote, not of what the file holds when they are read back. */
typedef struct {
  FILE *to;
  rg_sha256_state sha;
} hashing;

static ssize_t hashing_write(void *cookie, const char *buf, size_t n) {
  hashing *h = cookie;
  rg_sha256_update(&h->sha, (const unsigned char *)buf, n);
  return fwrite(buf, 1, n, h->to) == n ? (ssize_t)n : -1;
}

/* The record's lines through w. */
static bool write_body(FILE *w, const rg_rounds *r, const rg_prune_result *res, int from) {
  char hex[HEX_LEN + 1];
  hex_of(r->key, hex);
  rg_err err;
  bool ok = fprintf(w, "round %s %d\n", hex, res->removal_seq_n - from) > 0;
  for (int k = from; ok && k < res->removal_seq_n; k++) {
    int i = res->removal_seq[k];
    ok = !rg_prune_removal_write(w, res, i, &err);
  }
  return ok;
}

/* Writes the record at used_end, replacing whatever followed it (records of rounds that came
 * out otherwise, or one cut short); its end line last, once the rest is on disk. */
static bool write_record(rg_rounds *r, const rg_prune_result *res, int from) {
  hashing h = {.to = r->f};
  rg_sha256_init(&h.sha);
  bool ok = fflush(r->f) == 0 && ftruncate(fileno(r->f), r->used_end) == 0 &&
            fseek(r->f, r->used_end, SEEK_SET) == 0;
  FILE *w = ok ? fopencookie(&h, "w", (cookie_io_functions_t){.write = hashing_write}) : NULL;
  ok = w && write_body(w, r, res, from);
  if (w) ok = fclose(w) == 0 && ok; /* its last bytes go through hashing_write */
  char hex[HEX_LEN + 1];
  rg_sha256_final_hex(&h.sha, hex);
  ok = ok && fprintf(r->f, "end %s\n", hex) > 0 && fflush(r->f) == 0 && fsync(fileno(r->f)) == 0;
  if (ok) r->used_end = ftell(r->f);
  return ok;
}

void rg_rounds_save(rg_rounds *r, const rg_prune_result *res, int from) {
  if (!r || !r->f) return;
  /* Records after the last one taken belong to rounds that came out otherwise: dropped. */
  while (r->n_rec && r->rec[r->n_rec - 1].end > r->used_end)
    r->n_rec--;
  if (!write_record(r, res, from)) {
    note(r, "could not be written: a later run searches this round's put-back rules again");
    fclose(r->f);
    r->f = NULL;
    r->n_rec = 0;
  }
}
