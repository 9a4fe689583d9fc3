/* tune.c -- Blk-Tune's steps 2 and 3: choosing the out-of-core blocks (by, bz, bt, strip) for a
 * problem and a DRAM budget, and the run's plan (built in, --block, or a tuner).
 *
 * The tuners weigh plans with the exact IO model (stn_ooc_predict), the same function the report
 * sets against the engine's counters, so they minimise exactly what the engine will do; and the
 * DRAM a plan needs is stn_ooc_make_plan's mem_bytes, every buffer the engine allocates.  No
 * engine is involved: runtime/tests/test_tune.c runs the tuners on their own.
 *   blk    the global minimum, weighing far fewer plans than brute force (tune_blk);
 *   brute  every feasible combination, for checking blk;
 *   naive  the paper's Naive-Tune (section VI.B).
 * docs/design/004-blk-tune.md records the decisions and their measurements. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"
#include "io/stn_hdf5.h"
#include "plan/stn_ooc.h"
#include "run/stn_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plan of problem pb for blocks by x bz, bt steps and the strip `strip`. */
static void plan_of(const stn_tune_problem *pb, int64_t by, int64_t bz, int64_t bt, int strip,
                    stn_ooc_plan *p) {
    stn_plan_request q = {pb->d,     {pb->size[0], pb->size[1], pb->size[2]},
                          pb->steps, pb->schedule,
                          by,        bz,
                          bt,        strip,
                          pb->align, pb->fold,
                          pb->held,  stn_ooc_in_place_inputs(pb->m)};
    stn_ooc_make_plan(&q, p);
}

/* The dimension whose block the tuners search: bz (q) of y-blocked tiles, else r (bz of whole
 * planes in 3d, by in 2d). */
static const stn_ooc_dim *searched(const stn_ooc_plan *p) {
    return p->strip != STN_STRIP_NONE ? &p->q : &p->r;
}

/* The cost of a plan: every byte the model says the run moves. */
static uint64_t plan_cost(const stn_tune_problem *pb, const stn_ooc_plan *p) {
    uint64_t rd, wr;
    stn_ooc_predict(pb->m, p, 0, &rd, &wr);
    return rd + wr;
}

/* The predicted seconds of a plan (0 without a time model). */
static double plan_time(const stn_tune_problem *pb, const stn_ooc_plan *p) {
    if (!pb->tm)
        return 0;
    stn_time_pred t;
    stn_ooc_predict_time(pb->m, p, 0, pb->tm, &t);
    return t.total;
}

/* Plans a first pass keeps near the least time, so that no second pass is needed. */
#define TUNE_NEAR 4096

/* A plan and its figures, for keeping the best of some order. */
typedef struct tune_pick {
    stn_ooc_plan p;
    uint64_t cost;
    double time;
    int ok;
} tune_pick;

typedef struct tune_best {
    tune_pick best;
    int64_t weighed;  /* plans evaluated */
    int64_t fitted;   /* of them, those within the budget */
    int pass;         /* with a time model: 1 finds the least time, 2 ranks the plans near it */
    double limit;     /* pass 2: the most predicted time a plan may take */
    tune_pick alt[3]; /* pass 1: the least time of whole planes [0] and of y-blocked tiles [1],
                       * and the fewest bytes [2] (pick_finalist measures them) */
    tune_pick *near;  /* pass 1: TUNE_NEAR plans within the tie of the least time so far (a plan
                       * within the tie of the final least time is within it of every least time
                       * before: all of them are here, unless it overflowed) */
    int nnear, overflow;
} tune_best;

/* The order without a time model: fewer bytes; then whole planes over y-blocked tiles (which copy
 * their z-strip out and back at every row: DRAM traffic the flash bytes do not show, measured in
 * docs/design/004-blk-tune.md); then less DRAM (the paper's step 3: leave the most room to the
 * system). */
static int fewer_bytes(const tune_pick *b, const stn_ooc_plan *p, uint64_t c) {
    int tiles = p->strip != STN_STRIP_NONE, best_tiles = b->p.strip != STN_STRIP_NONE;
    return !b->ok || c < b->cost ||
           (c == b->cost && (tiles < best_tiles || (tiles == best_tiles && p->mem_bytes < b->p.mem_bytes)));
}

static void keep(tune_pick *b, const stn_ooc_plan *p, uint64_t c, double t) {
    b->p = *p, b->cost = c, b->time = t, b->ok = 1;
}

/* Keep p if it fits and beats the best so far: without a time model, in fewer_bytes' order.  With
 * one, in two passes, so that the answer does not depend on the order plans are weighed in: the
 * least predicted time T; then, among the plans within STN_TUNE_TIE of T, fewer_bytes' order. */
