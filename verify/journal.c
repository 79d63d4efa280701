/* verify/journal.c: the answer journal (format in journal.h): the answers read at open in a
 * table by (hash, solver), the best one kept; new ones appended to the file. */
#define _DEFAULT_SOURCE /* truncate, flock */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/ir.h"

/* One answer: its core as a string of its own (an rg_solver_answer holds 2 KB for it, too much
 * for the hundreds of thousands of answers of a depth-4 journal). */
typedef struct {
  char sha[65];
  int solver, timeout_ms;
  rg_smt_result result;
  double ms;
  char *core; /* owned */
} entry;

#define KEY_BYTES 32
#define MAC_BYTES 16

struct rg_journal {
  FILE *f;
  unsigned char key[KEY_BYTES]; /* the MAC key of this journal's lines */
  entry *e;
  int n, cap;
  rg_hashtab index; /* (sha, solver) -> index in e */
  bool cache;       /* a proof cache's: a line not believed is refused, not an error */
  bool header_only; /* rg_journal_prepare's: its header checked, none of its answers read */
  int refused;      /* lines refused so */
  char *path;       /* the file, read again from read_to by rg_journal_catch_up */
  char versions[RG_SOLVER_COUNT][128]; /* its header's solvers, to open it again */
  long read_to;     /* bytes of the file whose lines are in the table (whole lines) */
  int lines_read;   /* lines of the file up to read_to, for messages */
};

/* Over the sha's first 16 hex digits (64 bits: plenty) and the solver. */
static uint64_t key_hash(const char *sha, int solver) {
  return rg_mix64(rg_hash_bytes(sha, strnlen(sha, 16)) ^ (uint64_t)solver);
}

typedef struct {
  const char *sha;
  int solver;
} answer_key;

static bool answer_eq(const void *j, const void *key, int32_t i) {
  const entry *x = &((const rg_journal *)j)->e[i];
  const answer_key *k = key;
  return x->solver == k->solver && !strcmp(x->sha, k->sha);
}

static int find(const rg_journal *j, const char *sha, int solver) {
  answer_key k = {sha, solver};
  return (int)rg_hashtab_find(&j->index, key_hash(sha, solver), answer_eq, j, &k);
}

static bool final_result(rg_smt_result r) { return r == RG_SMT_UNSAT || r == RG_SMT_SAT || r == RG_SMT_VACUOUS; }

/* Keeps x (taking its core) unless the table already holds an answer that says as much: a
 * final one (unsat, sat, vacuous), or one at a longer time limit. */
static bool remember(rg_journal *j, entry *x) {
  int i = find(j, x->sha, x->solver);
  if (i >= 0) {
    entry *old = &j->e[i];
    bool keep_old = final_result(old->result) ||
                    (!final_result(x->result) && old->timeout_ms > x->timeout_ms);
    entry *gone = keep_old ? x : old;
    free(gone->core);
    if (!keep_old) *old = *x;
    return true;
  }
  if (j->n == j->cap) {
    int cap = j->cap ? 2 * j->cap : 256;
    entry *e = realloc(j->e, sizeof *e * (size_t)cap);
    if (!e) {
      free(x->core);
      return false;
    }
    j->e = e;
    j->cap = cap;
  }
  if (rg_hashtab_add(&j->index, key_hash(x->sha, x->solver), j->n)) {
    free(x->core);
    return false;
  }
  j->e[j->n++] = *x;
  return true;
}

/* The MAC of an answer line's fields (hex, 2 * MAC_BYTES digits) under the journal's key: only
 * the run that holds the key could have written a line that carries it. */
