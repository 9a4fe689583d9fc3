/* gpu_sched.c -- the GPU tier's schedule over a table of device operations (stn_gpu_sched.h). */
#include "engines/stn_gpu_sched.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARRAYS 64 /* src[] + dst[] slots a program may have here */

typedef struct run_ctx {
    const stn_gpu_plan *p;
    const stn_program_desc *d;
    const int64_t *size;
    const double *params;
    void **host, **other;
    const stn_gpu_dev_ops *ops;
    void **bufs;  /* slot st's arrays: bufs[st * (nsrc + ndst) + i] */
    void **along; /* [nalong]: the inputs along an axis on the device, whole, shared by every slot */
    stn_gpu_counts *c;
    int64_t t0; /* the sweep's first step in this run */
} run_ctx;

static char *at(void *base, int64_t plane, int64_t plane_bytes) { return (char *)base + plane * plane_bytes; }

/* The view of a window of planes [w0, ...) of the whole grid. */
static stn_view window_view(const run_ctx *r, int64_t w0, int64_t w1) {
    const int64_t *n = r->size;
    stn_view v = {n[0], n[1], n[2], n[0], n[0] * n[1], 0, 0, 0, NULL};
    if (r->p->axis == 2)
        v.z0 = w0;
    else if (r->p->axis == 1)
        v.y0 = w0, v.sz = n[0] * (w1 - w0);
    /* (a 1d grid's window, along x: x_shift) */
    return v;
}

/* The injects and records after step t's kernels on `box` of block [z0, z1) (the records at its own planes),
 * into row (t - 1) mod sample_rows of the device's samples. */
static int point_ops(const run_ctx *r, const stn_view *v, const stn_box *box, const int64_t *wz, int64_t t,
                     const void **src, void **dst, int st) {
    if (!r->ops->point_ops || box->hi[r->p->axis] <= box->lo[r->p->axis])
        return 0;
    stn_box own = *box;
    const int a = r->p->axis;
    const int64_t z0 = wz[2], z1 = wz[3];
    own.lo[a] = own.lo[a] > z0 ? own.lo[a] : z0, own.hi[a] = own.hi[a] < z1 ? own.hi[a] : z1;
    if (r->p->nyb > 1) /* (a tile's own rows) */
        own.lo[1] = own.lo[1] > wz[6] ? own.lo[1] : wz[6], own.hi[1] = own.hi[1] < wz[7] ? own.hi[1] : wz[7];
    const int64_t row = r->p->sample_rows ? (t - 1) % r->p->sample_rows : 0;
    return r->ops->point_ops(r->ops->ctx, v, src, (void *const *)dst, box, &own, row, st);
}

/* The samples of the steps [t, t + rows) of this run, once stream st (the only one: in core) is done. */
static int samples_down(const run_ctx *r, int64_t t, int64_t rows, int st) {
    if (!r->ops->samples || !r->p->sample_rows || rows < 1)
        return 0;
    uint64_t bytes = 0;
    int rc = r->ops->sync(r->ops->ctx, st);
    if (rc == 0)
        rc = r->ops->samples(r->ops->ctx, t, rows, &bytes);
    r->c->d2h_bytes += bytes;
    return rc;
}

/* A 1d grid's window (streamed along x, which the view does not offset): the kernels' pointers moved back by
 * `back` cells, so that cell x of the row is at [x - back] of the window's arrays (as the fold's,
 * run/fold.c); the inputs along an axis are whole.  Elsewhere the view's y0 or z0 does it: the pointers as
 * they are. */
static void x_shift(const run_ctx *r, int64_t back_cells, const void **src, void **dst, const void **ks,
                    void **kd) {
    const stn_program_desc *d = r->d;
    const int64_t back = back_cells * d->elem_size;
    for (int i = 0; i < d->nsrc; i++)
        ks[i] = (const char *)src[i] - back;
    for (int j = 0; j < d->nalong; j++)
        ks[d->nsrc + j] = src[d->nsrc + j];
    for (int i = 0; i < d->ndst; i++)
        kd[i] = (char *)dst[i] - back;
}

