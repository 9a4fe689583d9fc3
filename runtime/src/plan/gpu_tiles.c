/* gpu_tiles.c -- the GPU tier's blocks cut along y as well as z: the rows of the tiles and their sums
 * (stn_gpu.h, docs/design/024-gpu-tier.md §3d; the tiled plans' model and chooser are gpu_plan.c's, which
 * calls these).
 *
 * Past one block of a 3d grid, each block of bz planes may be cut along y into nyb tiles of by rows (the last
 * the rest: a remainder thinner than twice y's boundary layer joins it, as the blocks').  A tile's window is
 * the cone of its T steps along both axes: planes [z0 - T rlo, z1 + T rhi) and rows [y0 - T yrlo, y1 + T
 * yrhi), clipped at the grid's faces; x stays whole, so a window's rows of one plane are contiguous on the
 * host and the copies are two-dimensional (a run of rows per plane).  The window is a product of the two
 * axes' extents, so every sum of the byte model factors: the bytes up of a sweep are in_arrays x row_bytes x
 * (Σ over blocks of the window's planes) x (Σ over tiles of its rows), and step s computes (Σ planes still
 * exact)(Σ rows still exact) x nx cells.  The bytes down are the blocks' own, as with whole planes.  For the
 * same device bytes a tile's window is deeper in time: at 512³ a plane is 2 MiB, and 1/8 of the grid holds
 * only 11 whole planes a window (bt 5); tiles of 64 rows hold 8x as many planes. */
#include "plan/stn_gpu.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

void stn_gpu_rows_geometry(const stn_gpu_request *q, stn_gpu_plan *p) {
    const stn_program_desc *d = q->d;
    const int three = p->axis == 2;
    p->ny = three ? q->size[1] : 1;
    p->yrlo = three ? max64(d->reach_lo[1], d->halo_lo[1]) : 0;
    p->yrhi = three ? max64(d->reach_hi[1], d->halo_hi[1]) : 0;
    p->yL = three ? d->halo_lo[1] : 0;
    p->yH = p->ny - (three ? d->halo_hi[1] : 0);
    p->row_bytes = p->ny > 0 ? p->plane_bytes / p->ny : p->plane_bytes;
    p->plane_cells = p->plane_bytes / d->elem_size;
    p->by = p->wy_max = p->ny, p->nyb = 1;
}

void stn_gpu_rows(const stn_gpu_plan *p, int64_t ky, int64_t *y0, int64_t *y1) {
    *y0 = p->nyb <= 1 ? 0 : ky * p->by;
    *y1 = p->nyb <= 1 || ky == p->nyb - 1 ? p->ny : *y0 + p->by;
}

void stn_gpu_rows_window(const stn_gpu_plan *p, int64_t ky, int64_t T, int64_t *w0, int64_t *w1) {
    int64_t y0, y1;
    stn_gpu_rows(p, ky, &y0, &y1);
    *w0 = p->nyb <= 1 ? 0 : max64(0, y0 - T * p->yrlo);
    *w1 = p->nyb <= 1 ? p->ny : min64(p->ny, y1 + T * p->yrhi);
}

uint64_t stn_gpu_slot_bytes(const stn_gpu_plan *p) {
    return (uint64_t)p->window_max * (uint64_t)p->wy_max * (uint64_t)p->row_bytes;
}

/* The thinnest tile: twice y's boundary layer (a neumann face mirrors its layer within the tile). */
int64_t stn_gpu_min_rows(const stn_gpu_plan *p) { return max64(1, 2 * max64(p->yL, p->ny - p->yH)); }

/* by rows a tile: the tiles, a remainder thinner than min_rows joining the last. */
int64_t stn_gpu_tiles_of(const stn_gpu_plan *p, int64_t by) {
    int64_t nyb = (p->ny + by - 1) / by;
    if (nyb > 1 && p->ny - (nyb - 1) * by < stn_gpu_min_rows(p))
        nyb--;
    return nyb;
}

/* The same along y, over the tiles of a block. */
void stn_gpu_rows_sums(const stn_gpu_plan *p, int64_t T, int64_t *w, int64_t *sh) {
    *w = *sh = 0;
    for (int64_t k = 0; k < p->nyb; k++) {
        int64_t w0, w1;
        stn_gpu_rows_window(p, k, T, &w0, &w1);
        *w += w1 - w0, *sh += (w0 == 0 ? 0 : p->yrlo) + (w1 == p->ny ? 0 : p->yrhi);
    }
}

/* Σ over s = 1..T of (A - s B)(C - s D): the plane-rows a sweep computes (each factor stays positive: the
 * regions keep their own planes and rows). */
int64_t stn_gpu_cone_sum(int64_t A, int64_t B, int64_t C, int64_t D, int64_t T) {
    const int64_t t1 = T * (T + 1) / 2, t2 = T * (T + 1) * (2 * T + 1) / 6;
    return T * A * C - (A * D + B * C) * t1 + B * D * t2;
}

/* The tiles of every by (rows) for sweeps of T and of Tl steps (the last): what the chooser weighs. */
void stn_gpu_rows_table(const stn_gpu_plan *g, int64_t T, int64_t Tl, stn_gpu_rows_sums_ *t) {
    stn_gpu_plan r = *g;
    for (int64_t by = stn_gpu_min_rows(g); by < g->ny; by++) {
        r.by = by, r.nyb = stn_gpu_tiles_of(&r, by);
        stn_gpu_rows_sums_ *e = &t[by];
        e->ok = r.nyb > 1;
        e->wy_max = min64(r.ny, max64(by, r.ny - (r.nyb - 1) * by) + T * (r.yrlo + r.yrhi));
        stn_gpu_rows_sums(&r, T, &e->a, &e->b);
        stn_gpu_rows_sums(&r, Tl, &e->al, &e->bl);
    }
}