static void consider(const stn_tune_problem *pb, tune_best *b, const stn_ooc_plan *p) {
    char why[256];
    b->weighed++;
    b->fitted += p->mem_bytes <= pb->budget;
    if (p->mem_bytes > pb->budget || stn_ooc_periodic_refusal(pb->d, p, why, sizeof why))
        return;
    double t = plan_time(pb, p);
    if (b->pass == 2 && t > b->limit)
        return;
    uint64_t c = plan_cost(pb, p);
    if (b->pass == 1) {
        tune_pick *fam = &b->alt[p->strip != STN_STRIP_NONE];
        if (!b->best.ok || t < b->best.time)
            keep(&b->best, p, c, t);
        if (!fam->ok || t < fam->time)
            keep(fam, p, c, t);
        if (fewer_bytes(&b->alt[2], p, c))
            keep(&b->alt[2], p, c, t);
        double limit = b->best.time * (1 + STN_TUNE_TIE);
        if (t > limit)
            return;
        if (b->nnear == TUNE_NEAR) { /* drop those the least time has left behind */
            int k = 0;
            for (int i = 0; i < b->nnear; i++)
                if (b->near[i].time <= limit)
                    b->near[k++] = b->near[i];
            b->nnear = k;
        }
        if (b->near && b->nnear < TUNE_NEAR)
            keep(&b->near[b->nnear++], p, c, t);
        else
            b->overflow = 1;
        return;
    }
    if (fewer_bytes(&b->best, p, c))
        keep(&b->best, p, c, t);
}

/* The problem, and the shortest y-range weighed (see tune_limits).  The searched block (bz in 3d,
 * by in 2d) is a multiple of the problem's tile depth, so that every kernel call gives each thread
 * whole tiles (paper eq. 2, constraints a-b), unless class_unit has to halve it. */
typedef struct tune_space {
    const stn_tune_problem *pb;
    int64_t by_min;
} tune_space;

/* The searched block of `m` units, clipped to the span (one block: anything wider is the same). */
static int64_t space_b(int64_t unit, int64_t m, int64_t span) {
    int64_t b = m * unit;
    return b < span ? b : span;
}

static void space_plan(const tune_space *t, int strip, int64_t b, int64_t bt, stn_ooc_plan *p);

/* The unit for one placement of the strip and one bt: the tile depth, halved until the thinnest
 * block of that kind fits.  Each (kind, bt) relaxes on its own: thin whole planes that allow one
 * sweep beat whole tiles that need two (docs/design/004-blk-tune.md). */
static int64_t class_unit(const tune_space *t, int strip, int64_t bt) {
    const stn_tune_problem *pb = t->pb;
    int64_t bmin = strip == STN_STRIP_NONE && pb->d->ndim == 2 ? t->by_min : 1;
    int64_t unit = pb->depth < 1 ? 1 : pb->depth;
    for (; unit > 1; unit /= 2) {
        stn_ooc_plan p;
        space_plan(t, strip, (bmin + unit - 1) / unit * unit, bt, &p);
        if (p.mem_bytes <= pb->budget)
            break;
    }
    return unit;
}

/* strip NONE: whole planes, b = bz (3d) or by (2d); else y-blocked tiles of by_min x b. */
static void space_plan(const tune_space *t, int strip, int64_t b, int64_t bt, stn_ooc_plan *p) {
    const stn_tune_problem *pb = t->pb;
    int64_t by = strip == STN_STRIP_NONE ? (pb->d->ndim == 3 ? pb->size[1] : b) : t->by_min;
    plan_of(pb, by, b, bt, strip, p);
}

/* y-ranges shorter than an efficient IO request are not weighed (unless nothing else fits): the
 * byte count cannot see their overhead.  by is also a multiple of the iBlock's iy (eq. 2, b). */
static void tune_limits(tune_space *t) {
    const stn_tune_problem *pb = t->pb;
    int64_t row = stn_grid_row_bytes(pb->size[0], pb->d->elem_size, pb->align);
    int64_t ny = pb->size[1], iy = pb->iy > 0 ? pb->iy : 1;
    t->by_min = (STN_TUNE_MIN_REQUEST + row - 1) / row;
    if (pb->d->ndim == 3)
        t->by_min = (t->by_min + iy - 1) / iy * iy;
    t->by_min = t->by_min < 1 ? 1 : t->by_min >= ny ? ny : t->by_min;
}

/* The next balanced bt: for each sweep count S, the smallest bt giving S sweeps (step 3). */
static int64_t next_bt(int64_t steps, int64_t bt) {
    int64_t S = (steps + bt - 1) / bt; /* sweeps with this bt */
    if (S <= 1)
        return 0;
    S--; /* one sweep fewer: the smallest bt that gives it */
    return (steps + S - 1) / S;
}

/* The balanced bt of bt's sweep count: the smallest bt that gives as many sweeps. */
static int64_t balanced_bt(int64_t steps, int64_t bt) {
    int64_t S = (steps + bt - 1) / bt;
    return (steps + S - 1) / S;
}

/* bt values weighed one by one before the search thins out: every horizon of up to ~16000 steps with
 * ref, of 256 with alg1 and alg2. */
#define STN_TUNE_BTS 256

/* The bt weighed after the n-th, `bt`: the next one (every bt, or ref's next balanced one), and past
 * STN_TUNE_BTS of them at least 1/16 more, up to the horizon itself (one sweep), so that any horizon
 * weighs a bounded number of them (about 900 for 2^63 steps). */
