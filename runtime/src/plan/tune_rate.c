/* tune_rate.c -- measuring a plan's compute rate on its own blocks (stn_ooc_block_rate), for
 * Blk-Tune's finalists (tune.c, pick_finalist) and the time model of the run's plan: the kernels on a
 * window of the plan's blocks, in DRAM, no file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "plan/stn_ooc.h"

#include "io/stn_probe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Consecutive blocks along r a rate measurement runs, each reading what the one before left, as
 * in the engine; the first only once, to start the others: at least RATE_BLOCKS, more where the window
 * would fit in the last-level cache (rate_blocks).  At most RATE_ROUNDS rounds. */
#define RATE_BLOCKS 3
#define RATE_BLOCKS_MAX 64
#define RATE_ROUNDS 200
/* A block of a longer sweep runs its last RATE_STEPS steps only (the rate is per cell; a sweep of
 * 2^40 steps, an open horizon's, would never end) */
#define RATE_STEPS 64

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
 * second takes most rounds); at 250 ms, 1.77 to 1.86 in five starts.
 * The plan's measurement under IO (a load: plan_share, whose rates make the prediction) runs each kind
 * for 2% of it, up to RATE_SHARE_MAX_SECONDS: its share is the ratio of two medians of a few rounds each.
 * At 1% (190 ms a kind, heat3d 1024x512x512, 128 steps, 128 MiB) the share came out 0.71-0.93 in six
 * starts and the predicted loop 20.9-27.2 s for loops of 22.0-25.9 s; at 2% (440 ms), 0.84-0.93 and
 * 20.7-23.4 s for 21.5-25.1 s in eight, for half a second more of startup. */
#define RATE_MIN_SECONDS 0.08
#define RATE_MAX_SECONDS 0.3
#define RATE_SHARE_FRACTION 0.02
#define RATE_SHARE_MAX_SECONDS 1.0
static double rate_seconds(const stn_run *r, double cells, double t, int under_io) {
    double run = (double)stn_grid_cells(r->o) * (double)r->o->steps,
           s = cells > 0 && t > 0 ? run / (cells / t) : 0,
           hi = under_io ? RATE_SHARE_MAX_SECONDS : RATE_MAX_SECONDS;
    s *= under_io ? RATE_SHARE_FRACTION : 0.01;
    return s < RATE_MIN_SECONDS ? RATE_MIN_SECONDS : s > hi ? hi : s;
}

/* The window's x: the grid's rows, narrowed only where the rows' pages would take more than the larger of
 * STN_RATE_MAX_BYTES and 4 x the last-level cache, or the budget (then to the pages that fit: the rows keep
 * the engine's stride, window_view; never narrower than the halo and 64 cells); the reuse between steps is
 * along y and z, x only streams. */
static int64_t rate_width(const stn_run *r, const stn_ooc_plan *p, const int64_t ext[3], int narr) {
    const stn_program_desc *d = r->d;
    int64_t esz = d->elem_size, minx = d->halo_lo[0] + d->halo_hi[0] + 64;
    uint64_t nrows = (uint64_t)ext[1] * (uint64_t)ext[2] * (uint64_t)narr;
    uint64_t row = (uint64_t)(p->row_bytes >= ext[0] * esz ? p->row_bytes : ext[0] * esz);
    uint64_t cap = stn_mem_block_rate(r->mem_budget, r->hw.l3.value);
    if (nrows == 0 || nrows * row <= cap)
        return ext[0];
    uint64_t per = cap / nrows; /* the bytes a row may touch: whole pages of it */
    int64_t x = (int64_t)((per >= 4096 ? per / 4096 * 4096 : per) / (uint64_t)esz);
    return x > minx ? (x < ext[0] ? x : ext[0]) : minx < ext[0] ? minx : ext[0];
}

