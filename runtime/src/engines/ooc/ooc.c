/* ooc.c -- the out-of-core engine (--mode ooc): the reference schedule, and the paper's
 * algorithms 1 and 2 (--schedule alg1|alg2) for comparison: the executor.  The plan and its IO
 * model are ooc_plan.c's, the choice of blocks tune.c's, moving boxes of rows in and out of the
 * window ooc_window.c's, the import and export ooc_xfer.c's, the state file ooc_state.c's.
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

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void scratch_name(char *buf, size_t n, const ooc *e, int f, int set, int level) {
    const stn_field_desc *fd = &e->d->fields[f];
    if (fd->kind == STN_FIELD_INPUT)
        snprintf(buf, n, "%s/%s.%s.input.grid", e->r->o->dir, e->d->name, fd->name);
    else if (e->alg2) /* array a = 2 * set + level: the in-place arrays of the paper's algorithm 2 */
        snprintf(buf, n, "%s/%s.%s.array%d.grid", e->r->o->dir, e->d->name, fd->name, 2 * set + level);
    else
        snprintf(buf, n, "%s/%s.%s%s.%c.grid", e->r->o->dir, e->d->name, fd->name, level ? ".prev" : "",
                 set ? 'B' : 'A');
}

/* The levels a sweep reads of field f: all of a state field's, an input's one. */
static int nlevels_read(const ooc_field *f) { return f->m->state ? f->m->levels : 1; }

/* Queue reads of slices [r0, r1) of every array alg2 keeps in place (state fields only). */
static int read_inplace(ooc *e, int64_t r0, int64_t r1, stn_aio_group *g) {
    for (int i = 0; r1 > r0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int a = 0; f->m->state && a < f->m->narr; a++) {
            int rc = stn_ooc_io_box(e, 0, ooc_inplace(f, a), f->ring[a], r0, r1, e->qlo, e->qhi, e->qlo, g);
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
                rc = stn_ooc_io_box(e, save, &e->f[i].spill[a], e->f[i].ring[a], r0, r1, q0, q1, 0, g);
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
 * into the ring. */
/* ------------------------------------------------------------------ the --init reader */

/* The first sweep reads --init files with pread (their rows are not aligned for O_DIRECT).  So
 * that those reads overlap the kernels as the asynchronous ones do, block j+1's are made by a
 * thread of their own while block j computes, into ring slices no one else touches until
 * enter_block(j+1) joins it.  The thread touches nothing of the engine but those rows. */
typedef struct ooc_reader {
    pthread_t th;
    ooc *e;
    int64_t sweep, r0, r1, q0, q1;
    int rc;
    char msg[1024];
    stn_stats st; /* its bytes (merged at the join; its time overlaps the main thread's) */
} ooc_reader;

static void *reader_main(void *arg) {
    ooc_reader *rd = arg;
    ooc *e = rd->e;
    for (int i = 0; rd->rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rd->rc == 0 && l < nlevels_read(f); l++)
            if (stn_ooc_source_of(&e->model, &e->plan, i, l, rd->sweep) == STN_SRC_NPY)
                rd->rc = stn_ooc_npy_box_st(e, i, l, f->ring[ooc_arr(f, -l)], rd->r0, rd->r1, rd->q0, rd->q1,
                                            &rd->st);
    }
    if (rd->rc)
        snprintf(rd->msg, sizeof rd->msg, "%s", stn_errmsg());
    return NULL;
}

/* Start reading the --init rows of slices [r0, r1) of the current row, if the sweep has any. */
static int reader_start(ooc *e, int64_t sweep, int64_t r0, int64_t r1) {
    int any = 0;
    for (int i = 0; i < e->d->nfields; i++)
        for (int l = 0; l < nlevels_read(&e->f[i]); l++)
            any |= stn_ooc_source_of(&e->model, &e->plan, i, l, sweep) == STN_SRC_NPY;
    if (!any || e->alg2 || e->plan.schedule == STN_SCHED_ALG1 || r1 <= r0 || e->qhi <= e->qnew || e->own_axes)
        return 0; /* (wrap-around slices move with e->rshift set, which the thread would share) */
    ooc_reader *rd = calloc(1, sizeof *rd);
    if (!rd)
        return stn_error(-ENOMEM, "out of memory starting the --init reader");
    *rd = (ooc_reader){.e = e, .sweep = sweep, .r0 = r0, .r1 = r1, .q0 = e->qnew, .q1 = e->qhi};
    int rc = pthread_create(&rd->th, NULL, reader_main, rd);
    if (rc) { /* no thread: enter_block reads them itself, under no compute; say so once */
        free(rd);
        if (!e->reader_warned++)
            stn_warn(e->r->log,
                     "cannot start the --init reader thread (%s); the --init files are read without "
                     "overlapping the compute",
                     strerror(rc));
        return 0;
    }
    e->reader = rd;
    return 0;
}

/* Wait for the reader (time blocked: wait), take its bytes and its failure. */
static int reader_join(ooc *e) {
    ooc_reader *rd = e->reader;
    if (!rd)
        return 0;
    double t0 = stn_now();
    pthread_join(rd->th, NULL);
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    e->res->st.bytes_read += rd->st.bytes_read;
    int rc = rd->rc ? stn_error(rd->rc, "%s", rd->msg) : 0;
    free(rd);
    e->reader = NULL;
    return rc;
}

static int ghosts_land(ooc *e, int write);

static int prefetch(ooc *e, int64_t sweep, int64_t r0, int64_t r1) {
    if (e->gpending && r1 > e->r->slab.own_hi) { /* the high ghosts the exchange deferred: here now */
        int rc = ghosts_land(e, 1);
        if (rc)
            return rc;
    }
    stn_aio_group_reset(&e->rgroup);
    if (e->plan.r.wrap && r1 > e->plan.r.n) /* a wrapped sweep's slices past n: from the wedge */
        r1 = e->plan.r.n;
    if (r1 <= r0)
        return 0;
    int rc0 = reader_start(e, sweep, r0, r1);
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
        for (int l = 0; l < nlevels_read(f); l++) {
            if (stn_ooc_source_of(&e->model, &e->plan, i, l, sweep) != STN_SRC_SCRATCH)
                continue;
            stn_gridfile *gf = f->m->state ? &f->scratch[sweep % 2][l] : &f->scratch[0][0];
            int rc =
                stn_ooc_io_wrapped(e, 0, i, gf, f->ring[ooc_arr(f, -l)], r0, r1, e->qnew, e->qhi, &e->rgroup);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the wedge (wrapped sweeps) */

/* A sweep of T steps wrapped around r (docs/out-of-core.md#periodic-boundaries): block 0 leans
 * forward and the last block runs on past H, computing the slices near L that block 0 left at
 * each step as slices H + (i - L).  It reads the levels the other blocks computed there, which
 * left the ring long before: the wedge keeps them, level by level (stn_ooc_wedge_range), in
 * DRAM counted in the plan. */
static void wedge_offsets(ooc *e, int64_t T) {
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (!f->wedge || !f->m->state) /* an input's: one range, at 0 */
            continue;
        int64_t off = 0, lo, hi;
        for (int64_t l = 0; l < T; l++) {
            f->wedge_off[l] = off;
            stn_ooc_wedge_range(&e->plan.r, f->m->levels, T, l, &lo, &hi);
            off += hi - lo;
        }
        f->wedge_off[T] = off;
    }
}

/* What the wedge keeps of level l of field f (an input: its one level, l = 0). */
static void wedge_range_of(const ooc *e, const ooc_field *f, int64_t l, int64_t *lo, int64_t *hi) {
    if (f->m->state)
        stn_ooc_wedge_range(&e->plan.r, f->m->levels, e->T, l, lo, hi);
    else if (l == 0)
        stn_ooc_wedge_input_range(&e->plan.r, e->T, lo, hi);
    else
        *lo = *hi = 0;
}

/* Keep level l of slices [a, b) (below H) of every field where the wedge needs them. */
static void wedge_keep(ooc *e, int64_t l, int64_t a, int64_t b) {
    const stn_ooc_plan *p = &e->plan;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int64_t lo, hi;
        if (!f->wedge || l >= e->T)
            continue;
        wedge_range_of(e, f, l, &lo, &hi);
        lo = lo > a ? lo : a;
        hi = hi < b ? hi : b;
        if (hi > p->r.H)
            hi = p->r.H;
        if (hi > lo) {
            int64_t lo0, hi0;
            wedge_range_of(e, f, l, &lo0, &hi0);
            memcpy(f->wedge + (size_t)(f->wedge_off[l] + lo - lo0) * p->slice_bytes,
                   ooc_at(e, f->ring[ooc_arr(f, e->lvl0 + l)], lo, e->qbase),
                   (size_t)(hi - lo) * p->slice_bytes);
        }
    }
}

/* Before step t of a cache tile of the last block computing [r0, r1): the levels it reads past H
 * that it did not compute, where it reads them (a tile further down may have gone on to a later
 * level in the same array below them: the skew keeps that below what this one reads). */
static void wedge_place(ooc *e, int64_t t, int64_t r0, int64_t r1) {
    const stn_ooc_plan *p = &e->plan;
    int64_t P = p->r.H - p->r.L, rlo = r0 - p->r.rlo, rhi = r1 + p->r.rhi;
    for (int i = 0; r1 > r0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int64_t l = t - f->m->levels; f->wedge && f->m->state && l < t; l++) {
            int64_t lo, hi;
            if (l < 0)
                continue;
            stn_ooc_wedge_range(&p->r, f->m->levels, e->T, l, &lo, &hi);
            int64_t a = lo + P > rlo ? lo + P : rlo, b = hi + P < rhi ? hi + P : rhi;
            if (b > a)
                memcpy(ooc_at(e, f->ring[ooc_arr(f, e->lvl0 + l)], a, e->qbase),
                       f->wedge + (size_t)(f->wedge_off[l] + a - P - lo) * p->slice_bytes,
                       (size_t)(b - a) * p->slice_bytes);
        }
    }
}

/* When the last block enters: the inputs' slices past n (constant: placed once, where no one
 * writes). */
