/* ooc_snap.c -- the out-of-core engine's snapshots (--save-to, docs/design/021): a cache tile that has
 * computed step t puts, for each field that saves the step, the snapshot cells whose values it has just
 * made, straight from the ring, while the temporal block goes on: no extra sweep, any bt.
 *
 * A snapshot cell c (boundary layer included) reads its value at map(c): itself along a dirichlet axis,
 * its mirror in the interior along a neumann one, its wrap along a periodic one (as the boundary functions
 * set the in-core levels: x, then y, then z, each over the others' whole extent, so the maps compose).  Its
 * owner is the tile that computes the interior cell map(c) clamped into the interior: every interior cell
 * is computed once a step (the reference schedule; alg1's tiles are cut to their block's own cells first),
 * so every snapshot cell is put once.  Along an axis the
 * cells a tile computing [lo, hi) of the interior [L, H) owns are [lo, hi) and two runs of the boundary
 * layer (below, above).  A dirichlet boundary cell reads itself: every level's array holds it in the
 * window (placed with its slice, converted for step 2 by the tile that owns it, before_step). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include "io/stn_hdf5.h"
#include "mpi/stn_part.h"

/* The cells of [0, n) along one axis of kind `kind` (stn_h5_map) a tile computing [lo, hi) of [L, H)
 * owns: iv[0] the interior run, iv[1] below L, iv[2] from H (each [iv[i][0], iv[i][1]), maybe empty). */
static void owned(int kind, int64_t n, int64_t L, int64_t H, int64_t lo, int64_t hi, int64_t iv[3][2]) {
    int64_t w = H - L;
    iv[0][0] = lo, iv[0][1] = hi;
    if (kind == 1) { /* mirror: i < L reads 2L - 1 - i, in [lo, hi) for i in [2L - hi, 2L - lo) */
        iv[1][0] = 2 * L - hi, iv[1][1] = 2 * L - lo;
        iv[2][0] = 2 * H - hi, iv[2][1] = 2 * H - lo;
    } else if (kind == 2) { /* wrap: i < L reads i + w */
        iv[1][0] = lo - w, iv[1][1] = hi - w;
        iv[2][0] = lo + w, iv[2][1] = hi + w;
    } else { /* itself: the layer goes with the edge's tile */
        iv[1][0] = 0, iv[1][1] = lo == L ? L : 0;
        iv[2][0] = H, iv[2][1] = hi == H ? n : H;
    }
    iv[1][0] = iv[1][0] < 0 ? 0 : iv[1][0], iv[1][1] = iv[1][1] > L ? L : iv[1][1];
    iv[2][0] = iv[2][0] < H ? H : iv[2][0], iv[2][1] = iv[2][1] > n ? n : iv[2][1];
}

int stn_ooc_snap_saves(const ooc *e) {
    /* (the others fall back to engine.c's stops: alg2 keeps no ring of levels, a wrapped sweep's last block
     * places cells of its own; alg1's blocks put their own cells, ooc_sweep.c; a folded 1d grid its rows') */
    /* (a field with a boundary per face has no one owner rule per axis, stn_h5_map's kind: the stops too) */
    for (int i = 0; i < e->d->nfields; i++)
        if (e->d->fields[i].kind == STN_FIELD_STATE && e->d->fields[i].boundary == STN_BC_MIXED)
            return 0;
    /* (an MPI part: under parallel HDF5, its own cells, on a ring of ranks also the boundary cells that wrap
     * to them; rank 0 gathering reads them through box at the stops) */
    const stn_part *p = e->r->part;
    return e->r->snap && e->plan.schedule != STN_SCHED_ALG2 && !e->plan.r.wrap &&
           (!p || stn_h5_parallel(e->r->snap));
}

/* A folded 1d grid (design 014): the tile's rows [r0, r1) (a part's: of its own) are the grid's cells
 * [(r0 + base) W - P, (r1 + base) W - P); the rule above along the 1d axis, the values read through the
 * kernels' 1d view of the window (stn_fold_map's: cell c at the window's c - shift). */
