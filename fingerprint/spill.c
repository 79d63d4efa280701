/* fingerprint/spill.c: records on disk, committed by work unit (spill.h). */
#define _POSIX_C_SOURCE 200809L
#include "spill.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/ir.h"
#include "table.h"

#define PARTS RG_FP_SPILL_PARTS
#define BUF 2048          /* records buffered per thread and part before a write */
#define SYNC_SECONDS 10.0 /* most work a crash loses, besides the units under way */
#define MAX_SLOTS RG_FP_SPILL_SLOTS
#define FORMAT "rulegen fingerprint spill 1\n"

typedef struct {
  bool writing;
  int fd[PARTS], log;
  uint64_t committed[PARTS]; /* records up to the last whole log line */
  uint64_t written[PARTS];   /* records in the file (this run's writes included) */
  uint64_t synced[PARTS];
  off_t log_len;             /* bytes of whole lines */
  rg_fp_record *buf;         /* PARTS * BUF */
  int nbuf[PARTS];
  rg_strbuf pending;         /* lines of units done since the last sync */
  double last_sync;
} slot;

struct rg_fp_spill {
  char *dir, *header;
  int lock; /* the folder's lock file, held while the folder is open */
  slot *slots;
  int n_slots;
  uint8_t *done; /* units_total of them once known */
  rg_fp_spill_state st;
};

const char *rg_fp_spill_dir(const rg_fp_spill *s) { return s->dir; }
const char *rg_fp_spill_header(const rg_fp_spill *s) { return s->header; }
void rg_fp_spill_state_of(const rg_fp_spill *s, rg_fp_spill_state *st) { *st = s->st; }
bool rg_fp_spill_unit_done(const rg_fp_spill *s, int u) {
  return s->done && u >= 0 && u < s->st.units_total && s->done[u];
}

uint64_t rg_fp_spill_part_lo(int p) { return (uint64_t)p << 58; }
uint64_t rg_fp_spill_part_hi(int p) { return p == PARTS - 1 ? UINT64_MAX : ((uint64_t)(p + 1) << 58) - 1; }
static int part_of(uint64_t fp) { return (int)(fp >> 58); }

