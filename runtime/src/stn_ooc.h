/*
 * stn_ooc.h -- the out-of-core engine's plan: block geometry along the outer dimension, the
 * DRAM it needs, and the run entry point.  Private to the runtime (the tuner uses it too).
 */
#ifndef STN_OOC_H
#define STN_OOC_H

#include "stn_internal.h"

typedef struct stn_ooc_plan {
    int schedule;           /* STN_SCHED_REF, _ALG1 or _ALG2: their windows differ */
    int outer;              /* the blocked dimension: 2 (z) in 3d, 1 (y) in 2d */
    int64_t n;              /* its extent */
    int64_t hlo, hhi, skew; /* its halo and the skew s = max(hlo, hhi) */
    int64_t L, H;           /* its interior [L, H) */
    int64_t bz, bt;         /* block width in slices, steps per sweep */
    int64_t nblocks;        /* blocks per sweep */
    int64_t steps, nsweeps; /* the run: ceil(steps / bt) sweeps, the last maybe shorter */
    size_t align;           /* O_DIRECT alignment rows are padded to */
    int64_t row_bytes;      /* a padded row */
    int64_t rows_per_slice; /* ny in 3d, 1 in 2d */
    uint64_t slice_bytes;   /* row_bytes * rows_per_slice */
    uint64_t mem_bytes;     /* every buffer the engine allocates for this plan */
} stn_ooc_plan;

/* Fill `p` for blocks of `bz` slices and `bt` steps (no feasibility check). */
int stn_ooc_make_plan(const stn_program_desc *d, const int64_t size[3], int64_t steps, int schedule,
                      int64_t bz, int64_t bt, size_t align, stn_ooc_plan *p);
/* A(k, t): the lower edge of block k's region at step t (t = 1..T). */
int64_t stn_ooc_edge(const stn_ooc_plan *p, int64_t k, int64_t t);
/* The slices block k holds in DRAM during a sweep of T steps: [lo, hi). */
void stn_ooc_window(const stn_ooc_plan *p, int64_t k, int64_t T, int64_t *lo, int64_t *hi);

/* Run --mode ooc (fills r's counters, predictions, plan and warnings). */
int stn_ooc_run(stn_run *r);

#endif /* STN_OOC_H */
