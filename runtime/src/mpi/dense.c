/* dense.c -- a rank's part held dense in DRAM, laid out as its run's view (the in-core engine): its
 * cells of the whole grid's --init and --out files, and the store its ghosts' exchange goes through
 * (stn_ghost_store on the level arrays themselves). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/stn_part.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The part's slices [i, k) along the split axis from global index gi + d of the whole grid's file
 * `whole` (shape slowest first), under a cross cut (--ranks) their rows' parts, each piece of a ring
 * across them from where it wraps to. */
static int load_cross(const stn_run *r, const char *path, const int64_t *whole, int64_t gi, int64_t count,
                      int64_t d, char *data, stn_stats *st) {
    const stn_part *p = r->part;
    const stn_view *v = &r->view;
    int64_t pc[3][3][3], ext[3] = {v->nx, v->ny, v->nz};
    int np[3], rc = 0;
    for (int a = 0; a < 3; a++)
        np[a] = a == p->split ? (pc[a][0][0] = gi, pc[a][0][1] = gi + count, pc[a][0][2] = d, 1)
                              : stn_ring_pieces(p->ax[a].base, p->ax[a].base + ext[a], p->ax[a].ring,
                                                p->ax[a].L, p->ax[a].H, pc[a]);
    for (int iz = 0; rc == 0 && iz < np[2]; iz++)
        for (int iy = 0; rc == 0 && iy < np[1]; iy++)
            for (int ix = 0; rc == 0 && ix < np[0]; ix++) {
                const int64_t *q[3] = {pc[0][ix], pc[1][iy], pc[2][iz]};
                int64_t box[2][3], at = 0; /* the piece's lo and extent in the whole grid */
                for (int a = 0; a < 3; a++) {
                    box[0][a] = q[a][0] + q[a][2], box[1][a] = q[a][1] - q[a][0];
                    at += (q[a][0] - p->ax[a].base) * (a == 0 ? 1 : a == 1 ? v->sy : v->sz);
                }
                rc = stn_npy_load_box(path, r->d->npy_descr, stn_dims(r->d), whole, box,
                                      data + (size_t)at * (size_t)r->d->elem_size, (int64_t[2]){v->sy, v->sz},
                                      st);
            }
    return rc;
}

int stn_part_load(const stn_run *r, const char *path, char *data, stn_stats *st) {
    const stn_program_desc *d = r->d;
    const stn_part *p = r->part;
    const stn_cut *s = stn_part_slab(p);
    const stn_fold *fo = &r->fold;
    if (fo->W) { /* a rank's slab of a folded 1d grid: the cells of its rows */
        int64_t c0 = s->base * fo->W - fo->P, rows = r->view.ny, lo = c0 > 0 ? c0 : 0;
        int64_t c = stn_fold_cells(fo, s->base, s->base + rows), n = fo->n;
        return c ? stn_npy_load_part(path, d->npy_descr, 1, &n, lo, c,
                                     data + (size_t)(lo - c0) * (size_t)d->elem_size, st)
                 : 0;
    }
    /* its slices of the whole grid's file (a ring's where they wrap to) */
    int64_t shape[3] = {r->o->size[2], r->o->size[1], r->o->size[0]}, *sh = shape + 3 - stn_dims(d);
    int64_t count = sh[0], slice = (int64_t)r->grid_bytes / count, m = s->H - s->L;
    int64_t whole[3] = {p->ax[2].n, p->ax[1].n, p->ax[0].n};
    sh = whole + 3 - stn_dims(d);
    int rc = 0;
    for (int64_t i = 0, k; rc == 0 && i < count; i = k) {
        int64_t gi = s->base + i, dd = s->ring && gi < s->L ? m : s->ring && gi >= s->H ? -m : 0;
        k = dd > 0 ? s->L - s->base : dd < 0 || !s->ring ? count : s->H - s->base;
        k = k < count ? k : count;
        rc = stn_part_cross(p) ? load_cross(r, path, sh, gi, k - i, dd, data, st)
                               : stn_npy_load_part(path, d->npy_descr, stn_dims(d), sh, gi + dd, k - i,
                                                   data + i * slice, st);
    }
    return rc;
}

/* Local slices [a0, a1) along the split axis of `data` (the own part of the other axes) into an --out
 * at their whole-grid place moved by fshift slices: whole slices at once, rows' parts of a cross cut
 * (and along a ring across the rows also the parts the boundary layer copies, stn_part_out). */
