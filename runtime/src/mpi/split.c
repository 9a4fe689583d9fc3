/* split.c -- how the ranks split a grid (docs/design/018, 019): the ranks along each axis, each rank's
 * own indices, the deepest ghosts the parts can give. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/stn_part.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wraps(const stn_program_desc *d, int axis) {
    for (int i = 0; i < d->nfields; i++)
        if (d->fields[i].periodic & (1 << axis))
            return 1;
    return 0;
}

/* Some state field wraps the axis and another does not: no ring of ranks along it (its boundary layer
 * would be the far side's for one field and a rank's own for the other). */
static int mixed_wrap(const stn_program_desc *d, int axis, char *which, size_t n) {
    int wraps = -1, keeps = -1;
    for (int i = 0; i < d->nfields; i++)
        if (d->fields[i].kind == STN_FIELD_STATE) {
            if (d->fields[i].periodic & (1 << axis))
                wraps = wraps < 0 ? i : wraps;
            else
                keeps = keeps < 0 ? i : keeps;
        }
    if (wraps < 0 || keeps < 0)
        return 0;
    snprintf(which, n, "'%s' wraps %c and '%s' does not", d->fields[wraps].name, "xyz"[axis],
             d -> fields[keeps].name);
    return 1;
}

static int stream_axis(const stn_program_desc *d) { return d->ndim == 3 ? 2 : 1; }

/* A split being chosen: the run, and what its engine's exchanges cost (STN_SPLIT_*). */
typedef struct split {
    const stn_run *r;
    int cost;
} split;

static int rank_dims(const split *sp, int dims[3]);
static int dims_of(const split *sp, int dims[3], char *why, size_t n);

/* The split axis is a ring of one rank when a field wraps it and a ring across the rows is cut: the
 * engine's part then wraps no axis (a Dirichlet field's wrap along the split axis needs every axis
 * wrapped in the engine, stn_ooc_wedge_ok), its ghosts along the split axis come from itself. */
static int self_ring(const split *sp, int axis) {
    const stn_run *r = sp->r;
    int dims[3], s = stream_axis(r->d);
    char which[160];
    if (axis != s || !wraps(r->d, s) || mixed_wrap(r->d, s, which, sizeof which) || rank_dims(sp, dims) ||
        dims[s] > 1)
        return 0;
    for (int k = 0; k < 3; k++)
        if (k != s && dims[k] > 1 && wraps(r->d, k))
            return 1;
    return 0;
}

/* Part c of D along `axis`: the interior [L, L + w) in D parts as equal as whole indices allow, the
 * first and last with the boundary layer (not on a ring, whose boundary layer is the far side's):
 * the own indices [a, b). */
static void part_of(const split *sp, int axis, int c, int D, int64_t *a, int64_t *b) {
    const stn_program_desc *d = sp->r->d;
    int64_t n = sp->r->o->size[axis], L = d->halo_lo[axis], w = n - d->halo_hi[axis] - L;
    int ring = (D > 1 || self_ring(sp, axis)) && wraps(d, axis);
    *a = c == 0 && !ring ? 0 : L + c * w / D;
    *b = c == D - 1 && !ring ? n : L + (c + 1) * w / D;
}

/* How far a step reads along the axis below and above (at least the halo); the skew is the larger. */
static void reach(const stn_program_desc *d, int axis, int64_t *lo, int64_t *hi) {
    *lo = d->reach_lo[axis] > d->halo_lo[axis] ? d->reach_lo[axis] : d->halo_lo[axis];
    *hi = d->reach_hi[axis] > d->halo_hi[axis] ? d->reach_hi[axis] : d->halo_hi[axis];
}

static int64_t skew_of(const stn_program_desc *d, int axis) {
    int64_t lo, hi;
    reach(d, axis, &lo, &hi);
    return lo > hi ? lo : hi;
}

/* The thinnest part along `axis` when D ranks cut it (INT64_MAX when D = 1). */
static int64_t thinnest(const split *sp, int axis, int D) {
    int64_t least = INT64_MAX, a, b;
    if (D == 1 && self_ring(sp, axis)) {
        part_of(sp, axis, 0, 1, &a, &b);
        return b - a;
    }
    for (int k = 0; D > 1 && k < D; k++) {
        part_of(sp, axis, k, D, &a, &b);
        least = b - a < least ? b - a : least;
    }
    return least;
}

