/* part.c -- a rank's part of the grid (docs/design/018, 019): the run on it, what it writes of an --out,
 * its coordinates in the whole grid. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/stn_part.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int stn_ring_pieces(int64_t lo, int64_t hi, int ring, int64_t L, int64_t H, int64_t out[3][3]) {
    if (hi <= lo)
        return 0;
    if (!ring) {
        out[0][0] = lo, out[0][1] = hi, out[0][2] = 0;
        return 1;
    }
    int64_t m = H - L, d[3] = {m, 0, -m}, cut[4] = {lo, L, H, hi}; /* [below L) [L, H) [from H) */
    cut[1] = lo > L ? lo : hi < L ? hi : L;
    cut[2] = hi < H ? hi : lo > H ? lo : H;
    int n = 0;
    for (int p = 0; p < 3; p++)
        if (cut[p + 1] > cut[p])
            out[n][0] = cut[p], out[n][1] = cut[p + 1], out[n][2] = d[p], n++;
    return n;
}

int stn_map_call(const stn_run *r, const stn_view *v, const stn_box *box, int interior,
                 stn_view v1[STN_MAP_MAX], stn_box b1[STN_MAP_MAX], int64_t shift[STN_MAP_MAX],
                 int wrap[STN_MAP_MAX]) {
    wrap[0] = 0, shift[0] = 0;
    const stn_part *p = r->part;
    if (r->fold.W) { /* (a rank's slab of a folded grid: its rows are the whole grid's from base) */
        stn_view w = *v;
        stn_box b = *box;
        int64_t base = p ? stn_part_slab(p)->base : 0;
        w.y0 += base, b.lo[1] += base, b.hi[1] += base;
        return stn_fold_map(&r->fold, &w, &b, interior, &v1[0], &b1[0], &shift[0]);
    }
    for (int k = 0; k < 3; k++)
        if (box->hi[k] <= box->lo[k])
            return 0;
    v1[0] = *v, b1[0] = *box;
    if (!p)
        return 1;
    /* every axis: the box's whole-grid indices (local + the part's base), on a ring in up to three
     * pieces, each moved by the ring's width into [L, H); the calls are their products */
    int64_t pc[3][3][3];
    int np[3];
    for (int k = 0; k < 3; k++)
        np[k] = stn_ring_pieces(box->lo[k] + p->ax[k].base, box->hi[k] + p->ax[k].base, p->ax[k].ring,
                                p->ax[k].L, p->ax[k].H, pc[k]);
    int n = 0;
    for (int iz = 0; iz < np[2]; iz++)
        for (int iy = 0; iy < np[1]; iy++)
            for (int ix = 0; ix < np[0]; ix++) {
                const int64_t *px = pc[0][ix], *py = pc[1][iy], *pz = pc[2][iz];
                stn_view w = *v;
                stn_box b = {{px[0] + px[2], py[0] + py[2], pz[0] + pz[2]},
                             {px[1] + px[2], py[1] + py[2], pz[1] + pz[2]}};
                /* x through the pointers (the kernels index x globally), y and z through the view */
                w.nx = p->ax[0].n, w.ny = p->ax[1].n, w.nz = p->ax[2].n;
                w.y0 += p->ax[1].base + py[2], w.z0 += p->ax[2].base + pz[2];
                w.own_axes |= stn_part_rings(p); /* (the ghosts hold the far side: no wrap in the kernels) */
                v1[n] = w, b1[n] = b, shift[n] = p->ax[0].base + px[2];
                wrap[n] = px[2] || py[2] || pz[2];
                n++;
            }
    return n;
}

