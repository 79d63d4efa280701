/* ir/clock.h: the one clock: monotonic time for measuring intervals (timings, time limits,
 * deadlines, progress). Its origin is arbitrary, so only differences mean anything; it never
 * jumps when the wall clock is set. */
#ifndef RG_IR_CLOCK_H
#define RG_IR_CLOCK_H

/* Seconds on the monotonic clock. */
double rg_clock_seconds(void);

/* Milliseconds on the same clock. */
double rg_clock_ms(void);

#endif
