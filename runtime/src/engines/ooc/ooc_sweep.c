/* ooc_sweep.c -- the out-of-core engine (--mode ooc): the reference schedule, and the paper's
 * algorithms 1 and 2 (--schedule alg1|alg2) for comparison: the executor, a sweep of blocks.  The plan
 * and its IO model are plan/ooc_plan.c's, the choice of blocks plan/tune.c's; of this engine's files,
 * moving boxes of rows in and out of the window is ooc_window.c's, the --init reader thread
 * ooc_reader.c's, the wedge of a wrapped sweep ooc_wedge.c's, the ranks' ghosts ooc_ghosts.c's, the
 * files, the lock and the records ooc_setup.c's, the import and export ooc_xfer.c's, the state file
 * ooc_state.c's, and the engine held open (its table of operations) ooc_api.c's.
 * docs/out-of-core.md and docs/design/003 are the long form.
 *
 * The grid's fields live in scratch files under --dir (the Buffer layer): rows padded to the
 * O_DIRECT alignment, so any run of whole rows is one aligned transfer.  A sweep advances the
 * whole grid by T = bt steps (the last sweep may be shorter).  It reads the levels it needs from
 * a *source* file set and writes the levels the next sweep needs to a *destination* set.  The
 * source is never written during a sweep, so a sweep that dies leaves the last complete state
 * intact.  After each sweep the destination is synced and a state file is committed
 * atomically; --resume continues from there.
 *
 * Blocking.  Blocks are tiles of two dimensions (stn_ooc.h): blocks j along `r`, the dimension
 * the DRAM window slides along, in rows k along `q`.  Whole planes (by = ny in 3d, and 2d) have
 * one row; y-blocked 3d (by < ny) has r = y and rows of z.  Blocks are skewed in both so that no
 * point is computed twice.  In a dimension with skew s = max(h-, h+), block k computes step t
 * (1..T) on [A(k,t), A(k+1,t)), where A(k,t) = clamp(Z_k - (t-1)s, L, H) for inner split points
 * Z_k, A(0,t) = L (the interior's lower edge) and A(K,t) = H; a tile computes the product of its
 * two ranges.  Tiles run row by row, and each state field keeps levels+1 arrays in the DRAM
 * window, indexed by level modulo levels+1, so every level a tile reads is still there, as
 * docs/out-of-core.md argues.
 *
 * The window is a double-mapped ring along r (ring.c): slice r lives at r mod C, and the slices
 * the next block shares with this one simply stay (forwarding along r); y-blocked, each z-plane
 * of the row has its own ring.  Only new slices are read, each exactly once per sweep.  The
 * z-planes the next row of tiles shares with this one (the z-strip) are copied, as each slice
 * leaves the ring, to a DRAM buffer, or spilled to a scratch file when the budget is short, and
 * come back from there into the next row.  Each point's final levels are written exactly once
 * per sweep.  So a sweep moves exactly kr + kw arrays of the grid, plus the spilled strip, and
 * the model (stn_ooc_predict) is closed-form.
 *
 * Boundaries.  Dirichlet boundary cells are constant for every level >= 0: they are copied into
 * the other arrays when a slice enters the window.  Neumann boundary cells are a function of the
 * interior: before each step the engine mirrors the levels the step reads, over the cells it
 * reads.  The window always holds the mirror sources of any boundary cell it contains; files'
 * neumann boundary cells are not authoritative, and the final export mirrors again.
 *
 * Overlap.  While block j computes, the new slices of block j+1 are read (libaio, O_DIRECT)
 * straight into the ring, and block j-1's output is written straight from it.  The rings, the
 * strip and the IO queue are all the engine allocates (and the kernels, the scratch of their
 * sub-steps), and the plan's mem_bytes counts them against --mem. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"
#include "io/stn_hdf5.h"

#include <stdlib.h>
#include <string.h>

/* Queue reads of slices [r0, r1) of every array alg2 keeps in place (state fields only). */
static int read_inplace(ooc *e, int64_t r0, int64_t r1, stn_aio_group *g) {
    for (int i = 0; r1 > r0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; f->m->state && a < f->m->narr; a++) {
            int rc = stn_ooc_io_box(e, 0, ooc_inplace(f, a), f->ring[a], &(ooc_rows){r0, r1, e->qlo, e->qhi},
                                    e->qlo, g);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The z-strip (y-blocked).  Save: rows [r0, r1) of planes [qnext, qhi), every array, as they
 * leave the ring.  Restore: rows [r0, r1) of planes [qlo, qnew) into a new row's ring.  In DRAM
 * the strip is ny rows per plane, plane z at z minus the row's first strip plane; in the spill
 * file, plane z - that is the file's plane.  A position is saved only after its restore (it
 * leaves the ring after it entered), so one buffer serves both rows. */
static char *strip_at(const ooc *e, const ooc_field *f, int a, int64_t y, int64_t zrel) {
    return f->strip[a] + ((size_t)zrel * (size_t)e->r->view.ny + (size_t)y) * (size_t)e->plan.row_bytes;
}

static int strip_io(ooc *e, int save, int64_t r0, int64_t r1, stn_aio_group *g) {
    int64_t q0 = save ? e->qnext : e->qlo, q1 = save ? e->qhi : e->qnew;
    if (r1 <= r0 || q1 <= q0)
        return 0;
    if (e->plan.strip == STN_STRIP_FILE) {
        int rc = 0;
        for (int i = 0; rc == 0 && i < e->d->nfields; i++)
            for (int a = 0; rc == 0 && a < e->f[i].m->narr; a++)
                rc = stn_ooc_io_box(e, save, &e->f[i].spill[a], e->f[i].ring[a], &(ooc_rows){r0, r1, q0, q1},
                                    0, g);
        return rc;
    }
    /* In DRAM: one copy of r1 - r0 rows per plane and array, shared out among the threads (a
     * thin block's strip is many times its own slices: one thread's memcpy would hold the others
     * idle for as long as the block computes). */
    double t0 = stn_now();
    int64_t nplanes = q1 - q0, narr = 0;
    for (int i = 0; i < e->d->nfields; i++)
        narr += e->f[i].m->narr;
    size_t bytes = (size_t)(r1 - r0) * (size_t)e->plan.row_bytes;
    int64_t n = narr * nplanes;
    STN_OMP_PARALLEL {
        int64_t t = stn_omp_thread_num(), nt = stn_omp_num_threads();
        for (int64_t c = n * t / nt; c < n * (t + 1) / nt; c++) {
            int64_t arr = c / nplanes, z = q0 + c % nplanes;
            int i = 0;
            while (arr >= e->f[i].m->narr)
                arr -= e->f[i++].m->narr;
            const ooc_field *f = &e->f[i];
            char *ring = ooc_at(e, f->ring[arr], r0, z), *strip = strip_at(e, f, (int)arr, r0, z - q0);
            memcpy(save ? strip : ring, save ? ring : strip, bytes);
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_COPY, t0);
    e->res->strip_copied += (uint64_t)n * bytes;
    return 0;
}

/* Queue the reads of block j's new slices [r0, r1) from the source set (and the spilled strip)
 * into the ring; the --init rows on the reader thread. */
static int prefetch(ooc *e, int64_t sweep, int64_t r0, int64_t r1) {
    if (e->gh.pending &&
        r1 > stn_part_slab(e->r->part)->hi) { /* the high ghosts the exchange deferred: here now */
        int rc = stn_ooc_ghosts_land(e, 1);
        if (rc)
            return rc;
    }
    stn_aio_group_reset(&e->rgroup);
    if (e->plan.r.wrap && r1 > e->plan.r.n) /* a wrapped sweep's slices past n: from the wedge */
        r1 = e->plan.r.n;
    if (r1 <= r0)
        return 0;
    int rc0 = stn_ooc_reader_start(e, sweep, r0, r1);
    if (rc0)
        return rc0;
    if (e->alg2) {
        int rc = read_inplace(e, r0, r1, &e->rgroup);
        if (rc)
            return rc;
    }
    if (e->plan.strip == STN_STRIP_FILE) {
        int rc = strip_io(e, 0, r0, r1, &e->rgroup);
        if (rc)
            return rc;
    }
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (e->alg2 && f->m->state)
            continue;
        for (int l = 0; l < ooc_nlevels_read(f); l++) {
            if (stn_ooc_source_of(&e->model, &e->plan, i, l, sweep) != STN_SRC_SCRATCH)
                continue;
            if (!f->m->state && stn_ooc_in_place(e, i)) { /* (the kernels read it in the mapping) */
                int rc = stn_ooc_in_place_count(e, i, r0, r1);
                if (rc)
                    return rc;
                continue;
            }
            stn_gridfile *gf = f->m->state ? &f->scratch[sweep % 2][l] : &f->scratch[0][0];
            int rc = stn_ooc_io_wrapped(e, 0, i, gf, f->ring[ooc_arr(f, -l)],
                                        &(ooc_rows){r0, r1, e->qnew, e->qhi}, &e->rgroup);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Move the window to [lo, hi): the slices it keeps are already in the ring, and so are the new
 * ones read from files (once their reads complete); place the others. */
static int enter_block(ooc *e, int64_t sweep, int64_t lo, int64_t hi) {
    int64_t new_lo = e->wr1 > lo ? e->wr1 : lo;
    e->wr0 = lo;
    e->wr1 = hi;
    int ahead = e->reader != NULL; /* the --init rows are in (or coming) */
    int rc = stn_aio_wait(e->q, &e->rgroup, &e->res->st);
    int rc2 = stn_ooc_reader_join(e);
    rc = rc ? rc : rc2;
    if (rc == 0 && e->plan.strip == STN_STRIP_DRAM)
        rc = strip_io(e, 0, new_lo, hi, NULL);
    int64_t file_hi = e->plan.r.wrap && hi > e->plan.r.n ? e->plan.r.n : hi; /* (past n: the wedge) */
    for (int i = 0; rc == 0 && i < e->d->nfields; i++)
        for (int l = 0; rc == 0 && l < ooc_nlevels_read(&e->f[i]); l++) {
            int src = stn_ooc_source_of(&e->model, &e->plan, i, l, sweep);
            if (!(ahead && src == STN_SRC_NPY))
                rc = stn_ooc_place_wrapped(e, i, l, src, &(ooc_rows){new_lo, file_hi, e->qnew, e->qhi});
        }
    if (rc == 0 && e->plan.r.wrap) /* level 0 of the slices the last block reads past n */
        stn_ooc_wedge_keep(e, 0, new_lo, hi);
    if (rc == 0 && e->plan.r.wrap && hi > e->plan.r.n) /* (only the last block's window goes past n) */
        stn_ooc_wedge_place_inputs(e);
    /* dirichlet: the level-1 array of a new slice gets the boundary cells of level 0 (which every
     * level >= 0 shares); the kernels never write them, so this holds for the whole sweep */
    stn_view v = stn_ooc_view(e);
    stn_box nb = stn_ooc_box(e, new_lo, hi, e->qnew, e->qhi);
    double t0 = stn_now();
    for (int i = 0; rc == 0 && !e->alg2 && hi > new_lo && e->qhi > e->qnew && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (f->m->state && stn_bc_copies(&e->d->fields[i]))
            stn_run_boundary_op(e->r, i, stn_bc_copy_op(&e->d->fields[i]), &v, ooc_win(e, f, 0),
                                ooc_win(e, f, 1), &nb);
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_COMPUTE, t0);
    return rc;
}

/* ------------------------------------------------------------------ one block */

/* The cells one cache tile computes at step t: [r0, r1) x [q0, q1) (see compute_block). */
typedef struct sub_tile {
    int64_t r0, r1, q0, q1;
} sub_tile;

/* Boundary cells before step t of a cache tile of block j (of row e->row).  Neumann: mirror the
 * levels the step reads (current, and previous for two levels) over the cells it reads;
 * mirroring is idempotent on valid data, and the cells a step reads hold valid levels.
 * Dirichlet: the new level's boundary cells were copied when the slice was placed (all levels
 * >= 0 share them); only a previous level with boundary values of its own, read at step 1, is
 * converted at step 2, where this tile owns the cells (see owned_range); a periodic dirichlet
 * field is wrapped as well as converted. */
static void before_step(ooc *e, const sub_tile *c, int64_t t) {
    const stn_ooc_plan *p = &e->plan;
    stn_view v = stn_ooc_view(e);
    double t0 = stn_now();
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (!f->m->state)
            continue;
        int64_t rlo, rhi, qlo, qhi;
        if (stn_bc_mirrors(&e->d->fields[i])) { /* a wrap, like a mirror */
            if (c->r1 <= c->r0 || c->q1 <= c->q0)
                continue; /* the step computes nothing here */
            stn_ooc_read_of(&p->r, c->r0, c->r1, e->wr0, e->wr1, &rlo, &rhi);
            stn_ooc_read_of(&p->q, c->q0, c->q1, e->qlo, e->qhi, &qlo, &qhi);
            if (rhi <= rlo || qhi <= qlo)
                continue;
            stn_box box = stn_ooc_box(e, rlo, rhi, qlo, qhi);
            for (int l = 1; l <= f->m->levels; l++) {
                char *arr = ooc_win(e, f, ooc_arr(f, e->lvl0 + t - l));
                stn_run_boundary(e->r, i, &v, arr, arr, &box);
            }
        }
        if (stn_bc_copies(&e->d->fields[i]) && f->m->levels == 2 && e->lvl0 + t == 2) {
            /* (a periodic field too: its faces along the other axes keep their dirichlet cells) */
            /* owned: the computed range, plus the boundary below L / from H if it holds L / H-1 */
            int held = c->r1 > c->r0;
            rlo = c->r0 == p->r.L && held ? 0 : c->r0;
            rhi = c->r1 == p->r.H && held ? p->r.n : c->r1;
            held = c->q1 > c->q0;
            qlo = c->q0 == p->q.L && held ? 0 : c->q0;
            qhi = c->q1 == p->q.H && held ? p->q.n : c->q1;
            if (p->schedule == STN_SCHED_ALG1) /* alg1 blocks share nothing: the whole window */
                rlo = e->wr0, rhi = e->wr1, qlo = e->qlo, qhi = e->qhi;
            stn_box own = stn_ooc_box(e, rlo, rhi, qlo, qhi);
            if (rhi > rlo && qhi > qlo)
                stn_run_boundary_op(e->r, i, stn_bc_copy_op(&e->d->fields[i]), &v,
                                    ooc_win(e, f, ooc_arr(f, 1)), ooc_win(e, f, ooc_arr(f, 2)), &own);
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_COMPUTE, t0);
}

/* Step t of one cache tile. */
static int compute_step(ooc *e, const sub_tile *c, int64_t t) {
    const stn_program_desc *d = e->d;
    const stn_ooc_plan *p = &e->plan;
    const stn_view *g = &e->r->view;
    before_step(e, c, t);
    if (c->r1 <= c->r0 || c->q1 <= c->q0)
        return 0;
    stn_box b = {{d->halo_lo[0], d->halo_lo[1], d->halo_lo[2]},
                 {g->nx - d->halo_hi[0], g->ny - d->halo_hi[1], g->nz - d->halo_hi[2]}};
    b.lo[p->r.axis] = c->r0, b.hi[p->r.axis] = c->r1;
    b.lo[p->q.axis] = c->q0, b.hi[p->q.axis] = c->q1;
    for (int i = 0; i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        ooc_field *f = &e->f[i];
        if (fd->src_slot >= 0)
            e->src[fd->src_slot] = !f->m->state && stn_ooc_in_place(e, i)
                                       ? stn_ooc_in_place_win(e, f)
                                       : ooc_win(e, f, f->m->state ? ooc_arr(f, e->lvl0 + t - 1) : 0);
        if (fd->prev_slot >= 0)
            e->src[fd->prev_slot] = ooc_win(e, f, ooc_arr(f, e->lvl0 + t - 2));
        if (fd->dst_slot >= 0)
            e->dst[fd->dst_slot] = ooc_win(e, f, ooc_arr(f, e->lvl0 + t));
    }
    stn_view v = stn_ooc_view(e);
    double t0 = stn_now();
    int rc = stn_step(e->r, e->steps_before + t - 1, &v, e->src, e->dst, &b, e->res->ib.tile);
    stn_stats_add_time(&e->res->st, STN_PHASE_COMPUTE, t0);
    return rc;
}

/* The snapshot cells of tile c of block j after step t: alg1's blocks compute widened regions that
 * overlap, each cell of the block's own [Z_j, Z_j+1) (its region at step T) right at every step, so the
 * tile puts those alone and every cell is put once (ooc_snap.c). */
static int snap_tile(ooc *e, int64_t j, const sub_tile *c, int64_t t, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t r0 = c->r0, r1 = c->r1, q0 = c->q0, q1 = c->q1, a, b;
    if (p->schedule == STN_SCHED_ALG1) {
        stn_ooc_step_range(p, &p->r, j, T, T, &a, &b);
        r0 = r0 > a ? r0 : a, r1 = r1 < b ? r1 : b;
        stn_ooc_step_range(p, &p->q, e->row, T, T, &a, &b);
        q0 = q0 > a ? q0 : a, q1 = q1 < b ? q1 : b;
    }
    return stn_ooc_snap_tile(e, r0, r1, q0, q1, t);
}

/* Block j's T steps, in cache tiles: the block's region at each step cut into tiles of
 * sub_w[0] x sub_w[1] (r x q) with the block's own skew, finer; each tile advances sub_t steps
 * while it is in cache, tiles row by row (q outer), as the in-core engine's time tiles do
 * (docs/design/008-in-core-time-tiles.md).  One tile of sub_t = T is the block itself.
 * Between steps the IO queue is polled, so that the device stays busy. */
static int compute_block(ooc *e, int64_t j, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int alg1 = p->schedule == STN_SCHED_ALG1; /* its widened steps are not cut */
    int64_t mr = alg1 ? 1 : stn_ooc_sub_count(&p->r, j, e->sub.w[0]);
    /* (a wrapped sweep keeps and places whole slices: its tiles span q) */
    int64_t mq = alg1 || p->r.wrap ? 1 : stn_ooc_sub_count(&p->q, e->row, e->sub.w[1]);
    int64_t ts = alg1 || e->sub.t < 1 ? T : e->sub.t;
    int rc = 0, first = 1;
    for (int64_t t0 = 0; t0 < T; t0 += ts)
        for (int64_t iq = 0; iq < mq; iq++)
            for (int64_t ir = 0; ir < mr; ir++)
                for (int64_t t = t0 + 1; rc == 0 && t <= T && t <= t0 + ts; t++) {
                    if (!first && rc == 0) /* keep the device busy: the queue holds more than its slots */
                        rc = stn_aio_poll(e->q, &e->res->st);
                    if (!first && rc == 0 && e->r->snap) /* (rank 0 gathering: the other ranks' pieces) */
                        rc = stn_h5_take(e->r->snap, &e->res->st);
                    first = 0;
                    int64_t a, b, c, d;
                    stn_ooc_step_range(p, &p->r, j, t, T, &a, &b);
                    stn_ooc_step_range(p, &p->q, e->row, t, T, &c, &d);
                    sub_tile st = {stn_ooc_sub_edge(&p->r, j, ir, mr, e->sub.w[0], t, a, b),
                                   stn_ooc_sub_edge(&p->r, j, ir + 1, mr, e->sub.w[0], t, a, b),
                                   stn_ooc_sub_edge(&p->q, e->row, iq, mq, e->sub.w[1], t, c, d),
                                   stn_ooc_sub_edge(&p->q, e->row, iq + 1, mq, e->sub.w[1], t, c, d)};
                    if (rc == 0 && p->r.wrap && j == p->r.nblocks - 1)
                        stn_ooc_wedge_place(e, t, st.r0, st.r1);
                    if (rc == 0)
                        rc = compute_step(e, &st, t);
                    if (rc == 0 && e->r->snap && stn_ooc_snap_saves(e)) /* (its snapshot cells, now) */
                        rc = snap_tile(e, j, &st, t, T);
                    if (rc == 0 && p->r.wrap && t < T)
                        stn_ooc_wedge_keep(e, t, st.r0, st.r1);
                }
    return rc;
}

/* Write block j's final cells (levels T and, for two-level fields, T-1) to the destination,
 * straight from the ring.  Block j uses write group j % 2, after block j-2's writes finished. */
static int write_block(ooc *e, int64_t sweep, int64_t j, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi, qlo, qhi;
    stn_aio_group *g = &e->wgroup[j % 2];
    int rc = stn_aio_wait(e->q, g, &e->res->st);
    if (rc)
        return rc;
    stn_aio_group_reset(g);
    if (e->alg2) { /* every array back in place, over all the slices this block changed */
        stn_ooc_alg2_range(&p->r, j, T, &lo, &hi);
        for (int i = 0; rc == 0 && hi > lo && i < e->d->nfields; i++) {
            ooc_field *f = &e->f[i];
            for (int a = 0; rc == 0 && f->m->state && a < f->m->narr; a++)
                rc = stn_ooc_io_box(e, 1, ooc_inplace(f, a), f->ring[a], &(ooc_rows){lo, hi, e->qlo, e->qhi},
                                    e->qlo, g);
        }
        return rc;
    }
    stn_ooc_out_range(p, &p->r, j, T, &lo, &hi);
    stn_ooc_out_range(p, &p->q, e->row, T, &qlo, &qhi);
    for (int i = 0; rc == 0 && hi > lo && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->m->state && l < f->m->levels; l++)
            rc = p->r.wrap ? stn_ooc_io_wrapped(e, 1, i, &f->scratch[(sweep + 1) % 2][l],
                                                f->ring[ooc_arr(f, T - l)], &(ooc_rows){lo, hi, qlo, qhi}, g)
                           : stn_ooc_io_box(e, 1, &f->scratch[(sweep + 1) % 2][l], f->ring[ooc_arr(f, T - l)],
                                            &(ooc_rows){lo, hi, qlo, qhi}, qlo, g);
    }
    return rc;
}

/* ------------------------------------------------------------------ sweeps */

/* Every write of the sweep has completed; with `durable`, its destination is on stable storage. */
static int sync_destination(ooc *e, int64_t sweep, int durable) {
    double t0 = stn_now();
    int rc = stn_aio_wait_all(e->q, &e->res->st);
    for (int i = 0; rc == 0 && durable && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; rc == 0 && f->m->state && a < (e->alg2 ? f->m->narr : f->m->levels); a++)
            rc = stn_gridfile_sync(e->alg2 ? ooc_inplace(f, a) : &f->scratch[(sweep + 1) % 2][a]);
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_WRITE, t0);
    return rc;
}

/* alg1: read slices [r0, r1) of every state level again from the sweep's source. */
static int reread_alg1(ooc *e, int64_t sweep, int64_t r0, int64_t r1) {
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = 0;
    for (int i = 0; rc == 0 && r1 > r0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->m->state && l < f->m->levels; l++) {
            int src = stn_ooc_source_of(&e->model, &e->plan, i, l, sweep);
            if (src == STN_SRC_SCRATCH)
                rc = stn_ooc_io_wrapped(e, 0, i, &f->scratch[sweep % 2][l], f->ring[ooc_arr(f, -l)],
                                        &(ooc_rows){r0, r1, e->qlo, e->qhi}, &g);
            else
                rc = stn_ooc_place_wrapped(e, i, l, src, &(ooc_rows){r0, r1, e->qlo, e->qhi});
        }
    }
    int rc2 = stn_aio_wait(e->q, &g, &e->res->st);
    return rc ? rc : rc2;
}

/* Row k of blocks: set the row's q window and strip ranges. */
static void enter_row(ooc *e, int64_t k, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi;
    e->row = k;
    stn_ooc_window(p, &p->q, k, T, &e->qlo, &e->qhi);
    e->qnew = e->qlo;
    if (k > 0) {
        stn_ooc_strip_range(p, k - 1, T, &lo, &hi);
        e->qnew = e->qlo > hi ? e->qlo : hi;
    }
    stn_ooc_strip_range(p, k, T, &lo, &hi); /* empty for the last row and without a strip */
    e->qnext = hi > lo ? lo : e->qhi;
    e->qbase = p->strip != STN_STRIP_NONE ? e->qlo : 0;
    e->wr0 = e->wr1 = 0;
}

/* The slices leaving the ring after block j: their z-strip, copied (in DRAM) or queued (spilled). */
static int save_strip(ooc *e, int64_t j, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi, leave, nhi;
    if (e->qnext >= e->qhi)
        return 0;
    stn_ooc_window(p, &p->r, j, T, &lo, &hi);
    leave = hi;
    if (j + 1 < p->r.nblocks)
        stn_ooc_window(p, &p->r, j + 1, T, &leave, &nhi);
    return strip_io(e, 1, lo, leave, &e->wgroup[j % 2]);
}

/* Block j's writes: its final cells, and its spilled z-strip (one in DRAM is copied as the block ends). */
static int write_out(ooc *e, int64_t sweep, int64_t j, int64_t T) {
    int rc = write_block(e, sweep, j, T);
    return rc == 0 && e->plan.strip != STN_STRIP_DRAM ? save_strip(e, j, T) : rc;
}

/* Row k of blocks.  The reference schedule queues block j-1's writes after block j+1's reads, so that the
 * device serves first what the next block waits for (block j-1's writes have until block j+2's reads, which
 * may land where they are written from): on the long run, 0.8-1 s less wait (docs/out-of-core.md,
 * "Overlap").  alg1 and alg2 read back what block j wrote right after it, and a wrapped sweep's last block
 * writes through the wedge: they queue block j's writes as it ends. */
static int run_row(ooc *e, int64_t sweep, int64_t k, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi, nlo, nhi, nblocks = p->r.nblocks;
    int defer = p->schedule == STN_SCHED_REF && !e->alg2 && !p->r.wrap;
    enter_row(e, k, T);
    stn_ooc_window(p, &p->r, 0, T, &lo, &hi);
    int rc = prefetch(e, sweep, lo, hi);
    for (int64_t j = 0; rc == 0 && j < nblocks; j++) {
        stn_ooc_window(p, &p->r, j, T, &lo, &hi);
        rc = enter_block(e, sweep, lo, hi);
        if (rc == 0 && j + 1 < nblocks) {
            /* block j+1's reads may land where block j-2 was written from: wait for those writes */
            rc = stn_aio_wait(e->q, &e->wgroup[j % 2], &e->res->st);
            stn_ooc_window(p, &p->r, j + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = prefetch(e, sweep, hi > nlo ? hi : nlo, nhi);
        }
        if (rc == 0 && defer && j > 0)
            rc = write_out(e, sweep, j - 1, T);
        if (rc == 0)
            rc = compute_block(e, j, T);
        if (rc == 0 && p->strip == STN_STRIP_DRAM) /* (a copy: before block j+1's reads can land) */
            rc = save_strip(e, j, T);
        if (rc == 0 && (!defer || j + 1 == nblocks))
            rc = write_out(e, sweep, j, T);
        if (e->gh.pending) /* (MPI progresses the deferred ghosts when called) */
            stn_par_test(&e->gh.req);
        if (rc == 0 && e->prog) { /* a sweep can be long: report the fraction of its blocks done */
            int64_t done = k * nblocks + j + 1, all = p->q.nblocks * nblocks;
            stn_progress_step(e->prog, e->steps_before + T * done / all);
        }
        if (rc == 0 && p->schedule == STN_SCHED_ALG1 && j + 1 < nblocks) {
            /* alg1 advanced the slices it shares with block j+1's window: they come back at level 0
             * from the source, after block j's writes (from the same ring positions) have landed */
            rc = stn_aio_wait(e->q, &e->wgroup[j % 2], &e->res->st);
            stn_ooc_window(p, &p->r, j + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = reread_alg1(e, sweep, nlo, hi < nhi ? hi : nhi);
        }
        if (rc == 0 && e->alg2 && j + 1 < nblocks) {
            /* alg2 keeps nothing between blocks: the part of block j+1's window that block j also
             * held comes back from the files, once block j's writes have landed there */
            stn_aio_group g = STN_AIO_GROUP_INIT;
            rc = stn_aio_wait(e->q, &e->wgroup[j % 2], &e->res->st);
            stn_ooc_window(p, &p->r, j + 1, T, &nlo, &nhi);
            if (rc == 0)
                rc = read_inplace(e, nlo, hi < nhi ? hi : nhi, &g);
            int rc2 = stn_aio_wait(e->q, &g, &e->res->st);
            rc = rc ? rc : rc2;
        }
    }
    if (rc == 0 && k + 1 < p->q.nblocks) { /* the next row starts the ring afresh */
        rc = stn_aio_wait(e->q, &e->wgroup[0], &e->res->st);
        int rc2 = stn_aio_wait(e->q, &e->wgroup[1], &e->res->st);
        rc = rc ? rc : rc2;
    }
    return rc;
}

int stn_ooc_sweep(ooc *e, int64_t sweep, int64_t T, int durable) {
    e->T = T;
    stn_ooc_wedge_offsets(e, T);
    int rc = stn_ooc_chunk_sweep(e, sweep, T); /* the destination's layout, chosen now */
    for (int64_t k = 0; rc == 0 && k < e->plan.q.nblocks; k++)
        rc = run_row(e, sweep, k, T);
    if (rc == 0)
        rc = sync_destination(e, sweep, durable);
    else {
        stn_ooc_reader_join(e); /* nothing may be in flight into freed buffers */
        stn_aio_wait_all(e->q, &e->res->st);
    }
    return rc;
}