static int64_t after_bt(int64_t steps, int64_t bt, int every, int64_t n) {
    int64_t next = every ? (bt < steps ? bt + 1 : 0) : next_bt(steps, bt);
    if (n < STN_TUNE_BTS || next <= 0)
        return next;
    int64_t far = bt > steps - bt / 16 ? steps : bt + bt / 16;
    far = every ? far : balanced_bt(steps, far);
    return far > next ? far : next;
}

/* The unit of the searched block for one placement of the strip and one bt.  ref weighs one bt per
 * sweep count, so the unit is that of the count (its balanced bt), for blk and brute alike. */
static int64_t unit_of(const tune_space *t, int strip, int64_t bt) {
    const stn_tune_problem *pb = t->pb;
    int64_t steps = pb->steps < 1 ? 1 : pb->steps;
    return class_unit(t, strip, pb->schedule == STN_SCHED_REF ? balanced_bt(steps, bt) : bt);
}

/* y-blocked: the by (from by_min, in steps of iy, below ny) whose ring along y is the smallest,
 * for a bt and for one row of z-blocks or several (a spilled strip needs room for its writes
 * only with several).  The bytes of a y-blocked plan do not depend on by, and its DRAM only
 * through this ring, so this by is the best for every bz. */
static int64_t best_by(const tune_space *t, int strip, int64_t bt, int64_t bz, int64_t *ring) {
    const stn_tune_problem *pb = t->pb;
    int64_t iy = pb->iy > 0 ? pb->iy : 1, best = t->by_min;
    stn_ooc_plan p;
    plan_of(pb, best, bz, bt, strip, &p);
    *ring = p.ring_slices;
    for (int64_t by = best + iy; by < pb->size[1] && stn_ooc_ring_floor(&p, by) < *ring; by += iy) {
        stn_ooc_plan q; /* (the floor grows with by: no wider by has a smaller ring once it reaches it) */
        plan_of(pb, by, bz, bt, strip, &q);
        if (q.ring_slices < *ring)
            *ring = q.ring_slices, best = by;
    }
    return best;
}

/* With a time model, y-ranges up to this many times the narrowest are weighed too. */
#define STN_TUNE_WIDER 8

/* The global minimum over (by, bz, bt, strip), the same as brute force's, in far fewer plans.
 *   - ref moves the same bytes for every bt of a sweep count (each sweep reads and writes every
 *     level once; the spilled strip grows linearly with each sweep's steps), and the balanced bt
 *     of the count needs the least DRAM (every window grows with T): one bt per count.  alg1 and
 *     alg2 re-read windows that grow with T, and an unbalanced division can move less (paper,
 *     fig. 18): every bt.
 *   - y-blocked, by changes only the ring along y (best_by), so one by per bt and row count.
 *   - For each (strip, bt) the searched block grows from the thinnest of whole tiles while
 *     stn_ooc_mem_floor fits: DRAM is not monotone in the block (with one or two blocks, the last
 *     one's window shrinks as the first grows; one row of z-blocks needs no z-strip at all), the
 *     floor is.  Each plan costs O(its blocks), so a (strip, bt) costs O(n log n) at most.
 * 0.3 s for a 1 TiB description (test_tune.py); runtime/tests/test_tune.c checks it against
 * tune_brute on hundreds of random problems. */
static int tune_blk(tune_space *t, tune_best *b) {
    const stn_tune_problem *pb = t->pb;
    int64_t steps = pb->steps < 1 ? 1 : pb->steps;
    for (int strip = STN_STRIP_NONE; strip <= STN_STRIP_FILE; strip++) {
        if (strip != STN_STRIP_NONE &&
            (pb->d->ndim != 3 || pb->schedule != STN_SCHED_REF || t->by_min >= pb->size[1]))
            break;
        if (strip != STN_STRIP_NONE && pb->strip >= 0 && pb->strip != strip)
            continue;
        int every = pb->schedule != STN_SCHED_REF, yb = strip != STN_STRIP_NONE;
        int64_t bmin = !yb && pb->d->ndim == 2 ? t->by_min : 1; /* 2d: rows */
        int64_t n = 0, fitted = b->fitted;
        for (int64_t bt = 1; bt > 0 && bt <= steps; bt = after_bt(steps, bt, every, ++n)) {
            if (n > 0 && b->fitted == fitted)
                break; /* no block fitted the last bt: none fits a longer one (every window grows with bt) */
            fitted = b->fitted;
            int64_t unit = unit_of(t, strip, bt), m = (bmin + unit - 1) / unit;
            stn_ooc_plan p;
            space_plan(t, strip, 1, bt, &p);
            int64_t span = yb ? p.q.H - p.q.L : p.r.H - p.r.L;
            span = span > bmin ? span : bmin;
            int64_t by[2] = {t->by_min, t->by_min}, ring[2] = {0, 0}; /* [0]: several z-rows, [1]: one */
            if (yb) {
                by[0] = best_by(t, strip, bt, 1, &ring[0]);
                by[1] = best_by(t, strip, bt, span, &ring[1]);
            }
            int64_t min_ring = ring[0] < ring[1] ? ring[0] : ring[1];
            /* bytes do not depend on by, time does (its requests are by rows long): with a time
             * model, wider y-ranges too, each at the cost of a smaller bz */
            for (int64_t wide = 1; wide <= (yb && pb->tm ? STN_TUNE_WIDER : 1); wide *= 2) {
                int64_t bw[2] = {by[0] * wide, by[1] * wide};
                if (wide > 1 && bw[0] >= pb->size[1])
                    break;
                for (int64_t mm = m;; mm++) {
                    int64_t bz = space_b(unit, mm, span);
                    if (yb)
                        plan_of(pb, bw[bz >= span] < pb->size[1] ? bw[bz >= span] : bw[0], bz, bt, strip, &p);
                    else
                        space_plan(t, strip, bz, bt, &p);
                    if (stn_ooc_mem_floor(pb->d, &p, wide > 1 ? p.ring_slices : min_ring) > pb->budget)
                        break; /* no wider block fits */
                    consider(pb, b, &p);
                    if (bz >= span)
                        break;
                }
            }
        }
    }
    return b->best.ok ? 0 : -ENOMEM;
}

