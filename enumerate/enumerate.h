/* enumerate/enumerate.h: the public header of the enumerator: input sets, operator choices, the
 * search space and graph codes, and the parallel depth-first enumeration with a visitor. */
#ifndef RG_ENUMERATE_ENUMERATE_H
#define RG_ENUMERATE_ENUMERATE_H

#include "choices.h"
#include "dfs.h"
#include "inputs.h"
#include "space.h"

#endif