/* Why `dims` cannot split r (a message in why), or 0: parts thinner than one step's ghosts. */
static int dims_refused(const split *sp, const int dims[3], char *why, size_t n) {
    const stn_run *r = sp->r;
    const stn_program_desc *d = r->d;
    for (int k = 0; k < 3; k++) {
        if (dims[k] <= 1)
            continue;
        char which[160];
        if (mixed_wrap(d, k, which, sizeof which)) {
            snprintf(why, n,
                     "%d ranks along %c: %s, and the ranks along an axis are a ring (a field wraps it) or a "
                     "line (none does), not both; give --ranks with 1 along %c",
                     dims[k], "xyz"[k], which, "xyz"[k]);
            return 1;
        }
        int64_t w = r->o->size[k] - d->halo_lo[k] - d->halo_hi[k], t = thinnest(sp, k, dims[k]),
                g = skew_of(d, k);
        if (w < dims[k] || t < g) {
            snprintf(why, n,
                     "%d ranks along %c give the interior's %" PRId64 " %c-indices parts of %" PRId64
                     ", fewer than one step's ghosts (%" PRId64 ")",
                     dims[k], "xyz"[k], w, "xyz"[k], w < dims[k] ? 0 : t, g);
            return 1;
        }
    }
    return 0;
}

/* The modelled cost of a split, per rank (docs/design/019): out of core the flash bytes of a sweep
 * over the largest extended part (each state level read and written once), doubled when an axis
 * other than the streaming one is cut (its ghosts' exchange is a pass over the part's files), plus
 * the ghosts' message bytes; in-core the message bytes, the part's cells breaking ties. */
static double dims_cost(const split *sp, const int dims[3]) {
    const stn_run *r = sp->r;
    const stn_program_desc *d = r->d;
    int s = stream_axis(d), cross = 0;
    double ext[3];
    int sides[3];
    for (int k = 0; k < 3; k++) {
        int64_t a, b, most = 0, g = dims[k] > 1 ? skew_of(d, k) : 0;
        for (int c = 0; c < dims[k]; c++) {
            if (dims[k] > 1)
                part_of(sp, k, c, dims[k], &a, &b);
            else /* (whole: part_of would ask for the split being chosen) */
                a = 0, b = r->o->size[k];
            most = b - a > most ? b - a : most;
        }
        sides[k] = dims[k] == 1 ? 0 : dims[k] == 2 && !wraps(d, k) ? 1 : 2; /* (the busiest rank's) */
        ext[k] = (double)most + sides[k] * (double)g;
        cross |= k != s && dims[k] > 1;
    }
    double cells = ext[0] * ext[1] * ext[2], msg = 0;
    for (int k = 0; k < 3; k++)
        msg += sides[k] * (double)skew_of(d, k) * cells / ext[k];
    if (sp->cost == STN_SPLIT_DRAM)
        return msg + cells * 1e-6;
    return cells * (cross ? 2 : 1) + msg;
}

static int dims_of(const split *sp, int dims[3], char *why, size_t n) {
    const stn_run *r = sp->r;
    const stn_program_desc *d = r->d;
    const stn_opts *o = r->o;
    int P = stn_par_size(), s = stream_axis(d);
    why[0] = 0;
    dims[0] = dims[1] = dims[2] = 1;
    if (r->fold.W) { /* a folded 1d grid: the ranks split its rows */
        if (o->ranks[0] && o->ranks[0] != P) {
            snprintf(why, n, "--ranks %" PRId64 ": mpirun started %d ranks", o->ranks[0], P);
            return -EINVAL;
        }
        dims[1] = P;
        return dims_refused(sp, dims, why, n) ? -EINVAL : 0;
    }
    if (o->ranks[0]) {
        int64_t prod = 1;
        for (int k = 0; k < 3; k++)
            dims[k] = (int)o->ranks[k], prod *= o->ranks[k];
        if (prod != P) {
            char given[80];
            if (d->ndim == 3)
                snprintf(given, sizeof given, "%" PRId64 ",%" PRId64 ",%" PRId64, o->ranks[0], o->ranks[1],
                         o->ranks[2]);
            else
                snprintf(given, sizeof given, "%" PRId64 ",%" PRId64, o->ranks[0], o->ranks[1]);
            snprintf(why, n, "--ranks %s: %" PRId64 " ranks, but mpirun started %d", given, prod, P);
            return -EINVAL;
        }
        return dims_refused(sp, dims, why, n) ? -EINVAL : 0;
    }
    /* every factorization of P over the grid's axes, the cheapest (then the streaming axis' most) */
    double best = -1;
    int t[3];
    char first[256] = "";
    for (t[0] = 1; t[0] <= P; t[0]++)
        for (t[1] = 1; t[1] <= P / t[0]; t[1]++) {
            if (P % (t[0] * t[1]))
                continue;
            t[2] = P / (t[0] * t[1]);
            if (d->ndim == 2 && t[2] != 1)
                continue;
            if (dims_refused(sp, t, why, n)) {
                if (!first[0])
                    snprintf(first, sizeof first, "%s", why);
                continue;
            }
            double c = dims_cost(sp, t);
            if (best < 0 || c < best * (1 - 1e-9) || (c <= best * (1 + 1e-9) && t[s] > dims[s])) {
                best = c;
                for (int k = 0; k < 3; k++)
                    dims[k] = t[k];
            }
        }
    if (best < 0) {
        snprintf(why, n, "no split of the grid among %d ranks gives each part one step's ghosts (%s)", P,
                 first);
        return -EINVAL;
    }
    why[0] = 0;
    return 0;
}