/* Every feasible combination (by, bz, bt, strip): for checking tune_blk on small grids. */
static int tune_brute(tune_space *t, tune_best *b) {
    const stn_tune_problem *pb = t->pb;
    int64_t steps = pb->steps < 1 ? 1 : pb->steps, ny = pb->size[1], nz = pb->d->ndim == 3 ? pb->size[2] : 1;
    for (int strip = STN_STRIP_NONE; strip <= STN_STRIP_FILE; strip++) {
        if (strip != STN_STRIP_NONE && (pb->d->ndim != 3 || pb->schedule != STN_SCHED_REF))
            break;
        if (strip != STN_STRIP_NONE && pb->strip >= 0 && pb->strip != strip)
            continue;
        /* whole planes: by = ny (3d) or every row block (2d, up to one block of all rows); y-blocked:
         * every by < ny */
        int64_t iy = pb->iy > 0 ? pb->iy : 1;
        for (int64_t bt = 1; bt <= steps; bt++) {
            int64_t unit = unit_of(t, strip, bt);
            int64_t ystep = pb->d->ndim == 2 ? unit : iy, zstep = pb->d->ndim == 3 ? unit : 1;
            int64_t bymax = strip != STN_STRIP_NONE ? ny - 1 : pb->d->ndim == 2 ? ny + ystep - 1 : ny;
            int64_t by0 = strip == STN_STRIP_NONE && pb->d->ndim == 3 ? ny
                          : pb->d->ndim == 2 ? (t->by_min + ystep - 1) / ystep * ystep
                                             : t->by_min;
            for (int64_t by = by0; by <= bymax; by += ystep)
                for (int64_t bz = zstep; bz < nz + zstep; bz += zstep) {
                    stn_ooc_plan p;
                    plan_of(pb, by, bz, bt, strip, &p);
                    consider(t->pb, b, &p);
                }
        }
    }
    return b->best.ok ? 0 : -ENOMEM;
}

/* The paper's Naive-Tune (section VI.B) for a DRAM capacity `budget`: by and bz powers of two,
 * equal or one twice the other, as large as the "typical" block volume (eq. 2f') allows; then
 * the largest bt the typical volume (eq. 2g') allows, balanced (step 3). */
static void naive_pick(const tune_space *t, double budget, int64_t *by, int64_t *bz, int64_t *bt) {
    const stn_tune_problem *pb = t->pb;
    double esz = (double)pb->d->elem_size * (double)stn_total_arrays(pb->d), nx = (double)pb->size[0];
    int64_t nz = pb->d->ndim == 3 ? pb->size[2] : 1, steps = pb->steps < 1 ? 1 : pb->steps;
    double vol = 0;
    *by = *bz = 1;
    for (int64_t z = 1; z <= 2 * nz; z *= 2) /* step 1 */
        for (int k = 0; k < 3; k++) {
            int64_t y = k == 0 ? z : k == 1 ? 2 * z : z / 2;
            if (y < 1 || (pb->d->ndim == 2 && z > 1))
                continue;
            double v = (nx + 2) * (double)(y + 2) * (double)(z + 2);
            if (v * esz <= budget && v > vol)
                vol = v, *by = y, *bz = z;
        }
    *bt = 1;
    while (*bt < steps &&
           (nx + 2) * (double)(*by + 2 + *bt + 1) * (double)(*bz + 2 + *bt + 1) * esz <= budget)
        ++*bt; /* step 2 */
    int64_t sweeps = (steps + *bt - 1) / *bt;
    *bt = (steps + sweeps - 1) / sweeps; /* step 3 */
}

/* Naive-Tune sizes blocks by typical volumes, not by the engine's real buffers: where its choice
 * does not fit after all, it is run again for a 10% smaller DRAM capacity, until it does. */