/* The blocks the window holds: RATE_BLOCKS, or as many more as make it twice the last-level cache (within
 * the budget's cap of rate_width and the grid).  In the engine a block's new slices come from DRAM (the
 * device put them there): a window the cache holds, its blocks run over and over, measured heat3d's
 * blocks of 8 x 4 planes for 13 steps (a 1024x39x19 window) at 1.94 G cells/s, where the loop kept 1.30,
 * and Blk-Tune chose them over 8 x 104 for 32 steps, which ran 1.5x faster (docs/benchmarks.md, section 9).
 */
static int64_t rate_blocks(const stn_run *r, const stn_ooc_plan *p, int64_t T, int64_t ext[3], int narr) {
    const stn_ooc_dim *g = &p->r;
    if (g->b >= g->H - g->L) /* (one block: the whole extent) */
        return RATE_BLOCKS;
    int64_t esz = r->d->elem_size, k = RATE_BLOCKS;
    uint64_t row = (uint64_t)(p->row_bytes >= ext[0] * esz ? p->row_bytes : ext[0] * esz);
    uint64_t per = (uint64_t)g->b * row * (uint64_t)narr * (uint64_t)(ext[1] * ext[2] / ext[g->axis]);
    uint64_t want = 2 * r->hw.l3.value, cap = stn_mem_block_rate(r->mem_budget, r->hw.l3.value);
    uint64_t have = row * (uint64_t)narr * (uint64_t)ext[1] * (uint64_t)ext[2]; /* (RATE_BLOCKS') */
    while (per > 0 && k < RATE_BLOCKS_MAX && have < want && have + per <= cap &&
           window_extent(g, k, T) < g->n) {
        k++;
        have += per;
    }
    return k;
}

/* The window's view with the engine's strides (stn_ooc_view): rows of the plan's row_bytes (padded for
 * O_DIRECT), planes a ring of rows apart (y-blocked: 2 x ring_bytes, the ring mapped twice) or a plane of
 * rows.  The kernels' speed depends on them, not only on the cells: a 27-point box on rows of 8 KiB ran at
 * 0.31 G cells/s against 0.47 on rows of 7936 bytes (the rows a power of two apart share the L1's sets). */
static stn_view window_view(const stn_ooc_plan *p, const int64_t ext[3], int64_t esz) {
    int64_t sy = p->row_bytes >= ext[0] * esz ? p->row_bytes / esz : ext[0], sz = sy * ext[1];
    if (p->strip != STN_STRIP_NONE && 2 * (int64_t)p->ring_bytes / esz > sz)
        sz = 2 * (int64_t)p->ring_bytes / esz;
    return (stn_view){ext[0], ext[1], ext[2], sy, sz, 0, 0, 0, NULL};
}

/* Every row's ext[0] cells written, as the engine's reads fill them: the pages the kernels use touched
 * (the rest of a row's stride and of a plane's stride stays unmapped memory). */
static void touch_rows(void *a, const stn_view *v, int64_t esz) {
    for (int64_t z = 0; z < v->nz; z++)
        for (int64_t y = 0; y < v->ny; y++)
            memset((char *)a + (size_t)((z * v->sz + y * v->sy) * esz), 0, (size_t)(v->nx * esz));
}

/* One measurement: the window's arrays, the slots they fill, and what the timed steps did. */
typedef struct rate_run {
    const stn_run *r;
    const stn_ooc_plan *p;
    const int64_t *tile;
    int yb;
    int64_t T, ext[3], sw[2], ts; /* the window; the engine's cache tiles (stn_ooc_sub_tiles) */
    int64_t nblocks;              /* the window's blocks along r (rate_blocks) */
    stn_view v;
    void **arr;
    const void **src;
    void **dst;
    double cells, t;   /* timed, alone */
    stn_io_load *load; /* the IO load of the rounds under IO (NULL: none) */
    int under;         /* this round runs under it: its steps' cells and seconds go to ucells, ut */
    double ucells, ut; /* timed under IO, the load's servicing between steps included */
    double io_bytes,
        io_seconds; /* what the load moved in those rounds, from its first submission to its drain */
} rate_run;

