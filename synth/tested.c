/* synth/tested.c: the test stage over a spill folder, part by part (synth/tested.h). */
#define _POSIX_C_SOURCE 200809L
#include "tested.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "candidates.h"
#include "parts.h"

rg_status rg_synth_enumerate_spilled(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp,
                                     rg_fp_spill *spill, rg_synth_counts *c, rg_err *err) {
  rg_fp_spill_state ss;
  rg_fp_spill_state_of(spill, &ss);
  c->graphs = ss.sum.graphs;
  if (ss.enumerated) return RG_OK;
  if (ss.units_done)
    fprintf(stderr, "rulegen: going on from %s: %d of %d work units enumerated already\n", rg_fp_spill_dir(spill),
            ss.units_done, ss.units_total);
  double t0 = rg_clock_seconds();
  rg_enum_stats stats;
  rg_synth_records_ctx rc = {o, sp, fp->progress != NULL};
  rg_status st = rg_cluster_size() > 1 ? rg_synth_spread_enumerate(&rc, spill, err)
                                       : rg_fp_spill_enumerate(spill, sp, fp, &stats, err);
  c->secs[0] += rg_clock_seconds() - t0;
  rg_fp_spill_state_of(spill, &ss);
  c->graphs = ss.sum.graphs;
  return st;
}

rg_status rg_synth_test_spilled(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp,
                                rg_fp_spill *spill, FILE *out, rg_synth_counts *c, rg_err *err) {
  rg_status st = RG_OK;
  double t0 = rg_clock_seconds();
  rg_randtest_cache *cache = rg_randtest_cache_new(rg_synth_cache_bytes(o)); /* renamings span parts */
  if (!cache) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int kept = 0, groups = 0, spread = 0, loads = 0; /* parts: tested before, by the ranks now */
  rg_fp_spill_state ss;
  rg_fp_spill_state_of(spill, &ss);
  if (!ss.enumerated) /* never test a part of the records */
    st = rg_err_set(err, RG_ERR_IO, "the records in %s are not all there (the enumeration did not finish): run the "
                    "same command again to go on", rg_fp_spill_dir(spill));
  rg_synth_records_ctx rc = {o, sp, !o->quiet};
  if (!st && rg_cluster_size() > 1) st = rg_synth_spread_test(&rc, spill, &spread, &loads, err);
  c->passes += loads;
  rg_progress pg;
  rg_progress_start(&pg, "test", "parts", RG_FP_SPILL_PARTS, !o->quiet && !spread);
  for (int p = 0, q; p < RG_FP_SPILL_PARTS && !st && !*o->stop; p = q + 1) {
    q = rg_part_group_end(spill, fp, p);
    char *path = rg_part_path(spill, p, q);
    if (!path) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else if (rg_part_read(path, p, q, out, c)) kept += q - p + 1;
    else {
      char *text = NULL;
      size_t len = 0;
      rg_synth_counts pc = {0};
      st = rg_part_test(o, fp, sp, spill, p, q, cache, &text, &len, &pc, err);
      if (!st && !*o->stop) st = rg_part_save(path, p, q, &pc, text, len, err);
      if (!st && !*o->stop) {
        rg_kill_point("test", ++groups); /* a test of resuming stops here, these parts kept */
        rg_synth_counts_add(c, &pc);
        c->passes += pc.passes;
        if (out && len) fwrite(text, 1, len, out);
      }
      free(text);
    }
    free(path);
    rg_progress_tick_extra(&pg, q + 1, "%llu pairs tested, %llu pass, RSS %.0f MB", (unsigned long long)c->pairs,
                           (unsigned long long)c->verdict[RG_RANDTEST_PASS], rg_synth_rss_mb());
  }
  rg_progress_finish(&pg);
  if (kept > spread)
    fprintf(stderr, "rulegen: %d of %d parts' candidates taken from %s (tested by an earlier run)\n", kept - spread,
            RG_FP_SPILL_PARTS, rg_fp_spill_dir(spill));
  rg_randtest_cache_free(cache);
  c->secs[1] += rg_clock_seconds() - t0;
  return st;
}