static char *file_in(const rg_fp_spill *s, const char *fmt, int a, int b) {
  char name[64];
  snprintf(name, sizeof name, fmt, a, b);
  size_t n = strlen(s->dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", s->dir, name);
  return p;
}

/* A line's checksum covers its thread's number too: a line is only good in its own log. */
static uint64_t fnv1a(int slot, const char *p, size_t n) {
  uint64_t h = 14695981039346656037ull ^ ((uint64_t)(slot + 1) * 0x9E3779B97F4A7C15ull);
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* ---- reading a folder back ---- */

/* One log line: "u UNIT UNITS GRAPHS REJECTED WIDE PRUNED OFF*PARTS CHECK". False when torn. */
static bool parse_line(int slot, const char *line, size_t len, int *unit, int *units, rg_enum_stats *d,
                       uint64_t off[PARTS]) {
  const char *sp = len > 17 ? line + len - 17 : NULL;
  if (!sp || *sp != ' ' || line[0] != 'u' || line[1] != ' ') return false;
  char *end;
  unsigned long long check = strtoull(sp + 1, &end, 16);
  if (end != line + len || check != fnv1a(slot, line, (size_t)(sp - line))) return false;
  unsigned long long v[6 + PARTS];
  const char *p = line + 2;
  for (int k = 0; k < 6 + PARTS; k++) {
    v[k] = strtoull(p, &end, 10);
    if (end == p || end > sp) return false;
    p = end;
  }
  if (p != sp || v[1] == 0 || v[1] > 1u << 30 || v[0] >= v[1]) return false;
  *unit = (int)v[0], *units = (int)v[1];
  *d = (rg_enum_stats){v[2], v[3], v[4], v[5], 1, 0, false};
  for (int k = 0; k < PARTS; k++) off[k] = v[6 + k];
  return true;
}

static rg_status grow_slots(rg_fp_spill *s, int n, rg_err *err) {
  if (n <= s->n_slots) return RG_OK;
  slot *ns = realloc(s->slots, sizeof *ns * (size_t)n);
  if (!ns) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memset(ns + s->n_slots, 0, sizeof *ns * (size_t)(n - s->n_slots));
  s->slots = ns, s->n_slots = n;
  return RG_OK;
}

static rg_status note_unit(rg_fp_spill *s, int unit, int units, const char *log, rg_err *err) {
  if (s->st.units_total && units != s->st.units_total)
    return rg_err_set(err, RG_ERR_IO, "%s: its units (%d) are not the folder's (%d): the folder is damaged; remove "
                                      "it and run again", log, units, s->st.units_total);
  if (!s->done && !(s->done = calloc((size_t)units, 1))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  s->st.units_total = units;
  if (s->done[unit])
    return rg_err_set(err, RG_ERR_IO, "%s: work unit %d is committed twice: the folder is damaged; remove it "
                                      "(rm -r %s) and run again", log, unit, s->dir);
  s->done[unit] = 1, s->st.units_done++;
  return RG_OK;
}

/* The lengths of slot k's record files, in records (0 for a missing one). */
static void file_lengths(const rg_fp_spill *s, int k, uint64_t len[PARTS]) {
  for (int p = 0; p < PARTS; p++) {
    char *path = file_in(s, "s%d-p%d.rec", k, p);
    struct stat sb;
    len[p] = path && stat(path, &sb) == 0 ? (uint64_t)sb.st_size / sizeof(rg_fp_record) : 0;
    free(path);
  }
}

/* Reads slot k's log: its whole lines, up to the first torn or damaged one, or one whose
 * records the files do not hold (a machine that stopped before they reached the disk). */
static rg_status read_log(rg_fp_spill *s, int k, rg_err *err) {
  char *path = file_in(s, "s%d.log", k, 0);
  FILE *f = path ? fopen(path, "r") : NULL;
  rg_status st = f ? grow_slots(s, k + 1, err) : rg_err_set(err, RG_ERR_IO, "%s: %s", path ? path : "log", strerror(errno));
  uint64_t have[PARTS];
  file_lengths(s, k, have);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while (!st && (n = getline(&line, &cap, f)) > 0) {
    int unit, units;
    rg_enum_stats d;
    uint64_t off[PARTS];
    if (line[n - 1] != '\n' || !parse_line(k, line, (size_t)n - 1, &unit, &units, &d, off)) break; /* torn */
    bool held = true; /* within the files, and never behind the line before */
    for (int p = 0; p < PARTS; p++) held = held && off[p] <= have[p] && off[p] >= s->slots[k].committed[p];
    if (!held) break;
    st = note_unit(s, unit, units, path, err);
    if (st) break;
    slot *sl = &s->slots[k];
    memcpy(sl->committed, off, sizeof off);
    sl->log_len += n;
    s->st.sum.graphs += d.graphs, s->st.sum.rejected += d.rejected, s->st.sum.wide += d.wide;
    s->st.sum.pruned += d.pruned, s->st.sum.units++;
  }
  free(line);
  if (f) fclose(f);
  free(path);
  return st;
}

static rg_status read_back(rg_fp_spill *s, rg_err *err) {
  DIR *d = opendir(s->dir);
  if (!d) return rg_err_set(err, RG_ERR_IO, "%s: %s", s->dir, strerror(errno));
  rg_status st = RG_OK;
  struct dirent *e;
  while (!st && (e = readdir(d))) {
    int k;
    char tail[8];
    if (sscanf(e->d_name, "s%d.lo%1s", &k, tail) == 2 && !strcmp(tail, "g") && k >= 0 && k < MAX_SLOTS)
      st = read_log(s, k, err);
  }
  closedir(d);
  for (int k = 0; k < s->n_slots; k++)
    for (int p = 0; p < PARTS; p++) s->st.bytes += s->slots[k].committed[p] * sizeof(rg_fp_record);
  /* finished when marked so and every unit is still there (units dropped above are run again) */
  char *mark = file_in(s, "enumerated", 0, 0);
  FILE *f = mark && !st ? fopen(mark, "r") : NULL;
  int units = -1;
  if (f && fscanf(f, "%d units", &units) != 1) units = -1;
  if (f) fclose(f);
  s->st.enumerated = units >= 0 && s->st.units_done == units && (!units || s->st.units_total == units);
  free(mark);
  return st;
}

/* The folder's header file: FORMAT, then the run's header. */
static rg_status check_header(rg_fp_spill *s, const char *header, bool join, bool *fresh, rg_err *err) {
  char *path = file_in(s, "header", 0, 0);
  if (!path) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_strbuf want, have;
  rg_sb_init(&want), rg_sb_init(&have);
  rg_sb_printf(&want, "%s%s\n", FORMAT, header);
  rg_status st = RG_OK;
  *fresh = access(path, F_OK) != 0;
  if (*fresh && join) {
    st = rg_err_set(err, RG_ERR_IO, "%s is missing: the spill folder %s is not one another rank holds (each rank "
                                    "must see the folder rank 0 writes)", path, s->dir);
  } else if (*fresh) {
    DIR *d = opendir(s->dir);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d));)
      entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "lock");
    if (d) closedir(d);
    rg_atomic_file a;
    if (entries)
      st = rg_err_set(err, RG_ERR_ARG, "%s is not empty and holds no rulegen records: move or remove it, or give "
                                       "--spill a new or empty folder", s->dir);
    else if (!(st = rg_atomic_open(&a, path, err))) {
      fputs(rg_sb_str(&want), a.f);
      st = rg_atomic_commit(&a, err);
    }
  } else if (!(st = rg_text_read_file(path, &have, err)) && strcmp(rg_sb_str(&have), rg_sb_str(&want))) {
    st = rg_err_set(err, RG_ERR_ARG, "%s holds the records of another run (its header %s differs from this run's): "
                                     "run with the options that made it to go on, or remove it (rm -r %s) to start "
                                     "again", s->dir, path, s->dir);
  }
  rg_sb_free(&want), rg_sb_free(&have);
  free(path);
  return st;
}