static void line_mac(const rg_journal *j, const char *sha, int solver, const char *result, int timeout_ms,
                     const char *ms, const char *core, char hex[2 * MAC_BYTES + 1]) {
  char fields[RG_CORE_MAX + 256];
  int n = snprintf(fields, sizeof fields, "%s %s %s %d %s %s", sha, rg_solver_kind_name((rg_solver_kind)solver), result, timeout_ms, ms, core);
  unsigned char mac[MAC_BYTES];
  crypto_generichash(mac, sizeof mac, (const unsigned char *)fields, (size_t)(n < (int)sizeof fields ? n : (int)sizeof fields - 1),
                     j->key, sizeof j->key);
  sodium_bin2hex(hex, 2 * MAC_BYTES + 1, mac, sizeof mac);
}

/* Reads the journal's key from key_path, or (create) makes a new one there, readable by its
 * owner only. */
static rg_status load_key(rg_journal *j, const char *key_path, bool create, rg_err *err) {
  if (create) {
    randombytes_buf(j->key, sizeof j->key);
    char hex[2 * KEY_BYTES + 2];
    sodium_bin2hex(hex, sizeof hex, j->key, sizeof j->key);
    strcat(hex, "\n");
    unlink(key_path); /* a key without its journal is worth nothing */
    int fd = open(key_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    bool ok = fd >= 0 && write(fd, hex, strlen(hex)) == (ssize_t)strlen(hex);
    ok = (fd >= 0 && fsync(fd) == 0 && close(fd) == 0) && ok;
    return ok ? RG_OK : rg_err_set(err, RG_ERR_IO, "cannot write the proof journal's key %s: %s", key_path, strerror(errno));
  }
  rg_strbuf sb;
  rg_status st = rg_text_read_file(key_path, &sb, err);
  size_t bin_len = 0;
  if (!st && (sb.len != 2 * KEY_BYTES + 1 || sb.s[2 * KEY_BYTES] != '\n' ||
              sodium_hex2bin(j->key, sizeof j->key, sb.s, 2 * KEY_BYTES, NULL, &bin_len, NULL) != 0 ||
              bin_len != KEY_BYTES))
    st = rg_err_set(err, RG_ERR_PARSE, "%s: not a proof journal key (%d hex digits and a newline)", key_path,
                    2 * KEY_BYTES);
  rg_sb_free(&sb);
  return st;
}

/* One answer line (without its newline) into *x, its core left at *core in s; false when
 * malformed or when its MAC is not the one j's key gives. */
static bool parse_line(const rg_journal *j, const char *s, entry *x, const char **core_at) {
  memset(x, 0, sizeof *x);
  char solver[8], result[16], ms[32], mac[2 * MAC_BYTES + 2];
  int used = 0;
  if (sscanf(s, "%64s %7s %15s %d %31s %33s%n", x->sha, solver, result, &x->timeout_ms, ms, mac, &used) != 6)
    return false;
  char *end;
  x->ms = strtod(ms, &end);
  if (*end || end == ms) return false;
  if (strlen(x->sha) != 64 || strspn(x->sha, "0123456789abcdef") != 64 || x->timeout_ms < 1)
    return false;
  x->solver = rg_solver_kind_of(solver);
  int r = -1;
  for (int k = RG_SMT_UNSAT; k <= RG_SMT_VACUOUS; k++)
    if (!strcmp(result, rg_smt_result_name((rg_smt_result)k))) r = k;
  if (x->solver < 0 || r < 0) return false;
  x->result = (rg_smt_result)r;
  const char *core = s + used;
  while (*core == ' ')
    core++;
  *core_at = core;
  if (strlen(core) >= RG_CORE_MAX) return false;
  char want[2 * MAC_BYTES + 1];
  line_mac(j, x->sha, x->solver, result, x->timeout_ms, ms, core, want);
  return strlen(mac) == 2 * MAC_BYTES && sodium_memcmp(mac, want, 2 * MAC_BYTES) == 0;
}

static void header_of(const char *const versions[RG_SOLVER_COUNT], char *buf, size_t n) {
  snprintf(buf, n, "# rulegen proof journal: %s; %s", versions[0], versions[1]);
}

/* The journal's first line, had, against the header these solvers give. */
static rg_status check_header(const char *path, const char *had, const char *header, rg_err *err) {
  if (!strcmp(had, header)) return RG_OK;
  return rg_err_set(
      err, RG_ERR_ARG,
      "%s:1: this proof journal was written for other solvers ('%s', want '%s'): give a new "
      "journal file",
      path, had, header);
}

/* Takes the whole lines of the n bytes at s (the file's from line first on; line 0 its header,
 * which must be header) into the table; *took: the bytes of those lines. A line cut short by a
 * crash, or still being written by another run, is left for later. Errors name the journal and
 * the line in the message: callers report them as the run's, not as their rule file's. */
static rg_status absorb(rg_journal *j, const char *path, const char *s, size_t n, int first, const char *header,
                        long *took, rg_err *err) {
  rg_status st = RG_OK;
  const char *p = s;
  for (int line = first; !st && p < s + n; line++) {
    const char *nl = memchr(p, '\n', (size_t)(s + n - p));
    if (!nl) break;
    char buf[RG_CORE_MAX + 256];
    size_t len = (size_t)(nl - p);
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, p, len);
    buf[len] = 0;
    p = nl + 1;
    j->lines_read = line + 1;
    entry x;
    const char *core;
    if (line == 0) {
      st = check_header(path, buf, header, err);
    } else if (!parse_line(j, buf, &x, &core)) {
      if (j->cache) { /* not believed: its obligation is asked again, its new answer appended */
        j->refused++;
        continue;
      }
      st = rg_err_set(err, RG_ERR_PARSE,
                      "%s:%d: malformed or forged proof journal line (want SHA256 z3|cvc5 RESULT TIMEOUT_MS MS "
                      "MAC [CORE], MAC made with the key in %s.key): remove the journal to ask the solvers again",
                      path, line + 1, path);
    } else if (!(x.core = strdup(core)) || !remember(j, &x)) {
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    }
  }
  *took = (long)(p - s);
  return st;
}

