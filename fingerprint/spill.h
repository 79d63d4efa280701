/* fingerprint/spill.h: the enumeration's records on disk, so that a run needs memory for one
 * part of them at a time, and a run stopped half way (Ctrl-C, kill -9, a machine restart)
 * goes on where it stopped.
 *
 * A spill folder holds the records in RG_FP_SPILL_PARTS parts by the fingerprint's top bits,
 * each thread appending to its own file per part (s<thread>-p<part>.rec, raw records), and a
 * log per thread (s<thread>.log): one line per finished work unit (enumerate/dfs.h) giving the
 * unit, its counts and the thread's file lengths after it, with a checksum that covers the
 * thread's number (a line is good only in its own log). A unit is committed
 * once its line is on disk, which is after its records are; lines are written, data and log
 * synced, every few seconds, so a crash loses at most those seconds and the units under way.
 * Reopened, the folder is read back to its last whole lines whose lengths the files hold and
 * never go back: the files are cut to the lengths they give (dropping what uncommitted units
 * wrote), and the units they name are not run again; a unit committed twice is a damaged
 * folder, refused. One run at a time holds the folder (a lock file): a second is refused.
 * The folder's `header` names the run that made it (the caller's text); a folder of another run
 * is refused, never mixed in. `enumerated` marks a finished enumeration. Callers may keep their
 * own files there (synth keeps its test stage's parts); removing the folder removes them.
 */
#ifndef RG_FINGERPRINT_SPILL_H
#define RG_FINGERPRINT_SPILL_H

#include "collect.h"

#define RG_FP_SPILL_PARTS 64
#define RG_FP_SPILL_SLOTS 1024 /* writers of one folder, every process's threads together */

typedef struct rg_fp_spill rg_fp_spill;

typedef struct {
  int units_done, units_total; /* units_total is 0 until one unit is done */
  rg_enum_stats sum;           /* the counts of the units done */
  bool enumerated;             /* every unit done */
  uint64_t bytes;              /* record bytes committed */
} rg_fp_spill_state;

/* Opens the spill folder dir of the run named by header (any text): made (mode 0700) when
 * missing; an existing one must hold this header (else RG_ERR_ARG naming the folder and what to
 * do; a non-empty folder that is no spill folder is refused too) and is read back to what was
 * committed. Errors: RG_ERR_IO naming the file, RG_ERR_NOMEM. */
rg_status rg_fp_spill_open(const char *dir, const char *header, rg_fp_spill **out, rg_err *err) RG_MUST_CHECK;

/* Opens the folder dir that another process of this run (MPI rank 0) opened with header and
 * holds: read back, no lock taken, nothing made. This process writes only slots no other
 * writes (rg_fp_spill_enumerate_some). Errors: as rg_fp_spill_open's; a folder without this
 * header is refused. */
rg_status rg_fp_spill_join(const char *dir, const char *header, rg_fp_spill **out, rg_err *err) RG_MUST_CHECK;

/* Reads the folder back again, as opening it would: what other processes committed since is
 * seen. Files this process was writing are closed first. Errors: as reading back on open. */
rg_status rg_fp_spill_reread(rg_fp_spill *s, rg_err *err) RG_MUST_CHECK;

void rg_fp_spill_state_of(const rg_fp_spill *s, rg_fp_spill_state *st);
/* Whether work unit u is committed, as far as this process knows (read back, or its own). */
bool rg_fp_spill_unit_done(const rg_fp_spill *s, int u);
const char *rg_fp_spill_dir(const rg_fp_spill *s);
const char *rg_fp_spill_header(const rg_fp_spill *s); /* the run's, as given on opening */

/* Enumerates the units not yet committed (rg_fp_enumerate under o) into the folder; stats
 * holds this call's counts. Interrupted (o->stop): RG_OK with stats->interrupted, what was
 * committed kept. Errors: RG_ERR_IO (a full disk: naming the file and the bytes written),
 * RG_ERR_ARG (the folder's units are not this space's), RG_ERR_NOMEM. */
rg_status rg_fp_spill_enumerate(rg_fp_spill *s, const rg_enum_space *sp, const rg_fp_opts *o, rg_enum_stats *stats,
                                rg_err *err) RG_MUST_CHECK;

/* The work units of sp under o (enumerate/dfs.h), counted without running them. */
rg_status rg_fp_spill_units(const rg_enum_space *sp, const rg_fp_opts *o, int *units, rg_err *err) RG_MUST_CHECK;

/* Enumerates the units skip leaves unset (n_skip: every unit of sp) into this process's slots,
 * slot0 .. slot0 + o->threads - 1 (thread t's files are s<slot0+t>-p<part>.rec and its log),
 * which no other process of the run writes; marks nothing finished. stats: this call's counts.
 * Errors: as rg_fp_spill_enumerate's; RG_ERR_ARG beyond 1024 slots. */
rg_status rg_fp_spill_enumerate_some(rg_fp_spill *s, const rg_enum_space *sp, const rg_fp_opts *o, int slot0,
                                     const uint8_t *skip, int n_skip, rg_enum_stats *stats, rg_err *err) RG_MUST_CHECK;

/* Marks the enumeration finished when every unit is committed (after rg_fp_spill_reread has
 * seen what the other processes did); else nothing. Errors: RG_ERR_IO. */
rg_status rg_fp_spill_mark_enumerated(rg_fp_spill *s, rg_err *err) RG_MUST_CHECK;

/* The fingerprint range of part p: [lo, hi]. */
uint64_t rg_fp_spill_part_lo(int p);
uint64_t rg_fp_spill_part_hi(int p);

/* The records committed to part p (all threads' files). */
uint64_t rg_fp_spill_part_records(const rg_fp_spill *s, int p);

/* Reads the committed records with fingerprint in [lo, hi] (any parts), and the input
 * graphs' (sp, o->seed), into t as rg_fp_collect would have, hi narrowed under o's memory
 * limit (t->hi says how far it got). Errors: RG_ERR_IO (a file shorter than its log says: a
 * damaged folder), RG_ERR_LIMIT, RG_ERR_NOMEM. Free t with rg_fp_table_free. */
rg_status rg_fp_spill_load(const rg_fp_spill *s, const rg_enum_space *sp, const rg_fp_opts *o, uint64_t lo,
                           uint64_t hi, rg_fp_table *t, rg_err *err) RG_MUST_CHECK;

/* Closes s (NULL is fine); with remove, deletes the folder and every file in it. */
rg_status rg_fp_spill_close(rg_fp_spill *s, bool remove, rg_err *err) RG_MUST_CHECK;

#endif