static void wedge_place_inputs(ooc *e) {
    const stn_ooc_plan *p = &e->plan;
    int64_t P = p->r.H - p->r.L;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int64_t lo, hi;
        if (!f->wedge || f->m->state)
            continue;
        wedge_range_of(e, f, 0, &lo, &hi);
        if (hi > lo)
            memcpy(ooc_at(e, f->ring[0], lo + P, e->qbase), f->wedge, (size_t)(hi - lo) * p->slice_bytes);
    }
}

/* Move the window to [lo, hi): the slices it keeps are already in the ring, and so are the new
 * ones read from files (once their reads complete); place the others. */
static int enter_block(ooc *e, int64_t sweep, int64_t lo, int64_t hi) {
    int64_t new_lo = e->wr1 > lo ? e->wr1 : lo;
    e->wr0 = lo;
    e->wr1 = hi;
    int ahead = e->reader != NULL; /* the --init rows are in (or coming) */
    int rc = stn_aio_wait(e->q, &e->rgroup, &e->res->st);
    int rc2 = reader_join(e);
    rc = rc ? rc : rc2;
    if (rc == 0 && e->plan.strip == STN_STRIP_DRAM)
        rc = strip_io(e, 0, new_lo, hi, NULL);
    int64_t file_hi = e->plan.r.wrap && hi > e->plan.r.n ? e->plan.r.n : hi; /* (past n: the wedge) */
    for (int i = 0; rc == 0 && i < e->d->nfields; i++)
        for (int l = 0; rc == 0 && l < nlevels_read(&e->f[i]); l++) {
            int src = stn_ooc_source_of(&e->model, &e->plan, i, l, sweep);
            if (!(ahead && src == STN_SRC_NPY))
                rc = stn_ooc_place_wrapped(e, i, l, src, new_lo, file_hi, e->qnew, e->qhi);
        }
    if (rc == 0 && e->plan.r.wrap) /* level 0 of the slices the last block reads past n */
        wedge_keep(e, 0, new_lo, hi);
    if (rc == 0 && e->plan.r.wrap && hi > e->plan.r.n) /* (only the last block's window goes past n) */
        wedge_place_inputs(e);
    /* dirichlet: the level-1 array of a new slice gets the boundary cells of level 0 (which every
     * level >= 0 shares); the kernels never write them, so this holds for the whole sweep */
    stn_view v = stn_ooc_view(e);
    stn_box nb = stn_ooc_box(e, new_lo, hi, e->qnew, e->qhi);
    double t0 = stn_now();
    for (int i = 0; rc == 0 && !e->alg2 && hi > new_lo && e->qhi > e->qnew && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (f->m->state && f->boundary == STN_BC_DIRICHLET)
            stn_run_boundary(e->r, i, &v, ooc_win(e, f, 0), ooc_win(e, f, 1), &nb);
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
        if (f->boundary == STN_BC_NEUMANN || e->d->fields[i].periodic) { /* a wrap, like a mirror */
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
        if (f->boundary != STN_BC_NEUMANN && f->m->levels == 2 && e->lvl0 + t == 2) {
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
                stn_run_boundary(e->r, i, &v, ooc_win(e, f, ooc_arr(f, 1)), ooc_win(e, f, ooc_arr(f, 2)),
                                 &own);
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
            e->src[fd->src_slot] = ooc_win(e, f, f->m->state ? ooc_arr(f, e->lvl0 + t - 1) : 0);
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

/* Block j's T steps, in cache tiles: the block's region at each step cut into tiles of
 * sub_w[0] x sub_w[1] (r x q) with the block's own skew, finer; each tile advances sub_t steps
 * while it is in cache, tiles row by row (q outer), as the in-core engine's time tiles do
 * (docs/design/008-in-core-time-tiles.md).  One tile of sub_t = T is the block itself.
 * Between steps the IO queue is polled, so that the device stays busy. */
static int compute_block(ooc *e, int64_t j, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int alg1 = p->schedule == STN_SCHED_ALG1; /* its widened steps are not cut */
    int64_t mr = alg1 ? 1 : stn_ooc_sub_count(&p->r, j, e->sub_w[0]);
    /* (a wrapped sweep keeps and places whole slices: its tiles span q) */
    int64_t mq = alg1 || p->r.wrap ? 1 : stn_ooc_sub_count(&p->q, e->row, e->sub_w[1]);
    int64_t ts = alg1 || e->sub_t < 1 ? T : e->sub_t;
    int rc = 0, first = 1;
    for (int64_t t0 = 0; t0 < T; t0 += ts)
        for (int64_t iq = 0; iq < mq; iq++)
            for (int64_t ir = 0; ir < mr; ir++)
                for (int64_t t = t0 + 1; rc == 0 && t <= T && t <= t0 + ts; t++) {
                    if (!first && rc == 0) /* keep the device busy: the queue holds more than its slots */
                        rc = stn_aio_poll(e->q, &e->res->st);
                    first = 0;
                    int64_t a, b, c, d;
                    stn_ooc_step_range(p, &p->r, j, t, T, &a, &b);
                    stn_ooc_step_range(p, &p->q, e->row, t, T, &c, &d);
                    sub_tile st = {stn_ooc_sub_edge(&p->r, j, ir, mr, e->sub_w[0], t, a, b),
                                   stn_ooc_sub_edge(&p->r, j, ir + 1, mr, e->sub_w[0], t, a, b),
                                   stn_ooc_sub_edge(&p->q, e->row, iq, mq, e->sub_w[1], t, c, d),
                                   stn_ooc_sub_edge(&p->q, e->row, iq + 1, mq, e->sub_w[1], t, c, d)};
                    if (rc == 0 && p->r.wrap && j == p->r.nblocks - 1)
                        wedge_place(e, t, st.r0, st.r1);
                    if (rc == 0)
                        rc = compute_step(e, &st, t);
                    if (rc == 0 && p->r.wrap && t < T)
                        wedge_keep(e, t, st.r0, st.r1);
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
                rc = stn_ooc_io_box(e, 1, ooc_inplace(f, a), f->ring[a], lo, hi, e->qlo, e->qhi, e->qlo, g);
        }
        return rc;
    }
    stn_ooc_out_range(p, &p->r, j, T, &lo, &hi);
    stn_ooc_out_range(p, &p->q, e->row, T, &qlo, &qhi);
    for (int i = 0; rc == 0 && hi > lo && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->m->state && l < f->m->levels; l++)
            rc = p->r.wrap ? stn_ooc_io_wrapped(e, 1, i, &f->scratch[(sweep + 1) % 2][l],
                                                f->ring[ooc_arr(f, T - l)], lo, hi, qlo, qhi, g)
                           : stn_ooc_io_box(e, 1, &f->scratch[(sweep + 1) % 2][l], f->ring[ooc_arr(f, T - l)],
                                            lo, hi, qlo, qhi, qlo, g);
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
                rc = stn_ooc_io_wrapped(e, 0, i, &f->scratch[sweep % 2][l], f->ring[ooc_arr(f, -l)], r0, r1,
                                        e->qlo, e->qhi, &g);
            else
                rc = stn_ooc_place_wrapped(e, i, l, src, r0, r1, e->qlo, e->qhi);
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

static int run_row(ooc *e, int64_t sweep, int64_t k, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t lo, hi, nlo, nhi, nblocks = p->r.nblocks;
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
        if (rc == 0) {
            rc = compute_block(e, j, T);
            if (rc == 0)
                rc = write_block(e, sweep, j, T);
        }
        if (rc == 0 && e->qnext < e->qhi) { /* the slices leaving the ring: their z-strip */
            int64_t leave = hi;
            if (j + 1 < nblocks)
                stn_ooc_window(p, &p->r, j + 1, T, &leave, &nhi);
            rc = strip_io(e, 1, lo, leave, &e->wgroup[j % 2]);
        }
        if (e->gpending) /* (MPI progresses the deferred ghosts when called) */
            stn_par_test(&e->greq);
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

static int run_sweep(ooc *e, int64_t sweep, int64_t T, int durable) {
    e->T = T;
    wedge_offsets(e, T);
    int rc = 0;
    for (int64_t k = 0; rc == 0 && k < e->plan.q.nblocks; k++)
        rc = run_row(e, sweep, k, T);
    if (rc == 0)
        rc = sync_destination(e, sweep, durable);
    else {
        reader_join(e); /* nothing may be in flight into freed buffers */
        stn_aio_wait_all(e->q, &e->res->st);
    }
    return rc;
}

/* ------------------------------------------------------------------ the ranks' ghosts (MPI) */

/* What one exchange moves, as modelled (stn_ooc_exchange): the bytes read from the part's files (and
 * as many written); *msg: the message bytes. */
static uint64_t exchange_bytes(const ooc *e, uint64_t *msg) {
    stn_xchg_model x;
    stn_xchg_of(e->r, &x);
    const stn_slab *sl = &e->r->slab;
    uint64_t io, n;
    stn_ooc_exchange(&x, &e->plan, sl->bt, &io, msg, &n);
    return io;
}

/* Copy indices [k0, k1) along axis k (0: x, 1: y of a 3d plane) of ring slices [r0, r1) (every row of
 * each, unpadded) between the ring and buf: into buf (out != 0) or from it. */
static void pack_cross(const ooc *e, char *ring, char *buf, int64_t r0, int64_t r1, int k, int64_t k0,
                       int64_t k1, int out) {
    const stn_view *v = &e->r->view;
    size_t es = (size_t)e->d->elem_size;
    int64_t rows = e->d->ndim == 3 ? v->ny : 1;
    for (int64_t r = r0; r < r1; r++) {
        char *slice = ooc_at(e, ring, r, 0);
        for (int64_t y = k == 1 ? k0 : 0; y < (k == 1 ? k1 : rows); y++) {
            size_t n = (size_t)(k == 0 ? k1 - k0 : v->nx) * es;
            char *p = slice + (size_t)y * (size_t)e->plan.row_bytes + (size_t)(k == 0 ? k0 : 0) * es;
            memcpy(out ? buf : p, out ? p : buf, n);
            buf += n;
        }
    }
}

/* Whole slices [r0, r1) (at most the ring's) between file gf and the ring, in pieces that do not run
 * past the ring's end (slice r lives at r mod C), and waited for. */
static int io_slices(ooc *e, int write, stn_gridfile *gf, char *ring, int64_t r0, int64_t r1) {
    stn_aio_group grp = STN_AIO_GROUP_INIT;
    int64_t C = e->plan.ring_slices;
    int rc = 0;
    for (int64_t a = r0, b; rc == 0 && a < r1; a = b) {
        b = a - a % C + C < r1 ? a - a % C + C : r1;
        rc = stn_ooc_io_box(e, write, gf, ring, a, b, 0, e->plan.q.n, 0, &grp);
    }
    int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
    return rc ? rc : rc2;
}

/* The cross cuts' ghosts of one level (file gf): every slice of the part read into ring[0] a batch
 * at a time, its own edge columns (x) sent to the x-neighbours and theirs received into its ghost
 * columns, then its own edge rows (y, 3d; over the x-ghosts too, so the corners come from the
 * diagonal neighbours), written back.  Neighbours along x and y hold the same slices (the same part
 * of the split axis), in batches as long as the shortest ring of all ranks. */
static int exchange_cross(ooc *e, stn_gridfile *gf, char *ring, int64_t batch, uint64_t *msg) {
    const stn_slab *sl = &e->r->slab;
    const stn_ooc_plan *p = &e->plan;
    const stn_view *v = &e->r->view;
    size_t es = (size_t)e->d->elem_size;
    int64_t rows = e->d->ndim == 3 ? v->ny : 1;
    size_t most = 0;
    for (int k = 0; k < 2; k++)
        if (sl->cut >> k & 1) {
            size_t b = (size_t)batch * (size_t)sl->xg[k] * es * (size_t)(k == 0 ? rows : v->nx);
            most = b > most ? b : most;
        }
    char *out = malloc(most ? most : 1), *in = malloc(most ? most : 1);
    int rc = out && in
                 ? 0
                 : stn_error(-ENOMEM, "out of memory for the ghosts across the rows (2 buffers of %zu bytes)",
                             most);
    for (int64_t r0 = 0; r0 < p->r.n; r0 += batch) {
        int64_t r1 = r0 + batch < p->r.n ? r0 + batch : p->r.n;
        if (rc == 0)
            rc = io_slices(e, 0, gf, ring, r0, r1);
        for (int k = 0; k < 2; k++) { /* (a failed rank goes on with the messages) */
            if (!(sl->cut >> k & 1))
                continue;
            int64_t g = sl->xg[k];
            size_t bytes = (size_t)(r1 - r0) * (size_t)g * es * (size_t)(k == 0 ? rows : v->nx);
            for (int up = 1; up >= 0; up--) {
                int dest = sl->xnb[k][up], src = sl->xnb[k][!up];
                if (dest >= 0 && out)
                    pack_cross(e, ring, out, r0, r1, k, up ? sl->xhi[k] - g : sl->xlo[k],
                               up ? sl->xhi[k] : sl->xlo[k] + g, 1);
                int rc3 = stn_par_sendrecv(out, dest >= 0 ? bytes : 0, dest, in, src >= 0 ? bytes : 0, src);
                rc = rc ? rc : rc3;
                *msg += dest >= 0 ? bytes : 0;
                if (rc == 0 && src >= 0)
                    pack_cross(e, ring, in, r0, r1, k, up ? sl->xlo[k] - g : sl->xhi[k],
                               up ? sl->xlo[k] : sl->xhi[k] + g, 0);
            }
        }
        if (rc == 0)
            rc = io_slices(e, 1, gf, ring, r0, r1);
    }
    free(out);
    free(in);
    return rc;
}

/* After sweep s (its state in scratch set (s + 1) % 2): each rank's own edge slices into its
 * neighbours' ghosts, in every level of every state field: up (the last g own slices to the rank
 * above, which keeps them below its own), then down.  One slice at a time, through two of the
 * field's ring arrays (the window is idle between sweeps).  A rank whose IO fails goes on sending
 * and receiving, so that no neighbour waits forever; the caller agrees on the outcome. */
/* Whole slices [r0, r1) of file gf to or from a flat buffer (slice after slice), queued in g. */
static int flat_io(ooc *e, int write, stn_gridfile *gf, char *buf, int64_t r0, int64_t r1, stn_aio_group *g) {
    const stn_ooc_plan *p = &e->plan;
    if (p->r.axis == 2)
        return write ? stn_aio_write(e->q, gf, 0, p->q.n, r0, r1, buf, p->slice_bytes, g, &e->res->st)
                     : stn_aio_read(e->q, gf, 0, p->q.n, r0, r1, buf, p->slice_bytes, g, &e->res->st);
    size_t plane = (size_t)(r1 - r0) * (size_t)p->row_bytes;
    return write ? stn_aio_write(e->q, gf, r0, r1, 0, 1, buf, plane, g, &e->res->st)
                 : stn_aio_read(e->q, gf, r0, r1, 0, 1, buf, plane, g, &e->res->st);
}

/* The deferred half of an exchange: once its messages have arrived, the high ghosts of every level
 * into file set gset (before the sweep reads them: prefetch).  Every rank posted its half in the
 * same exchange, so the wait ends even on a failed path (write = 0: only the wait). */
static int ghosts_land(ooc *e, int write) {
    if (!e->gpending)
        return 0;
    const stn_slab *sl = &e->r->slab;
    double t0 = stn_now();
    int rc = stn_par_wait(&e->greq);
    e->gpending = 0;
    uint64_t lvl = (uint64_t)sl->g * e->plan.slice_bytes, levels = 0;
    for (int i = 0; i < e->d->nfields; i++)
        levels += e->f[i].m->state ? (uint64_t)e->f[i].m->levels : 0;
    char *in = e->gbuf + levels * lvl;
    stn_aio_group grp = STN_AIO_GROUP_INIT;
    for (int i = 0; rc == 0 && write && sl->above >= 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->m->state && l < f->m->levels; l++, in += lvl)
            rc = flat_io(e, 1, &f->scratch[e->gset][l], in, sl->own_hi, sl->own_hi + sl->g, &grp);
    }
    int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    return rc ? rc : rc2;
}

static int exchange(ooc *e, int64_t set, uint64_t *msg, int defer) {
    const stn_slab *sl = &e->r->slab;
    const stn_ooc_plan *p = &e->plan;
    int below = sl->below, above = sl->above;                  /* (a ring: cyclic) */
    int64_t batch = sl->cut ? stn_par_min(p->ring_slices) : 0; /* (the cross cuts' batches: every rank's) */
    /* a slice along r goes whole; a z-plane of y-blocked rows (the slab split q) in runs of the ring's rows
     */
    int along_r = sl->axis == p->r.axis;
    int64_t run = along_r ? 1 : p->ring_slices, runs = along_r ? 1 : p->r.n;
    e->qlo = e->qnew = 0, e->qhi = e->qnext = p->q.n, e->qbase = 0, e->rshift = 0;
    int rc = 0;
    double t0 = stn_now();
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; f->m->state && l < f->m->levels; l++) {
            stn_gridfile *gf = &f->scratch[set][l];
            for (int up = 1; up >= (defer ? 1 : 0); up--) { /* (deferred: the way down, below) */
                int dest = up ? above : below, src = up ? below : above;
                for (int64_t k = 0, y = 0; k < sl->g;
                     y + run < runs ? (void)(y += run) : (void)(k++, y = 0)) {
                    int64_t sp = up ? sl->own_hi - sl->g + k : sl->own_lo + k; /* sent */
                    int64_t rp = up ? sl->own_lo - sl->g + k : sl->own_hi + k; /* received into */
                    int64_t r0 = along_r ? sp : y, r1 = along_r ? sp + 1 : (y + run < runs ? y + run : runs);
                    int64_t q0 = along_r ? 0 : sp, q1 = along_r ? p->q.n : sp + 1, rr0 = along_r ? rp : r0;
                    size_t sb = (size_t)(r1 - r0) * (size_t)p->slice_bytes;
                    stn_aio_group grp = STN_AIO_GROUP_INIT;
                    e->qbase = along_r ? 0 : sp; /* (y-blocked: the plane is the rings' first) */
                    char *out = ooc_at(e, f->ring[0], r0, q0);
                    if (dest >= 0 && rc == 0) {
                        rc = stn_ooc_io_box(e, 0, gf, f->ring[0], r0, r1, q0, q1, q0, &grp);
                        int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
                        rc = rc ? rc : rc2;
                    }
                    e->qbase = along_r ? 0 : rp;
                    char *in = ooc_at(e, f->ring[1], rr0, along_r ? 0 : rp);
                    int rc3 = stn_par_sendrecv(dest >= 0 ? out : NULL, dest >= 0 ? sb : 0, dest,
                                               src >= 0 ? in : NULL, src >= 0 ? sb : 0, src);
                    rc = rc ? rc : rc3;
                    *msg += dest >= 0 ? sb : 0;
                    if (src >= 0 && rc == 0) {
                        rc = stn_ooc_io_box(e, 1, gf, f->ring[1], rr0, rr0 + (r1 - r0), along_r ? 0 : rp,
                                            along_r ? p->q.n : rp + 1, along_r ? 0 : rp, &grp);
                        int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
                        rc = rc ? rc : rc2;
                    }
                }
            }
            if (sl->cut) { /* then the ghosts across the rows, over the split axis' ghosts too */
                e->qlo = e->qnew = 0, e->qhi = e->qnext = p->q.n, e->qbase = 0;
                int rc2 = exchange_cross(e, gf, f->ring[0], batch, msg);
                rc = rc ? rc : rc2;
            }
            if (rc == 0)
                rc = stn_gridfile_sync(gf);
        }
    }
    if (defer) { /* the way down: every level's low own edge read, then sent while the next sweep runs */
        uint64_t lvl = (uint64_t)sl->g * p->slice_bytes, levels = 0;
        stn_aio_group grp = STN_AIO_GROUP_INIT;
        char *out = e->gbuf;
        for (int i = 0; i < e->d->nfields; i++) {
            ooc_field *f = &e->f[i];
            for (int l = 0; f->m->state && l < f->m->levels; l++, levels++, out += lvl)
                if (rc == 0 && below >= 0)
                    rc = flat_io(e, 0, &f->scratch[set][l], out, sl->own_lo, sl->own_lo + sl->g, &grp);
        }
        int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
        rc = rc ? rc : rc2;
        size_t bytes = (size_t)(levels * lvl); /* (a rank whose reads failed sends them anyway) */
        int rc3 = stn_par_isendrecv(e->gbuf, below >= 0 ? bytes : 0, below, e->gbuf + bytes,
                                    above >= 0 ? bytes : 0, above, &e->greq);
        rc = rc ? rc : rc3;
        e->gpending = rc3 == 0, e->gset = set;
        *msg += below >= 0 ? bytes : 0;
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    return rc;
}

/* Under MPI, after each step of a sweep every rank must agree: rc, or an error naming what failed
 * elsewhere when this rank's part went well. */
static int agree(const ooc *e, int rc, const char *what) {
    if (!e->r->slab.axis)
        return rc;
    int bad = stn_par_any(rc);
    if (bad && rc == 0)
        rc = stn_error(-EIO, "another rank failed %s (its error is above); this rank stops there too", what);
    return rc;
}

/* ------------------------------------------------------------------ setup and teardown */

static int open_npy(ooc *e, int f, int level, const char *path) {
    ooc_field *of = &e->f[f];
    int fd = stn_open_input(path);
    if (fd < 0)
        return fd;
    stn_npy_header h;
    int rc = stn_npy_read_header(path, fd, &h);
    if (rc) {
        close(fd);
        return rc;
    }
    of->npy[level] = path;
    of->npy_fd[level] = fd;
    of->npy_offset[level] = h.data_offset;
    return 0;
}

/* The model's sources of every field, and the --init files opened read-only. */
static int classify_sources(ooc *e) {
    const stn_program_desc *d = e->d;
    const stn_opts *o = e->r->o;
    e->fsrc = calloc((size_t)d->nfields, sizeof *e->fsrc);
    if (!e->fsrc)
        return stn_error(-ENOMEM, "out of memory setting up the out-of-core engine");
    e->model = (stn_ooc_model){d->nfields, e->fsrc, 0};
    for (int i = 0; i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        ooc_field *f = &e->f[i];
        stn_ooc_fsrc_init(d, i, o->init_path, o->out_path, &e->fsrc[i]);
        f->m = &e->fsrc[i];
        f->boundary = fd->boundary;
        for (int l = 0; l < f->m->levels; l++) {
            const char *path = o->init_path[2 * i + l];
            int rc = path ? open_npy(e, i, l, path) : 0;
            if (rc)
                return stn_error(rc, "--init %s%s=%s: %s", fd->name, l ? ".prev" : "", path, stn_errmsg());
        }
    }
    return 0;
}

static int check_space(ooc *e, int resuming) {
    uint64_t need = 0, avail = 0, file = e->plan.grid_bytes;
    uint64_t spill =
        e->plan.strip == STN_STRIP_FILE
            ? (uint64_t)e->plan.strip_planes * (uint64_t)e->r->view.ny * (uint64_t)e->plan.row_bytes
            : 0;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        uint64_t arrays = e->alg2 ? (uint64_t)f->m->narr : 2 * (uint64_t)f->m->levels;
        need += f->m->state ? arrays * file : f->m->input == STN_SRC_SCRATCH ? file : 0;
        need += (uint64_t)f->m->narr * spill;
    }
    if (resuming || need == 0)
        return 0; /* the files exist already */
    int rc = stn_statvfs_free(e->r->o->dir, &avail);
    if (rc)
        return rc;
    if (need > avail) {
        char a[32], b[32];
        return stn_error(-ENOSPC, "--dir %s: the scratch files need %s, but only %s is free there",
                         e->r->o->dir, stn_fmt_bytes(a, sizeof a, need), stn_fmt_bytes(b, sizeof b, avail));
    }
    return 0;
}

static int open_scratch(ooc *e, int resuming) {
    const stn_view *g = &e->r->view;
    char path[4096];
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int narrays = !f->m->state ? (f->m->input == STN_SRC_SCRATCH)
                      : e->alg2    ? f->m->narr
                                   : 2 * f->m->levels;
        for (int a = 0; a < narrays; a++) {
            /* ref: set a / levels, level a % levels; alg2 and inputs: array a = 2 * set + level */
            int ref = f->m->state && !e->alg2;
            int set = ref ? a / f->m->levels : a / 2, l = ref ? a % f->m->levels : a % 2;
            scratch_name(path, sizeof path, e, i, set, l);
            int rc = stn_gridfile_open(&f->scratch[set][l], path, g->nx, g->ny, g->nz, e->d->elem_size,
                                       e->plan.align, resuming ? 0 : STN_GRIDFILE_CREATE);
            if (rc)
                return rc;
            if (!f->scratch[set][l].direct && !e->direct_warned) {
                e->direct_warned = 1;
                stn_warn(e->r->log,
                         "the file system under --dir %s refuses O_DIRECT; scratch IO goes through "
                         "the page cache (buffered), which competes with the DRAM budget",
                         e->r->o->dir);
            }
        }
    }
    return 0;
}

/* y-blocked with the z-strip spilled: one scratch file per array, strip_planes planes of ny
 * rows, unlinked at once (its content lives only within a sweep). */
static int open_spill(ooc *e) {
    const stn_view *g = &e->r->view;
    char path[4096];
    for (int i = 0; e->plan.strip == STN_STRIP_FILE && e->plan.strip_planes > 0 && i < e->d->nfields; i++)
        for (int a = 0; a < e->f[i].m->narr; a++) {
            snprintf(path, sizeof path, "%s/%s.%s.strip%d.grid", e->r->o->dir, e->d->name,
                     e->d->fields[i].name, a);
            int rc = stn_gridfile_open(&e->f[i].spill[a], path, g->nx, g->ny, e->plan.strip_planes,
                                       e->d->elem_size, e->plan.align, STN_GRIDFILE_CREATE);
            if (rc)
                return rc;
            unlink(path);
        }
    return 0;
}

static int alloc_buffers(ooc *e) {
    const stn_ooc_plan *p = &e->plan;
    size_t bytes = (size_t)p->ring_bytes;
    size_t strip = (size_t)p->strip_planes * (size_t)e->r->view.ny * (size_t)p->row_bytes;
    e->qstride = p->strip != STN_STRIP_NONE ? 2 * (int64_t)bytes : e->d->ndim == 3 ? p->row_bytes : 0;
    for (int i = 0; p->r.wrap && i < e->d->nfields; i++) { /* the wedge: for the longest sweep */
        ooc_field *f = &e->f[i];
        int64_t n = 0, lo, hi;
        for (int64_t l = 0; f->m->state && l < p->bt; l++) {
            stn_ooc_wedge_range(&p->r, f->m->levels, p->bt, l, &lo, &hi);
            n += hi - lo;
        }
        if (!f->m->state) {
            stn_ooc_wedge_input_range(&p->r, p->bt, &lo, &hi);
            n = hi - lo;
        }
        if (n == 0)
            continue;
        if (!(f->wedge = stn_alloc((size_t)n * p->slice_bytes, 4096)) ||
            !(f->wedge_off = calloc((size_t)p->bt + 1, sizeof *f->wedge_off)))
            return -ENOMEM;
    }
    const stn_slab *sl = &e->r->slab;
    if (sl->defer && p->r.axis == sl->axis && !(e->gbuf = stn_alloc((size_t)sl->defer, 4096)))
        return -ENOMEM;
    for (int i = 0; i < e->d->nfields; i++)
        for (int a = 0; a < e->f[i].m->narr; a++) {
            if (!(e->f[i].ring[a] = stn_ring_alloc(bytes, p->qplanes)))
                return -ENOMEM;
            if (p->strip == STN_STRIP_DRAM && strip > 0 && !(e->f[i].strip[a] = stn_alloc(strip, 4096)))
                return -ENOMEM;
        }
    return 0;
}

static void remove_scratch(ooc *e) {
    for (int i = 0; i < e->d->nfields; i++)
        for (int set = 0; set < 2; set++)
            for (int l = 0; l < 2; l++)
                if (e->f[i].scratch[set][l].path)
                    unlink(e->f[i].scratch[set][l].path);
    unlink(e->state_path);
    if (e->records_fd >= 0)
        unlink(e->records_path);
}

static void ooc_free(ooc *e) {
    if (e->q)
        stn_aio_destroy(e->q);
    if (e->lock_fd >= 0) { /* removed while still held: a run that opens it next locks the file it creates */
        unlink(e->lock_path);
        close(e->lock_fd);
    }
    e->lock_fd = -1;
    if (e->records_fd >= 0)
        close(e->records_fd);
    e->records_fd = -1;
    for (int i = 0; e->f && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        stn_free(f->wedge);
        free(f->wedge_off);
        for (int a = 0; a < 3; a++) {
            stn_ring_free(f->ring[a], (size_t)e->plan.ring_bytes, e->plan.qplanes);
            stn_free(f->strip[a]);
            stn_gridfile_close(&f->spill[a]);
        }
        for (int l = 0; l < 2; l++) {
            if (f->npy_fd[l] >= 0)
                close(f->npy_fd[l]);
            for (int set = 0; set < 2; set++)
                stn_gridfile_close(&f->scratch[set][l]);
        }
    }
    stn_free(e->gbuf);
    free(e->f);
    free(e->fsrc);
    free(e->src);
    free(e->dst);
}

/* ------------------------------------------------------------------ entry */

/* --plan-only: the plan and what it will move, on one line. */
static void print_plan(const ooc *e) {
    const stn_ooc_result *p = e->out;
    char mem[32];
    printf("by %" PRId64 " bz %" PRId64 " bt %" PRId64 " strip %s tuner %s predicted_bytes_read %" PRIu64
           " predicted_bytes_written %" PRIu64 " mem_plan_bytes %" PRIu64 " (%s) mem_budget_bytes %" PRIu64
           "\n",
           p->blk[0], p->blk[1], p->blk[2], p->strip, p->chooser, e->res->predicted_read,
           e->res->predicted_written, e->plan.mem_bytes, stn_fmt_bytes(mem, sizeof mem, e->plan.mem_bytes),
           e->r->mem_budget);
}

/* The cache tiles of a block (compute_block): --time-tiles by,bz,bt, else stn_time_window's,
 * as in-core: a thin block (y-blocked) is one tile across and cut along q only. */
static void pick_sub_tiles(ooc *e) {
    const stn_run *r = e->r;
    const stn_ooc_plan *p = &e->plan;
    const int64_t *f = r->o->time_tiles;
    int64_t big = INT64_MAX / 4;
    e->sub_w[0] = e->sub_w[1] = big, e->sub_t = 0;
    if (f[2] < 0) {
        snprintf(e->res->tiles_source, sizeof e->res->tiles_source, "off (--time-tiles off)");
        return;
    }
    if (f[2] > 0) { /* by,bz,bt: by is y's, bz z's */
        e->sub_w[0] = p->r.axis == 1 ? f[0] : f[1];
        e->sub_w[1] = p->q.axis == 1 ? f[0] : f[1];
        e->sub_t = f[2];
        snprintf(e->res->tiles_source, sizeof e->res->tiles_source, "--time-tiles");
    } else {
        uint64_t arrays = 0;
        for (int i = 0; i < e->d->nfields; i++)
            arrays += (uint64_t)e->fsrc[i].narr;
        int two = p->q.n > 1 && p->q.H > p->q.L; /* tiles in q too (3d) */
        stn_time_window_t w;
        stn_time_window(&r->hw, (uint64_t)p->row_bytes, arrays, p->r.skew > p->q.skew ? p->r.skew : p->q.skew,
                        two, &w);
        int64_t s = w.skew, ts = w.bt < 1 ? 1 : w.bt, width = (int64_t)w.side - 2 * s * ts;
        if (width < 1) {
            snprintf(e->res->tiles_source, sizeof e->res->tiles_source,
                     "off: no tile fits the cache (%llu bytes)", (unsigned long long)w.cache);
            return;
        }
        e->sub_t = ts;
        e->sub_w[0] = e->sub_w[1] = width;
        if (two && p->r.b + 2 * s * ts < (int64_t)w.side) { /* a thin block: whole across r */
            e->sub_w[0] = p->r.b;
            int64_t wq = (int64_t)(w.rows / (double)(p->r.b + 2 * s * ts)) - 2 * s * ts;
            e->sub_w[1] = wq < 1 ? 1 : wq;
        }
        snprintf(e->res->tiles_source, sizeof e->res->tiles_source,
                 "auto: one tile's window for bt steps in the last-level cache (%llu bytes)",
                 (unsigned long long)w.cache);
    }
    if (e->sub_t > e->plan.bt)
        e->sub_t = e->plan.bt;
    if (p->r.wrap) /* a wrapped sweep's tiles span q (compute_block) */
        e->sub_w[1] = big;
    int64_t y = p->r.axis == 1 ? e->sub_w[0] : e->sub_w[1], z = p->r.axis == 2 ? e->sub_w[0] : e->sub_w[1];
    e->res->time_tiles[0] = y >= big ? r->view.ny : y;
    e->res->time_tiles[1] = e->d->ndim == 2 ? -1 : z >= big ? r->view.nz : z;
    e->res->time_tiles[2] = e->sub_t;
}

/* The time model: the kernels' rate on the plan's blocks (the tuner may have measured it
 * already; a --machine file's cells_per_second wins) and the device's curves. */
static int predict_time(ooc *e, int64_t first_sweep) {
    const stn_run *r = e->r;
    stn_result *res = e->res;
    int rc = res->cells_per_second > 0 || r->hw.cells_per_second > 0
                 ? stn_kernel_rate(r, res)
                 : stn_ooc_block_rate(r, &e->plan, res->ib.tile, &res->cells_per_second, res->rate_source,
                                      sizeof res->rate_source);
    if (rc)
        return rc;
    rc = stn_copy_rate(r, res);
    if (rc)
        return rc;
    stn_xchg_model xm;
    stn_xchg_of(r, &xm);
    const stn_slab *sl = &r->slab;
    stn_time_model tm = {.dev = &r->dev,
                         .cells_per_second = res->cells_per_second,
                         .cells = (double)stn_grid_cells(r->o),
                         .copy_bytes_per_second = res->copy_bytes_per_second,
                         .depth = STN_AIO_DEFAULT_DEPTH,
                         .max_request = STN_AIO_DEFAULT_MAX_REQUEST,
                         .xm = xm.levels ? &xm : NULL,
                         .ghost_bt = sl->bt};
    stn_ooc_predict_time(&e->model, &e->plan, first_sweep, &tm, &res->time);
    res->have_time = 1;
    return 0;
}

static int has_exports(const ooc *e) {
    for (int s = 0; s < 2 * e->d->nfields; s++)
        if (e->r->writers[s])
            return 1;
    return 0;
}

/* Whether a sweep's result is made durable and committed for --resume: every one, except the
 * program's last when nothing reads it afterwards (no --out): its files are removed as soon as it
 * ends, and a run killed before that resumes from the sweep before (one fdatasync less a run).  A
 * simulation may advance again, which would overwrite the committed set: its sweeps all commit. */
static int commits(const ooc *e, int program, int last) { return !program || !last || has_exports(e); }

/* Where record k's samples start in the records file: the records one after the other, each
 * steps x n samples. */
static uint64_t records_base(const ooc *e, int k) {
    uint64_t b = 0;
    for (int j = 0; j < k; j++)
        b += (uint64_t)e->r->o->steps * (uint64_t)e->r->npts[e->d->records[j].points] *
             (uint64_t)e->d->elem_size;
    return b;
}

/* The samples of steps [t0, t1) of every record, to (write) or from the records file. */
static int records_io(ooc *e, int write, int64_t t0, int64_t t1) {
    double start = stn_now();
    int rc = 0;
    for (int k = 0; rc == 0 && k < e->d->nrecords; k++) {
        uint64_t row = (uint64_t)e->r->npts[e->d->records[k].points] * (uint64_t)e->d->elem_size;
        size_t n = (size_t)((uint64_t)(t1 - t0) * row);
        char *buf = (char *)e->r->rec[k] + (uint64_t)t0 * row;
        uint64_t off = records_base(e, k) + (uint64_t)t0 * row;
        rc = write ? stn_pwrite_full(e->records_fd, buf, n, off, e->records_path)
                   : stn_pread_full(e->records_fd, buf, n, off, e->records_path);
        if (rc == 0 && write)
            e->res->st.bytes_written += n;
        else if (rc == 0)
            e->res->st.bytes_read += n;
    }
    if (rc == 0 && write && fdatasync(e->records_fd) != 0) {
        int err = errno;
        rc = stn_error(stn_neg_errno(err), "cannot sync '%s': %s", e->records_path, strerror(err));
    }
    stn_stats_add_time(&e->res->st, write ? STN_PHASE_WRITE : STN_PHASE_READ, start);
    return rc;
}

/* The records file: created empty, or, resuming, the samples of the `steps` steps the saved sweeps
 * made read back. */
static int open_records(ooc *e, int64_t steps) {
    if (e->d->nrecords == 0 || stn_record_row_bytes(e->r) == 0)
        return 0;
    snprintf(e->records_path, sizeof e->records_path, "%s/%s.records", e->r->o->dir, e->d->name);
    e->records_fd =
        open(e->records_path,
             O_NOFOLLOW | (steps > 0 ? O_RDWR | O_CLOEXEC : O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC), 0666);
    if (e->records_fd < 0) {
        int err = errno;
        return stn_error(stn_neg_errno(err), "cannot %s the records' samples '%s': %s",
                         steps > 0 ? "open (--resume) " : "create", e->records_path, strerror(err));
    }
    int rc = steps > 0 ? records_io(e, 0, 0, steps) : 0;
    return rc ? stn_error(rc, "--resume: the records' samples of the sweeps done: %s", stn_errmsg()) : 0;
}

/* --plan-only: the records file's bytes in the IO model of the whole run (read back on resume,
 * written for every sweep that commits). */
static void predict_records(ooc *e, int64_t first) {
    uint64_t row = e->d->nrecords ? stn_record_row_bytes(e->r) : 0;
    if (row == 0)
        return;
    e->res->predicted_read += (uint64_t)(first > 0 ? e->steps_resumed : 0) * row;
    for (int64_t s = first; s < e->plan.nsweeps; s++)
        e->res->predicted_written +=
            commits(e, 1, s + 1 == e->plan.nsweeps) ? (uint64_t)stn_ooc_sweep_steps(&e->plan, s) * row : 0;
}

/* One run at a time on a --dir (for a stencil): DIR/NAME.lock, flock'ed for the run, holds the pid
 * of the run that has it.  A second run is refused with that pid; the lock dies with its process, so
 * a killed run's --resume is never refused.  (A lock taken on a file another run has just removed is
 * taken again on the new one.) */
static int lock_dir(ooc *e) {
    const char *dir = e->r->o->dir, *name = e->d->name;
    snprintf(e->lock_path, sizeof e->lock_path, "%s/%s.lock", dir, name);
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(e->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            int err = errno;
            return stn_error(stn_neg_errno(err), "cannot create the lock file '%s': %s", e->lock_path,
                             err == ELOOP ? "it is a symbolic link" : strerror(err));
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int err = errno;
            char pid[32] = "";
            ssize_t n = err == EWOULDBLOCK ? pread(fd, pid, sizeof pid - 1, 0) : -1;
            pid[n > 0 ? (size_t)n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            close(fd);
            if (err == EWOULDBLOCK)
                return stn_error(
                    -EBUSY,
                    "--dir %s is in use: another run of %s (pid %s) keeps its scratch files there; "
                    "wait for it to end, or give this run another --dir",
                    dir, name, *pid ? pid : "unknown");
            return stn_error(stn_neg_errno(err), "cannot lock '%s': %s", e->lock_path, strerror(err));
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(e->lock_path, &now) == 0 && held.st_ino == now.st_ino &&
            held.st_dev == now.st_dev) {
            char pid[32];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
                /* the pid is only for the other run's message: the lock holds without it */
            }
            e->lock_fd = fd;
            return 0;
        }
        close(fd); /* removed under us by the run that just ended: lock the new file */
    }
    return stn_error(-EBUSY, "cannot lock '%s': it keeps being replaced", e->lock_path);
}