/* One run at a time: a second one writing the same folder would mix its records in. */
static rg_status take_lock(rg_fp_spill *s, rg_err *err) {
  return rg_folder_lock(s->dir, "another -o or --spill", &s->lock, err);
}

/* Opens dir; made and locked (and its header written when new) unless joining: then it must be
 * there with this header, another process holding it. */
static rg_status open_folder(const char *dir, const char *header, bool join, rg_fp_spill **out, rg_err *err) {
  *out = NULL;
  rg_fp_spill *s = calloc(1, sizeof *s);
  if (s) s->lock = -1;
  if (!s || !(s->dir = strdup(dir)) || !(s->header = strdup(header))) {
    if (s) free(s->dir);
    free(s);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  struct stat sb;
  rg_status st = stat(dir, &sb) == 0 || (!join && mkdir(dir, 0700) == 0)
                     ? RG_OK
                     : rg_err_set(err, RG_ERR_IO, "cannot %s the spill folder %s: %s", join ? "find" : "make", dir,
                                  strerror(errno));
  if (!st && stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
    st = rg_err_set(err, RG_ERR_IO, "the spill folder %s is not a folder: move or remove it, or give --spill a "
                                    "folder", dir);
  bool fresh = true;
  if (!st && !join) st = take_lock(s, err);
  if (!st) st = check_header(s, header, join, &fresh, err);
  if (!st && !fresh) st = read_back(s, err);
  if (st) {
    rg_status ignore = rg_fp_spill_close(s, false, err);
    (void)ignore;
    return st;
  }
  *out = s;
  return RG_OK;
}

rg_status rg_fp_spill_open(const char *dir, const char *header, rg_fp_spill **out, rg_err *err) {
  return open_folder(dir, header, false, out, err);
}

rg_status rg_fp_spill_join(const char *dir, const char *header, rg_fp_spill **out, rg_err *err) {
  return open_folder(dir, header, true, out, err);
}

/* ---- writing ---- */

static rg_status io_err(const rg_fp_spill *s, const char *what, int k, int p, rg_err *err) {
  int e = errno;
  char *path = p < 0 ? file_in(s, "s%d.log", k, 0) : file_in(s, "s%d-p%d.rec", k, p);
  rg_status st = rg_err_set(err, RG_ERR_IO, "%s %s: %s (the records take %.2f GB so far%s)", what, path ? path : s->dir,
                            strerror(e), (double)s->st.bytes / 1e9,
                            e == ENOSPC ? "; free space, or give --spill a folder on a larger disk, then run the "
                                          "same command again to go on"
                                        : "");
  free(path);
  return st;
}

static bool write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w, n -= (size_t)w;
  }
  return true;
}

/* Each thread keeps a file per part and its log open: the soft limit on open files is raised
 * as far as the hard one allows, else the run is refused before it starts. */
static rg_status open_files_for(int threads, rg_err *err) {
  rlim_t need = (rlim_t)threads * (PARTS + 1) + 64;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need) return RG_OK;
  rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= need) return RG_OK;
  return rg_err_set(err, RG_ERR_LIMIT, "-j %d keeps %llu files open, and this process may open %llu: give fewer "
                    "threads (-j), or raise the limit (ulimit -n)", threads, (unsigned long long)need,
                    (unsigned long long)rl.rlim_cur);
}