static rg_status read_existing(rg_journal *j, const char *path, const char *header, long *keep,
                               rg_err *err) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = rg_text_read_file(path, &sb, err);
  *keep = 0; /* bytes up to the last whole line */
  if (!st) st = absorb(j, path, rg_sb_str(&sb), sb.len, 0, header, keep, err);
  rg_sb_free(&sb);
  j->read_to = *keep;
  return st;
}

/* The first line only (rg_journal_prepare): *keep its bytes, 0 for an empty file or one cut
 * inside its first line (the header is written again), as read_existing would say. */
static rg_status read_header(const char *path, const char *header, long *keep, rg_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return rg_err_set(err, RG_ERR_IO, "cannot read the proof journal %s: %s", path,
                      strerror(errno));
  char buf[512];
  *keep = 0;
  rg_status st = RG_OK;
  if (fgets(buf, sizeof buf, f) && strchr(buf, '\n')) {
    *keep = (long)strlen(buf);
    buf[*keep - 1] = 0;
    st = check_header(path, buf, header, err);
  }
  fclose(f);
  return st;
}

static rg_status open_whole(rg_journal *j, rg_err *err);

/* Reads the journal again from its start, as a new handle would (after another run replaced or
 * cut the file, or left a line half written, which the open drops). */
static rg_status reopen(rg_journal *j, rg_err *err) {
  if (j->f) fclose(j->f);
  j->f = NULL;
  for (int k = 0; k < j->n; k++)
    free(j->e[k].core);
  j->n = 0, j->refused = 0, j->read_to = 0, j->lines_read = 0;
  rg_hashtab_free(&j->index);
  return open_whole(j, err);
}

