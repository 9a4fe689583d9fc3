/*
 * iblock.c -- Blk-Tune's step 1 (paper, section V.A): the iBlock, the cache block all threads
 * work through together.  ix = nx (the rows stay whole, as the IO needs them); iy and iz
 * minimise
 *
 *     | k * nx * iy * iz * Esz - Sc2 * Nc |                                   (eq. 1a)
 *
 * with k the arrays a step touches (every level of every state field, and the inputs), Sc2 the
 * L2 cache of one core and Nc the threads (at most the cores), iz a multiple of Nc (each thread
 * takes iz / Nc planes of it) and the iBlock inside the interior.  In 2d there is no z: iy is
 * the multiple of Nc.  Ties go to the squarer iBlock (see docs/design/004-blk-tune.md).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "plan/stn_ooc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

void stn_iblock(const stn_program_desc *d, const int64_t size[3], const stn_hw *hw, int64_t threads,
                int64_t out[2]) {
    int64_t nc = threads < 1 ? 1 : threads;
    int64_t cores = hw->cores.value ? (int64_t)hw->cores.value : nc;
    uint64_t target = hw->l2.value * (uint64_t)(nc < cores ? nc : cores);
    uint64_t row = stn_total_arrays(d) * (uint64_t)size[0] * (uint64_t)d->elem_size; /* k nx Esz */
    int64_t ny = size[1] - d->halo_lo[1] - d->halo_hi[1], nz = size[2] - d->halo_lo[2] - d->halo_hi[2];
    ny = ny < 1 ? 1 : ny;
    nz = d->ndim == 3 && nz > 1 ? nz : 1;
    /* 3d: iz runs over the multiples of Nc (all of nz when it is shorter), iy free;
     * 2d: iy runs over the multiples of Nc, iz = 1 */
    int64_t *step = d->ndim == 3 ? &out[1] : &out[0], *free_ = d->ndim == 3 ? &out[0] : &out[1];
    int64_t step_n = d->ndim == 3 ? nz : ny, free_n = d->ndim == 3 ? ny : 1;
    uint64_t best = UINT64_MAX;
    int64_t best_s = 1, best_f = 1, best_gap = INT64_MAX;
    for (int64_t s = nc <= step_n ? nc : step_n; s <= step_n; s += nc) {
        uint64_t per = row * (uint64_t)s;
        int64_t f0 = (int64_t)(target / per);
        for (int64_t f = f0; f <= f0 + 1; f++) {
            int64_t fc = f < 1 ? 1 : f > free_n ? free_n : f;
            uint64_t dev = absdiff(per * (uint64_t)fc, target);
            int64_t gap = llabs(s / nc - fc); /* a thread's share: squarer streams better */
            if (dev < best || (dev == best && gap < best_gap))
                best = dev, best_s = s, best_f = fc, best_gap = gap;
        }
        if (per > target && s >= nc)
            break; /* larger iz only moves further away */
    }
    *step = best_s;
    *free_ = best_f;
}

void stn_iblock_choose(const stn_run *r, int builtin, stn_iblock_pick *ib) {
    int64_t nc = r->hw.described ? (int64_t)r->hw.cores.value : stn_omp_max_threads();
    const stn_tuned_desc *tu = r->d->tuned;
    if (r->o->iblock[0] > 0) {
        ib->iblk[0] = r->o->iblock[0];
        ib->iblk[1] = r->o->iblock[1];
        snprintf(ib->source, sizeof ib->source, "--iblock");
    } else if (tu && builtin) {
        ib->iblk[0] = tu->iblock[0];
        ib->iblk[1] = tu->iblock[1];
        snprintf(ib->source, sizeof ib->source, "built in: tuned offline for %s", tu->machine);
    } else {
        stn_iblock(r->d, r->o->size, &r->hw, nc, ib->iblk);
        snprintf(ib->source, sizeof ib->source, "eq. 1a: %" PRId64 " threads, L2 %" PRIu64 " bytes", nc,
                 r->hw.l2.value);
    }
    /* a thread's share: iy x iz / Nc in 3d, iy / Nc rows in 2d */
    ib->tile[0] = r->d->ndim == 3 ? ib->iblk[0] : (ib->iblk[0] + nc - 1) / nc;
    ib->tile[1] = r->d->ndim == 3 ? (ib->iblk[1] + nc - 1) / nc : 1;
    if (r->d->ndim == 2)
        ib->iblk[1] = -1;
}

int stn_tuned_wanted(const stn_run *r) {
    const stn_opts *o = r->o;
    return r->d->tuned && !o->have_block && o->tuner == STN_TUNER_NONE && o->rank == STN_RANK_NONE &&
           o->iblock[0] <= 0 && !o->machine;
}