static int snap_fold(ooc *e, int64_t r0, int64_t r1, int64_t t) {
    const stn_run *r = e->r;
    const stn_fold *fo = &r->fold;
    const stn_part *p = r->part;
    int64_t k = e->steps_before + t, base = p ? stn_part_slab(p)->base : 0, iv[3][2];
    if (p)
        r0 = r0 > stn_part_slab(p)->lo ? r0 : stn_part_slab(p)->lo,
        r1 = r1 < stn_part_slab(p)->hi ? r1 : stn_part_slab(p)->hi;
    int64_t lo = (r0 + base) * fo->W - fo->P, hi = (r1 + base) * fo->W - fo->P;
    lo = lo > fo->lo ? lo : fo->lo, hi = hi < fo->hi ? hi : fo->hi;
    if (hi <= lo)
        return 0;
    stn_view v = {fo->n, 1, 1, fo->n, fo->n, 0, 0, 0};
    int64_t shift = (stn_ooc_view(e).y0 + base) * fo->W - fo->P;
    stn_h5_map m = {{0, 0, 0}, {fo->lo, 0, 0}, {fo->hi, 1, 1}};
    double t0 = stn_now();
    int rc = 0;
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        if (!stn_h5_wants(r->snap, i, k))
            continue;
        m.kind[0] = (e->d->fields[i].periodic & 1) ? 2 : e->d->fields[i].boundary == STN_BC_NEUMANN ? 1 : 0;
        owned(m.kind[0], fo->n, fo->lo, fo->hi, lo, hi, iv);
        const char *level = ooc_win(e, &e->f[i], ooc_arr(&e->f[i], e->lvl0 + t)) - shift * e->d->elem_size;
        for (int c = 0; rc == 0 && c < 3; c++) {
            stn_box b = {{iv[c][0], 0, 0}, {iv[c][1], 1, 1}};
            if (b.hi[0] > b.lo[0])
                rc = stn_h5_put(r->snap, i, k, &v, level, &b, &m, &e->res->st);
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_WRITE, t0);
    return rc;
}

int stn_ooc_snap_tile(ooc *e, int64_t r0, int64_t r1, int64_t q0, int64_t q1, int64_t t) {
    const stn_run *r = e->r;
    const stn_program_desc *d = e->d;
    int64_t k = e->steps_before + t;
    if (r1 <= r0 || q1 <= q0 || !stn_h5_wants_any(r->snap, k))
        return 0;
    if (r->fold.W)
        return snap_fold(e, r0, r1, t);
    const stn_part *p = r->part;
    const int64_t n[3] = {r->view.nx, r->view.ny, r->view.nz};
    int64_t lo[3], hi[3], base[3] = {0, 0, 0}, whole[3], iv[3][3][2];
    stn_h5_map m;
    for (int a = 0; a < 3; a++) {
        m.lo[a] = lo[a] = d->halo_lo[a], m.hi[a] = hi[a] = n[a] - d->halo_hi[a], whole[a] = n[a];
    }
    lo[e->plan.r.axis] = r0, hi[e->plan.r.axis] = r1;
    lo[e->plan.q.axis] = q0, hi[e->plan.q.axis] = q1;
    for (int a = 0; p && a < 3; a++) { /* (a part: its own cells of the tile's, in whole-grid indices) */
        const stn_cut *c = &p->ax[a];
        base[a] = c->base, whole[a] = c->n, m.lo[a] = c->L, m.hi[a] = c->H;
        lo[a] = (lo[a] > c->lo ? lo[a] : c->lo) + c->base;
        hi[a] = (hi[a] < c->hi ? hi[a] : c->hi) + c->base;
        if (hi[a] <= lo[a])
            return 0;
    }
    stn_view v = stn_ooc_view(e);
    v.y0 += base[1], v.z0 += base[2];
    double t0 = stn_now();
    int rc = 0;
    for (int i = 0; rc == 0 && i < d->nfields; i++) {
        if (!stn_h5_wants(r->snap, i, k))
            continue;
        for (int a = 0; a < 3; a++) { /* (a part's run does not wrap a ring of ranks: the grid does) */
            m.kind[a] = ((d->fields[i].periodic | stn_part_rings(p)) >> a) & 1 ? 2
                        : d->fields[i].boundary == STN_BC_NEUMANN              ? 1
                                                                               : 0;
            owned(m.kind[a], whole[a], m.lo[a], m.hi[a], lo[a], hi[a], iv[a]);
        }
        /* (the view's x is the whole grid's: the level's row starts at cell base[0]) */
        const char *level = ooc_win(e, &e->f[i], ooc_arr(&e->f[i], e->lvl0 + t)) - base[0] * d->elem_size;
        for (int c = 0; rc == 0 && c < 27; c++) {
            stn_box b = {{iv[0][c % 3][0], iv[1][c / 3 % 3][0], iv[2][c / 9][0]},
                         {iv[0][c % 3][1], iv[1][c / 3 % 3][1], iv[2][c / 9][1]}};
            if (b.hi[0] > b.lo[0] && b.hi[1] > b.lo[1] && b.hi[2] > b.lo[2])
                rc = stn_h5_put(r->snap, i, k, &v, level, &b, &m, &e->res->st);
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_WRITE, t0);
    return rc;
}