/* Each state field's levels rotate through its arrays at step `step`, as in the engine's window. */
static void bind_step(rate_run *m, int64_t step) {
    const stn_program_desc *d = m->r->d;
    for (int i = 0, a = 0; i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        int na = fd->kind == STN_FIELD_STATE ? fd->levels + 1 : 1;
        if (fd->src_slot >= 0)
            m->src[fd->src_slot] = m->arr[a + (na > 1 ? (step - 1) % na : 0)];
        if (fd->prev_slot >= 0)
            m->src[fd->prev_slot] = m->arr[a + (step + na - 2) % na];
        if (fd->dst_slot >= 0)
            m->dst[fd->dst_slot] = m->arr[a + step % na];
        a += na;
    }
}

/* Tile i of m along dimension g at step t: the block's range [lo, hi) cut at the engine's edges
 * (stn_ooc_sub_edge: w apart, moving down by the skew a step; a blocked dimension's range already
 * moves with it). */
static void tile_range(const stn_ooc_dim *g, int64_t i, int64_t m, int64_t w, int64_t t, int64_t *lo,
                       int64_t *hi) {
    int64_t base = g->b >= g->H - g->L ? *lo - (t - 1) * g->skew : *lo, a = *lo, b = *hi;
    int64_t e0 = i <= 0 ? a : base + i * w, e1 = i + 1 >= m ? b : base + (i + 1) * w;
    *lo = e0 < a ? a : e0 > b ? b : e0;
    *hi = e1 < a ? a : e1 > b ? b : e1;
}

/* The tiles a dimension's block is cut into: its width over w, rounded up. */
static int64_t tile_count(const stn_ooc_dim *g, int64_t w) {
    int64_t width = g->b >= g->H - g->L ? g->H - g->L : g->b;
    return w < 1 || width <= w ? 1 : (width + w - 1) / w;
}

/* Step `step` of tile (ir, iq) of block k; timed (cells and seconds) unless `warm`. */
static int tile_step(rate_run *m, int64_t k, int64_t step, int64_t ir, int64_t mr, int64_t iq, int64_t mq,
                     int warm) {
    const stn_program_desc *d = m->r->d;
    const stn_ooc_plan *p = m->p;
    const int64_t *ext = m->ext;
    int ra = p->r.axis, qa = p->q.axis;
    bind_step(m, step);
    stn_box b = {{d->halo_lo[0], d->halo_lo[1], d->halo_lo[2]},
                 {ext[0] - d->halo_hi[0], ext[1] - d->halo_hi[1], ext[2] - d->halo_hi[2]}};
    block_range(&p->r, ext[ra], k, m->T, step, &b.lo[ra], &b.hi[ra]);
    if (m->yb)
        block_range(&p->q, ext[qa], 0, m->T, step, &b.lo[qa], &b.hi[qa]);
    tile_range(&p->r, ir, mr, m->sw[0], step, &b.lo[ra], &b.hi[ra]);
    tile_range(&p->q, iq, mq, m->sw[1], step, &b.lo[qa], &b.hi[qa]);
    double t0 = stn_now();
    /* under IO the queue is serviced between steps, as the engine polls it: its time is the kernels' too */
    int rc = m->under ? stn_io_load_service(m->load) : 0;
    if (rc == 0)
        rc = stn_step(m->r, -1, &m->v, (const void *const *)m->src, m->dst, &b, m->tile);
    if (rc || warm)
        return rc;
    *(m->under ? &m->ut : &m->t) += stn_now() - t0;
    double c = 1;
    for (int ax = 0; ax < 3; ax++)
        c *= (double)(b.hi[ax] > b.lo[ax] ? b.hi[ax] - b.lo[ax] : 0);
    *(m->under ? &m->ucells : &m->cells) += c;
    return 0;
}

/* Block k's last (at most RATE_STEPS) steps in the engine's order (its compute_block): the steps in
 * phases of ts, each phase tile by tile, q outer. */