static int tune_naive(tune_space *t, tune_best *b) {
    const stn_tune_problem *pb = t->pb;
    int64_t ny = pb->size[1];
    for (double budget = (double)pb->budget; budget >= 1.0; budget *= 0.9) {
        int64_t by, bz, bt;
        naive_pick(t, budget, &by, &bz, &bt);
        if (pb->d->ndim == 3)
            by = by >= ny ? ny : by;
        int strip = pb->d->ndim == 3 && by < ny ? STN_STRIP_DRAM : STN_STRIP_NONE;
        if (strip != STN_STRIP_NONE && (pb->schedule != STN_SCHED_REF || pb->strip == STN_STRIP_NONE))
            by = ny, strip = STN_STRIP_NONE;           /* (whole planes only) */
        if (strip != STN_STRIP_NONE && pb->strip >= 0) /* --strip: that placement only */
            strip = pb->strip;
        int wrap = stn_ooc_periodic_axes(pb->d);
        if (strip != STN_STRIP_NONE && (wrap & 6)) /* periodic y or z: whole planes */
            by = ny, strip = STN_STRIP_NONE;
        if (wrap & (pb->d->ndim == 3 ? 4 : 2)) /* periodic along the streaming axis: one step a sweep */
            bt = 1;
        stn_ooc_plan p;
        plan_of(pb, by, pb->d->ndim == 3 ? bz : by, bt, strip, &p);
        if (p.mem_bytes > pb->budget && strip == STN_STRIP_DRAM && pb->strip < 0) /* spill the strip */
            plan_of(pb, by, bz, bt, STN_STRIP_FILE, &p);
        b->weighed++;
        char why[256];
        if (stn_ooc_periodic_refusal(pb->d, &p, why, sizeof why)) /* (alg2 along a periodic z) */
            break;
        if (p.mem_bytes <= pb->budget) {
            keep(&b->best, &p, plan_cost(t->pb, &p), plan_time(t->pb, &p));
            return 0;
        }
        if (by == 1 && bz == 1 && bt == 1)
            break;
    }
    return -ENOMEM;
}

void stn_tune_smallest(const stn_tune_problem *pb, stn_ooc_plan *p) {
    int yb = pb->d->ndim == 3 && pb->schedule == STN_SCHED_REF && !(stn_ooc_periodic_axes(pb->d) & 6) &&
             pb->strip != STN_STRIP_NONE;
    int strip = !yb ? STN_STRIP_NONE : pb->strip == STN_STRIP_DRAM ? STN_STRIP_DRAM : STN_STRIP_FILE;
    int64_t by = yb || pb->d->ndim == 2 ? 1 : pb->size[1];
    plan_of(pb, by, 1, 1, strip, p);
}

int stn_tune(const stn_tune_problem *pb, int tuner, stn_tune_result *out) {
    tune_space t = {pb, 1};
    tune_limits(&t);
    double t0 = stn_now();
    int (*fn)(tune_space *, tune_best *) = tuner == STN_TUNER_NAIVE   ? tune_naive
                                           : tuner == STN_TUNER_BRUTE ? tune_brute
                                                                      : tune_blk;
    int64_t weighed = 0;
    tune_best b;
    int rc;
    tune_pick *near_buf = pb->tm ? malloc(TUNE_NEAR * sizeof *near_buf) : NULL; /* none: a second pass */
    for (;;) { /* nothing fits with efficient requests: allow shorter ones */
        memset(&b, 0, sizeof b);
        b.pass = pb->tm && tuner != STN_TUNER_NAIVE ? 1 : 0;
        b.near = b.pass ? near_buf : NULL;
        rc = fn(&t, &b);
        weighed += b.weighed;
        if (rc == 0 && b.pass == 1) { /* the plans near the least time, by bytes */
            double limit = b.best.time * (1 + STN_TUNE_TIE);
            if (b.overflow) { /* too many to keep: weigh them all again */
                tune_best near;
                memset(&near, 0, sizeof near);
                near.pass = 2, near.limit = limit;
                rc = fn(&t, &near);
                weighed += near.weighed;
                b.best = near.best;
            } else {
                tune_pick pick = {0};
                for (int i = 0; i < b.nnear; i++)
                    if (b.near[i].time <= limit && fewer_bytes(&pick, &b.near[i].p, b.near[i].cost))
                        pick = b.near[i];
                b.best = pick;
            }
        }
        if (rc != -ENOMEM || t.by_min == 1)
            break;
        t.by_min = 1;
    }
    free(near_buf);
    memset(out, 0, sizeof *out);
    out->weighed = weighed;
    out->seconds = stn_now() - t0;
    if (rc)
        return rc;
    const stn_ooc_dim *g = searched(&b.best.p);
    int64_t depth = pb->depth < 1 ? 1 : pb->depth;
    out->relaxed = tuner != STN_TUNER_NAIVE && g->b % depth && g->b < g->H - g->L;
    out->plan = b.best.p;
    out->cost = b.best.cost;
    out->time = b.best.time;
    for (int k = 0; b.pass && k < 3; k++)
        if (b.alt[k].ok)
            out->alt[out->nalt++] = b.alt[k].p;
    return 0;
}

/* ------------------------------------------------------------------ the run's plan */