static int ooc_setup(ooc *e, int64_t *first_sweep) {
    const stn_run *r = e->r;
    size_t align = (size_t)r->hw.block.value; /* program.c found it for --dir (or --machine gave it) */
    e->alg2 = r->o->schedule == STN_SCHED_ALG2;
    if (e->alg2 && r->o->resume)
        return stn_error(-EINVAL,
                         "--resume: --schedule alg2 updates its files in place (the paper's algorithm 2), "
                         "so an interrupted run cannot be resumed; use the default schedule (ref) for that");
    snprintf(e->state_path, sizeof e->state_path, "%s/%s.ooc-state", r->o->dir, e->d->name);
    if (!r->o->plan_only) { /* (--plan-only touches no file of --dir; --machine implies it) */
        int rc = lock_dir(e);
        if (rc)
            return rc;
    }
    stn_saved_plan saved;
    int have_saved = r->o->resume ? stn_ooc_saved_plan(e->state_path, &saved) : 0;
    if (have_saved < 0)
        return have_saved;
    int rc = classify_sources(e);
    if (rc == 0) /* a resumed run goes on with the blocks its files were written with */
        rc = stn_ooc_choose(r, &e->model, align, have_saved ? &saved : NULL, &e->plan, e->out, e->res);
    if (rc)
        return rc;
    e->out->blk[0] = e->plan.r.axis == 1 ? e->plan.r.b : r->o->size[1];
    e->out->blk[1] = r->d->ndim == 2 ? -1 : e->plan.r.axis == 2 ? e->plan.r.b : e->plan.q.b;
    e->out->blk[2] = e->plan.bt;
    e->out->strip = stn_strip_names[e->plan.strip];
    e->out->mem_plan_bytes = e->plan.mem_bytes;
    if (r->fold.W) /* a folded 1d grid's blocks in its cells */
        e->out->blk[0] = e->plan.r.b * r->fold.W, e->out->fold_row = r->fold.W,
        e->out->fold_rows = r->fold.rows;
    if ((stn_ooc_periodic_axes(e->d) >> e->plan.r.axis) & 1) /* (bt = 1: stn_ooc_periodic_refusal) */
        e->own_axes = (int64_t)1 << e->plan.r.axis;
    pick_sub_tiles(e);
    *first_sweep = 0;
    if (r->o->resume) {
        int64_t done;
        rc = agree(e, stn_ooc_load_state(e, &done, &e->steps_resumed), "reading its state file");
        if (rc)
            return rc;
        if (r->slab.axis) { /* a sweep counts once every rank committed it (a rank ahead has both sets) */
            done = stn_par_min(done);
            e->steps_resumed = stn_par_min(done < 0 ? -1 : e->steps_resumed);
        }
        if (done < 0)
            stn_warn(r->log, "--resume: no completed sweep saved in %s; starting from the beginning",
                     r->o->dir);
        *first_sweep = done < 0 ? 0 : done;
    } else if (!r->o->plan_only) {
        unlink(e->state_path); /* a stale state must never be trusted by a later --resume */
    }
    int resuming = *first_sweep > 0;
    if (r->slab.axis && r->fold.W) /* a rank's slab of a folded grid reads the cells of its rows */
        e->plan.npy_bytes = (uint64_t)stn_fold_cells(&r->fold, r->slab.base, r->slab.base + e->plan.r.n) *
                            (uint64_t)e->d->elem_size;
    /* a rank writes its own part of an --out (along a ring, some indices twice: the wraps; a folded
     * grid's: its own rows' cells) */
    if (r->slab.axis && r->fold.W)
        e->plan.out_bytes =
            (uint64_t)stn_fold_cells(&r->fold, r->slab.base + r->slab.own_lo, r->slab.base + r->slab.own_hi) *
            (uint64_t)e->d->elem_size;
    else if (r->slab.axis)
        e->plan.out_bytes = stn_slab_out_cells(&r->slab) * (uint64_t)e->d->elem_size;
    stn_ooc_predict(&e->model, &e->plan, *first_sweep, &e->res->predicted_read, &e->res->predicted_written);
    /* and the ghosts' exchanges; resumed with the way down deferred, one first: the state committed
     * before the kill may lack the high ghosts that were still in flight (stn_ooc_advance) */
    int redo = resuming && r->slab.defer && e->plan.r.axis == r->slab.axis && e->plan.nsweeps > *first_sweep;
    if (r->slab.axis && e->plan.nsweeps > *first_sweep + 1 - redo) {
        uint64_t m, x = (uint64_t)(e->plan.nsweeps - *first_sweep - 1 + redo) * exchange_bytes(e, &m);
        e->res->predicted_read += x, e->res->predicted_written += x;
    }
    predict_records(e, *first_sweep);
    rc = predict_time(e, *first_sweep);
    if (rc)
        return rc;
    if (r->o->plan_only)
        return 0; /* no queue, no file: stn_ooc_open prints the plan */
    rc = stn_aio_create(&e->q, STN_AIO_DEFAULT_DEPTH, STN_AIO_DEFAULT_MAX_REQUEST);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = check_space(e, resuming);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_scratch(e, resuming);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_spill(e);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_records(e, *first_sweep > 0 ? e->steps_resumed : 0);
    if (rc == 0 && (rc = alloc_buffers(e)) != 0) {
        char a[32], why[512];
        snprintf(why, sizeof why, "%s", stn_errmsg()); /* (the cause, which stn_error overwrites) */
        rc = stn_error(rc, "cannot allocate the out-of-core buffers (%s): %s",
                       stn_fmt_bytes(a, sizeof a, e->plan.mem_bytes), why[0] ? why : strerror(-rc));
    }
    return rc;
}

