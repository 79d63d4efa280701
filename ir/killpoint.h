/* ir/killpoint.h: a test hook that stops a run as a machine restart would.
 *
 * RULEGEN_TEST_KILL_AT=STAGE[:N] makes the process kill itself with SIGKILL at the named point
 * (the first call for STAGE, or the call with that N), so that tests of resuming can cut a run
 * at a precise stage: nothing is cleaned up, no file is finished. With
 * RULEGEN_TEST_KILL_SIGNAL=TERM it raises SIGTERM instead, which the run's handler takes as a
 * request to stop (a rank of an MPI job stopped by a signal). This is the one place that
 * reads the variable; the points are in the stages that save work (fingerprint/spill.c,
 * synth/tested.c, synth/finish.c, verify/recheck.c). Unset, it costs one getenv per point.
 */
#ifndef RG_IR_KILLPOINT_H
#define RG_IR_KILLPOINT_H

#include <stdbool.h>

/* Whether RULEGEN_TEST_KILL_AT names stage (with any N). */
bool rg_kill_point_armed(const char *stage);
/* Raises SIGKILL (or SIGTERM, above) when RULEGEN_TEST_KILL_AT is stage, or stage:n. */
void rg_kill_point(const char *stage, int n);

#endif