/* Opens slot k for this run's thread k: its files cut to what was committed. */
static rg_status open_slot(rg_fp_spill *s, int k, rg_err *err) {
  slot *sl = &s->slots[k];
  for (int p = 0; p < PARTS; p++) sl->fd[p] = -1;
  sl->log = -1;
  sl->writing = true;
  rg_sb_init(&sl->pending);
  sl->last_sync = rg_clock_seconds();
  if (!(sl->buf = malloc(sizeof *sl->buf * PARTS * BUF))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int p = 0; p <= PARTS; p++) {
    char *path = p < PARTS ? file_in(s, "s%d-p%d.rec", k, p) : file_in(s, "s%d.log", k, 0);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
    off_t len = p < PARTS ? (off_t)(sl->committed[p] * sizeof(rg_fp_record)) : sl->log_len;
    bool ok = fd >= 0 && ftruncate(fd, len) == 0 && lseek(fd, len, SEEK_SET) == len;
    free(path);
    if (p < PARTS) sl->fd[p] = fd, sl->written[p] = sl->synced[p] = sl->committed[p];
    else sl->log = fd;
    if (!ok) return io_err(s, "opening", k, p < PARTS ? p : -1, err);
  }
  return RG_OK;
}

static rg_status write_part(rg_fp_spill *s, int k, int p, rg_err *err) {
  slot *sl = &s->slots[k];
  if (!sl->nbuf[p]) return RG_OK;
  if (!write_all(sl->fd[p], sl->buf + (size_t)p * BUF, sizeof *sl->buf * (size_t)sl->nbuf[p]))
    return io_err(s, "writing", k, p, err);
  sl->written[p] += (uint64_t)sl->nbuf[p];
  sl->nbuf[p] = 0;
  return RG_OK;
}

/* Data first, then the lines that commit it; durable: both on disk before it returns (else in
 * the system's cache: they survive the process, and reading back drops lines whose records a
 * machine restart lost). */
static rg_status sync_slot(rg_fp_spill *s, int k, bool durable, rg_err *err) {
  slot *sl = &s->slots[k];
  for (int p = 0; p < PARTS && durable; p++)
    if (sl->written[p] != sl->synced[p]) {
      if (fdatasync(sl->fd[p]) != 0) return io_err(s, "syncing", k, p, err);
      sl->synced[p] = sl->written[p];
    }
  if (sl->pending.len &&
      (!write_all(sl->log, rg_sb_str(&sl->pending), sl->pending.len) || (durable && fdatasync(sl->log) != 0)))
    return io_err(s, "writing", k, -1, err);
  sl->log_len += (off_t)sl->pending.len;
  rg_sb_free(&sl->pending);
  rg_sb_init(&sl->pending);
  sl->last_sync = rg_clock_seconds();
  return RG_OK;
}

/* This run's threads and the slots they write: thread t writes slot slot0 + t (several MPI
 * ranks write one folder, each its own slots). */
typedef struct {
  rg_fp_spill *s;
  int slot0;
} writer;

static rg_status on_records(void *user, int t, const rg_fp_record *r, int n, rg_err *err) {
  const writer *w = user;
  rg_fp_spill *s = w->s;
  int k = w->slot0 + t;
  slot *sl = &s->slots[k];
  for (int i = 0; i < n; i++) {
    int p = part_of(r[i].fp);
    sl->buf[(size_t)p * BUF + (size_t)sl->nbuf[p]++] = r[i];
    if (sl->nbuf[p] == BUF) {
      rg_status st = write_part(s, k, p, err);
      if (st) return st;
    }
  }
  return RG_OK;
}