/* ------------------------------------------------------------------ the engine held open
 *
 * The one way to run the engine, for the program (stn_program_main) and for the simulation API
 * alike.  The state between calls is the source set of the next sweep, as after a committed
 * sweep: the first sweep's sources until then (--init files, init expressions, zero), or scratch
 * set sweeps % 2 (alg2: its in-place files).  advance(n) runs ceil(n / bt) sweeps of the plan's
 * blocks (the last one shorter), the step index going on.  The inputs are imported into their
 * scratch files when first needed (the first sweep, or a write before it); a write first puts the
 * state levels into scratch set 0 if no sweep has (stn_ooc_materialize), then patches the rows the
 * box touches.  The IO model is the sweeps that ran, each as long as it was, the import, the
 * records' samples and the export of --out, plus what the boxes and the materialization moved. */
struct stn_ooc {
    ooc e;
    /* a 1d grid: the engine runs on its rows (folded: the fold, a 2d descriptor of one-row halos,
     * the options in rows) or, periodic, as one row; e.r and e.d point here */
    stn_run_copy c;                     /* a rank's slab */
    stn_run_copy fold;                  /* a 1d grid's rows (under MPI, c is a slab of them) */
    int tuned;                          /* the ranks' blocks came from tune_ranks */
    uint64_t xchg_read, xchg_written;   /* the ghosts' exchanges this process made, as modelled */
    int program;                        /* opened by the program: the one advance is the whole run */
    int plan_only;                      /* --plan-only: printed, nothing to run */
    int64_t sweeps, steps;              /* done, including those saved before (--resume) */
    int64_t first;                      /* the sweeps done before open (--resume) */
    int redo;                           /* --resume under MPI with the way down deferred: exchange first */
    uint64_t extra_read, extra_written; /* boxes and the materialization, as the model counts them */
    uint64_t swept_read, swept_written; /* the sweeps this process ran, each as long as it was */
    uint64_t rec_read, rec_written;     /* the records file's, as the model counts them */
};

