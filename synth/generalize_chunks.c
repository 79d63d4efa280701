/* synth/generalize_chunks.c: the generalize stage's chunks kept in a folder (generalize_chunks.h). */
#define _POSIX_C_SOURCE 200809L
#include "generalize_chunks.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verify/smt.h"

#define TAG "# rulegen generalize chunk "

static char *in_dir(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static char *chunk_path(const rg_gen_chunks *c, int i) {
  char name[32];
  snprintf(name, sizeof name, "c-%d.gen", i);
  return in_dir(c->dir, name);
}

/* The folder's chunk files removed (another key's; or the folder's end). */
static void remove_chunks(const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, "c-", 2)) continue; /* chunks, and temporaries a killed run left */
    char *p = in_dir(dir, e->d_name);
    if (p) unlink(p);
    free(p);
  }
  if (d) closedir(d);
}

/* Writes text to path whole: a temporary beside it, then renamed. */
static rg_status write_whole(const char *path, const char *head, const char *text, size_t len, rg_err *err) {
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  bool ok = f && fputs(head, f) >= 0 && (!len || fwrite(text, 1, len, f) == len);
  ok = (f && fclose(f) == 0) && ok && rename(tmp, path) == 0;
  rg_status st = ok ? RG_OK : rg_err_set(err, RG_ERR_IO, "writing %s: %s", tmp, strerror(errno));
  if (!ok) unlink(tmp);
  free(tmp);
  return st;
}

/* One run at a time makes chunks in a folder (MPI workers join rank 0's): another would mix its
 * own in. */
static rg_status take_lock(rg_gen_chunks *c, rg_err *err) { return rg_folder_lock(c->dir, "another -o", &c->lock, err); }

rg_status rg_gen_chunks_open(rg_gen_chunks *c, const char *dir, const char *key, bool join, rg_err *err) {
  c->lock = -1;
  c->dir = strdup(dir);
  c->key = strdup(key);
  char *kp = c->dir && c->key ? in_dir(dir, "key") : NULL;
  if (!kp) return rg_gen_chunks_close(c, false), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  struct stat sb;
  rg_status st = RG_OK;
  if (lstat(dir, &sb) != 0 && (join || mkdir(dir, 0700) != 0))
    st = rg_err_set(err, RG_ERR_IO, "cannot %s the generalize folder %s: %s", join ? "find" : "make", dir,
                    strerror(errno));
  else if (lstat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
    st = rg_err_set(err, RG_ERR_IO, "%s is in the way of the generalize stage's folder: move or remove it", dir);
  if (!st && !join) st = take_lock(c, err);
  rg_strbuf have;
  rg_sb_init(&have);
  rg_err ignore;
  bool same = !st && !rg_text_read_file(kp, &have, &ignore) && have.len == strlen(key) + 1 &&
              !strncmp(rg_sb_str(&have), key, strlen(key)) && rg_sb_str(&have)[have.len - 1] == '\n';
  if (!st && !same && join)
    st = rg_err_set(err, RG_ERR_ARG, "%s was made for other candidates than rank 0's: each rank must see the "
                                     "folder rank 0 writes", kp);
  if (!st && !same) {
    remove_chunks(dir);
    rg_strbuf line;
    rg_sb_init(&line);
    rg_sb_printf(&line, "%s\n", key);
    st = write_whole(kp, rg_sb_str(&line), NULL, 0, err);
    rg_sb_free(&line);
  }
  rg_sb_free(&have);
  free(kp);
  if (st) rg_gen_chunks_close(c, false);
  return st;
}

/* The digest of a chunk: of the folder's key and the chunk's body, so that a chunk is good only
 * for the candidates and options it was made from. */
static void digest(const rg_gen_chunks *c, const char *body, size_t len, char hex[65]) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_sb_printf(&sb, "%s\n", c->key);
  rg_sb_append(&sb, body, len);
  rg_sha256_hex(rg_sb_str(&sb), sb.len, hex);
  rg_sb_free(&sb);
}

/* Whether the stats agree with the lines: each kept generalization is one line of text. */
static bool consistent(const rg_generalize_stats *stats, int m, const char *text, size_t len) {
  long kept = 0, lines = 0;
  for (int k = 0; k < m; k++) {
    if (stats[k].tried < 0 || stats[k].passed < 0 || stats[k].kept < 0 || stats[k].passed > stats[k].tried ||
        stats[k].kept > stats[k].passed)
      return false;
    kept += stats[k].kept;
  }
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  return kept == lines && (!len || text[len - 1] == '\n');
}

/* Parses m stats lines from *p; false when they are not there. */
static bool read_stats(const char **p, const char *end, int m, rg_generalize_stats *stats) {
  for (int k = 0; k < m; k++) {
    int t, ps, kept, cap, skip, used = 0;
    if (sscanf(*p, "%d %d %d %d %d\n%n", &t, &ps, &kept, &cap, &skip, &used) != 5 || !used || *p + used > end)
      return false;
    stats[k] = (rg_generalize_stats){t, ps, kept, cap != 0, skip != 0};
    *p += used;
  }
  return true;
}

bool rg_gen_chunks_has(const rg_gen_chunks *c, int i) {
  char *path = chunk_path(c, i);
  bool there = path && access(path, F_OK) == 0;
  free(path);
  return there;
}