int stn_tuned_applies(const stn_run *r) {
    const stn_opts *o = r->o;
    const stn_tuned_desc *tu = r->d->tuned;
    if (!stn_tuned_wanted(r))
        return 0;
    for (int k = 0; k < 3; k++)
        if (o->size[k] != tu->size[k])
            return 0;
    return o->schedule < 0 || strcmp(stn_schedule_names[o->schedule], tu->schedule) == 0;
}

/* No processor has more last-level cache a core than STN_LLC_CORE_MAX: a larger figure is a virtual machine
 * shown its host's whole cache (this VM on 2026-11-29: an L3 of 260 MiB for 2 cores, shared with the host's
 * other tenants), of which the tiles get STN_LLC_CORE_SHARE a core.  heat3d 512^3 in-core, 100 steps, three
 * alternated rounds on that VM: 1.08-1.11e9 cells/s with the 150 x 150 tiles the whole 260 MiB gave,
 * 1.25-1.31e9 with 32 x 32 (16 MiB a core), 1.29-1.35e9 with 64 x 64 (37 MiB a core). */
#define STN_LLC_CORE_MAX ((uint64_t)64 << 20)
#define STN_LLC_CORE_SHARE ((uint64_t)32 << 20)

void stn_time_window(const stn_hw *hw, uint64_t row_bytes, uint64_t arrays, int64_t skew, int two_dims,
                     stn_time_window_t *w) {
    uint64_t cores = hw->cores.value > 0 ? (uint64_t)hw->cores.value : 1;
    w->cache = hw->l3.value ? hw->l3.value : hw->l2.value * hw->cores.value;
    w->reported = w->cache;
    if (w->cache > STN_LLC_CORE_MAX * cores)
        w->cache = STN_LLC_CORE_SHARE * cores;
    w->skew = skew < 1 ? 1 : skew;
    w->rows = (double)w->cache / ((double)row_bytes * (double)(arrays ? arrays : 1));
    w->side = two_dims ? sqrt(w->rows) : w->rows;
    int64_t bt = (int64_t)(w->side / (4.0 * (double)w->skew)); /* the skew takes half the side */
    w->bt = bt > 16 ? 16 : bt;
    w->width = (int64_t)w->side - 2 * w->skew * w->bt;
}

void stn_time_window_cache(const stn_time_window_t *w, int64_t cores, char *out, size_t n) {
    if (w->cache == w->reported)
        snprintf(out, n, "the last-level cache (%llu bytes)", (unsigned long long)w->cache);
    else
        snprintf(
            out, n,
            "%llu bytes, %llu MiB a core of the last-level cache: hwloc reports %llu bytes for %lld cores, "
            "more a core than any processor has (a virtual machine shown its host's cache)",
            (unsigned long long)w->cache, (unsigned long long)(STN_LLC_CORE_SHARE >> 20),
            (unsigned long long)w->reported, (long long)cores);
}

void stn_ooc_sub_tiles(const stn_run *r, const stn_ooc_plan *p, uint64_t arrays, int64_t w[2], int64_t *t,
                       char *source, size_t n) {
    const int64_t *f = r->o->time_tiles;
    int64_t big = INT64_MAX / 4;
    w[0] = w[1] = big, *t = 0;
    if (f[2] < 0) {
        snprintf(source, n, "off (--time-tiles off)");
        return;
    }
    if (f[2] > 0) { /* by,bz,bt: by is y's, bz z's */
        w[0] = p->r.axis == 1 ? f[0] : f[1];
        w[1] = p->q.axis == 1 ? f[0] : f[1];
        *t = f[2];
        snprintf(source, n, "--time-tiles");
    } else {
        int two = p->q.n > 1 && p->q.H > p->q.L; /* tiles in q too (3d) */
        stn_time_window_t tw;
        stn_time_window(&r->hw, (uint64_t)p->row_bytes, arrays, p->r.skew > p->q.skew ? p->r.skew : p->q.skew,
                        two, &tw);
        int64_t s = tw.skew, ts = tw.bt < 1 ? 1 : tw.bt, width = (int64_t)tw.side - 2 * s * ts;
        if (width < 1) {
            snprintf(source, n, "off: no tile fits the cache (%llu bytes)", (unsigned long long)tw.cache);
            return;
        }
        *t = ts;
        w[0] = w[1] = width;
        if (two && p->r.b + 2 * s * ts < (int64_t)tw.side) { /* a thin block: whole across r */
            w[0] = p->r.b;
            int64_t wq = (int64_t)(tw.rows / (double)(p->r.b + 2 * s * ts)) - 2 * s * ts;
            w[1] = wq < 1 ? 1 : wq;
        }
        int k = snprintf(source, n, "auto: one tile's window for bt steps in ");
        stn_time_window_cache(&tw, r->hw.cores.value, source + k, n - (size_t)k);
    }
    if (*t > p->bt)
        *t = p->bt;
    if (p->r.wrap) /* a wrapped sweep's tiles span q (compute_block) */
        w[1] = big;
}
