/* synth/rounds.c: the proof rounds' removals kept in OUT.rounds (see synth/rounds.h). */
#define _POSIX_C_SOURCE 200809L
#include "rounds.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prune/prune.h"

#define KEY_BYTES crypto_hash_sha256_BYTES
#define HEX_LEN (2 * KEY_BYTES)

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
  crypto_hash_sha256_state s;
  crypto_hash_sha256_init(&s);
  crypto_hash_sha256_update(&s, (const unsigned char *)*line, (size_t)n);
  out->m = (int)m, out->data = start + n;
  for (;;) {
    long at = ftell(f);
    if ((n = getline(line, cap, f)) < 0) return -1;
    if (!strncmp(*line, "end ", 4)) {
      unsigned char h[KEY_BYTES];
      crypto_hash_sha256_final(&s, h);
      hex_of(h, hex);
      out->len = at - out->data, out->end = at + n;
      return n == 4 + HEX_LEN + 1 && !memcmp(*line + 4, hex, HEX_LEN) && (*line)[n - 1] == '\n'
                 ? 1
                 : -1;
    }
    crypto_hash_sha256_update(&s, (const unsigned char *)*line, (size_t)n);
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

/* Opens the file with its records when its header is this run's, else starts it again. Never
 * through a link, and only a regular file: it is written in place. */
static bool open_file(rg_rounds *r, const char *header) {
  size_t hl = strlen(header);
  int fd = open(r->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !(r->f = fdopen(fd, "r+b"))) {
    if (fd >= 0) close(fd);
    return false;
  }
  char *had = malloc(hl + 1);
  bool ours = had && fread(had, 1, hl, r->f) == hl && !memcmp(had, header, hl);
  free(had);
  r->used_end = (long)hl;
  if (ours) {
    read_records(r);
    return true;
  }
  return fflush(r->f) == 0 && ftruncate(fd, 0) == 0 && fseek(r->f, 0, SEEK_SET) == 0 &&
         fputs(header, r->f) >= 0 && fflush(r->f) == 0;
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
  crypto_hash_sha256(r->key, (const unsigned char *)header, strlen(header));
  if (!open_file(r, header)) {
    note(r, "cannot be read or written: the proof rounds' put-back rules are searched each run");
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
  crypto_hash_sha256_state s;
  crypto_hash_sha256_init(&s);
  crypto_hash_sha256_update(&s, r->key, KEY_BYTES);
  crypto_hash_sha256_update(&s, (const unsigned char *)&n, sizeof n);
  const bool *sets[] = {dropped, usable, retry};
  for (int k = 0; k < 3; k++)
    crypto_hash_sha256_update(&s, (const unsigned char *)sets[k], (size_t)n);
  crypto_hash_sha256_final(&s, r->key);
  r->round++;
}

/* Does removal i by d belong to this round: a rule put back and not removed yet, each step by a
 * proved rule or another put back, and d a derivation of it? NULL, or why not. */
static const char *wrong(const rg_rule *const *rules, int n, const rg_prune_result *res,
                         const bool *usable, const bool *retry, const bool *seen, int i,
                         const rg_derivation *d) {
  if (!retry[i] || res->e[i].fate != RG_FATE_KEPT || seen[i] || !rules[i])
    return "a rule not put back this round";
  for (int s = 0; s < d->n; s++) {
    int t = d->steps[s].tag;
    if (t == i || !(usable[t] || retry[t]) || !rules[t])
      return "a step by a rule neither proved nor put back";
  }
  rg_err err;
  return rg_derivation_check(rules[i], d, rules, n, &err) ? "a derivation that does not replay"
                                                          : NULL;
}

/* The record of this round's key, or NULL. */
static const record *find(const rg_rounds *r) {
  for (int k = 0; k < r->n_rec; k++)
    if (!memcmp(r->rec[k].key, r->key, KEY_BYTES)) return &r->rec[k];
  return NULL;
}

/* Reads rec's removals and checks them all: NULL, or why they are not taken. */
static const char *read_checked(rg_rounds *r, const record *rec, const rg_rule *const *rules, int n,
                                const rg_prune_result *res, const bool *usable, const bool *retry,
                                int *idx, rg_derivation *d) {
  rg_err err;
  if (fseek(r->f, rec->data, SEEK_SET) ||
      rg_prune_derivations_read_file(r->f, (size_t)rec->len, n, rec->m, idx, d, &err))
    return "it does not parse";
  bool *seen = calloc((size_t)n + 1, sizeof *seen);
  const char *why = seen ? NULL : "out of memory";
  for (int k = 0; !why && k < rec->m; k++) {
    why = wrong(rules, n, res, usable, retry, seen, idx[k], &d[k]);
    seen[idx[k]] = true;
  }
  free(seen);
  return why;
}

rg_status rg_rounds_take(rg_rounds *r, const rg_rule *const *rules, int n, rg_prune_result *res,
                         const bool *usable, const bool *retry, bool *taken, int *removed,
                         rg_err *err) {
  const record *rec = r ? find(r) : NULL;
  *taken = false;
  if (!rec) return RG_OK;
  int m = rec->m, *idx = malloc(sizeof *idx * ((size_t)m + 1));
  rg_derivation *d = calloc((size_t)m + 1, sizeof *d);
  rg_status st = idx && d ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  const char *why = st ? NULL : read_checked(r, rec, rules, n, res, usable, retry, idx, d);
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

/* The SHA-256 of the bytes [from, to) of f, in hex. */
static bool hash_span(FILE *f, long from, long to, char hex[HEX_LEN + 1]) {
  crypto_hash_sha256_state s;
  crypto_hash_sha256_init(&s);
  unsigned char buf[1 << 16], h[KEY_BYTES];
  if (fseek(f, from, SEEK_SET)) return false;
  for (long left = to - from; left > 0;) {
    size_t got = fread(buf, 1, left < (long)sizeof buf ? (size_t)left : sizeof buf, f);
    if (!got) return false;
    crypto_hash_sha256_update(&s, buf, got);
    left -= (long)got;
  }
  crypto_hash_sha256_final(&s, h);
  hex_of(h, hex);
  return true;
}

/* Writes the record at used_end, replacing whatever followed it (records of rounds that came
 * out otherwise, or one cut short); its end line last, once the rest is on disk. */
static bool write_record(rg_rounds *r, const rg_prune_result *res, int from) {
  char hex[HEX_LEN + 1];
  hex_of(r->key, hex);
  rg_err err;
  bool ok = fflush(r->f) == 0 && ftruncate(fileno(r->f), r->used_end) == 0 &&
            fseek(r->f, r->used_end, SEEK_SET) == 0;
  ok = ok && fprintf(r->f, "round %s %d\n", hex, res->removal_seq_n - from) > 0;
  for (int k = from; ok && k < res->removal_seq_n; k++) {
    int i = res->removal_seq[k];
    ok = !rg_prune_derivation_write(r->f, i, &res->e[i].deriv, &err);
  }
  long end = ok && fflush(r->f) == 0 ? ftell(r->f) : -1;
  ok = end > 0 && hash_span(r->f, r->used_end, end, hex) && fseek(r->f, end, SEEK_SET) == 0;
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