static int rank_dims(const split *sp, int dims[3]) {
    char why[256];
    return dims_of(sp, dims, why, sizeof why);
}

int stn_part_dims(const stn_run *r, int cost, int dims[3], char *why, size_t n) {
    split sp = {r, cost};
    return dims_of(&sp, dims, why, n);
}

int64_t stn_part_most_bt(const stn_run *r, int cost) {
    split sp = {r, cost};
    int dims[3];
    char why[256];
    if (dims_of(&sp, dims, why, sizeof why))
        return 1; /* (stn_part_run says why) */
    int64_t most = INT64_MAX;
    for (int k = 0; k < 3; k++)
        if (dims[k] > 1 || self_ring(&sp, k)) {
            int64_t s = skew_of(r->d, k), m = thinnest(&sp, k, dims[k]) / (s > 0 ? s : 1);
            most = m < most ? m : most;
        }
    return most == INT64_MAX ? r->o->steps : most;
}

/* The world rank at coordinates c (x fastest), or -1 outside the grid of ranks. */
static int rank_at(const int dims[3], const int c[3]) {
    for (int k = 0; k < 3; k++)
        if (c[k] < 0 || c[k] >= dims[k])
            return -1;
    return (c[2] * dims[1] + c[1]) * dims[0] + c[0];
}

/* Axis k of this rank's part (at coord in dims, ghosts of bt steps) into *a, and the descriptor's halo
 * along k on a side cut between ranks: the step's reach (the frozen layer, never computed).  The part's
 * extent along k, ghosts included. */
static int64_t cut_axis(const split *sp, int k, const int dims[3], const int coord[3], int64_t bt, stn_cut *a,
                        stn_program_desc *desc) {
    const stn_program_desc *d = sp->r->d;
    int ring = (dims[k] > 1 || self_ring(sp, k)) && wraps(d, k);
    int64_t n = sp->r->o->size[k], oa = 0, ob = n, g = dims[k] > 1 || ring ? bt * skew_of(d, k) : 0;
    if (dims[k] > 1 || ring)
        part_of(sp, k, coord[k], dims[k], &oa, &ob);
    int lo_cut = ring || (dims[k] > 1 && coord[k] > 0),
        hi_cut = ring || (dims[k] > 1 && coord[k] < dims[k] - 1);
    int64_t ea = lo_cut ? oa - g : 0, eb = hi_cut ? ob + g : n, rlo, rhi;
    reach(d, k, &rlo, &rhi);
    if (lo_cut)
        desc->halo_lo[k] = (int)rlo;
    if (hi_cut)
        desc->halo_hi[k] = (int)rhi;
    int nc[3] = {coord[0], coord[1], coord[2]};
    nc[k] = ring ? (coord[k] + dims[k] - 1) % dims[k] : coord[k] - 1;
    int below = dims[k] > 1 || ring ? rank_at(dims, nc) : -1;
    nc[k] = ring ? (coord[k] + 1) % dims[k] : coord[k] + 1;
    int above = dims[k] > 1 || ring ? rank_at(dims, nc) : -1;
    *a = (stn_cut){.n = n,
                   .base = ea,
                   .ext = eb - ea,
                   .lo = oa - ea,
                   .hi = ob - ea,
                   .g = g,
                   .L = d->halo_lo[k],
                   .H = n - d->halo_hi[k],
                   .skew = skew_of(d, k),
                   .nb = {below, above},
                   .ranks = dims[k],
                   .coord = coord[k],
                   .ring = ring};
    return eb - ea;
}