/* A 1d grid's run (docs/design/014): folded into rows of W cells (stn_fold) that stream as a 2d
 * grid's do, in blocks of whole rows with a halo and skew of one row; or, periodic along x (the wrap
 * moves by the interior's width, not whole rows), one row that is one block.  The engine gets a
 * copy of the run with the rows' geometry: view, sizes, blocks and a descriptor whose halo and
 * reach are one row; the kernels keep their 1d view (stn_step, stn_run_boundary, stn_run_init).
 * The inputs along x stay in DRAM, whole: the plan counts them (stn_fold.held). */
static int fold_run(stn_ooc *s, const stn_run *r) {
    int rc = stn_fold_run(r, (size_t)r->hw.block.value, &s->fold);
    s->e.r = &s->fold.run;
    return rc;
}

/* One rank's slab under MPI (docs/design/018): the interior of the axis the blocks stream along (y in
 * 2d, z in 3d) cut into equal slabs, one a rank (the first and last keep the boundary layer), each
 * with ghost indices of depth g = bt x skew that its neighbours own.  The engine gets a copy of the
 * run on the slab: sizes, view and --block local, a descriptor whose halo along the axis is, on a
 * side cut between ranks, the step's reach (the frozen layer the engine never computes), and file
 * names of the rank's own (NAME.rK.*, so that ranks may share a --dir); the split and the copy are
 * stn_slab_run's (run.c), shared with the in-core engine.  Refused with the reason: --schedule alg1
 * and alg2, and y-blocked tiles of a stencil periodic along z. */