/* A tile's rows still exact after step t of its window (wz: the planes' window and block, then the rows'):
 * the box and the region clipped along y as well. */
static void tile_rows(const run_ctx *r, const int64_t *wz, int64_t t, stn_box *box, stn_box *whole) {
    const stn_gpu_plan *p = r->p;
    const int64_t v0 = wz[4] == 0 ? 0 : wz[4] + t * p->yrlo,
                  v1 = wz[5] == p->ny ? p->ny : wz[5] - t * p->yrhi;
    box->lo[1] = v0 > p->yL ? v0 : p->yL, box->hi[1] = v1 < p->yH ? v1 : p->yH;
    whole->lo[1] = v0, whole->hi[1] = v1;
}

/* One piece [m0, m1) of step t's region along the streamed axis, under the grid's own indices (shift: how far
 * the window's unrolled planes lie from them; 0 unless the window wraps), of block [z0, z1) (wz: the window,
 * the block, then a tile's rows' window and own rows): the kernels on its interior part and the injects and
 * records (phase 0), or the boundaries of every state field (1). */
static int piece(const run_ctx *r, const stn_view *v, const int64_t wz[8], int64_t t, int64_t m0, int64_t m1,
                 int64_t shift, const void **src, void **dst, int st, int phase) {
    const stn_gpu_plan *p = r->p;
    const stn_program_desc *d = r->d;
    const int a = p->axis;
    stn_view w = *v; /* (plane u of the window is the grid's u - shift) */
    if (a > 0)
        *(a == 2 ? &w.z0 : &w.y0) -= shift;
    stn_box box, whole;
    for (int e = 0; e < 3; e++) {
        box.lo[e] = d->halo_lo[e], box.hi[e] = r->size[e] - d->halo_hi[e];
        whole.lo[e] = 0, whole.hi[e] = r->size[e];
    }
    box.lo[a] = m0 > p->L ? m0 : p->L, box.hi[a] = m1 < p->H ? m1 : p->H;
    whole.lo[a] = m0, whole.hi[a] = m1;
    if (p->nyb > 1)
        tile_rows(r, wz, t, &box, &whole);
    const void *ks_[MAX_ARRAYS], **ks = src;
    void *kd_[MAX_ARRAYS], **kd = dst;
    if (a == 0 && wz[0] - shift != 0) /* (cell m of the grid at [m + shift - w0] of the window) */
        x_shift(r, wz[0] - shift, src, dst, ks_, kd_), ks = ks_, kd = kd_;
    int rc = 0;
    if (phase == 0 && box.hi[a] > box.lo[a])
        rc = r->ops->step(r->ops->ctx, r->params, &w, ks, kd, &box, st);
    if (phase == 0 && rc == 0) { /* (the records: at the block's own planes, which no shifted piece holds) */
        int64_t own[8];
        memcpy(own, wz, sizeof own);
        if (shift)
            own[2] = own[3] = 0;
        rc = point_ops(r, &w, &box, own, t, ks, kd, st);
        r->c->cells_computed += (uint64_t)((whole.hi[0] - whole.lo[0]) * (whole.hi[1] - whole.lo[1]) *
                                           (whole.hi[2] - whole.lo[2]));
    }
    for (int f = 0; f < d->nfields && phase == 1 && !rc; f++)
        if (d->fields[f].kind == STN_FIELD_STATE)
            rc = r->ops->boundary(r->ops->ctx, f, &w, ks[d->fields[f].src_slot], kd[d->fields[f].dst_slot],
                                  &whole, st);
    return rc;
}

/* Step t of a window [w0, w1) of a sweep (block [z0, z1); wz: those, then a tile's rows' window and own
 * rows): the kernels on what is still exact, the injects and records, the boundaries, the levels rotated.
 * A wrapped window's region runs in pieces, each under the grid's own indices of its planes (its view
 * shifted), so the kernels see the grid's coordinates. */
