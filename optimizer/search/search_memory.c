/* optimizer/search/search_memory.c: what stops a search early (search.h): Ctrl-C, the memory it took,
 * an allocation that failed. Resident memory is what the kernel's out-of-memory killer weighs,
 * and the searches' graphs, queues and e-graphs only grow, so a limit on its growth bounds
 * them; reading it costs a few microseconds, so the searches ask between units of work (a
 * model explored, some hundred rule applications, a solver's event), not at every allocation. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <stdio.h>
#include <unistd.h>

#include "search.h"

int64_t rg_search_resident(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = -1, page = sysconf(_SC_PAGESIZE);
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return resident >= 0 && page > 0 ? (int64_t)resident * page : -1;
}

int64_t rg_search_memory_default(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (int64_t)pages * page / 2 : (int64_t)1 << 30;
}

void rg_search_watch_start(rg_search_watch *w, volatile sig_atomic_t *stop, const rg_search_memory *mem) {
  *w = (rg_search_watch){.stop = stop, .base = -1};
  if (mem) w->mem = *mem;
  if (!w->mem.resident) w->mem.resident = rg_search_resident;
  if (w->mem.limit > 0) w->base = w->mem.resident();
}

const char *rg_search_watch_check(rg_search_watch *w) {
  if (w->why) return w->why;
  if (w->stop && *w->stop) return w->why = "interrupted";
  if (w->mem.limit > 0 && w->base >= 0) {
    int64_t now = w->mem.resident();
    if (now >= 0 && now - w->base >= w->mem.limit) w->why = "out of memory";
  }
  return w->why;
}

rg_status rg_search_watch_nomem(rg_search_watch *w, rg_status st, rg_err *err) {
  if (st != RG_ERR_NOMEM) return st;
  if (!w->why) w->why = "out of memory";
  if (err) *err = (rg_err){0};
  return RG_OK;
}