static int run_block(rate_run *m, int64_t k, int warm) {
    const stn_ooc_plan *p = m->p;
    int alg1 = p->schedule == STN_SCHED_ALG1; /* (its widened steps are not cut) */
    int64_t mr = alg1 ? 1 : tile_count(&p->r, m->sw[0]),
            mq = alg1 || p->r.wrap ? 1 : tile_count(&p->q, m->sw[1]);
    int64_t T = m->T, ts = alg1 || m->ts < 1 ? T : m->ts, first = T > RATE_STEPS ? T - RATE_STEPS : 0;
    int rc = 0;
    for (int64_t t0 = first; rc == 0 && t0 < T; t0 += ts)
        for (int64_t iq = 0; rc == 0 && iq < mq; iq++)
            for (int64_t ir = 0; rc == 0 && ir < mr; ir++)
                for (int64_t step = t0 + 1; rc == 0 && step <= T && step <= t0 + ts; step++)
                    rc = tile_step(m, k, step, ir, mr, iq, mq, warm);
    return rc;
}

/* The timed rounds: round 0 warms up (caches, the thread pool), untimed; then rounds alone for rate_seconds
 * (and as long under a load), at least three (their rates into alone[]: a median, so that one round in a slow
 * spell of the machine does not make the rate; with two, a bench run of 2026-11-29 took 0.28e9 cells/s for
 * kernels that ran at 1.8e9 in its loop), and with a load as many under IO between them (under[]), the two
 * kinds alternating so that whatever else slows the machine meanwhile weighs on both.
 * *blocks: the blocks timed.  0, or the kernels' or the load's error. */
static int run_rounds(rate_run *m, double *alone, int *na, double *under, int *nu, int64_t *blocks) {
    int rc = 0;
    *na = *nu = 0;
    for (int64_t round = 0; rc == 0 && *na + *nu < RATE_ROUNDS; round++) {
        /* (with a load, as long again under it: this second measurement of the plan makes its prediction, the
         * tuner's first one's rounds pooled with its own) */
        double rs = rate_seconds(m->r, m->cells, m->t, m->load != NULL);
        int more_alone = *na < 3 || m->t < rs, more_under = m->load && (*nu < 3 || m->ut < rs);
        if (round > 0 && !more_alone && !more_under)
            break;
        m->under = round > 0 && m->load && (round % 2 == 0 || !more_alone) && more_under;
        if (m->under && (rc = stn_io_load_begin(m->load)) != 0)
            break;
        double c0 = m->under ? m->ucells : m->cells, t0 = m->under ? m->ut : m->t;
        for (int64_t k = round ? 1 : 0; rc == 0 && k < m->nblocks; k++) {
            rc = run_block(m, k, round == 0);
            *blocks += round > 0;
        }
        if (m->under) {
            uint64_t bytes;
            double seconds;
            int rc2 = stn_io_load_end(m->load, &bytes, &seconds);
            rc = rc ? rc : rc2;
            m->io_bytes += (double)bytes, m->io_seconds += seconds;
        }
        double c = (m->under ? m->ucells : m->cells) - c0, t = (m->under ? m->ut : m->t) - t0;
        if (round > 0 && t > 0) {
            if (m->under)
                under[(*nu)++] = c / t;
            else
                alone[(*na)++] = c / t;
        }
    }
    m->under = 0;
    return rc;
}

