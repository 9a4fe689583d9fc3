/* ghosts.c -- the ghosts' exchanges between neighbouring ranks (docs/design/018, 019), one algorithm for
 * every engine: the engine says how it holds its part's state levels (stn_ghost_store: in DRAM, or
 * through the window's rings from and to its files), and this file decides what goes to whom, in which
 * order.  Also the models of what an exchange moves. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/stn_part.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Copy indices [k0, k1) along axis k (0: x, 1: y of a 3d plane) of slices [r0, r1) (every row of each;
 * span = r0, r1, k0, k1) between the store's memory and buf: into buf (out != 0) or from it. */
static void pack_cross(const stn_ghost_store *gs, int level, char *buf, const int64_t span[4], int k,
                       int out) {
    int64_t k0 = span[2], k1 = span[3];
    for (int64_t r = span[0]; r < span[1]; r++) {
        char *slice = gs->slice(gs->ctx, level, r);
        for (int64_t y = k == 1 ? k0 : 0; y < (k == 1 ? k1 : gs->rows); y++) {
            size_t n = (size_t)(k == 0 ? k1 - k0 : gs->nx) * gs->elem;
            char *p = slice + (size_t)y * gs->row + (size_t)(k == 0 ? k0 : 0) * gs->elem;
            memcpy(out ? buf : p, out ? p : buf, n);
            buf += n;
        }
    }
}

/* The ghosts across the rows of one level: every slice of the part a batch at a time, its own edge
 * columns (x) sent to the x-neighbours and theirs received into its ghost columns, then its own edge
 * rows (y, 3d; over the x-ghosts too, so the corners come from the diagonal neighbours).  Neighbours
 * along x and y hold the same slices (the same part of the split axis), in batches of the same size. */
static int swap_cross(const stn_part *p, const stn_ghost_store *gs, int level, char *out, char *in,
                      uint64_t *msg) {
    int rc = 0, cross = stn_part_cross(p);
    for (int64_t r0 = 0; r0 < gs->slices; r0 += gs->batch) {
        int64_t r1 = r0 + gs->batch < gs->slices ? r0 + gs->batch : gs->slices;
        if (rc == 0 && gs->batch_io)
            rc = gs->batch_io(gs->ctx, level, 0, r0, r1);
        for (int k = 0; k < 2; k++) { /* (a failed rank goes on with the messages) */
            if (!(cross >> k & 1))
                continue;
            const stn_cut *a = &p->ax[k];
            int64_t g = a->g;
            size_t bytes = (size_t)(r1 - r0) * (size_t)g * gs->elem * (size_t)(k == 0 ? gs->rows : gs->nx);
            for (int up = 1; up >= 0; up--) {
                int dest = a->nb[up], src = a->nb[!up];
                if (dest >= 0 && out)
                    pack_cross(gs, level, out,
                               (int64_t[4]){r0, r1, up ? a->hi - g : a->lo, up ? a->hi : a->lo + g}, k, 1);
                int rc3 = stn_par_sendrecv(out, dest >= 0 ? bytes : 0, dest, in, src >= 0 ? bytes : 0, src);
                rc = rc ? rc : rc3;
                *msg += dest >= 0 ? bytes : 0;
                if (rc == 0 && src >= 0)
                    pack_cross(gs, level, in,
                               (int64_t[4]){r0, r1, up ? a->lo - g : a->hi, up ? a->lo : a->hi + g}, k, 0);
            }
        }
        if (rc == 0 && gs->batch_io)
            rc = gs->batch_io(gs->ctx, level, 1, r0, r1);
    }
    return rc;
}

/* The split axis' ghosts of one level, one way: up (the last g own indices to the rank above, into its
 * ghosts below its own) or down, in pieces of gs->step indices and gs->run rows. */