static int save_slices(const stn_run *r, stn_npy_writer *w, const char *data, const int64_t a[3],
                       stn_stats *st) {
    const stn_part *p = r->part;
    const stn_view *v = &r->view;
    size_t es = (size_t)r->d->elem_size;
    int64_t a0 = a[0], a1 = a[1], fshift = a[2];
    if (!stn_part_cross(p)) {
        size_t slice = (size_t)r->grid_bytes / (size_t)(p->split == 2 ? v->nz : v->ny);
        return stn_npy_writer_pwrite(w, data + (size_t)a0 * slice, (size_t)(a1 - a0) * slice,
                                     (uint64_t)(stn_part_slab(p)->base + a0 + fshift) * slice, st);
    }
    int64_t pc[3][3][3];
    int np[3];
    for (int k = 0; k < 3; k++)
        if (k == p->split)
            pc[k][0][0] = a0, pc[k][0][1] = a1, pc[k][0][2] = fshift, np[k] = 1;
        else
            stn_part_out(p, k, pc[k], &np[k]);
    int rc = 0;
    for (int iz = 0; iz < np[2]; iz++)
        for (int iy = 0; iy < np[1]; iy++)
            for (int64_t z = pc[2][iz][0]; rc == 0 && z < pc[2][iz][1]; z++)
                for (int64_t y = pc[1][iy][0]; rc == 0 && y < pc[1][iy][1]; y++)
                    for (int ix = 0; rc == 0 && ix < np[0]; ix++) {
                        const int64_t *px = pc[0][ix];
                        int64_t gz = z + p->ax[2].base + pc[2][iz][2], gy = y + p->ax[1].base + pc[1][iy][2];
                        uint64_t cell =
                            (uint64_t)((gz * p->ax[1].n + gy) * p->ax[0].n + px[0] + p->ax[0].base + px[2]);
                        rc = stn_npy_writer_pwrite(w, data + (size_t)(z * v->sz + y * v->sy + px[0]) * es,
                                                   (size_t)(px[1] - px[0]) * es, cell * es, st);
                    }
    return rc;
}

int stn_part_save(const stn_run *r, stn_npy_writer *w, const char *data, stn_stats *st) {
    const stn_part *p = r->part;
    const stn_cut *s = stn_part_slab(p);
    const stn_fold *fo = &r->fold;
    if (fo->W) { /* a folded 1d grid's own rows: their cells */
        int64_t c0 = (s->base + s->lo) * fo->W - fo->P, lo = c0 > 0 ? c0 : 0;
        int64_t c = stn_fold_cells(fo, s->base + s->lo, s->base + s->hi);
        size_t es = (size_t)r->d->elem_size;
        return stn_npy_writer_pwrite(w, data + (size_t)(lo - s->base * fo->W + fo->P) * es, (size_t)c * es,
                                     (uint64_t)lo * es, st);
    }
    int64_t pc[3][3]; /* (a rank's own slices, and along a ring those its boundary layer copies) */
    int np = 0, rc = 0;
    stn_part_out(p, p->split, pc, &np);
    for (int k = 0; rc == 0 && k < np; k++)
        rc = save_slices(r, w, data, pc[k], st);
    return rc;
}

void stn_part_file_bytes(const stn_run *r, uint64_t *in, uint64_t *out) {
    const stn_part *p = r->part;
    const stn_cut *s = stn_part_slab(p);
    *out = stn_part_out_cells(p) * (uint64_t)r->d->elem_size;
    *in = r->grid_bytes;
    if (r->fold.W) /* (a folded 1d grid: the cells of its rows) */
        *in = (uint64_t)stn_fold_cells(&r->fold, s->base, s->base + r->view.ny) * r->d->elem_size,
        *out = (uint64_t)stn_fold_cells(&r->fold, s->base + s->lo, s->base + s->hi) * r->d->elem_size;
}

/* ------------------------------------------------------------------ the ghosts in DRAM */

typedef struct dense {
    const stn_run *r;
    char *const *levels;
    size_t slice; /* bytes of a slice along the split axis */
} dense;

static int dense_stage(void *ctx, const stn_ghost_piece *pc, int in, int load, char **buf) {
    const dense *x = ctx;
    (void)in, (void)load;
    *buf = x->levels[pc->level] + (size_t)pc->i0 * x->slice;
    return 0;
}

static int dense_land(void *ctx, const stn_ghost_piece *pc) {
    (void)ctx, (void)pc;
    return 0;
}

static char *dense_slice(void *ctx, int level, int64_t i) {
    const dense *x = ctx;
    return x->levels[level] + (size_t)i * x->slice;
}

int stn_part_swap_dense(const stn_run *r, char *const *levels, int n, uint64_t *msg) {
    const stn_part *p = r->part;
    const stn_view *v = &r->view;
    int64_t slices = p->split == 2 ? v->nz : v->ny;
    dense x = {r, levels, (size_t)r->grid_bytes / (size_t)slices};
    stn_ghost_store gs = {.ctx = &x,
                          .levels = n,
                          .rows = p->split == 2 ? v->ny : 1,
                          .row = (size_t)v->nx * (size_t)r->d->elem_size,
                          .elem = (size_t)r->d->elem_size,
                          .nx = v->nx,
                          .step = stn_part_slab(p)->g,
                          .run = p->split == 2 ? v->ny : 1,
                          .batch = slices,
                          .slices = slices,
                          .stage = dense_stage,
                          .land = dense_land,
                          .slice = dense_slice};
    return stn_ghosts_swap(p, &gs, 0, msg);
}