static int part_run(stn_ooc *s, const stn_run *r, int64_t bt_ghost, const int64_t *blk) {
    const stn_program_desc *d = r->d;
    const stn_opts *o = r->o;
    int P = stn_par_size();
    char why[256] = "";
    if (o->schedule != STN_SCHED_NONE && o->schedule != STN_SCHED_REF)
        snprintf(why, sizeof why, "--schedule %s (the reference schedule only)",
                 stn_schedule_names[o->schedule]);
    else if (o->have_block && d->ndim == 3 && o->block[0] < o->size[1] && stn_ooc_periodic_axes(d) & 4)
        snprintf(why, sizeof why,
                 "y-blocked tiles of a stencil periodic along z (--block by < ny: give by = ny)");
    if (why[0])
        return stn_error(-ENOTSUP, "%d MPI ranks: this version splits out-of-core runs only without %s", P,
                         why);
    int rc = stn_slab_run(r, bt_ghost, &s->c);
    if (rc)
        return rc;
    if (s->c.run.slab.cut && o->have_block && d->ndim == 3 && o->block[0] < s->c.opts.size[1])
        return stn_error(-ENOTSUP,
                         "%d MPI ranks: this version splits out-of-core runs only without y-blocked tiles "
                         "when the ranks cut x or y (--block %" PRId64 ",...: give by = the part's %" PRId64
                         " rows, or --ranks 1,1,%d)",
                         P, o->block[0], s->c.opts.size[1], P);
    for (int k = 0; k < 3; k++)
        s->e.res->dims[k] = s->c.run.slab.dims[k];
    /* the exchange's way down overlapped with the next sweep (docs/design/019): its buffers (the low
     * edge sent, the high ghosts received, of every state level) in the plan, when they take at most
     * an eighth of the budget and no cross cut follows the exchange */
    stn_slab *sl = &s->c.run.slab;
    uint64_t plane = stn_grid_row_bytes(s->c.opts.size[0], d->elem_size, (size_t)r->hw.block.value) *
                     (uint64_t)(d->ndim == 3 ? s->c.opts.size[1] : 1);
    uint64_t half = stn_state_levels(d) * (uint64_t)sl->g * plane;
    if (!sl->cut && half > 0 && (sl->above >= 0 || sl->below >= 0) && 2 * half <= r->mem_budget / 8 &&
        half <= 0x7fffffff) {
        sl->defer = 2 * half;
        s->c.run.fold.held += sl->defer;
    }
    s->e.r = &s->c.run;
    if (blk) /* the blocks the ranks tuned (tune_ranks) */
        s->c.opts.block[0] = blk[0], s->c.opts.block[1] = blk[1], s->c.opts.block[2] = blk[2],
        s->c.opts.have_block = 1;
    return 0;
}

