/* synth/generalize_spread.h: the generalize stage's chunks made by the ranks of an MPI job
 * (cluster/cluster.h): rank 0 writes the candidate text into its folder (generalize_chunks.h;
 * every rank must see it), sends the chunks' bounds and sums, and hands out the chunks the folder
 * lacks; each rank reads only its chunks' bytes from there and keeps the chunks it makes there,
 * and rank 0's stage takes them as a run that goes on does. */
#ifndef RG_SYNTH_GENERALIZE_SPREAD_H
#define RG_SYNTH_GENERALIZE_SPREAD_H

#include "cluster/cluster.h"
#include "generalize.h"

/* Rank 0 (rg_generalize_spread_fn): nothing with one rank. Errors: a rank's (naming it), the
 * folder's, RG_ERR_NOMEM. */
rg_status rg_generalize_spread(const rg_generalize_opts *o, const char *text, size_t len, const rg_gen_chunk *chunks,
                               int n, const rg_gen_chunks *kept, int *made, rg_err *err) RG_MUST_CHECK;

/* A worker's work for those jobs (synth/spread.h's RG_SPREAD_GENERALIZE), under o. */
void rg_generalize_work(const rg_generalize_opts *o, rg_cluster_work *w);

#endif
