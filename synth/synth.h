/* synth/synth.h: the public header of the synth module: a whole synthesis run (run.h), its
 * counters and stage table (stats.h), the candidates a run saves and resumes from (resume.h),
 * and the checkpoints of the stages after testing (checkpoint.h). The stages' own headers
 * (candidates.h, tested.h, pair.h, collapse.h, generalize.h, finish.h) are the module's; its tests use
 * them. */
#ifndef RG_SYNTH_SYNTH_H
#define RG_SYNTH_SYNTH_H

#include "checkpoint.h"
#include "resume.h"
#include "run.h"
#include "stats.h"

#endif