rg_status rg_journal_catch_up(rg_journal *j, rg_err *err) {
  struct stat now, mine;
  FILE *f = fopen(j->path, "rb");
  bool same = f && fstat(fileno(f), &now) == 0 && j->f && fstat(fileno(j->f), &mine) == 0 &&
              now.st_ino == mine.st_ino && now.st_dev == mine.st_dev && now.st_size >= j->read_to;
  if (!same) {
    if (f) fclose(f);
    return reopen(j, err);
  }
  rg_strbuf sb;
  rg_sb_init(&sb);
  char buf[1 << 16];
  size_t got;
  if (fseek(f, j->read_to, SEEK_SET) == 0)
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) rg_sb_append(&sb, buf, got);
  bool bad = ferror(f) || sb.failed;
  fclose(f);
  long took = 0;
  rg_status st = bad ? rg_err_set(err, RG_ERR_IO, "cannot read the proof journal %s", j->path)
                     : absorb(j, j->path, rg_sb_str(&sb), sb.len, j->lines_read, "", &took, err);
  j->read_to += took;
  bool cut = !st && (size_t)took < sb.len; /* a line without its end: the next append must not join it */
  rg_sb_free(&sb);
  return cut ? reopen(j, err) : st;
}

/* An exclusive lock on path's folder (its fd, to close; -1 when the folder cannot be opened or
 * locked, and then no lock is held: a journal of one process needs none). Processes that open
 * one journal at once (tests sharing a proof cache) would each make a key and a header. */
static int lock_folder(const char *path) {
  char *d = strdup(path);
  int fd = d ? open(dirname(d), O_RDONLY | O_DIRECTORY) : -1;
  free(d);
  if (fd >= 0 && flock(fd, LOCK_EX) != 0) close(fd), fd = -1;
  return fd;
}

static rg_status open_locked(const char *path, const char *const versions[RG_SOLVER_COUNT], rg_journal *j,
                             rg_err *err);

static rg_status open_as(const char *path, const char *const versions[RG_SOLVER_COUNT], bool cache,
                         bool header_only, rg_journal **out, rg_err *err) {
  *out = NULL;
  rg_journal *j = calloc(1, sizeof *j);
  if (!j) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  j->cache = cache, j->header_only = header_only;
  if (!(j->path = strdup(path))) {
    free(j);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < RG_SOLVER_COUNT; k++) snprintf(j->versions[k], sizeof j->versions[k], "%s", versions[k]);
  rg_status st = open_whole(j, err);
  if (st) {
    rg_journal_close(j);
    return st;
  }
  *out = j;
  return RG_OK;
}

static rg_status open_whole(rg_journal *j, rg_err *err) {
  const char *versions[RG_SOLVER_COUNT];
  for (int k = 0; k < RG_SOLVER_COUNT; k++) versions[k] = j->versions[k];
  int lock = lock_folder(j->path); /* the key, the header and a cut line's truncation: one process at a time */
  rg_status st = open_locked(j->path, versions, j, err);
  if (lock >= 0) close(lock);
  return st;
}

/* rg_journal_open's work, with the folder locked. */
static rg_status open_locked(const char *path, const char *const versions[RG_SOLVER_COUNT], rg_journal *j,
                             rg_err *err) {
  char header[256];
  header_of(versions, header, sizeof header);
  struct stat sbuf;
  bool exists = stat(path, &sbuf) == 0;
  long keep = 0;
  rg_status st = RG_OK;
  if (exists && !S_ISREG(sbuf.st_mode))
    st = rg_err_set(err, RG_ERR_ARG, "the proof journal %s is not a regular file", path);
  /* Its answers are trusted only with the key it was written with. */
  size_t kl = strlen(path) + 8;
  char *key_path = malloc(kl);
  if (!key_path && !st) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (key_path) snprintf(key_path, kl, "%s.key", path);
  bool keyed = !st && exists && access(key_path, F_OK) == 0;
  if (!st && exists && !keyed && sbuf.st_size > 0)
    st = rg_err_set(err, RG_ERR_ARG,
                    "the proof journal %s has no key %s, so its answers cannot be trusted: remove it (or give "
                    "another journal) to ask the solvers again",
                    path, key_path);
  if (!st) st = load_key(j, key_path, !keyed, err);
  free(key_path);
  if (!st && keyed)
    st = j->header_only ? read_header(path, header, &keep, err)
                        : read_existing(j, path, header, &keep, err);
  /* A line cut short by a crash goes, so that the next answer starts a line of its own (when
   * the lines are read: a header-only open has not looked). */
  if (!st && exists && !j->header_only && keep < (long)sbuf.st_size &&
      truncate(path, (off_t)keep) != 0)
    st = rg_err_set(err, RG_ERR_IO, "cannot write the proof journal %s", path);
  if (!st && !(j->f = fopen(path, "a")))
    st = rg_err_set(err, RG_ERR_IO, "cannot write the proof journal %s", path);
  if (!st && (!exists || keep == 0)) {
    fprintf(j->f, "%s\n", header);
    if (fflush(j->f)) st = rg_err_set(err, RG_ERR_IO, "cannot write the proof journal %s", path);
    j->read_to = (long)strlen(header) + 1, j->lines_read = 1;
  }
  return st;
}

