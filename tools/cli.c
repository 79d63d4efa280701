#define _POSIX_C_SOURCE 200809L /* sigaction */
/* tools/cli.c: what only a program may hold: the process-wide interrupt flag and its handler. */
#include "cli.h"

#include <string.h>

volatile sig_atomic_t rg_cli_interrupted;
static struct sigaction saved_int, saved_term;

static void on_interrupt(int sig) {
  (void)sig;
  rg_cli_interrupted = 1;
}

void rg_cli_catch_interrupts(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  rg_cli_interrupted = 0;
  sigaction(SIGINT, &sa, &saved_int);
  sigaction(SIGTERM, &sa, &saved_term);
}

void rg_cli_release_interrupts(void) {
  sigaction(SIGINT, &saved_int, NULL);
  sigaction(SIGTERM, &saved_term, NULL);
}


void rg_cli_report(const char *prog, const char *file, const rg_err *err) {
  rg_err_print(stderr, prog, file, err);
}
