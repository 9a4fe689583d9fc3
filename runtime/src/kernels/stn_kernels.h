/*
 * stn_kernels.h -- the calls of the generated kernels (kernels/step.c) and the rates the time model
 * measures on them (kernels/rate.c): what the engines and the tuner share above the ranks' layer (each
 * call goes through the rank's part, stn_map_call).
 */
#ifndef STN_KERNELS_H
#define STN_KERNELS_H

#include "mpi/stn_part.h"

/* One step of the kernel on `box` (d->step), its failure (a stencil with sub-steps that cannot
 * allocate its tiles' scratch) turned into an error naming the stencil and the box.  t: the index
 * of the step being computed (0 first), given to the kernels with the series' values at it; then
 * the injects and records at the points in the box.  t < 0: a step that only measures (t = 0 for
 * the kernels, no injects, no records). */
int stn_step(const stn_run *r, int64_t t, const stn_view *v, const void *const *src, void *const *dst,
             const stn_box *box, const int64_t tile[2]);
/* The kernels' vector of params at step t (as stn_step gives them): pv[0 .. nparams - 1] the params,
 * pv[nparams] = t, then the series terms (stn_series_term); pv holds nparams + 1 + nterms values. */
void stn_step_params(const stn_run *r, int64_t t, double *pv);
/* d->boundary and d->init on a box of the run's grid, through stn_map_call, as stn_step does for the
 * steps. */
void stn_run_boundary(const stn_run *r, int field, const stn_view *v, const void *cur, void *next,
                      const stn_box *box);
/* Part of it (op: STN_BOUNDARY_MIRROR, _COPY or _ALL; d->boundary_op, else d->boundary). */
void stn_run_boundary_op(const stn_run *r, int field, int op, const stn_view *v, const void *cur, void *next,
                         const stn_box *box);
void stn_run_init(const stn_run *r, int field, int level, void *data, const stn_view *v, const stn_box *box);
/* The kernels' rate in cells per second, measured on a small grid of the run's rows (all arrays
 * together at most `cap` bytes) with the iBlock `tile`, for about 50 ms; `source` says how. */
int stn_measure_rate(const stn_run *r, const int64_t tile[2], uint64_t cap, double *cps, char *source,
                     size_t n);
/* The kernels' rate for the time model, once per run: res->cells_per_second if already set, else
 * the --machine file's cells_per_second, else stn_measure_rate with res->ib's tile (on a grid of
 * the size stn_mem_rate_grid allows).  0 or -ENOMEM. */
int stn_kernel_rate(const stn_run *r, stn_result *res);
/* The rate at which the threads copy DRAM to DRAM (bytes copied a second), for the time model's
 * z-strip copies, once per run: res->copy_bytes_per_second if already set, else the --machine
 * file's copy_bytes_per_second, else measured here (this machine's run only; buffers past the
 * last-level cache, at most stn_mem_copy_buffers, about 30 ms).  0 or -ENOMEM. */
int stn_copy_rate(const stn_run *r, stn_result *res);
/* The rate (cells a second, all threads) at which the init expression of field `field`'s level `level`
 * fills a slab of the run's rows (at most 4 MiB, about 20 ms): *cps = 0 for a --machine description or a
 * program without init expressions.  0 or -ENOMEM. */
int stn_init_rate(const stn_run *r, int field, int level, double *cps);

#endif /* STN_KERNELS_H */