/* The measurement's source (stn_ooc_block_rate_under): the window, the tiles, the rounds, and under IO. */
static void rate_source(const rate_run *m, int64_t blocks, int na, int npool, double under_cps, int nu,
                        double share, const char *load_how, char *source, size_t n) {
    char tiles[128] = "no cache tiles", w[2][24];
    for (int k = 0; k < 2; k++) /* (a width past the block: the block's, "whole") */
        if (m->sw[k] >= INT64_MAX / 4)
            snprintf(w[k], sizeof w[k], "whole");
        else
            snprintf(w[k], sizeof w[k], "%" PRId64, m->sw[k]);
    if (m->ts > 0)
        snprintf(tiles, sizeof tiles, "the loop's cache tiles of %s x %s for %" PRId64 " steps", w[0], w[1],
                 m->ts);
    char pool[96] = "";
    if (npool > 0)
        snprintf(pool, sizeof pool, " and %d of the plan's first measurement, earlier", npool);
    int median = na + npool >= 3,
        k = snprintf(source, n,
                     "measured at startup on the plan's blocks: %" PRId64 " block%s of %" PRId64
                     " steps%s in a %" PRId64 "x%" PRId64 "x%" PRId64 " window, %s, %.3f s, %s %d round%s%s",
                     blocks, blocks == 1 ? "" : "s", m->T, m->T > RATE_STEPS ? " (their last 64)" : "",
                     m->ext[0], m->ext[1], m->ext[2], tiles, m->t, median ? "the median of" : "over", na,
                     na == 1 ? "" : "s", pool);
    if (nu > 0 && k > 0 && (size_t)k < n)
        snprintf(
            source + k, n - (size_t)k,
            "; under %s moving %.0f MB/s, %.3g cells/s (the median of %d rounds between those, %.3f s): a "
            "share of %.3f",
            load_how, m->io_seconds > 0 ? m->io_bytes / m->io_seconds / 1e6 : 0.0, under_cps, nu, m->ut,
            share);
}

/* m's window for plan p (m->r, p set): its extent, blocks, cache tiles and view; the bytes of one array. */
static size_t window_setup(rate_run *m, int *narr) {
    const stn_run *r = m->r;
    const stn_ooc_plan *p = m->p;
    const stn_view *g = &r->view;
    int64_t *ext = m->ext;
    ext[0] = g->nx, ext[1] = g->ny, ext[2] = g->nz;
    m->yb = p->strip != STN_STRIP_NONE;
    m->T = p->bt < 1 ? 1 : p->bt;
    ext[p->r.axis] = window_extent(&p->r, RATE_BLOCKS, m->T);
    if (m->yb)
        ext[p->q.axis] = window_extent(&p->q, 1, m->T);
    /* every array the engine keeps: levels + 1 per state field, one per input */
    *narr = (int)stn_total_arrays(r->d);
    m->nblocks = rate_blocks(r, p, m->T, ext, *narr);
    ext[p->r.axis] = window_extent(&p->r, m->nblocks, m->T);
    ext[0] = rate_width(r, p, ext, *narr);
    char how[160]; /* (the engine reports it) */
    stn_ooc_sub_tiles(r, p, (uint64_t)*narr, m->sw, &m->ts, how, sizeof how);
    m->v = window_view(p, ext, r->d->elem_size);
    return (size_t)((ext[2] - 1) * m->v.sz + ext[1] * m->v.sy) * (size_t)r->d->elem_size;
}

uint64_t stn_ooc_rate_bytes(const stn_run *r, const stn_ooc_plan *p) {
    rate_run m = {.r = r, .p = p};
    int narr;
    (void)window_setup(&m, &narr);
    /* the rows' pages, touched (touch_rows); the rest of a plane's stride stays unmapped */
    return (uint64_t)narr * (uint64_t)m.ext[1] * (uint64_t)m.ext[2] * (uint64_t)m.v.sy *
           (uint64_t)r->d->elem_size;
}

int stn_ooc_block_rate(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2], double *cps,
                       stn_rate_rounds *rounds, char *source, size_t n) {
    return stn_ooc_block_rate_under(r, p, tile, NULL, "", NULL, cps, NULL, rounds, source, n);
}

/* The plan a measurement's rounds timed (stn_rate_rounds.plan). */
static void plan_key(const stn_ooc_plan *p, int64_t key[5]) {
    key[0] = p->r.axis, key[1] = p->r.b, key[2] = p->q.b, key[3] = p->bt, key[4] = p->strip;
}

