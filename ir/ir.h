/* ir/ir.h: the public header of the shared core. Everything a module needs from ir/: the op
 * table, shapes, hash-consed graphs, rules and their text format, plans (typed graphs), the
 * float64 and Z_p interpreters, rule comparison, files written whole or not at all and read whole
 * within bounds (readfile.h), where the data files are (datapath.h), the hash table, SHA-256
 * (sha256.h), a heap (heap.h), the clock, a team of threads for short batches (crew.h), and the
 * test hook that kills a run at a named point (killpoint.h). */
#ifndef RG_IR_IR_H
#define RG_IR_IR_H

#include "atomic.h"
#include "clock.h"
#include "compare.h"
#include "crew.h"
#include "datapath.h"
#include "endline.h"
#include "graph.h"
#include "grow.h"
#include "hashtab.h"
#include "heap.h"
#include "interp.h"
#include "killpoint.h"
#include "op.h"
#include "plan.h"
#include "progress.h"
#include "readfile.h"
#include "rule.h"
#include "sha256.h"
#include "shape.h"
#include "shapesolve.h"
#include "status.h"
#include "strbuf.h"
#include "text.h"
#include "textpack.h"
#include "zp.h"

#endif