static int sched_of(const stn_run *r) { return r->o->schedule < 0 ? STN_SCHED_REF : r->o->schedule; }
/* A 1d grid's fold, or NULL. */
static const stn_fold *fold_of(const stn_run *r) { return r->fold.W ? &r->fold : NULL; }

/* The plan of run r for blocks by x bz, bt steps and the strip `strip`. */
static void run_plan(const stn_run *r, size_t align, int64_t by, int64_t bz, int64_t bt, int strip,
                     stn_ooc_plan *p) {
    const stn_opts *o = r->o;
    stn_plan_request q = {r->d,     {o->size[0], o->size[1], o->size[2]},
                          o->steps, sched_of(r),
                          by,       bz,
                          bt,       strip,
                          align,    fold_of(r),
                          r->held,  r->in_place};
    stn_ooc_make_plan(&q, p);
}

/* The built-in blocks of a program tuned offline, when they apply to this run and fit: 1 (p set),
 * else 0 (with a warning saying why the run tunes itself). */
static int builtin_plan(const stn_run *r, size_t align, stn_ooc_plan *p) {
    const stn_tuned_desc *tu = r->d->tuned;
    char need[32], have[32];
    if (!stn_tuned_applies(r)) {
        stn_warn(r->log,
                 "the built-in blocks were tuned offline for %s with --size %" PRId64 ",%" PRId64 ",%" PRId64
                 " --schedule %s; this run differs, so Blk-Tune chooses its blocks now",
                 tu->machine, tu->size[0], tu->size[1], tu->size[2], tu->schedule);
        return 0;
    }
    int strip = strcmp(tu->strip, "file") == 0 ? STN_STRIP_FILE : STN_STRIP_DRAM;
    run_plan(r, align, tu->block[0], tu->block[1], tu->block[2], strip, p);
    if (stn_ooc_periodic_refusal(r->d, p, need, sizeof need)) /* (a description tuned for another stencil) */
        return 0;
    if (p->mem_bytes <= r->mem_budget)
        return 1;
    stn_warn(r->log,
             "the built-in blocks (tuned offline for %s) need %s of DRAM, more than the budget of %s; "
             "Blk-Tune chooses its blocks now",
             tu->machine, stn_fmt_bytes(need, sizeof need, p->mem_bytes),
             stn_fmt_bytes(have, sizeof have, r->mem_budget));
    return 0;
}