rg_status rg_journal_open(const char *path, const char *const versions[RG_SOLVER_COUNT],
                          rg_journal **out, rg_err *err) {
  return open_as(path, versions, false, false, out, err);
}

rg_status rg_journal_open_cache(const char *path, const char *const versions[RG_SOLVER_COUNT],
                                rg_journal **out, rg_err *err) {
  return open_as(path, versions, true, false, out, err);
}

rg_status rg_journal_prepare(const char *path, const char *const versions[RG_SOLVER_COUNT],
                             rg_err *err) {
  rg_journal *j = NULL;
  rg_status st = open_as(path, versions, true, true, &j, err);
  rg_journal_close(j);
  return st;
}

int rg_journal_refused(const rg_journal *j) { return j ? j->refused : 0; }

void rg_journal_close(rg_journal *j) {
  if (!j) return;
  if (j->f) fclose(j->f);
  free(j->path);
  for (int k = 0; k < j->n; k++)
    free(j->e[k].core);
  free(j->e);
  rg_hashtab_free(&j->index);
  free(j);
}

bool rg_journal_lookup(const rg_journal *j, const char *sha256, int s, int timeout_ms,
                       rg_solver_answer *ans) {
  int i = find(j, sha256, s);
  if (i < 0) return false;
  const entry *x = &j->e[i];
  bool usable = final_result(x->result) ||
                ((x->result == RG_SMT_UNKNOWN || x->result == RG_SMT_TIMEOUT) && x->timeout_ms >= timeout_ms);
  if (!usable) return false; /* a crash or an error may not happen again */
  memset(ans, 0, sizeof *ans);
  ans->result = x->result;
  ans->ms = x->ms;
  snprintf(ans->core, sizeof ans->core, "%s", x->core);
  return true;
}

rg_status rg_journal_append(rg_journal *j, const char *sha256, int s, int timeout_ms,
                            const rg_solver_answer *ans, rg_err *err) {
  entry x = {.solver = s, .timeout_ms = timeout_ms, .result = ans->result, .ms = ans->ms};
  snprintf(x.sha, sizeof x.sha, "%s", sha256);
  if (!(x.core = strdup(ans->core))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* The core is one line of names; anything else in it would break the format. */
  for (char *c = x.core; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  char ms[32], mac[2 * MAC_BYTES + 1];
  snprintf(ms, sizeof ms, "%.1f", x.ms);
  line_mac(j, x.sha, s, rg_smt_result_name(x.result), timeout_ms, ms, x.core, mac);
  fprintf(j->f, "%s %s %s %d %s %s %s\n", x.sha, rg_solver_kind_name((rg_solver_kind)s), rg_smt_result_name(x.result), timeout_ms, ms,
          mac, x.core);
  if (fflush(j->f)) {
    free(x.core);
    return rg_err_set(err, RG_ERR_IO, "cannot write the proof journal (disk full?)");
  }
  return remember(j, &x) ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}