int64_t stn_part_out(const stn_part *p, int k, int64_t out[3][3], int *n) {
    const stn_cut *a = &p->ax[k];
    int64_t lo = a->lo, hi = a->hi, total = hi - lo, m = a->H - a->L;
    int c = 0;
    out[c][0] = lo, out[c][1] = hi, out[c][2] = 0, c++;
    /* along a ring the boundary layer copies [H - L, H) (to [0, L)) and [L, L + n - H) (to [H, n)) */
    if (a->ring) {
        int64_t src[2][2] = {{a->H - a->L, a->H}, {a->L, a->L + a->n - a->H}};
        for (int j = 0; j < 2; j++) {
            int64_t x = src[j][0] - a->base, y = src[j][1] - a->base;
            x = x > lo ? x : lo, y = y < hi ? y : hi;
            if (y > x)
                out[c][0] = x, out[c][1] = y, out[c][2] = j ? m : -m, c++, total += y - x;
        }
    }
    if (n)
        *n = c;
    return total;
}

uint64_t stn_part_out_cells(const stn_part *p) {
    uint64_t cells = 1;
    for (int k = 0; k < 3; k++) {
        int64_t out[3][3];
        cells *= (uint64_t)stn_part_out(p, k, out, NULL);
    }
    return cells;
}

int stn_part_own_box(const stn_run *r, int wrapped, stn_box *own) {
    const stn_part *p = r->part;
    if (!p)
        return 1;
    if (wrapped)
        return 0;
    const stn_cut *s = stn_part_slab(p);
    int64_t lo = s->base + s->lo, hi = s->base + s->hi;
    int a = r->fold.W ? 0 : p->split; /* (a folded grid's own rows are cells by now) */
    if (r->fold.W)
        lo = lo * r->fold.W - r->fold.P, hi = hi * r->fold.W - r->fold.P;
    own->lo[a] = own->lo[a] > lo ? own->lo[a] : lo;
    own->hi[a] = own->hi[a] < hi ? own->hi[a] : hi;
    for (int k = 0; k < 3; k++) /* (the other axes the ranks cut) */
        if (stn_part_cross(p) >> k & 1) {
            int64_t xa = p->ax[k].base + p->ax[k].lo, xb = p->ax[k].base + p->ax[k].hi;
            own->lo[k] = own->lo[k] > xa ? own->lo[k] : xa;
            own->hi[k] = own->hi[k] < xb ? own->hi[k] : xb;
        }
    for (int k = 0; k < 3; k++)
        if (own->hi[k] <= own->lo[k])
            return 0;
    return 1;
}

int stn_part_row_places(const stn_part *p, int ndim, int64_t z, int64_t y, int own, stn_row_piece pc[9]) {
    const stn_cut *ax = p->ax;
    int64_t py[3][3] = {{0, 0, 0}}, px[3][3];
    int ny = 1, nx, n = 0;
    if (!own) { /* the row's y: the whole grid's, wrapped on a ring along y; each piece of x from where it
                   wraps */
        if (ndim == 3) {
            y += ax[1].base;
            if (ax[1].ring)
                y += y < ax[1].L ? ax[1].H - ax[1].L : y >= ax[1].H ? ax[1].L - ax[1].H : 0;
        }
        nx = stn_ring_pieces(ax[0].base, ax[0].base + ax[0].ext, ax[0].ring, ax[0].L, ax[0].H, px);
        for (int k = 0; k < nx; k++)
            pc[n++] = (stn_row_piece){px[k][0] - ax[0].base, px[k][1] - ax[0].base,
                                      (uint64_t)((z * ax[1].n + y) * ax[0].n + px[k][0] + px[k][2])};
        return n;
    }
    if (ndim == 3) /* the row's y: its own, and on a ring across the rows those the boundary layer copies */
        stn_part_out(p, 1, py, &ny);
    else
        py[0][0] = y, py[0][1] = y + 1, py[0][2] = -ax[1].base; /* (2d: y is the whole grid's already) */
    stn_part_out(p, 0, px, &nx);
    for (int b = 0; b < ny; b++) {
        if (y < py[b][0] || y >= py[b][1])
            continue;
        int64_t gy = y + ax[1].base + py[b][2];
        for (int a = 0; a < nx; a++)
            pc[n++] =
                (stn_row_piece){px[a][0], px[a][1],
                                (uint64_t)((z * ax[1].n + gy) * ax[0].n + px[a][0] + ax[0].base + px[a][2])};
    }
    return n;
}