static rg_status on_unit(void *user, int t, int unit, const rg_enum_stats *d, rg_err *err) {
  const writer *w = user;
  rg_fp_spill *s = w->s;
  int k = w->slot0 + t;
  slot *sl = &s->slots[k];
  rg_status st = RG_OK;
  for (int p = 0; p < PARTS && !st; p++) st = write_part(s, k, p, err);
  if (st) return st;
  rg_strbuf line;
  rg_sb_init(&line);
  rg_sb_printf(&line, "u %d %d %llu %llu %llu %llu", unit, d->units, (unsigned long long)d->graphs,
               (unsigned long long)d->rejected, (unsigned long long)d->wide, (unsigned long long)d->pruned);
  for (int p = 0; p < PARTS; p++) rg_sb_printf(&line, " %llu", (unsigned long long)sl->written[p]);
  rg_sb_printf(&sl->pending, "%s %016llx\n", rg_sb_str(&line),
               (unsigned long long)fnv1a(k, rg_sb_str(&line), line.len));
  rg_sb_free(&line);
  int done;
#pragma omp critical(rg_fp_spill_state)
  {
    st = note_unit(s, unit, d->units, s->dir, err);
    done = s->st.units_done;
    s->st.sum.graphs += d->graphs, s->st.sum.rejected += d->rejected, s->st.sum.wide += d->wide;
    s->st.sum.pruned += d->pruned, s->st.sum.units++;
    for (int p = 0; p < PARTS; p++) s->st.bytes += (sl->written[p] - sl->committed[p]) * sizeof(rg_fp_record);
  }
  memcpy(sl->committed, sl->written, sizeof sl->committed); /* once the line is synced */
  bool test_kill = rg_kill_point_armed("enumerate"); /* then every unit's line is written */
  bool due = rg_clock_seconds() - sl->last_sync >= SYNC_SECONDS;
  if (!st && (test_kill || due)) st = sync_slot(s, k, due, err);
  if (!st && test_kill) rg_kill_point("enumerate", done);
  return st;
}

/* Runs the units skip leaves into slots slot0.. (o->threads of them), their last lines written
 * also on an error (on disk after a long run). */
static rg_status enumerate_into(rg_fp_spill *s, const rg_enum_space *sp, const rg_fp_opts *o, int slot0,
                                const uint8_t *skip, int n_skip, rg_enum_stats *stats, rg_err *err) {
  int nt = o->threads < 1 ? 1 : o->threads;
  if (slot0 < 0 || slot0 + nt > MAX_SLOTS)
    return rg_err_set(err, RG_ERR_ARG, "at most %d threads in all write a spill folder (here %d)", MAX_SLOTS,
                      slot0 + nt);
  rg_status st = open_files_for(nt, err);
  if (!st) st = grow_slots(s, slot0 + nt, err);
  for (int k = slot0; k < slot0 + nt && !st; k++) /* open from an earlier call of this process: go on */
    if (!s->slots[k].writing) st = open_slot(s, k, err);
  writer w = {s, slot0};
  rg_fp_sink sink = {on_records, on_unit, &w, 0, NULL, skip, n_skip, false};
  double t0 = rg_clock_seconds();
  if (!st) st = rg_fp_enumerate(sp, o, &sink, stats, err);
  for (int k = slot0; k < slot0 + nt && k < s->n_slots; k++) {
    rg_err e2;
    bool durable = rg_clock_seconds() - t0 >= SYNC_SECONDS;
    rg_status s2 = s->slots[k].writing ? sync_slot(s, k, durable, &e2) : RG_OK;
    if (s2 && !st) st = s2, *err = e2;
  }
  return st;
}

/* The mark of a finished enumeration of units units, written after their lines. */
static rg_status write_mark(rg_fp_spill *s, int units, rg_err *err) {
  char *mark = file_in(s, "enumerated", 0, 0);
  rg_atomic_file a;
  rg_status st = mark ? rg_atomic_open(&a, mark, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    fprintf(a.f, "%d units\n", units);
    st = rg_atomic_commit(&a, err);
  }
  free(mark);
  s->st.enumerated = !st;
  s->st.units_total = units;
  return st;
}

rg_status rg_fp_spill_mark_enumerated(rg_fp_spill *s, rg_err *err) {
  if (s->st.enumerated || !s->st.units_total || s->st.units_done != s->st.units_total) return RG_OK;
  return write_mark(s, s->st.units_total, err);
}

rg_status rg_fp_spill_enumerate(rg_fp_spill *s, const rg_enum_space *sp, const rg_fp_opts *o, rg_enum_stats *stats,
                                rg_err *err) {
  memset(stats, 0, sizeof *stats);
  if (s->st.enumerated) return RG_OK;
  rg_status st = enumerate_into(s, sp, o, 0, s->done, s->done ? s->st.units_total : 0, stats, err);
  if (!st && !stats->interrupted && s->st.units_done == stats->units) st = write_mark(s, stats->units, err);
  return st;
}