static int window_step(const run_ctx *r, const stn_view *v, const int64_t wz[8], int64_t t, const void **src,
                       void **dst, int st) {
    const stn_gpu_plan *p = r->p;
    const stn_program_desc *d = r->d;
    int64_t v0, v1;
    stn_gpu_region(p, wz[0], wz[1], t, &v0, &v1);
    int rc = 0;
    if (r->ops->at_step)
        r->ops->at_step(r->ops->ctx, r->t0 + t - 1);
    for (int phase = 0; phase < 2 && !rc; phase++)
        for (int64_t u = v0; u < v1 && !rc;) {
            const int64_t m = stn_gpu_wrap_plane(p, u),
                          len = p->wrap && p->H - m < v1 - u ? p->H - m : v1 - u;
            rc = piece(r, v, wz, t, m, m + len, u - m, src, dst, st, phase);
            u += len;
        }
    for (int f = 0; f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        if (fd->kind != STN_FIELD_STATE)
            continue;
        void *old = (void *)src[fd->prev_slot >= 0 ? fd->prev_slot : fd->src_slot];
        if (fd->prev_slot >= 0)
            src[fd->prev_slot] = src[fd->src_slot];
        src[fd->src_slot] = dst[fd->dst_slot];
        dst[fd->dst_slot] = old;
    }
    r->c->planes_computed += (uint64_t)(v1 - v0);
    return rc;
}

/* The slots a block's or a tile's kernels read besides its windows' arrays (src[0, nsrc), set by the caller
 * as they go up): the inputs along an axis (whole, on the device once a run), and the new levels (the slot's
 * own buffers after its nsrc sources). */
static void bind_rest(const run_ctx *r, void **buf, const void **src, void **dst) {
    const stn_program_desc *d = r->d;
    for (int j = 0; j < d->nalong; j++)
        src[d->nsrc + j] = r->along[j];
    for (int s = 0; s < d->ndst; s++)
        dst[s] = buf[d->nsrc + s];
}

/* Block k of a sweep of T steps on stream (and slot) st: up, T steps, down into the other copy. */
static int run_block(const run_ctx *r, int64_t k, int64_t T, int st) {
    const stn_gpu_plan *p = r->p;
    const stn_program_desc *d = r->d;
    const int64_t pb = p->plane_bytes;
    int64_t w0, w1;
    stn_gpu_window(p, k, T, &w0, &w1);
    int64_t z0, z1;
    stn_gpu_block(p, k, &z0, &z1);
    void **buf = r->bufs + (size_t)st * (size_t)(d->nsrc + d->ndst);
    const void *src[MAX_ARRAYS];
    void *dst[MAX_ARRAYS];
    int rc = 0;
    for (int s = 0; s < d->nsrc && !rc; s++) {
        src[s] = buf[s];
        for (int64_t u = w0; u < w1 && !rc;) { /* (a wrapped window: in runs of the grid's planes) */
            const int64_t m = stn_gpu_wrap_plane(p, u),
                          len = p->wrap && p->H - m < w1 - u ? p->H - m : w1 - u;
            rc = r->ops->up(r->ops->ctx, at(buf[s], u - w0, pb), at(r->host[s], m, pb), (uint64_t)(len * pb),
                            st);
            r->c->h2d_bytes += (uint64_t)(len * pb);
            u += len;
        }
    }
    bind_rest(r, buf, src, dst);
    const stn_view v = window_view(r, w0, w1);
    const int64_t wz[8] = {w0, w1, z0, z1, 0, p->ny, 0, p->ny}, rows = p->sample_rows;
    for (int64_t t = 1; t <= T && !rc; t++) {
        rc = window_step(r, &v, wz, t, src, dst, st);
        if (rc == 0 && p->nblocks <= 1 && rows && (t % rows == 0 || t == T)) /* in core: as they fill */
            rc = samples_down(r, r->t0 + (t - 1) / rows * rows, t - (t - 1) / rows * rows, st);
    }
    for (int f = 0; f < d->nfields && !rc; f++) {
        const stn_field_desc *fd = &d->fields[f];
        for (int l = 0; l < (fd->kind == STN_FIELD_STATE ? fd->levels : 0) && !rc; l++) {
            const int s = l ? fd->prev_slot : fd->src_slot;
            rc = r->ops->down(r->ops->ctx, at(r->other[s], z0, pb), at((void *)src[s], z0 - w0, pb),
                              (uint64_t)((z1 - z0) * pb), st);
            r->c->d2h_bytes += (uint64_t)((z1 - z0) * pb);
        }
    }
    return rc;
}

