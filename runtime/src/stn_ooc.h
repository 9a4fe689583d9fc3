/*
 * stn_ooc.h -- the out-of-core engine's plan: block geometry, the DRAM it needs, and the run
 * entry point.  Private to the runtime (the tuner uses it too).
 *
 * Blocks are tiles of two blocked dimensions.  `r` is the dimension the DRAM window slides along
 * as a ring (blocks within a row); `q` is the dimension of the rows of blocks.  Whole planes
 * (3d, by = ny): r = z, q = y with one block.  2d: r = y, q = z (n = 1).  y-blocked 3d
 * (by < ny): r = y, q = z; each z-row of blocks keeps a y-ring per plane, and the planes the
 * next z-row shares with this one (the z-strip) are kept in DRAM or spilled to a file.
 */
#ifndef STN_OOC_H
#define STN_OOC_H

#include "stn_internal.h"

/* One blocked dimension. */
typedef struct stn_ooc_dim {
    int axis;               /* 0 x, 1 y, 2 z */
    int64_t n;              /* its extent */
    int64_t hlo, hhi, skew; /* its halo and the skew s = max(hlo, hhi) */
    int64_t L, H;           /* its interior [L, H) */
    int64_t b, nblocks;     /* block width, blocks */
} stn_ooc_dim;

enum { STN_STRIP_NONE = 0, STN_STRIP_DRAM, STN_STRIP_FILE };
/* y-blocked tiles at least this many bytes of rows per plane: one efficient IO request */
#define STN_TUNE_MIN_REQUEST ((int64_t)64 << 10)
extern const char *const stn_strip_names[]; /* "none", "dram", "file" */

typedef struct stn_ooc_plan {
    int schedule;           /* STN_SCHED_REF, _ALG1 or _ALG2: their windows differ */
    int strip;              /* STN_STRIP_*: where the z-strip goes (y-blocked only) */
    stn_ooc_dim r, q;       /* the ring's dimension, the rows' dimension */
    int64_t bt;             /* steps per sweep */
    int64_t steps, nsweeps; /* the run: ceil(steps / bt) sweeps, the last maybe shorter */
    size_t align;           /* O_DIRECT alignment rows are padded to */
    int64_t row_bytes;      /* a padded x-row */
    uint64_t grid_bytes;    /* one level of one field, padded rows */
    uint64_t slice_bytes;   /* one slice of r: ny rows (whole planes) or one row */
    int64_t ring_slices;    /* C: slices per ring (slice r lives at r mod C) */
    int64_t qplanes;        /* ring planes per array (q rows held at once: 1 unless y-blocked) */
    int64_t qcap;           /* q indices the ring holds at once (q.n unless y-blocked) */
    int64_t strip_planes;   /* z-planes carried from one z-row of blocks to the next (y-blocked) */
    uint64_t mem_bytes;     /* every buffer the engine allocates for this plan */
} stn_ooc_plan;

/* Fill `p` for blocks of by x bz and bt steps (no feasibility check).  by >= ny (3d), or any
 * by in 2d (bz ignored there), blocks whole planes; strip: STN_STRIP_DRAM or _FILE for by < ny
 * (ignored otherwise). */
int stn_ooc_make_plan(const stn_program_desc *d, const int64_t size[3], int64_t steps, int schedule,
                      int64_t by, int64_t bz, int64_t bt, int strip, size_t align, stn_ooc_plan *p);
/* A(k, t): the lower edge of block k's region at step t (t = 1..T) in dimension g. */
int64_t stn_ooc_edge(const stn_ooc_dim *g, int64_t k, int64_t t);
/* The indices of g block k holds in DRAM during a sweep of T steps: [lo, hi). */
void stn_ooc_window(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo,
                    int64_t *hi);

/* Run --mode ooc (fills r's counters, predictions, plan and warnings). */
int stn_ooc_run(stn_run *r);

#endif /* STN_OOC_H */