rg_status rg_fp_spill_enumerate_some(rg_fp_spill *s, const rg_enum_space *sp, const rg_fp_opts *o, int slot0,
                                     const uint8_t *skip, int n_skip, rg_enum_stats *stats, rg_err *err) {
  memset(stats, 0, sizeof *stats);
  return enumerate_into(s, sp, o, slot0, skip, n_skip, stats, err);
}

rg_status rg_fp_spill_units(const rg_enum_space *sp, const rg_fp_opts *o, int *units, rg_err *err) {
  rg_fp_sink sink = {NULL, NULL, NULL, 0, NULL, NULL, 0, true};
  rg_enum_stats stats;
  rg_fp_opts one = *o;
  one.threads = 1, one.progress = NULL;
  rg_status st = rg_fp_enumerate(sp, &one, &sink, &stats, err);
  *units = stats.units;
  return st;
}

/* ---- reading records back ---- */

uint64_t rg_fp_spill_part_records(const rg_fp_spill *s, int p) {
  uint64_t n = 0;
  for (int k = 0; k < s->n_slots; k++) n += s->slots[k].committed[p];
  return n;
}

static rg_status load_file(const rg_fp_spill *s, int k, int p, rg_fp_store *store, rg_fp_record *chunk, size_t n_chunk,
                           rg_err *err) {
  uint64_t want = s->slots[k].committed[p];
  if (!want) return RG_OK;
  char *path = file_in(s, "s%d-p%d.rec", k, p);
  FILE *f = path ? fopen(path, "rb") : NULL;
  rg_status st = f ? RG_OK : rg_err_set(err, RG_ERR_IO, "%s: %s", path ? path : s->dir, strerror(errno));
  for (uint64_t done = 0; !st && done < want;) {
    size_t n = want - done < n_chunk ? (size_t)(want - done) : n_chunk;
    if (fread(chunk, sizeof *chunk, n, f) != n)
      st = rg_err_set(err, RG_ERR_IO, "%s holds fewer records than its log says (%llu): the folder is damaged; "
                                      "remove it and run again", path, (unsigned long long)want);
    else
      st = rg_fp_store_add(store, chunk, n, err), done += n;
  }
  if (f) fclose(f);
  free(path);
  return st;
}

rg_status rg_fp_spill_load(const rg_fp_spill *s, const rg_enum_space *sp, const rg_fp_opts *o, uint64_t lo,
                           uint64_t hi, rg_fp_table *t, rg_err *err) {
  rg_fp_store store;
  rg_status st = rg_fp_store_start(&store, t, sp, o, lo, hi, err);
  enum { CHUNK = 1 << 16 };
  rg_fp_record *chunk = malloc(sizeof *chunk * CHUNK);
  if (!st && !chunk) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int p = part_of(lo); p <= part_of(hi); p++)
    for (int k = 0; k < s->n_slots && !st; k++) st = load_file(s, k, p, &store, chunk, CHUNK, err);
  free(chunk);
  if (st) return st;
  rg_fp_store_finish(&store, o->threads);
  return RG_OK;
}

/* ---- closing ---- */

static void remove_files(const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, e->d_name), unlink(p);
    free(p);
  }
  if (d) closedir(d);
}

/* This run's files closed, and what was read back forgotten. */
static void forget(rg_fp_spill *s) {
  for (int k = 0; k < s->n_slots; k++) {
    slot *sl = &s->slots[k];
    if (!sl->writing) continue;
    for (int p = 0; p < PARTS; p++)
      if (sl->fd[p] >= 0) close(sl->fd[p]);
    if (sl->log >= 0) close(sl->log);
    free(sl->buf);
    rg_sb_free(&sl->pending);
  }
  free(s->slots);
  free(s->done);
  s->slots = NULL, s->n_slots = 0, s->done = NULL;
  memset(&s->st, 0, sizeof s->st);
}

rg_status rg_fp_spill_reread(rg_fp_spill *s, rg_err *err) {
  forget(s);
  return read_back(s, err);
}

rg_status rg_fp_spill_close(rg_fp_spill *s, bool remove, rg_err *err) {
  if (!s) return RG_OK;
  forget(s);
  rg_status st = RG_OK;
  if (remove) {
    remove_files(s->dir);
    if (rmdir(s->dir) != 0) st = rg_err_set(err, RG_ERR_IO, "removing the spill folder %s: %s", s->dir, strerror(errno));
  }
  if (s->lock >= 0) close(s->lock); /* after the removal: no other run starts in between */
  free(s->dir);
  free(s->header);
  free(s);
  return st;
}
