/* ooc_ghosts.c -- the out-of-core engine's side of the ranks' ghosts (MPI, docs/design/018, 019): how
 * its part's state levels reach the exchange of the MPI layer (mpi/ghosts.c), through the window's rings
 * from and to the part's scratch files, and the deferred way down landing in those files. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <string.h>

uint64_t stn_ooc_ghosts_bytes(const ooc *e, uint64_t *msg) {
    stn_xchg_model x;
    stn_xchg_of(e->r, &x);
    uint64_t io, n;
    stn_ooc_exchange(&x, &e->plan, e->r->part->bt, &io, msg, &n);
    return io;
}

int stn_ooc_agree(const ooc *e, int rc, const char *what) {
    if (!e->r->part)
        return rc;
    int bad = stn_par_any(rc);
    if (bad && rc == 0)
        rc = stn_error(-EIO, "another rank failed %s (its error is above); this rank stops there too", what);
    return rc;
}

/* ------------------------------------------------------------------ the store of an exchange */

/* An exchange of file set `set`: its levels are every state level, field by field. */
typedef struct ghost_files {
    ooc *e;
    int64_t set;
    int along_r; /* the split axis is r (a slice goes whole), else q (y-blocked: a z-plane in runs of rows) */
} ghost_files;

/* Level l of the exchange: its field and the field's level. */
static ooc_field *level_of(const ghost_files *x, int l, int *level) {
    for (int i = 0; i < x->e->d->nfields; i++) {
        ooc_field *f = &x->e->f[i];
        int n = f->m->state ? f->m->levels : 0;
        if (l < n) {
            *level = l;
            return f;
        }
        l -= n;
    }
    *level = 0;
    return NULL;
}

/* Piece pc's rows [r0, r1) x [q0, q1) in the window (r the split axis: its slices whole; q: one z-plane
 * of the ring's rows [j0, j1)), the window's plane set to it. */
static void piece_box(const ghost_files *x, const stn_ghost_piece *pc, int64_t b[4]) {
    ooc *e = x->e;
    b[0] = x->along_r ? pc->i0 : pc->j0, b[1] = x->along_r ? pc->i1 : pc->j1;
    b[2] = x->along_r ? 0 : pc->i0, b[3] = x->along_r ? e->plan.q.n : pc->i0 + 1;
    e->qbase = x->along_r ? 0 : pc->i0; /* (y-blocked: the plane is the rings' first) */
}

/* Rows [b0, b1) x [b2, b3) between file gf and a ring, waited for. */
static int io_piece(ooc *e, int write, stn_gridfile *gf, char *ring, const int64_t b[4]) {
    stn_aio_group grp = STN_AIO_GROUP_INIT;
    int rc = stn_ooc_io_box(e, write, gf, ring, &(ooc_rows){b[0], b[1], b[2], b[3]}, b[2], &grp);
    int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
    return rc ? rc : rc2;
}

/* A piece to send goes through ring array 0 (read from the file first), one received through array 1. */
static int files_stage(void *ctx, const stn_ghost_piece *pc, int in, int load, char **buf) {
    ghost_files *x = ctx;
    int level;
    ooc_field *f = level_of(x, pc->level, &level);
    int64_t b[4];
    piece_box(x, pc, b);
    *buf = ooc_at(x->e, f->ring[in], b[0], b[2]);
    return load ? io_piece(x->e, 0, &f->scratch[x->set][level], f->ring[0], b) : 0;
}

static int files_land(void *ctx, const stn_ghost_piece *pc) {
    ghost_files *x = ctx;
    int level;
    ooc_field *f = level_of(x, pc->level, &level);
    int64_t b[4];
    piece_box(x, pc, b);
    return io_piece(x->e, 1, &f->scratch[x->set][level], f->ring[1], b);
}

/* Whole slices [r0, r1) (at most the ring's) between the level's file and ring array 0, in pieces that
 * do not run past the ring's end (slice r lives at r mod C), and waited for. */
static int files_batch(void *ctx, int l, int store, int64_t r0, int64_t r1) {
    ghost_files *x = ctx;
    ooc *e = x->e;
    int level;
    ooc_field *f = level_of(x, l, &level);
    stn_aio_group grp = STN_AIO_GROUP_INIT;
    int64_t C = e->plan.ring_slices;
    int rc = 0;
    e->qbase = 0;
    for (int64_t a = r0, b; rc == 0 && a < r1; a = b) {
        b = a - a % C + C < r1 ? a - a % C + C : r1;
        rc = stn_ooc_io_box(e, store, &f->scratch[x->set][level], f->ring[0],
                            &(ooc_rows){a, b, 0, e->plan.q.n}, 0, &grp);
    }
    int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
    return rc ? rc : rc2;
}

static char *files_slice(void *ctx, int l, int64_t r) {
    ghost_files *x = ctx;
    int level;
    ooc_field *f = level_of(x, l, &level);
    x->e->qbase = 0;
    return ooc_at(x->e, f->ring[0], r, 0);
}