static int swap_split(const stn_part *p, const stn_ghost_store *gs, int level, int up, int rc,
                      uint64_t *msg) {
    const stn_cut *s = stn_part_slab(p);
    int dest = s->nb[up], src = s->nb[!up]; /* (a ring: cyclic) */
    for (int64_t k = 0; k < s->g; k += gs->step)
        for (int64_t j = 0; j < gs->rows; j += gs->run) {
            int64_t n = s->g - k < gs->step ? s->g - k : gs->step,
                    j1 = j + gs->run < gs->rows ? j + gs->run : gs->rows;
            stn_ghost_piece out = {level, up ? s->hi - s->g + k : s->lo + k, 0, j, j1};
            stn_ghost_piece in = {level, up ? s->lo - s->g + k : s->hi + k, 0, j, j1};
            out.i1 = out.i0 + n, in.i1 = in.i0 + n;
            size_t bytes = (size_t)n * (size_t)(j1 - j) * gs->row;
            char *ob = NULL, *ib = NULL;
            int rc1 = gs->stage(gs->ctx, &out, 0, dest >= 0 && rc == 0, &ob);
            rc = rc ? rc : rc1;
            rc1 = gs->stage(gs->ctx, &in, 1, 0, &ib);
            rc = rc ? rc : rc1;
            int rc3 = stn_par_sendrecv(dest >= 0 ? ob : NULL, dest >= 0 ? bytes : 0, dest,
                                       src >= 0 ? ib : NULL, src >= 0 ? bytes : 0, src);
            rc = rc ? rc : rc3;
            *msg += dest >= 0 ? bytes : 0;
            if (src >= 0 && rc == 0)
                rc = gs->land(gs->ctx, &in);
        }
    return rc;
}

int stn_ghosts_swap(const stn_part *p, const stn_ghost_store *gs, int up_only, uint64_t *msg) {
    int cross = stn_part_cross(p), rc = 0;
    size_t most = 0; /* the buffers of a batch across the rows */
    for (int k = 0; k < 2; k++)
        if (cross >> k & 1) {
            size_t b =
                (size_t)gs->batch * (size_t)p->ax[k].g * gs->elem * (size_t)(k == 0 ? gs->rows : gs->nx);
            most = b > most ? b : most;
        }
    char *out = cross ? malloc(most ? most : 1) : NULL, *in = cross ? malloc(most ? most : 1) : NULL;
    if (cross && (!out || !in))
        rc =
            stn_error(-ENOMEM, "out of memory for the ghosts across the rows (2 buffers of %zu bytes)", most);
    for (int l = 0; l < gs->levels; l++) {
        for (int up = 1; up >= (up_only ? 1 : 0); up--) /* (deferred: the way down, stn_ghosts_post_down) */
            rc = swap_split(p, gs, l, up, rc, msg);
        if (cross) { /* then the ghosts across the rows, over the split axis' ghosts too */
            int rc2 = swap_cross(p, gs, l, out, in, msg);
            rc = rc ? rc : rc2;
        }
        if (rc == 0 && gs->done)
            rc = gs->done(gs->ctx, l);
    }
    free(out);
    free(in);
    return rc;
}

int stn_ghosts_post_down(const stn_part *p, char *buf, size_t bytes, stn_par_req *q, uint64_t *msg) {
    const stn_cut *s = stn_part_slab(p);
    int below = s->nb[0], above = s->nb[1];
    int rc =
        stn_par_isendrecv(buf, below >= 0 ? bytes : 0, below, buf + bytes, above >= 0 ? bytes : 0, above, q);
    *msg += below >= 0 ? bytes : 0;
    return rc;
}

uint64_t stn_ghosts_dense_bytes(const stn_part *p, const stn_view *v, size_t elem, uint64_t levels) {
    uint64_t n[3] = {(uint64_t)v->nx, (uint64_t)v->ny, (uint64_t)v->nz}, each = 0;
    int cross = stn_part_cross(p);
    for (int k = 0; k < 3; k++) {
        const stn_cut *a = &p->ax[k];
        int sides = (k == p->split || (cross >> k & 1)) * ((a->nb[0] >= 0) + (a->nb[1] >= 0));
        each += (uint64_t)sides * (uint64_t)a->g * (n[0] * n[1] * n[2] / n[k]) * (uint64_t)elem;
    }
    return levels * each;
}

void stn_xchg_of(const stn_run *r, stn_xchg_model *x) {
    const stn_part *p = r->part;
    const stn_program_desc *d = r->d;
    memset(x, 0, sizeof *x);
    if (!p)
        return;
    const stn_cut *s = stn_part_slab(p);
    x->levels = stn_state_levels(d);
    x->axis = p->split;
    x->nb = (s->nb[0] >= 0) + (s->nb[1] >= 0);
    x->skew = s->skew;
    x->cross = stn_part_cross(p);
    for (int k = 0; k < 2; k++)
        x->xsides[k] = (p->ax[k].nb[0] >= 0) + (p->ax[k].nb[1] >= 0), x->xskew[k] = p->ax[k].skew;
    x->nx = r->view.nx;
    x->rows = d->ndim == 3 ? r->view.ny : 1;
    x->elem = d->elem_size;
    x->defer = p->defer > 0;
    x->net_bytes_per_second = r->net.bytes_per_second;
    x->net_latency = r->net.latency;
}