/* The part's run: c's copies of r's options and descriptor, the sizes and view of the part. */
static int part_copy(const split *sp, const int dims[3], const int coord[3], int64_t bt, stn_run_copy *c) {
    const stn_run *r = sp->r;
    const stn_program_desc *d = r->d;
    stn_part *p = calloc(1, sizeof *p);
    if (!p)
        return stn_error(-ENOMEM, "out of memory");
    c->run = *r;
    c->opts = *r->o;
    c->desc = *d;
    c->run.o = &c->opts;
    c->run.d = &c->desc;
    c->part = p;
    c->run.part = p;
    p->split = stream_axis(d), p->bt = bt;
    int64_t ext[3];
    for (int k = 0; k < 3; k++) {
        ext[k] = cut_axis(sp, k, dims, coord, bt, &p->ax[k], &c->desc);
        c->opts.size[k] = ext[k];
    }
    c->run.view = (stn_view){ext[0], ext[1], ext[2], ext[0], ext[0] * ext[1], 0, 0, r->view.own_axes, NULL};
    if (d->ndim == 2)
        c->run.view.nz = 1, c->run.view.sz = ext[0] * ext[1];
    c->run.grid_bytes = (uint64_t)stn_grid_cells(&c->opts) * (uint64_t)d->elem_size;
    int rings = stn_part_rings(p);
    if (rings) { /* the engine's part does not wrap its rings: their ghosts hold the far side */
        c->fields = calloc((size_t)d->nfields, sizeof *c->fields);
        if (!c->fields)
            return stn_error(-ENOMEM, "out of memory");
        for (int i = 0; i < d->nfields; i++)
            c->fields[i] = d->fields[i], c->fields[i].periodic &= ~rings;
        c->desc.fields = c->fields;
    }
    return 0;
}

int stn_part_run(const stn_run *r, int cost, int64_t bt, stn_run_copy *c) {
    split sp = {r, cost};
    const stn_program_desc *d = r->d;
    int rank = stn_par_rank(), dims[3], coord[3];
    char why[512];
    if (dims_of(&sp, dims, why, sizeof why))
        return stn_error(-EINVAL, "%d MPI ranks: %s", stn_par_size(), why);
    coord[0] = rank % dims[0], coord[1] = rank / dims[0] % dims[1], coord[2] = rank / (dims[0] * dims[1]);
    bt = bt < r->o->steps ? bt : r->o->steps;
    bt = bt < 1 ? 1 : bt;
    for (int k = 0; k < 3; k++) { /* every part holds the ghosts its neighbours take from it */
        int64_t skew = skew_of(d, k), g = bt * skew, t = thinnest(&sp, k, dims[k]);
        if ((dims[k] > 1 || self_ring(&sp, k)) && t < g)
            return stn_error(-EINVAL,
                             "%d MPI ranks: %d along %c give a rank %" PRId64
                             " of the interior's %c-indices, "
                             "fewer than the ghost depth bt x skew = %" PRId64 " x %" PRId64
                             " a neighbour takes from it; use fewer ranks along %c or a smaller bt",
                             stn_par_size(), dims[k], "xyz"[k], t, "xyz"[k], bt, skew, "xyz"[k]);
    }
    int rc = part_copy(&sp, dims, coord, bt, c);
    if (rc)
        return rc;
    snprintf(c->name, sizeof c->name, "%s.r%d", d->name, rank); /* (a --dir the ranks share works too) */
    c->desc.name = c->name;
    /* an --out: the own part, and along a ring also the indices the boundary layer copies (stn_part_out) */
    const stn_cut *s = stn_part_slab(c->part);
    uint64_t own = stn_part_out_cells(c->part) * (uint64_t)d->elem_size;
    if (r->fold.W) /* a folded 1d grid's .npy holds its cells */
        own = (uint64_t)stn_fold_cells(&r->fold, s->base + s->lo, s->base + s->hi) * (uint64_t)d->elem_size;
    for (int k = 0; r->writers && k < 2 * d->nfields; k++) /* each rank writes its own part of an --out */
        if (r->writers[k])
            stn_npy_writer_expect(r->writers[k], own);
    return 0;
}
