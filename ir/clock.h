/* ir/clock.h: the one clock every stage times itself with. */
#ifndef RG_IR_CLOCK_H
#define RG_IR_CLOCK_H

/* Seconds on the monotonic clock (stage times, progress rates; not a date). */
double rg_clock_now(void);

#endif