/* Tile k (block k / nyb, rows k mod nyb) of a sweep of T steps on stream (and slot) st: its window up (a run
 * of rows per plane: strided), T steps on it (packed: rows wy1 - wy0 apart a plane), its own rows of its own
 * planes down into the other copy. */
static int run_tile(const run_ctx *r, int64_t k, int64_t T, int st) {
    const stn_gpu_plan *p = r->p;
    const stn_program_desc *d = r->d;
    const int64_t rb = p->row_bytes, ny = p->ny;
    int64_t wz[8];
    stn_gpu_window(p, k / p->nyb, T, &wz[0], &wz[1]);
    stn_gpu_block(p, k / p->nyb, &wz[2], &wz[3]);
    stn_gpu_rows_window(p, k % p->nyb, T, &wz[4], &wz[5]);
    stn_gpu_rows(p, k % p->nyb, &wz[6], &wz[7]);
    const int64_t w0 = wz[0], wy = wz[5] - wz[4], z0 = wz[2], z1 = wz[3], y0 = wz[6], y1 = wz[7];
    void **buf = r->bufs + (size_t)st * (size_t)(d->nsrc + d->ndst);
    const void *src[MAX_ARRAYS];
    void *dst[MAX_ARRAYS];
    int rc = 0;
    for (int s = 0; s < d->nsrc && !rc; s++) {
        src[s] = buf[s];
        const uint64_t w = (uint64_t)(wy * rb), h = (uint64_t)(wz[1] - w0);
        rc = r->ops->copy2d(r->ops->ctx, buf[s], w, at(r->host[s], w0 * ny + wz[4], rb), (uint64_t)(ny * rb),
                            w, h, 1, st);
        r->c->h2d_bytes += w * h;
    }
    bind_rest(r, buf, src, dst);
    const int64_t *n = r->size;
    const stn_view v = {n[0], n[1], n[2], n[0], n[0] * wy, wz[4], w0, 0, NULL};
    for (int64_t t = 1; t <= T && !rc; t++)
        rc = window_step(r, &v, wz, t, src, dst, st);
    for (int f = 0; f < d->nfields && !rc; f++) {
        const stn_field_desc *fd = &d->fields[f];
        for (int l = 0; l < (fd->kind == STN_FIELD_STATE ? fd->levels : 0) && !rc; l++) {
            const int s = l ? fd->prev_slot : fd->src_slot;
            const uint64_t w = (uint64_t)((y1 - y0) * rb), h = (uint64_t)(z1 - z0);
            rc = r->ops->copy2d(r->ops->ctx, at(r->other[s], z0 * ny + y0, rb), (uint64_t)(ny * rb),
                                at((void *)src[s], (z0 - w0) * wy + (y0 - wz[4]), rb), (uint64_t)(wy * rb), w,
                                h, 0, st);
            r->c->d2h_bytes += w * h;
        }
    }
    return rc;
}

/* The inputs along an axis (host[nsrc + j]) on the device, whole: uploaded once on stream 0, which is
 * waited for, so that every stream's kernels may read them. */