/* --block by,bz,bt: 0 when the blocks fit (the strip spilled if it must and --strip allows). */
static int manual_plan(const stn_run *r, size_t align, stn_ooc_plan *p) {
    const stn_opts *o = r->o;
    int yb = r->d->ndim == 3 && o->block[0] < o->size[1];
    if (yb && sched_of(r) != STN_SCHED_REF)
        return stn_error(-EINVAL,
                         "--block %" PRId64 ",%" PRId64 ",%" PRId64
                         ": --schedule %s blocks whole planes (the paper's algorithms block z only): "
                         "by must be ny = %" PRId64 "; y-blocking needs the default schedule (ref)",
                         o->block[0], o->block[1], o->block[2], stn_schedule_names[sched_of(r)], o->size[1]);
    int strip = o->strip >= 0 ? o->strip : STN_STRIP_DRAM;
    char why[256];
    run_plan(r, align, o->block[0], o->block[1], o->block[2], strip, p);
    if (stn_ooc_periodic_refusal(r->d, p, why, sizeof why) && r->d->ndim == 2)
        return stn_error(-EINVAL, "--block %" PRId64 ",%" PRId64 ": %s", o->block[0], o->block[2], why);
    if (stn_ooc_periodic_refusal(r->d, p, why, sizeof why))
        return stn_error(-EINVAL, "--block %" PRId64 ",%" PRId64 ",%" PRId64 ": %s", o->block[0], o->block[1],
                         o->block[2], why);
    if (yb && o->strip < 0 && p->mem_bytes > r->mem_budget) /* the strip does not fit: spill it */
        run_plan(r, align, o->block[0], o->block[1], o->block[2], STN_STRIP_FILE, p);
    return p->mem_bytes <= r->mem_budget ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------ the finalists (tune_rate.c) */

/* Blk-Tune ranks plans with one rate for every block, measured on a small grid in cache; but
 * thin blocks run slower (a whole plane a step streams from DRAM; the halo of a thin block is
 * re-read): the finalists -- the least predicted time of each family (whole planes, y-blocked)
 * and the fewest bytes -- are measured on their own blocks, and the least time with those rates
 * wins; within STN_TUNE_MEASURED_TIE (rates measured in 80 ms vary by a few percent from one
 * start to the next), the fewest bytes. */
static int pick_finalist(const stn_run *r, const stn_tune_problem *pb, stn_tune_result *t,
                         stn_ooc_result *res, stn_result *out) {
    stn_ooc_plan cand[4];
    int nc = 0;
    cand[nc++] = t->plan;
    const stn_time_model *tm = pb->tm;
    for (int k = 0; k < t->nalt; k++) {
        const stn_ooc_plan *o = &t->alt[k];
        int dup = 0;
        for (int i = 0; i < nc; i++)
            dup |= cand[i].r.b == o->r.b && cand[i].q.b == o->q.b && cand[i].bt == o->bt &&
                   cand[i].strip == o->strip;
        if (!dup)
            cand[nc++] = *o;
    }
    int best = -1;
    double best_t = 0;
    uint64_t best_c = 0;
    char src[256], best_src[256] = "";
    res->nfinalists = 0;
    for (int i = 0; i < nc; i++) {
        double cps;
        stn_rate_rounds rounds;
        int rc = stn_ooc_block_rate(r, &cand[i], out->ib.tile, &cps, &rounds, src, sizeof src);
        if (rc)
            return rc;
        /* ranked with its kept loops where it has some (the sample scatters more than the plans differ) */
        double sample = cps > 0 ? cps : tm->cells_per_second, rank;
        int loops = stn_rate_history_rank(r, pb->m, &cand[i], out->ib.tile, tm, sample, &rank);
        stn_time_model m = *tm;
        m.cells_per_second = rank;
        stn_time_pred pred;
        stn_ooc_predict_time(pb->m, &cand[i], 0, &m, &pred);
        uint64_t rd, wr;
        stn_ooc_predict(pb->m, &cand[i], 0, &rd, &wr);
        stn_ooc_finalist *f = &res->finalists[res->nfinalists++];
        const stn_ooc_plan *c = &cand[i];
        *f = (stn_ooc_finalist){{c->r.axis == 1 ? c->r.b * (r->fold.W ? r->fold.W : 1) : r->o->size[1],
                                 r->d->ndim == 2  ? -1
                                 : c->r.axis == 2 ? c->r.b
                                                  : c->q.b,
                                 c->bt},
                                c->strip,
                                m.cells_per_second,
                                pred.total,
                                rd + wr,
                                sample,
                                loops};
        int tie = best >= 0 && !(pred.total < best_t * (1 - STN_TUNE_MEASURED_TIE) ||
                                 pred.total > best_t * (1 + STN_TUNE_MEASURED_TIE));
        if (best < 0 || (!tie && pred.total < best_t) || (tie && rd + wr < best_c)) {
            best = i, best_t = pred.total, best_c = rd + wr;
            out->cells_per_second = sample; /* (the plan's startup measures it again: ooc_setup.c) */
            out->rate_rounds = rounds;      /* (the plan's measurement at startup pools them: ooc_setup.c) */
            snprintf(best_src, sizeof best_src, "%s", src);
        }
    }
    t->plan = cand[best];
    t->cost = best_c;
    t->time = best_t;
    snprintf(out->rate_source, sizeof out->rate_source, "%s", best_src);
    return 0;
}

/* The plan an interrupted run saved (--resume): it decides the scratch files' content. */
static int saved_plan(const stn_run *r, size_t align, const stn_saved_plan *sv, stn_ooc_plan *p) {
    char need[32], have[32];
    run_plan(r, align, sv->by, sv->bz, sv->bt, sv->strip, p);
    if (p->mem_bytes <= r->mem_budget)
        return 0;
    return stn_error(-ENOMEM,
                     "--resume: the interrupted run's blocks (%" PRId64 ",%" PRId64 ",%" PRId64
                     ", strip %s) need %s of DRAM, more than the budget of %s (%s); give --mem %" PRIu64
                     " or more, or run without --resume to start over",
                     sv->by, sv->bz, sv->bt, stn_strip_names[sv->strip],
                     stn_fmt_bytes(need, sizeof need, p->mem_bytes),
                     stn_fmt_bytes(have, sizeof have, r->mem_budget), r->mem_source, p->mem_bytes);
}

/* The horizon Blk-Tune weighs: a longer run (an open simulation's 2^40 steps) takes the blocks best
 * for this many steps, which sweeps that long make best for more too, and its bytes stay far from
 * 2^64 (those of 2^40 steps of a large grid would not). */
#define STN_TUNE_HORIZON ((int64_t)1 << 20)

/* The plan of q's blocks for the run's own steps. */
static void plan_for_steps(const stn_run *r, size_t align, const stn_ooc_plan *q, stn_ooc_plan *p) {
    int64_t by = q->r.axis == 1 ? q->r.b * (r->fold.W ? r->fold.W : 1) : r->o->size[1];
    int64_t bz = r->d->ndim == 2 ? by : q->r.axis == 2 ? q->r.b : q->q.b;
    stn_plan_request req = {r->d,        {r->o->size[0], r->o->size[1], r->o->size[2]},
                            r->o->steps, q->schedule,
                            by,          bz,
                            q->bt,       q->strip,
                            align,       fold_of(r),
                            r->held,     r->in_place};
    stn_ooc_make_plan(&req, p);
}

int stn_ooc_choose(const stn_run *run, const stn_ooc_model *m, size_t align, const stn_saved_plan *saved,
                   stn_ooc_plan *p, stn_ooc_result *res, stn_result *out) {
    stn_run copy = *run; /* (with the inputs the model reads in place: their rings leave the plans' DRAM) */
    copy.in_place = stn_ooc_in_place_inputs(m);
    const stn_run *r = &copy;
    const stn_opts *o = r->o;
    char need[32], have[32];
    stn_iblock_pick *ib = &out->ib;
    if (saved && !o->have_block) { /* (--block given: the fingerprint must match it instead) */
        stn_iblock_choose(r, 0, ib);
        res->chooser = "saved";
        return saved_plan(r, align, saved, p);
    }
    int builtin = stn_tuned_wanted(r) && builtin_plan(r, align, p);
    stn_iblock_choose(r, builtin, ib); /* the built-in iBlock goes with the built-in blocks */
    if (builtin) {
        res->chooser = "built-in";
        return 0;
    }
    res->chooser = o->have_block ? "manual" : stn_tuner_names[o->tuner < 0 ? STN_TUNER_BLK : o->tuner];
    stn_tune_problem pb = {r->d,
                           m,
                           fold_of(r),
                           {o->size[0], o->size[1], o->size[2]},
                           o->steps < STN_TUNE_HORIZON ? o->steps : STN_TUNE_HORIZON,
                           sched_of(r),
                           stn_part_whole_planes(r->part) ? STN_STRIP_NONE
                                                          : o->strip, /* (a ring of ranks, a cross cut) */
                           align,
                           r->mem_budget,
                           ib->iblk[0],
                           ib->tile[r->d->ndim == 3 ? 1 : 0],
                           NULL,
                           r->held};
    int rc;
    if (o->have_block) {
        rc = manual_plan(r, align, p);
        if (rc == -EINVAL)
            return rc;
    } else {
        stn_tune_result t;
        int tuner = o->tuner < 0 ? STN_TUNER_BLK : o->tuner;
        /* plans are ranked by predicted time: the kernels' rate with this iBlock, the device's curves */
        rc = o->rank != STN_RANK_BYTES && (!r->hw.described || r->hw.cells_per_second > 0)
                 ? stn_kernel_rate(r, out)
                 : 0;
        if (rc == 0 && out->cells_per_second > 0)
            rc = stn_copy_rate(r, out);
        if (rc)
            return rc;
        stn_xchg_model xm; /* (MPI: the exchanges between sweeps, as deep as each plan's bt) */
        stn_xchg_of(r, &xm);
        stn_time_model tm = {.dev = &r->dev,
                             .cells_per_second = out->cells_per_second,
                             .cells = (double)stn_grid_cells(o),
                             .copy_bytes_per_second = out->copy_bytes_per_second,
                             .depth = STN_AIO_DEFAULT_DEPTH,
                             .max_request = STN_AIO_DEFAULT_MAX_REQUEST,
                             .xm = xm.levels ? &xm : NULL,
                             .ghost_bt = 0,
                             .snap_bytes_per_step = stn_h5_bytes_per_step(r->d, o)};
        /* a described machine's kernels are not this one's: without its cells_per_second, bytes */
        int timed = o->rank != STN_RANK_BYTES && (!r->hw.described || r->hw.cells_per_second > 0);
        pb.tm = out->cells_per_second > 0 && timed ? &tm : NULL;
        rc = stn_tune(&pb, tuner, &t);
        if (rc == 0 && pb.tm && tuner != STN_TUNER_NAIVE && r->hw.cells_per_second <= 0) {
            double t0 = stn_now();
            rc = pick_finalist(r, &pb, &t, res, out);
            t.seconds += stn_now() - t0;
        }
        if (rc == 0 && o->steps > pb.steps)
            plan_for_steps(r, align, &t.plan, &t.plan);
        if (rc == 0 && t.plan.mem_bytes > r->mem_budget) /* (never seen: a shorter last sweep's strip) */
            rc = stn_error(-ENOMEM, "the blocks tuned for %" PRId64 " steps do not fit %" PRId64, pb.steps,
                           o->steps);
        if (rc == 0) {
            *p = t.plan;
            res->tune_cost = t.cost;
            res->tune_weighed = t.weighed;
            res->tune_seconds = t.seconds;
            size_t len = strlen(ib->source);
            if (t.relaxed)
                snprintf(ib->source + len, sizeof ib->source - len,
                         "; the budget fits no block of whole tiles: blocks of %" PRId64, searched(p)->b);
        }
    }
    if (rc == 0)
        return 0;
    stn_ooc_plan smallest;
    stn_tune_smallest(&pb, &smallest);
    stn_fmt_bytes(have, sizeof have, r->mem_budget);
    if (o->have_block && smallest.mem_bytes <= r->mem_budget)
        return stn_error(-ENOMEM, "--block: these blocks need %s of DRAM, more than the budget of %s (%s)",
                         stn_fmt_bytes(need, sizeof need, p->mem_bytes), have, r->mem_source);
    return stn_error(-ENOMEM,
                     "the DRAM budget of %s (%s) is too small: the smallest block (%s, bt = 1) needs %s; "
                     "give --mem %" PRIu64 " or more",
                     have, r->mem_source, smallest.strip != STN_STRIP_NONE ? "1 x 1 rows" : "1 slice",
                     stn_fmt_bytes(need, sizeof need, smallest.mem_bytes), smallest.mem_bytes);
}
