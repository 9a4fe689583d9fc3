/* tune_rate.c -- measuring a plan's compute rate on its own blocks (stn_ooc_block_rate), for
 * Blk-Tune's finalists (tune.c, pick_finalist) and the time model of the run's plan: the kernels on a
 * window of the plan's blocks, in DRAM, no file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "plan/stn_ooc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Consecutive blocks along r a rate measurement runs, each reading what the one before left, as
 * in the engine; the first only once, to start the others.  At most RATE_ROUNDS rounds. */
#define RATE_BLOCKS 3
#define RATE_ROUNDS 200
/* A block of a longer sweep runs its last RATE_STEPS steps only (the rate is per cell; a sweep of
 * 2^40 steps, an open horizon's, would never end) */
#define RATE_STEPS 64

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The extent of the measured window in dimension g: `k` blocks, the skew of their bt steps and
 * the halo, at most the grid. */
static int64_t window_extent(const stn_ooc_dim *g, int64_t k, int64_t bt) {
    if (g->b >= g->H - g->L)
        return g->n;
    int64_t w = k * g->b + bt * g->skew + g->rlo + g->rhi;
    return w < g->n ? w : g->n;
}

/* Step t (1..T) of block k in dimension g of a window of `ext`: b wide, shifted by the skew as
 * the engine's skewed blocks are, inside the window's interior. */
static void block_range(const stn_ooc_dim *g, int64_t ext, int64_t k, int64_t T, int64_t t, int64_t *lo,
                        int64_t *hi) {
    if (g->b >= g->H - g->L) {
        *lo = g->L, *hi = g->H;
        return;
    }
    *lo = g->hlo + k * g->b + (T - t) * g->skew;
    *hi = *lo + g->b;
    if (*hi > ext - g->hhi)
        *hi = ext - g->hhi;
    if (*lo > *hi)
        *lo = *hi;
}

/* How long to measure: 1% of the run's kernel time at the rate measured so far, from RATE_MIN_SECONDS
 * to RATE_MAX_SECONDS.  At 80 ms the rate of one plan came out anywhere from 1.0 to 1.9 G cells/s from
 * one start to the next (heat3d 512x512x256 blocks on the 2-core VM: a slow spell of a tenth of a
 * second takes most rounds); at 250 ms, 1.77 to 1.86 in five starts. */
#define RATE_MIN_SECONDS 0.08
#define RATE_MAX_SECONDS 0.3
static double rate_seconds(const stn_run *r, double cells, double t) {
    double run = (double)stn_grid_cells(r->o) * (double)r->o->steps,
           s = cells > 0 && t > 0 ? run / (cells / t) : 0;
    s *= 0.01;
    return s < RATE_MIN_SECONDS ? RATE_MIN_SECONDS : s > RATE_MAX_SECONDS ? RATE_MAX_SECONDS : s;
}

/* The window's x: the grid's rows, narrowed only where the arrays would take more than the larger of
 * STN_RATE_MAX_BYTES and 4 x the last-level cache, or the budget (then as wide as that allows, never
 * narrower than the halo and 64 cells); the reuse between steps is along y and z, x only streams. */
static int64_t rate_width(const stn_run *r, const int64_t ext[3], int narr) {
    const stn_program_desc *d = r->d;
    uint64_t rows = (uint64_t)ext[1] * (uint64_t)ext[2] * (uint64_t)narr * d->elem_size;
    int64_t minx = d->halo_lo[0] + d->halo_hi[0] + 64;
    uint64_t cap = stn_mem_block_rate(r->mem_budget, r->hw.l3.value);
    if (rows == 0 || (uint64_t)ext[0] * rows <= cap)
        return ext[0];
    int64_t x = (int64_t)(cap / rows);
    return x > minx ? x : minx < ext[0] ? minx : ext[0];
}