static int up_alongs(const run_ctx *r) {
    const stn_program_desc *d = r->d;
    int rc = 0;
    for (int j = 0; j < d->nalong && !rc; j++) {
        const uint64_t bytes = (uint64_t)d->elem_size * (uint64_t)r->p->along_n[d->alongs[j].axis];
        rc = r->ops->alloc(r->ops->ctx, &r->along[j], bytes);
        if (rc == 0)
            rc = r->ops->up(r->ops->ctx, r->along[j], r->host[d->nsrc + j], bytes, 0);
        r->c->h2d_bytes += rc == 0 ? bytes : 0;
    }
    return rc == 0 && d->nalong > 0 ? r->ops->sync(r->ops->ctx, 0) : rc;
}

int stn_gpu_run(const stn_gpu_plan *p, const stn_program_desc *d, const int64_t size[3], const double *params,
                void **host, void **other, const stn_gpu_dev_ops *ops, stn_gpu_counts *c) {
    memset(c, 0, sizeof *c);
    if (d->nsrc + d->nalong + d->ndst > MAX_ARRAYS)
        return stn_error(-ENOTSUP, "--mode gpu: more than %d arrays are not carried yet", MAX_ARRAYS);
    if (p->nyb > 1 && !ops->copy2d)
        return stn_error(-ENOTSUP,
                         "--mode gpu-ooc: a plan of tiles needs a strided copy (cudaMemcpy2DAsync)");
    const int slots = p->nblocks <= 1 ? 1 : p->streams, narr = d->nsrc + d->ndst;
    void **bufs = calloc((size_t)(slots * narr + d->nalong + 1), sizeof *bufs);
    if (!bufs)
        return stn_error(-ENOMEM, "--mode gpu: no memory for %d device buffers", slots * narr);
    run_ctx r = {p, d, size, params, host, other, ops, bufs, bufs + slots * narr, c, 0};
    int rc = 0;
    for (int i = 0; i < slots * narr && !rc; i++)
        rc = ops->alloc(ops->ctx, &bufs[i], stn_gpu_slot_bytes(p));
    if (rc == 0)
        rc = up_alongs(&r);
    if (rc == 0 && ops->points && p->nsweeps > 0) { /* the point sets, once a run */
        uint64_t bytes = 0;
        rc = ops->points(ops->ctx, &bytes);
        c->h2d_bytes += bytes;
    }
    for (int64_t s = 0; s < p->nsweeps && !rc; s++) {
        const int64_t T = s + 1 < p->nsweeps ? p->bt : p->steps - s * p->bt;
        r.t0 = s * p->bt;
        for (int64_t k = 0; k < p->nblocks * p->nyb && !rc; k++)
            rc = p->nyb > 1 ? run_tile(&r, k, T, (int)(k % slots)) : run_block(&r, k, T, (int)(k % slots));
        for (int st = 0; st < slots && !rc; st++)
            rc = ops->sync(ops->ctx, st);
        if (rc == 0 && p->nblocks > 1) /* the sweep's samples, every block's done */
            rc = samples_down(&r, r.t0, T, 0);
        for (int f = 0; f < d->nfields; f++) { /* the other copy is the grid now */
            const stn_field_desc *fd = &d->fields[f];
            for (int l = 0; l < (fd->kind == STN_FIELD_STATE ? fd->levels : 0); l++) {
                const int slot = l ? fd->prev_slot : fd->src_slot;
                void *t = host[slot];
                host[slot] = other[slot], other[slot] = t;
            }
        }
    }
    if (rc) { /* a failed run: what is queued ends before its buffers go; the first failure's message stays */
        char why[512];
        snprintf(why, sizeof why, "%s", stn_errmsg());
        for (int st = 0; st < slots; st++)
            (void)ops->sync(ops->ctx, st);
        stn_error(rc, "%s", why);
    }
    for (int i = 0; i < slots * narr + d->nalong; i++)
        if (bufs[i])
            ops->release(ops->ctx, bufs[i]);
    free(bufs);
    return rc;
}