static int files_done(void *ctx, int l) {
    ghost_files *x = ctx;
    int level;
    ooc_field *f = level_of(x, l, &level);
    return stn_gridfile_sync(&f->scratch[x->set][level]);
}

/* ------------------------------------------------------------------ the exchange */

/* Whole slices [r0, r1) of file gf to or from a flat buffer (slice after slice), queued in g. */
static int flat_io(ooc *e, int write, stn_gridfile *gf, char *buf, int64_t r0, int64_t r1, stn_aio_group *g) {
    const stn_ooc_plan *p = &e->plan;
    if (p->r.axis == 2)
        return write ? stn_aio_write(e->q, gf, &(stn_span){0, p->q.n, r0, r1}, buf, p->slice_bytes, g,
                                     &e->res->st)
                     : stn_aio_read(e->q, gf, &(stn_span){0, p->q.n, r0, r1}, buf, p->slice_bytes, g,
                                    &e->res->st);
    size_t plane = (size_t)(r1 - r0) * (size_t)p->row_bytes;
    return write ? stn_aio_write(e->q, gf, &(stn_span){r0, r1, 0, 1}, buf, plane, g, &e->res->st)
                 : stn_aio_read(e->q, gf, &(stn_span){r0, r1, 0, 1}, buf, plane, g, &e->res->st);
}

int stn_ooc_ghosts_land(ooc *e, int write) {
    if (!e->gh.pending)
        return 0;
    const stn_cut *sl = stn_part_slab(e->r->part);
    double t0 = stn_now();
    int rc = stn_par_wait(&e->gh.req);
    e->gh.pending = 0;
    uint64_t lvl = (uint64_t)sl->g * e->plan.slice_bytes, levels = stn_state_levels(e->d);
    char *in = e->gh.buf + levels * lvl;
    stn_aio_group grp = STN_AIO_GROUP_INIT;
    for (int i = 0; rc == 0 && write && sl->nb[1] >= 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->m->state && l < f->m->levels; l++, in += lvl)
            rc = flat_io(e, 1, &f->scratch[e->gh.set][l], in, sl->hi, sl->hi + sl->g, &grp);
    }
    int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    return rc ? rc : rc2;
}

/* The way down deferred: every level's low own edge read into the ghosts' buffer (unless the exchange
 * failed already: rc), then sent while the next sweep runs (the high ghosts come back into its second
 * half). */
static int post_down(ooc *e, int64_t set, uint64_t *msg, int rc) {
    const stn_cut *sl = stn_part_slab(e->r->part);
    uint64_t lvl = (uint64_t)sl->g * e->plan.slice_bytes, levels = 0;
    stn_aio_group grp = STN_AIO_GROUP_INIT;
    char *out = e->gh.buf;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; f->m->state && l < f->m->levels; l++, levels++, out += lvl)
            if (rc == 0 && sl->nb[0] >= 0)
                rc = flat_io(e, 0, &f->scratch[set][l], out, sl->lo, sl->lo + sl->g, &grp);
    }
    int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
    rc = rc ? rc : rc2;
    size_t bytes = (size_t)(levels * lvl); /* (a rank whose reads failed sends them anyway) */
    int rc3 = stn_ghosts_post_down(e->r->part, e->gh.buf, bytes, &e->gh.req, msg);
    e->gh.pending = rc3 == 0, e->gh.set = set;
    return rc ? rc : rc3;
}

int stn_ooc_ghosts_swap(ooc *e, int64_t set, uint64_t *msg, int defer) {
    const stn_part *part = e->r->part;
    const stn_ooc_plan *p = &e->plan;
    int cross = stn_part_cross(part);
    int64_t batch = cross ? stn_par_min(p->ring_slices) : 0; /* (the cross cuts' batches: every rank's) */
    ghost_files x = {e, set, part->split == p->r.axis};
    /* a slice along r goes whole; a z-plane of y-blocked rows (the slab split q) in runs of the ring's rows
     */
    stn_ghost_store gs = {.ctx = &x,
                          .levels = (int)stn_state_levels(e->d),
                          .rows = x.along_r ? (int64_t)(p->slice_bytes / (uint64_t)p->row_bytes) : p->r.n,
                          .row = (size_t)p->row_bytes,
                          .elem = (size_t)e->d->elem_size,
                          .nx = e->r->view.nx,
                          .step = 1,
                          .run =
                              x.along_r ? (int64_t)(p->slice_bytes / (uint64_t)p->row_bytes) : p->ring_slices,
                          .batch = batch,
                          .slices = p->r.n,
                          .stage = files_stage,
                          .land = files_land,
                          .batch_io = files_batch,
                          .slice = files_slice,
                          .done = files_done};
    e->qlo = e->qnew = 0, e->qhi = e->qnext = p->q.n, e->qbase = 0, e->rshift = 0;
    double t0 = stn_now();
    int rc = stn_ghosts_swap(part, &gs, defer, msg);
    if (defer)
        rc = post_down(e, set, msg, rc);
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    return rc;
}