static int ooc_setup(ooc *e, int64_t *first_sweep);
static void ooc_close(void *state, int keep);

/* Blk-Tune for ranks without --block: the ghost depth (bt x skew) must be known before a slab is, so
 * each rank tunes its slab with ghosts for a guessed bt (first 1), the ranks take the least bt they
 * chose, and while that is more than the guess the ranks tune again with ghosts that deep.  Each
 * rank keeps its own blocks, run with the least bt (a smaller bt only shrinks a window). */
static int tune_ranks(const stn_run *r, stn_result *res, stn_ooc_result *out, int64_t blk[3],
                      int64_t *bt_ghost) {
    int64_t guess = 1;
    for (int round = 0; round < 16; round++) {
        stn_ooc *t = calloc(1, sizeof *t);
        int rc = t ? 0 : stn_error(-ENOMEM, "out of memory");
        if (t) {
            t->e.records_fd = t->e.lock_fd = -1;
            t->e.res = res, t->e.out = out;
            rc = part_run(t, r, guess, NULL);
            t->c.opts.plan_only = 1; /* (plans only: no file, no lock) */
            t->c.opts.resume = 0;
            t->e.r = &t->c.run, t->e.d = t->c.run.d;
        }
        if (rc == 0)
            rc = stn_engine_arrays(t->e.d, sizeof *t->e.f, (void **)&t->e.f, &t->e.src, &t->e.dst,
                                   "out-of-core");
        for (int i = 0; rc == 0 && i < t->e.d->nfields; i++)
            t->e.f[i].npy_fd[0] = t->e.f[i].npy_fd[1] = -1;
        int64_t first = 0;
        if (rc == 0)
            rc = ooc_setup(&t->e, &first);
        if (rc == 0) {
            const stn_ooc_plan *p = &t->e.plan;
            blk[0] = p->r.axis == 1 ? p->r.b : r->o->size[1];
            blk[1] = t->e.d->ndim != 3 ? 0 : p->r.axis == 2 ? p->r.b : p->q.b; /* (y-blocked: bz is q's) */
            blk[2] = p->bt;
        }
        if (t)
            ooc_close(t, 1);
        if (stn_par_any(rc))
            return rc ? rc : stn_error(-EIO, "another rank failed to tune its blocks (its error is above)");
        blk[2] = stn_par_min(blk[2]);
        int64_t most = stn_slab_most_bt(r); /* (thin slabs: the ghosts limit bt) */
        blk[2] = blk[2] > most && most >= 1 ? most : blk[2];
        if (blk[2] <= guess) {
            *bt_ghost = guess;
            return 0;
        }
        guess = blk[2];
    }
    return stn_error(-EIO, "internal error: the ranks' tuning did not settle on a bt");
}

static int ooc_open(const stn_run *r, stn_result *res, stn_ooc_result *out, int program, void **sp) {
    *sp = NULL;
    stn_ooc *s = calloc(1, sizeof *s);
    if (!s)
        return stn_error(-ENOMEM, "out of memory");
    ooc *e = &s->e;
    s->program = program;
    e->records_fd = -1;
    e->lock_fd = -1;
    e->r = r;
    e->d = r->d;
    e->res = res;
    e->out = out;
    int rc = 0;
    if (stn_dims(r->d) == 1) { /* a 1d grid: its rows (and under MPI each rank a slab of them) */
        rc = fold_run(s, r);
        if (rc == 0 && stn_par_size() > 1 && !s->fold.run.fold.W)
            rc = stn_error(-ENOTSUP,
                           "%d MPI ranks: this 1d grid is periodic, so it runs as one row, which the "
                           "ranks cannot split",
                           stn_par_size());
        r = &s->fold.run;
    }
    if (rc == 0 && stn_par_size() > 1) {
        int64_t blk[3], ghost = r->o->block[2];
        int tuned = !r->o->have_block, saved = 0;
        if (tuned && r->o->resume) { /* the blocks this rank's state file saved, if every rank has one */
            char path[4096];
            stn_saved_plan sv;
            snprintf(path, sizeof path, "%s/%s.r%d.ooc-state", r->o->dir, r->d->name, stn_par_rank());
            saved = stn_ooc_saved_plan(path, &sv) == 1;
            if (!stn_par_any(!saved)) {
                blk[0] = sv.by, blk[1] = sv.bz, blk[2] = sv.bt;
                ghost = stn_par_min(sv.bt);
            }
            stn_error_clear();
            saved = !stn_par_any(!saved);
        }
        if (tuned && !saved)
            rc = tune_ranks(r, res, out, blk, &ghost);
        if (rc == 0)
            rc = part_run(s, r, ghost, tuned ? blk : NULL);
        s->tuned = tuned;
    }
    if (rc) {
        ooc_close(s, 1);
        return rc;
    }
    r = e->r; /* (a 1d grid's folded run, or a rank's slab) */
    e->d = r->d;
    rc = stn_engine_arrays(r->d, sizeof *e->f, (void **)&e->f, &e->src, &e->dst, "out-of-core");
    for (int i = 0; rc == 0 && i < r->d->nfields; i++)
        e->f[i].npy_fd[0] = e->f[i].npy_fd[1] = -1;
    int64_t first = 0;
    if (rc == 0)
        rc = ooc_setup(e, &first);
    if (rc == 0 && s->tuned) /* (the ranks' tuning handed its blocks on as if given) */
        out->chooser = stn_tuner_names[r->o->tuner < 0 ? STN_TUNER_BLK : r->o->tuner];
    if (rc == 0 && r->o->plan_only) {
        print_plan(e);
        s->plan_only = 1;
    }
    if (rc == 0 && !program && e->plan.nsweeps < 1)
        rc = stn_error(-EINVAL, "internal error: a simulation opened for no sweep");
    s->first = s->sweeps = first; /* --resume: the state of the sweeps saved */
    s->redo = rc == 0 && first > 0 && e->gbuf && e->plan.nsweeps > first;
    s->steps = first > 0 ? e->steps_resumed : 0;
    e->model.imported = first > 0; /* (resumed: the inputs are in their files since the first sweep) */
    uint64_t row = e->records_fd >= 0 ? stn_record_row_bytes(r) : 0;
    s->rec_read = (uint64_t)s->steps * row; /* read back by open_records */
    e->plan.nsweeps = first;
    if (rc) { /* (a resumable run's files stay, as they were) */
        ooc_close(s, 1);
        return rc;
    }
    *sp = s;
    return 0;
}

static int64_t ooc_steps_done(const void *state) { return ((const stn_ooc *)state)->steps; }

/* The inputs into their scratch files (and alg2's state into its in-place files), once, before
 * the first sweep or a write; the model counts it from then on. */
static int ensure_imported(stn_ooc *s) {
    ooc *e = &s->e;
    if (e->model.imported)
        return 0;
    int rc = stn_ooc_import_inputs(e);
    if (rc == 0 && e->alg2)
        rc = stn_ooc_import_alg2(e);
    if (rc == 0)
        e->model.imported = 1;
    return rc;
}