/* The median of the rounds alone, `prior`'s of the same plan with them (*npool: how many of those). */
static double pooled_median(const stn_ooc_plan *p, const stn_rate_rounds *prior, const double *alone, int na,
                            int *npool) {
    double all[STN_RATE_POOL + RATE_ROUNDS];
    int64_t key[5];
    plan_key(p, key);
    int k = 0;
    if (prior && prior->n > 0 && memcmp(prior->plan, key, sizeof key) == 0)
        for (int i = 0; i < prior->n && i < STN_RATE_POOL; i++)
            all[k++] = prior->cps[i];
    *npool = k;
    for (int i = 0; i < na; i++)
        all[k++] = alone[i];
    return stn_median(all, k);
}

int stn_ooc_block_rate_under(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2],
                             struct stn_io_load *load, const char *load_how, const stn_rate_rounds *prior,
                             double *cps, double *share, stn_rate_rounds *rounds, char *source, size_t n) {
    const stn_program_desc *d = r->d;
    rate_run m = {.r = r, .p = p, .tile = tile, .load = load};
    int narr;
    size_t bytes = window_setup(&m, &narr);
    void **arr = m.arr = calloc((size_t)narr + 1, sizeof *arr);
    m.src = calloc((size_t)d->nsrc + 1, sizeof *m.src);
    m.dst = calloc((size_t)d->ndst + 1, sizeof *m.dst);
    int rc = arr && m.src && m.dst ? 0 : -ENOMEM;
    for (int k = 0; rc == 0 && k < narr; k++)
        if (!(arr[k] = stn_scratch_map(bytes))) /* (given back at once when unmapped: not left in the heap) */
            rc = -ENOMEM;
        else
            touch_rows(arr[k], &m.v, d->elem_size); /* every page the kernels use: no page fault is timed */
    double alone[RATE_ROUNDS], under[RATE_ROUNDS];
    int64_t blocks = 0;
    int na = 0, nu = 0, krc = rc == 0 ? run_rounds(&m, alone, &na, under, &nu, &blocks) : 0;
    for (int k = 0; arr && k < narr; k++)
        stn_scratch_unmap(arr[k], bytes);
    free(arr);
    free(m.src);
    free(m.dst);
    if (krc)
        return krc;
    if (rc)
        return stn_error(rc, "out of memory measuring the compute rate of a block (%zu bytes an array)",
                         bytes);
    /* the median of the rounds: the upper quartile (used until 2026-11-28, against slow spells at startup)
     * was 1.2-1.6x the rate the loop's kernels kept (docs/benchmarks.md section 9), and the time model
     * predicted the long runs 1.1-1.6x short; a slow spell now errs on the safe side */
    double own = na >= 3 ? stn_median(alone, na) : m.t > 0 && m.cells > 0 ? m.cells / m.t : 0;
    int npool = 0;
    *cps = na >= 3 ? pooled_median(p, prior, alone, na, &npool) : own;
    double ucps = nu >= 3 ? stn_median(under, nu) : m.ut > 0 ? m.ucells / m.ut : 0, f = 0;
    if (nu > 0 && own > 0) { /* (against the rounds alone between them; as the probe's: in [0.05, 1]) */
        f = ucps / own;
        f = !(f > 0.05) ? 0.05 : f > 1 ? 1 : f;
    }
    if (share)
        *share = f;
    if (rounds) { /* (alone[] is sorted now: more than STN_RATE_POOL, evenly spaced through it, the median
                     kept) */
        plan_key(p, rounds->plan);
        rounds->n = na < STN_RATE_POOL ? na : STN_RATE_POOL;
        for (int i = 0; i < rounds->n; i++)
            rounds->cps[i] =
                alone[na <= STN_RATE_POOL ? i : (int)(((int64_t)2 * i + 1) * na / (2 * STN_RATE_POOL))];
    }
    rate_source(&m, blocks, na, npool, ucps, nu, f, load_how, source, n);
    return 0;
}
