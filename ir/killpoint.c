/* ir/killpoint.c: the kill test hook (ir/killpoint.h). */
#include "killpoint.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KILL_ENV "RULEGEN_TEST_KILL_AT"

bool rg_kill_point_armed(const char *stage) {
  const char *v = getenv(KILL_ENV);
  size_t l = strlen(stage);
  return v && !strncmp(v, stage, l) && (!v[l] || v[l] == ':');
}

void rg_kill_point(const char *stage, int n) {
  const char *v = getenv(KILL_ENV);
  size_t l = strlen(stage);
  if (!rg_kill_point_armed(stage) || (v[l] == ':' && atoi(v + l + 1) != n)) return;
  fflush(NULL); /* what the run printed so far, as a log would show it */
  const char *sig = getenv("RULEGEN_TEST_KILL_SIGNAL");
  raise(sig && !strcmp(sig, "TERM") ? SIGTERM : SIGKILL); /* TERM: stopped as a user or mpirun would */
}