static int ooc_advance(void *state, int64_t first, int64_t steps) {
    stn_ooc *s = state;
    ooc *e = &s->e;
    (void)first; /* (the step index goes on from the state's: s->steps) */
    if (s->plan_only)
        return stn_error(-EINVAL, "internal error: advance after --plan-only");
    if (steps <= 0)
        return 0;
    stn_progress prog;
    stn_progress_start(&prog, e->d->name, steps, (double)stn_grid_cells(e->r->o), e->r->o->quiet);
    double t0 = stn_now();
    int rc = ensure_imported(s);
    if (e->r->slab.axis)
        rc = agree(e, rc, "importing its inputs");
    if (rc == 0 && e->r->slab.axis && stn_par_any(s->redo)) { /* (every rank: the same resumed sweep) */
        uint64_t m, x = exchange_bytes(e, &m);
        rc = agree(e, exchange(e, s->sweeps % 2, &e->res->msg_sent, 0), "swapping the ghosts again");
        s->xchg_read += x, s->xchg_written += x, e->res->msg_predicted += m;
        s->redo = 0;
    }
    uint64_t row = e->records_fd >= 0 ? stn_record_row_bytes(e->r) : 0;
    for (int64_t done = 0; rc == 0 && done < steps;) {
        int64_t T = steps - done < e->plan.bt ? steps - done : e->plan.bt;
        e->plan.nsweeps = s->sweeps + 1; /* the sources of sweep s: its inputs are in scratch */
        e->lvl0 = e->alg2 ? s->steps : 0;
        e->prog = &prog;
        e->steps_before = s->steps;
        int durable = commits(e, s->program, s->steps + T >= e->r->o->steps);
        stn_ooc_predict_sweep(&e->model, &e->plan, s->sweeps, T, &s->swept_read, &s->swept_written);
        rc = run_sweep(e, s->sweeps, T, durable);
        int rcl = ghosts_land(e, rc == 0); /* (landed by now unless the sweep failed first) */
        rc = agree(e, rc ? rc : rcl, "in its sweep");
        if (rc == 0 && e->r->slab.axis && s->steps + T < e->r->o->steps) { /* the next sweep's ghosts */
            uint64_t m, x = exchange_bytes(e, &m);
            /* (deferred when every rank's plan runs whole planes with the buffers) */
            int defer = !stn_par_any(e->gbuf == NULL);
            e->res->overlapped = defer;
            rc = agree(e, exchange(e, (s->sweeps + 1) % 2, &e->res->msg_sent, defer), "swapping the ghosts");
            s->xchg_read += x, s->xchg_written += x, e->res->msg_predicted += m;
        }
        if (rc == 0 && durable && row) { /* the sweep's samples, before its state commits */
            rc = records_io(e, 1, s->steps, s->steps + T);
            s->rec_written += (uint64_t)T * row;
        }
        if (rc == 0 && durable && !e->alg2) /* alg2 updates its files in place: no state to resume */
            rc = stn_ooc_save_state(e, s->sweeps + 1);
        /* every rank's commit before any rank's next sweep, which overwrites the file set of the state
         * before: a rank killed before its commit leaves the others' set of that state intact, for the
         * --resume that goes back to it (a clean-clone CI run caught a fast rank's next sweep begun;
         * test_mpi holds a rank in its commit to show it every time) */
        if (durable)
            rc = agree(e, rc, "committing its sweep");
        e->plan.nsweeps = s->sweeps;
        if (rc) {
            ghosts_land(e, 0); /* (every rank posted its half: the wait ends) */
            break;
        }
        s->sweeps++, s->steps += T, done += T;
        e->plan.nsweeps = s->sweeps;
        uint64_t pss = stn_pss_bytes(); /* the rings are fully touched by now */
        if (pss > e->res->peak_pss)
            e->res->peak_pss = pss;
        stn_progress_step(&prog, done);
    }
    if (rc == 0) /* (a simulation may read its boxes next: the ghosts in their files) */
        rc = ghosts_land(e, 1);
    e->res->loop_seconds += stn_now() - t0;
    stn_progress_end(&prog);
    return rc;
}

static int sim_box_io(stn_ooc *s, int f, int level, int write, const int64_t lo[3], const int64_t hi[3],
                      char *buf, const int64_t st[3]) {
    stn_ooc_boxio b = {.f = f, .level = level, .write = write, .buf = buf};
    for (int k = 0; k < 3; k++)
        b.lo[k] = lo[k], b.hi[k] = hi[k], b.st[k] = st[k];
    int rc = stn_ooc_box_io(&s->e, &b);
    s->extra_read += b.model_read;
    s->extra_written += b.model_written;
    return rc;
}

static int ooc_box(void *state, const stn_box_io *bx) {
    stn_ooc *s = state;
    ooc *e = &s->e;
    int f = bx->f, level = bx->level, write = bx->write;
    const int64_t *lo = bx->lo, *hi = bx->hi, *st = bx->st;
    char *buf = bx->buf;
    if (e->alg2)
        return stn_error(-ENOTSUP, "--schedule alg2 keeps its levels in place, in the paper's layout: a "
                                   "simulation's boxes need the reference schedule (ref)");
    int rc = write ? ensure_imported(s) : 0;
    if (rc == 0 && write && s->sweeps == 0 && e->f[f].m->state && e->f[f].m->first[0] != STN_SRC_SCRATCH)
        rc = stn_ooc_materialize(e, &s->extra_read, &s->extra_written);
    if (rc == 0 && write && !e->f[f].m->state && e->f[f].m->input != STN_SRC_SCRATCH) {
        /* an input of init expressions or zero is computed where it is read: written, it needs a file */
        char path[4096];
        scratch_name(path, sizeof path, e, f, 0, 0);
        rc = stn_gridfile_open(&e->f[f].scratch[0][0], path, e->r->view.nx, e->r->view.ny, e->r->view.nz,
                               e->d->elem_size, e->plan.align, STN_GRIDFILE_CREATE);
        if (rc == 0)
            rc = stn_ooc_make_input(e, f, &s->extra_written);
    }
    const stn_fold *fo = &e->r->fold;
    if (!fo->W)
        return rc ? rc : sim_box_io(s, f, level, write, lo, hi, buf, st);
    /* a folded 1d grid: cells [lo, hi) are a partial row, whole rows, a partial row */
    for (int64_t a = lo[0], b; rc == 0 && a < hi[0]; a = b) {
        int64_t row = (a + fo->P) / fo->W, col = (a + fo->P) % fo->W, whole = (hi[0] + fo->P) / fo->W;
        b = col           ? hi[0] < (row + 1) * fo->W - fo->P ? hi[0] : (row + 1) * fo->W - fo->P
            : whole > row ? whole * fo->W - fo->P
                          : hi[0];
        int64_t end = (b - 1 + fo->P) / fo->W + 1;
        int64_t plo[3] = {col, row, 0},
                phi[3] = {end - row > 1 ? fo->W : (b - 1 + fo->P) % fo->W + 1, end, 1};
        int64_t pst[3] = {st[0], st[0] * fo->W, 0};
        rc = sim_box_io(s, f, level, write, plo, phi, buf + (a - lo[0]) * st[0] * e->d->elem_size, pst);
    }
    return rc;
}

/* The models of what ran so far: the IO model (with or without the --out exports) and the time model. */
static int account(stn_ooc *s, int exports) {
    ooc *e = &s->e;
    if (s->plan_only) /* the plan's prediction for the whole run stands */
        return 0;
    e->plan.steps = s->steps;
    int out[1024][2]; /* before the end (a report so far): the --out exports are not done yet */
    for (int i = 0; !exports && i < e->d->nfields && i < 1024; i++)
        for (int l = 0; l < 2; l++)
            out[i][l] = e->fsrc[i].out[l], e->fsrc[i].out[l] = 0;
    /* the model of what ran: the import (unless resumed), the sweeps this process ran (stn_ooc_advance
     * added each), the records' samples, the --out exports from the current state; and the boxes */
    stn_ooc_plan now = e->plan; /* nsweeps = the sweeps done: stn_ooc_predict gives the exports alone */
    e->res->predicted_read = e->res->predicted_written = 0;
    stn_ooc_predict(&e->model, &now, now.nsweeps, &e->res->predicted_read, &e->res->predicted_written);
    if (e->model.imported && s->first == 0)
        stn_ooc_predict_import(&e->model, &e->plan, &e->res->predicted_read, &e->res->predicted_written);
    e->res->predicted_read += s->swept_read + s->extra_read + s->rec_read + s->xchg_read;
    e->res->predicted_written += s->swept_written + s->extra_written + s->rec_written + s->xchg_written;
    int rc = predict_time(e, s->first);
    for (int i = 0; !exports && i < e->d->nfields && i < 1024; i++)
        for (int l = 0; l < 2; l++)
            e->fsrc[i].out[l] = out[i][l];
    return rc;
}

/* The result so far for a report: the models of what ran, and the series, points and `along` inputs read
 * before the engine (which the program adds to the models at the end). */
static int ooc_account(void *state, stn_result *out) {
    stn_ooc *s = state;
    int rc = account(s, 0);
    const stn_run *r = s->e.r;
    *out = *s->e.res;
    out->predicted_read += r->series_bytes + r->points_bytes + r->along_bytes;
    return rc;
}

static int ooc_finish(void *state) {
    stn_ooc *s = state;
    if (s->plan_only)
        return 0;
    int rc = account(s, 1);
    return rc ? rc : stn_ooc_export(&s->e);
}

static void ooc_close(void *state, int keep) {
    stn_ooc *s = state;
    if (!s)
        return;
    ooc *e = &s->e;
    if (e->gpending) /* (the messages in flight end before their buffer goes) */
        stn_par_wait(&e->greq), e->gpending = 0;
    if (e->q)
        stn_aio_wait_all(e->q, &e->res->st);
    if (e->f && !keep && !s->plan_only) /* (--plan-only touches no file of --dir) */
        remove_scratch(e);
    e->res->engine_bytes = stn_peak_allocated_bytes();
    ooc_free(e);
    free(s->fold.fields);
    free(s->c.fields);
    free(s);
}

/* The out-of-core engine (docs/out-of-core.md), held open for the program's main and the simulation API
 * alike: open plans for r->o->steps (Blk-Tune; with --resume the saved plan, going on from the state
 * file's sweeps) and opens the scratch and records files, with --plan-only it prints the plan and opens
 * nothing; advance runs sweeps of the plan's blocks from the current state (the step index going on),
 * each committed to the state file; box moves a box of the current state between the files and a
 * caller's buffer; finish sets the IO and time model of what ran and exports every --out; close
 * removes the scratch files (unless `keep`: after a failure, for --resume). */
const stn_engine_ops stn_ooc_engine = {
    .name = "ooc",
    .plans = 1,
    .device = 1,
    .resumes = 1,
    .splits = 1,
    .open = ooc_open,
    .steps_done = ooc_steps_done,
    .advance = ooc_advance,
    .box = ooc_box,
    .account = ooc_account,
    .finish = ooc_finish,
    .close = ooc_close,
};