int stn_ooc_block_rate(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2], double *cps,
                       char *source, size_t n) {
    const stn_program_desc *d = r->d;
    const stn_view *g = &r->view;
    int yb = p->strip != STN_STRIP_NONE;
    int64_t T = p->bt < 1 ? 1 : p->bt, ext[3] = {g->nx, g->ny, g->nz};
    ext[p->r.axis] = window_extent(&p->r, RATE_BLOCKS, T);
    if (yb)
        ext[p->q.axis] = window_extent(&p->q, 1, T);
    /* every array the engine keeps: levels + 1 per state field, one per input */
    int narr = (int)stn_total_arrays(d);
    ext[0] = rate_width(r, ext, narr);
    stn_view v = {ext[0], ext[1], ext[2], ext[0], ext[0] * ext[1], 0, 0, 0, NULL};
    size_t bytes = (size_t)(ext[0] * ext[1] * ext[2]) * (size_t)d->elem_size;
    void **arr = calloc((size_t)narr + 1, sizeof *arr);
    const void **src = calloc((size_t)d->nsrc + 1, sizeof *src);
    void **dst = calloc((size_t)d->ndst + 1, sizeof *dst);
    int rc = arr && src && dst ? 0 : -ENOMEM;
    for (int k = 0; rc == 0 && k < narr; k++)
        if (!(arr[k] = stn_scratch_map(bytes))) /* (given back at once when unmapped: not left in the heap) */
            rc = -ENOMEM;
        else
            memset(arr[k], 0, bytes); /* every page touched now: no page fault is timed */
    double cells = 0, t = 0, rates[RATE_ROUNDS];
    int64_t blocks = 0;
    int nrates = 0;
    /* round 0 warms up (caches, the thread pool), untimed; then rounds for rate_seconds */
    for (int64_t round = 0; rc == 0 && round < RATE_ROUNDS && (round < 2 || t < rate_seconds(r, cells, t));
         round++) {
        double round_cells = cells, round_t = t;
        for (int64_t k = round ? 1 : 0; k < RATE_BLOCKS; k++)
            for (int64_t step = T > RATE_STEPS ? T - RATE_STEPS + 1 : 1; step <= T; step++) {
                /* each state field's levels rotate through its arrays, as in the engine's window */
                for (int i = 0, a = 0; i < d->nfields; i++) {
                    const stn_field_desc *fd = &d->fields[i];
                    int na = fd->kind == STN_FIELD_STATE ? fd->levels + 1 : 1;
                    if (fd->src_slot >= 0)
                        src[fd->src_slot] = arr[a + (na > 1 ? (step - 1) % na : 0)];
                    if (fd->prev_slot >= 0)
                        src[fd->prev_slot] = arr[a + (step + na - 2) % na];
                    if (fd->dst_slot >= 0)
                        dst[fd->dst_slot] = arr[a + step % na];
                    a += na;
                }
                stn_box b = {{d->halo_lo[0], d->halo_lo[1], d->halo_lo[2]},
                             {ext[0] - d->halo_hi[0], ext[1] - d->halo_hi[1], ext[2] - d->halo_hi[2]}};
                block_range(&p->r, ext[p->r.axis], k, T, step, &b.lo[p->r.axis], &b.hi[p->r.axis]);
                if (yb)
                    block_range(&p->q, ext[p->q.axis], 0, T, step, &b.lo[p->q.axis], &b.hi[p->q.axis]);
                double t0 = stn_now();
                int krc = stn_step(r, -1, &v, (const void *const *)src, dst, &b, tile);
                if (krc) {
                    for (int a = 0; a < narr; a++)
                        stn_scratch_unmap(arr[a], bytes);
                    free(arr);
                    free(src);
                    free(dst);
                    return krc;
                }
                if (round == 0)
                    continue;
                t += stn_now() - t0;
                double c = 1;
                for (int ax = 0; ax < 3; ax++)
                    c *= (double)(b.hi[ax] > b.lo[ax] ? b.hi[ax] - b.lo[ax] : 0);
                cells += c;
                blocks += step == T;
            }
        if (round > 0 && t > round_t)
            rates[nrates++] = (cells - round_cells) / (t - round_t);
    }
    for (int k = 0; arr && k < narr; k++)
        stn_scratch_unmap(arr[k], bytes);
    free(arr);
    free(src);
    free(dst);
    if (rc)
        return stn_error(rc, "out of memory measuring the compute rate of a block (%zu bytes an array)",
                         bytes);
    /* the median of the rounds: the upper quartile (used until 2026-11-28, against slow spells at startup)
     * was 1.2-1.6x the rate the loop's kernels kept (docs/benchmarks.md section 9), and the time model
     * predicted the long runs 1.1-1.6x short; a slow spell now errs on the safe side */
    qsort(rates, (size_t)nrates, sizeof *rates, cmp_double);
    int median = nrates >= 3;
    *cps = median ? rates[(nrates - 1) / 2] : t > 0 && cells > 0 ? cells / t : 0;
    snprintf(source, n,
             "measured at startup on the plan's blocks: %" PRId64 " block%s of %" PRId64
             " steps%s in a %" PRId64 "x%" PRId64 "x%" PRId64 " window, %.3f s, %s %d round%s",
             blocks, blocks == 1 ? "" : "s", T, T > RATE_STEPS ? " (their last 64)" : "", ext[0], ext[1],
             ext[2], t, median ? "the median of" : "over", nrates, nrates == 1 ? "" : "s");
    return 0;
}
