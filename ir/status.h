/* ir/status.h: status codes and the error record every fallible call fills.
 *
 * Convention: 0 is success, negative is an error. A function that can fail because of user
 * input, files, solvers or allocation returns rg_status (marked RG_MUST_CHECK) and, when given
 * a non-NULL rg_err, writes a message that names what was wrong and where.
 */
#ifndef RG_IR_STATUS_H
#define RG_IR_STATUS_H

#include <stddef.h>
#include <stdio.h>

#define RG_MUST_CHECK __attribute__((warn_unused_result))
#define RG_PRINTF(f, a) __attribute__((format(printf, f, a)))

typedef enum {
  RG_OK = 0,
  RG_ERR_PARSE = -1,   /* malformed text */
  RG_ERR_SHAPE = -2,   /* shapes or parameters do not fit an operator */
  RG_ERR_NOMEM = -3,   /* allocation failed */
  RG_ERR_IO = -4,      /* a file could not be read or written */
  RG_ERR_ARG = -5,     /* a bad argument from the command line or a caller */
  RG_ERR_UNBOUND = -6, /* a variable has no shape or value */
  RG_ERR_LIMIT = -7,   /* a fixed limit (rank, inputs, seams, sizes) was exceeded */
} rg_status;

/* line/col are 1-based positions in the text being parsed, 0 when not applicable. */
typedef struct {
  rg_status status;
  int line, col;
  char msg[512];
} rg_err;

/* Records status and a formatted message in err (if non-NULL); returns status. */
rg_status rg_err_set(rg_err *err, rg_status status, const char *fmt, ...) RG_PRINTF(3, 4);
rg_status rg_err_at(rg_err *err, rg_status status, int line, int col, const char *fmt, ...)
    RG_PRINTF(5, 6);
const char *rg_status_name(rg_status s);

/* Prints "prog: where: message" and a newline to out, where is "file:line:col" when err has a
 * line, "file" when only file is known and the message does not start with it, nothing when
 * file is NULL. */
void rg_err_print(FILE *out, const char *prog, const char *file, const rg_err *err);

#endif
