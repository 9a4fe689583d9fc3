/*
 * stn_gpu_sched.h -- the schedule of --mode gpu / gpu-ooc (gpu_sched.c, docs/design/024-gpu-tier.md §2):
 * a plan's sweeps run block by block through a device's memory, over a table of device operations.
 * The CUDA table (cudaMemcpyAsync on `streams` streams, the generated NAME_cuda_* kernels) is
 * engines/gpu.c's; runtime/tests/test_gpu_sched.c runs the schedule over a table on the host (memcpy, the
 * C kernels), which checks the windows, the steps, the boundaries and the rotations against an
 * in-core run, bit for bit, and the bytes moved against the plan's.
 */
#ifndef STN_GPU_SCHED_H
#define STN_GPU_SCHED_H

#include "plan/stn_gpu.h"

/* The device: memory, copies and kernels, each ordered on `stream` (0 .. plan streams - 1). */
typedef struct stn_gpu_dev_ops {
    void *ctx;
    int (*alloc)(void *ctx, void **ptr, uint64_t bytes);
    void (*release)(void *ctx, void *ptr);
    int (*up)(void *ctx, void *dev, const void *host, uint64_t bytes, int stream);
    int (*down)(void *ctx, void *host, const void *dev, uint64_t bytes, int stream);
    int (*step)(void *ctx, const double *params, const stn_view *v, const void *const *src, void *const *dst,
                const stn_box *box, int stream);
    int (*boundary)(void *ctx, int field, const stn_view *v, const void *cur, void *next, const stn_box *box,
                    int stream);
    int (*sync)(void *ctx, int stream); /* wait for everything queued on `stream` */
    /* Before each step's kernels (NULL: none): that step's index, 0 the first step of this run, so that
     * the params the next `step` passes are that step's (t, the series' values). */
    void (*at_step)(void *ctx, int64_t t);
    /* Sources and receivers (NULL: the program has none; docs/design/024-gpu-tier.md).  `points`: before the
     * first sweep, the point sets go up (and are waited for); *bytes: what that moved.  `point_ops`: after a
     * step's kernels on `box`, before its boundaries, the injects at the points in `box` and the records at
     * those in `own` (the block's own planes of it) into row `row` of the device's samples.  `samples`: once
     * what filled them is done, rows [0, rows) of the device's samples are steps t .. t + rows - 1 of this
     * run: down into the records; *bytes: what that moved. */
    int (*points)(void *ctx, uint64_t *bytes);
    int (*point_ops)(void *ctx, const stn_view *v, const void *const *src, void *const *dst,
                     const stn_box *box, const stn_box *own, int64_t row, int stream);
    int (*samples)(void *ctx, int64_t t, int64_t rows, uint64_t *bytes);
    /* A strided copy (a plan of tiles, stn_gpu_plan.nyb > 1; NULL: none, the plans are of whole planes):
     * `height` runs of `width` bytes, `spitch` bytes apart at src and `dpitch` at dst, host to device (up =
     * 1) or back (cudaMemcpy2DAsync). */
    int (*copy2d)(void *ctx, void *dst, uint64_t dpitch, const void *src, uint64_t spitch, uint64_t width,
                  uint64_t height, int up, int stream);
} stn_gpu_dev_ops;

/* What the schedule moved and computed: compare with the plan's predictions. */
typedef struct stn_gpu_counts {
    uint64_t h2d_bytes, d2h_bytes, planes_computed;
    uint64_t cells_computed;
} stn_gpu_counts;

/* Runs plan `p` of program `d` on the grid `size`: host[s] (s < d->nsrc, dense arrays, the kernel's
 * src[] slots) holds the grid, host[d->nsrc + j] (j < d->nalong) the inputs along an axis (each
 * uploaded once, whole, and counted in `c`); other[s] is the second copy of each state level's slot (NULL for
 * inputs).  On return host[] holds the final levels (the pointers of host[] and other[] swapped
 * as the sweeps alternate).
 * Returns 0 or a negative errno (stn_errmsg says why); `c` counts what moved. */
int stn_gpu_run(const stn_gpu_plan *p, const stn_program_desc *d, const int64_t size[3], const double *params,
                void **host, void **other, const stn_gpu_dev_ops *ops, stn_gpu_counts *c);

#endif /* STN_GPU_SCHED_H */
