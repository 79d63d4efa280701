/* certify/session.h: one certification or check as a program runs it: the programs loaded
 * (files or a built-in mutant), box mode with progress lines, the certificate written or
 * audited, full mode when asked, and the lines saying what was done. `rulegen certify` is its
 * command line. */
#ifndef RG_CERTIFY_SESSION_H
#define RG_CERTIFY_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "check.h"

/* What to do. */
typedef struct {
  const char *prog;  /* names the progress lines, e.g. "rulegen certify" */
  bool check;        /* audit a certificate instead of making one */
  const char *shapes; /* "NAME=DIMS ..." the user gave, or NULL */
  int trials;        /* certify: trials per position */
  rg_z127 p;         /* certify: the field */
  const char *out;   /* certify: the certificate's path (NULL: out) */
  const char *mutant, *dims; /* a built-in mutant (mutant.h), or NULL: files */
  bool full;         /* then check every differing element lies in a correction region */
  bool print;        /* only print the programs and their shapes */
  const volatile sig_atomic_t *cancel; /* looked at between boxes; may be NULL */
} rg_cert_session;

/* Runs s on the operands args[0..nargs): one rule file or two program files (none with a
 * mutant), after the certificate's path when checking. Prints to out the programs (print) or
 * the check's verdict; to log the progress (runs over a second), the counts and times.
 * *verdict: 1 when the check rejects the certificate, else 0. Errors: a missing certificate
 * operand, those of loading, checking, auditing and saving, a full check finding differences
 * outside the regions (RG_ERR_ARG); *where names the file an error is about, or NULL. */
rg_status rg_cert_session_run(const rg_cert_session *s, char **args, int nargs, FILE *out, FILE *log,
                              int *verdict, const char **where, rg_err *err) RG_MUST_CHECK;

#endif