bool rg_gen_chunks_load(const rg_gen_chunks *c, int i, int m, rg_generalize_stats *stats, rg_strbuf *lines) {
  char *path = chunk_path(c, i);
  rg_strbuf sb;
  rg_err err;
  bool ok = path && access(path, F_OK) == 0;
  if (!ok) return free(path), false;
  ok = !rg_text_read_file(path, &sb, &err);
  const char *s = ok ? rg_sb_str(&sb) : "", *body = strchr(s, '\n');
  int fi = -1, fm = -1;
  unsigned long long bytes = 0;
  char want[65], sha[65];
  ok = ok && body && sscanf(s, TAG "%d: %d candidates, %llu bytes, SHA-256 %64s", &fi, &fm, &bytes, want) == 4 &&
       fi == i && fm == m;
  rg_generalize_stats *mine = ok ? calloc((size_t)m + 1, sizeof *mine) : NULL;
  if (ok && mine) {
    body++;
    size_t rest = sb.len - (size_t)(body - s);
    digest(c, body, rest, sha);
    const char *p = body, *end = s + sb.len;
    ok = !strcmp(sha, want) && read_stats(&p, end, m, mine) && (size_t)(end - p) == bytes &&
         consistent(mine, m, p, bytes);
    if (ok) memcpy(stats, mine, sizeof *mine * (size_t)m), rg_sb_puts(lines, p);
  }
  ok = ok && mine;
  free(mine);
  if (!ok) fprintf(stderr, "rulegen: %s is not a whole generalize chunk %d: making it again\n", path, i);
  rg_sb_free(&sb);
  free(path);
  return ok;
}

rg_status rg_gen_chunks_save(const rg_gen_chunks *c, int i, int m, const rg_generalize_stats *stats, const char *text,
                             size_t len, rg_err *err) {
  rg_strbuf body, head;
  rg_sb_init(&body), rg_sb_init(&head);
  for (int k = 0; k < m; k++)
    rg_sb_printf(&body, "%d %d %d %d %d\n", stats[k].tried, stats[k].passed, stats[k].kept, (int)stats[k].capped,
                 (int)stats[k].skipped);
  if (len) rg_sb_append(&body, text, len);
  char sha[65];
  digest(c, rg_sb_str(&body), body.len, sha);
  rg_sb_printf(&head, TAG "%d: %d candidates, %zu bytes, SHA-256 %s\n", i, m, len, sha);
  char *path = chunk_path(c, i);
  rg_status st = body.failed || head.failed || !path ? rg_err_set(err, RG_ERR_NOMEM, "out of memory")
                                                      : write_whole(path, rg_sb_str(&head), rg_sb_str(&body), body.len, err);
  free(path);
  rg_sb_free(&body), rg_sb_free(&head);
  return st;
}

void rg_gen_chunks_remove(const char *dir) {
  struct stat sb;
  if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return;
  remove_chunks(dir);
  const char *mine[] = {"key", "lock"};
  for (int k = 0; k < 2; k++) {
    char *p = in_dir(dir, mine[k]);
    if (p) unlink(p);
    free(p);
  }
  if (rmdir(dir) != 0 && errno != ENOENT)
    fprintf(stderr, "rulegen: warning: %s is left: %s (files not rulegen's are in it)\n", dir, strerror(errno));
}

void rg_gen_chunks_close(rg_gen_chunks *c, bool remove) {
  if (c->dir && remove) rg_gen_chunks_remove(c->dir);
  if (c->lock >= 0) close(c->lock); /* after the removal: no other run starts in between */
  free(c->dir), free(c->key);
  c->dir = c->key = NULL, c->lock = -1;
}

/* The candidate text an MPI job's ranks read their chunks from: c-text, so that the folder's
 * end (and another key's chunks going) takes it too. */
#define TEXT_NAME "c-text"

rg_status rg_gen_chunks_save_text(const rg_gen_chunks *c, const char *text, size_t len, rg_err *err) {
  char *p = in_dir(c->dir, TEXT_NAME);
  rg_status st = p ? write_whole(p, "", text, len, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  free(p);
  return st;
}

rg_status rg_gen_chunks_read_text(const rg_gen_chunks *c, const rg_gen_chunk *ch, const char *sha, char **buf,
                                  rg_err *err) {
  *buf = NULL;
  char *p = in_dir(c->dir, TEXT_NAME);
  size_t len = ch->end - ch->pos;
  char *b = p ? malloc(len + 1) : NULL;
  if (!b) return free(p), rg_err_set(err, RG_ERR_NOMEM, "out of memory for a generalize chunk");
  FILE *f = fopen(p, "rb");
  bool sought = f && fseeko(f, (off_t)ch->pos, SEEK_SET) == 0, whole = sought && fread(b, 1, len, f) == len;
  rg_status st = whole ? RG_OK : rg_err_set(err, RG_ERR_IO, "reading bytes %zu to %zu of %s: %s", ch->pos, ch->end, p,
                                         sought && !ferror(f) ? "the file is shorter" : strerror(errno));
  if (f) fclose(f);
  char got[65];
  if (!st) rg_sha256_hex(b, len, got);
  if (!st && strcmp(got, sha))
    st = rg_err_set(err, RG_ERR_IO, "%s: bytes %zu to %zu are not the candidates rank 0 wrote (is the folder shared "
                                    "by every rank, and not written by another run?)", p, ch->pos, ch->end);
  free(p);
  if (st) return free(b), st;
  b[len] = 0;
  *buf = b;
  return RG_OK;
}

void rg_gen_chunks_drop_text(const rg_gen_chunks *c) {
  char *p = in_dir(c->dir, TEXT_NAME);
  if (p) unlink(p);
  free(p);
}
