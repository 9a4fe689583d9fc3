/* engine.c -- the engines' table (base/stn_engines.def) and the calls through it (stn_engine.h): the
 * program and the simulation API reach an engine only here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_engine.h"

#include "io/stn_hdf5.h"
#include "mpi/stn_par.h"
#include "mpi/stn_part.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

static const stn_engine_ops *const engines[STN_NMODES] = {
#define STN_ENGINE(NAME, name, ops) [STN_MODE_##NAME] = &ops,
#include "base/stn_engines.def"
#undef STN_ENGINE
};

struct stn_engine {
    const stn_engine_ops *ops;
    void *state;
    const stn_run *r;
    stn_result *res;
};

const stn_engine_ops *stn_engine_of(int mode) {
    return mode >= 0 && mode < STN_NMODES ? engines[mode] : NULL;
}

/* The pieces the levels are read in: m indices along axis *ax, the axes below it whole, one index of
 * each axis above it; their bytes. */
static uint64_t snap_piece(const stn_run *r, int *ax, int64_t *m) {
    const int64_t *n = r->o->size;
    uint64_t unit[3] = {(uint64_t)r->d->elem_size, 0, 0};
    for (int a = 1; a < 3; a++)
        unit[a] = unit[a - 1] * (uint64_t)n[a - 1];
    *ax = stn_dims(r->d) - 1;
    uint64_t most = stn_mem_snap_piece(r->mem_budget); /* (as io/hdf5.c gathers them) */
    while (*ax > 0 && unit[*ax] > most)
        (*ax)--;
    *m = unit[*ax] >= most ? 1 : (int64_t)(most / unit[*ax]);
    *m = *m > n[*ax] ? n[*ax] : *m;
    return unit[*ax] * (uint64_t)*m;
}

uint64_t stn_engine_snap_bytes(const stn_run *r) {
    int ax;
    int64_t m;
    uint64_t most = stn_mem_snap_piece(r->mem_budget), grid = r->grid_bytes;
    /* the piece read, and the staging of io/hdf5.c: the cells kept of a piece, at most `most` and the grid */
    return r->o->save_to ? snap_piece(r, &ax, &m) + (most < grid ? most : grid) : 0;
}

/* The part's cells along axis a that its snapshots hold, in pieces pc[j] = {lo, hi, shift}: local [lo, hi)
 * going to whole-grid index local + shift; its own [lo, hi), and on a ring of ranks also those the grid's
 * boundary layer copies (stn_part_out); a slab of a folded 1d grid's rows (fo), the 1d cells of its own
 * rows.  *n: the whole grid's extent.  The number of pieces (no part: the grid, one piece). */
static int own_cells(const stn_run *r, const stn_part *p, const stn_fold *fo, int a, int64_t pc[3][3],
                     int64_t *n) {
    *n = p && !fo ? p->ax[a].n : r->o->size[a];
    if (!p || (fo && a > 0)) {
        pc[0][0] = 0, pc[0][1] = *n, pc[0][2] = 0;
        return 1;
    }
    if (fo) { /* the cells of its own rows [base + lo, base + hi), local cell i the grid's i + base W */
        const stn_cut *s = stn_part_slab(p);
        int64_t c0 = (s->base + s->lo) * fo->W - fo->P, c1 = (s->base + s->hi) * fo->W - fo->P;
        c0 = c0 > 0 ? c0 : 0, c1 = c1 < fo->n ? c1 : fo->n;
        pc[0][0] = c0 - s->base * fo->W, pc[0][1] = c1 - s->base * fo->W, pc[0][2] = s->base * fo->W;
        return 1;
    }
    int np;
    stn_part_out(p, a, pc, &np);
    for (int j = 0; j < np; j++)
        pc[j][2] += p->ax[a].base;
    return np;
}

/* A piece for rank 0 (MPI without parallel HDF5: rank 0 alone writes the file): its global box and bytes,
 * then its cells. */
typedef struct snap_msg {
    int64_t lo[3], hi[3], bytes; /* bytes < 0: the sender's last piece of the field was sent */
} snap_msg;

/* A piece of field f (global box g, its cells in buf, x fastest) into the file (by any rank under parallel
 * HDF5), or sent to rank 0. */
static int put_piece(stn_engine *e, int f, int64_t k, const int64_t n[3], const stn_box *g, char *buf) {
    const stn_run *r = e->r;
    int64_t sy = g->hi[0] - g->lo[0], sz = sy * (g->hi[1] - g->lo[1]), es = r->d->elem_size;
    if (stn_par_rank() > 0 && !stn_h5_parallel(r->snap)) {
        snap_msg m = {
            {g->lo[0], g->lo[1], g->lo[2]}, {g->hi[0], g->hi[1], g->hi[2]}, sz * (g->hi[2] - g->lo[2]) * es};
        int rc = stn_par_to_root(&m, sizeof m);
        return rc ? rc : stn_par_to_root(buf, (size_t)m.bytes);
    }
    stn_view v = {n[0], n[1], n[2], sy, sz, g->lo[1], g->lo[2], 0, NULL};
    /* (the view's x is global: the piece starts at cell lo[0] of its row) */
    return stn_h5_put(r->snap, f, k, &v, buf - (size_t)g->lo[0] * (size_t)es, g, NULL, &e->res->st);
}

/* MPI, rank 0: every other rank's pieces of field f, in rank order, put into the file. */
static int take_pieces(stn_engine *e, int f, int64_t k, const int64_t n[3]) {
    int rc = 0;
    char *buf = NULL;
    for (int q = 1; q < stn_par_size(); q++)
        for (;;) {
            snap_msg m;
            int rc2 = stn_par_from(q, &m, sizeof m);
            if (rc2 || m.bytes < 0) {
                rc = rc ? rc : rc2;
                break;
            }
            char *nb = realloc(buf, (size_t)m.bytes + 1);
            rc2 = nb ? stn_par_from(q, nb, (size_t)m.bytes) : stn_error(-ENOMEM, "out of memory");
            buf = nb ? nb : buf;
            if (rc2 == 0 && rc == 0) {
                stn_box g = {{m.lo[0], m.lo[1], m.lo[2]}, {m.hi[0], m.hi[1], m.hi[2]}};
                rc2 = put_piece(e, f, k, n, &g, buf);
            }
            rc = rc ? rc : rc2;
        }
    free(buf);
    return rc;
}

/* The cells of field f's level after step k in local [lo, hi) (whole-grid index local + shift), read
 * through box piece by piece (snap_piece; along the axes above the piece's, the kept indices alone) and
 * put (put_piece). */
static int put_cells(stn_engine *e, int f, int64_t k, char *buf, const int64_t n[3], int64_t lo[3],
                     const int64_t hi[3], const int64_t base[3]) {
    const stn_run *r = e->r;
    const int64_t S = r->o->save[f].stride;
    int ax, rc = 0;
    int64_t m, c[3];
    snap_piece(r, &ax, &m);
    for (int a = ax + 1; a < 3; a++) /* (the first local index whose global index the stride keeps) */
        lo[a] = stn_save_first(base[a] + lo[a], S) - base[a];
    for (c[2] = lo[2]; rc == 0 && c[2] < hi[2]; c[2] += ax < 2 ? S : m)
        for (c[1] = lo[1]; rc == 0 && c[1] < hi[1]; c[1] += ax < 1 ? S : ax == 1 ? m : hi[1])
            for (c[0] = lo[0]; rc == 0 && c[0] < hi[0]; c[0] += ax == 0 ? m : hi[0]) {
                stn_box_io b = {f, 0, 0, {c[0], c[1], c[2]}, {0, 0, 0}, {1, 0, 0}, buf};
                for (int a = 0; a < 3; a++)
                    b.hi[a] = a < ax ? hi[a] : a == ax ? (c[a] + m < hi[a] ? c[a] + m : hi[a]) : c[a] + 1;
                for (int a = 0; a < 3; a++)
                    b.lo[a] = a < ax ? lo[a] : b.lo[a];
                b.st[1] = b.hi[0] - b.lo[0], b.st[2] = b.st[1] * (b.hi[1] - b.lo[1]);
                stn_box g;
                for (int a = 0; a < 3; a++)
                    g.lo[a] = b.lo[a] + base[a], g.hi[a] = b.hi[a] + base[a];
                rc = e->ops->box(e->state, &b);
                if (rc == 0)
                    rc = put_piece(e, f, k, n, &g, buf);
            }
    return rc;
}

/* Field f's level after step k into the snapshot file.  MPI: each rank reads its own cells (its part's
 * [lo, hi) along each axis, the boundary layer with the edge parts, on a ring also the cells the boundary
 * layer copies: own_cells) and puts them itself (parallel HDF5), or sends them to rank 0, which puts its
 * own, then every other rank's in turn. */
static int put_field(stn_engine *e, int f, int64_t k, char *buf) {
    const stn_run *r = e->r;
    int rc = 0, np[3];
    int64_t pc[3][3][3], n[3];
    const stn_fold *fo = NULL;
    const stn_part *p = e->ops->part ? e->ops->part(e->state, &fo) : NULL;
    for (int a = 0; a < 3; a++)
        np[a] = own_cells(r, p, fo, a, pc[a], &n[a]);
    for (int i = 0; rc == 0 && i < np[0] * np[1] * np[2]; i++) {
        const int64_t *x = pc[0][i % np[0]], *y = pc[1][i / np[0] % np[1]], *z = pc[2][i / (np[0] * np[1])];
        int64_t lo[3] = {x[0], y[0], z[0]}, hi[3] = {x[1], y[1], z[1]}, base[3] = {x[2], y[2], z[2]};
        rc = put_cells(e, f, k, buf, n, lo, hi, base);
    }
    if (stn_h5_parallel(r->snap))
        return rc;                 /* (every rank has put its own cells) */
    if (p && stn_par_rank() > 0) { /* (the last piece said, also after a failure: rank 0 waits) */
        snap_msg end = {{0, 0, 0}, {0, 0, 0}, -1};
        int rc2 = stn_par_to_root(&end, sizeof end);
        rc = rc ? rc : rc2;
    }
    if (p && stn_par_rank() == 0) {
        int rc2 = take_pieces(e, f, k, n);
        rc = rc ? rc : rc2;
    }
    return rc;
}

uint64_t stn_engine_snap_written(const stn_engine *e, int64_t first) {
    const stn_run *r = e->r;
    const stn_opts *o = r->o;
    if (!r->snap || first > o->steps)
        return 0;
    if (!stn_h5_parallel(r->snap)) /* (rank 0 writes every cell) */
        return stn_par_rank() > 0
                   ? 0
                   : stn_h5_bytes(r->d, o, o->steps) - (first > 0 ? stn_h5_bytes(r->d, o, first - 1) : 0);
    const stn_fold *fo = NULL;
    const stn_part *p = e->ops->part ? e->ops->part(e->state, &fo) : NULL;
    uint64_t total = 0;
    for (int f = 0; f < r->d->nfields; f++) {
        const stn_save *s = &o->save[f];
        if (!s->every)
            continue;
        uint64_t cells = 1; /* the kept cells of the part's own (own_cells) */
        for (int a = 0; a < stn_dims(r->d); a++) {
            int64_t pc[3][3], n, kept = 0;
            for (int j = 0, np = own_cells(r, p, fo, a, pc, &n); j < np; j++)
                kept += stn_save_kept(pc[j][0] + pc[j][2], pc[j][1] + pc[j][2], s->stride);
            cells *= (uint64_t)kept;
        }
        total += (uint64_t)(stn_save_before(s, o->steps + 1) - stn_save_before(s, first)) * cells *
                 (uint64_t)r->d->elem_size;
    }
    return total;
}

/* Step k's levels of the fields that save it, put into the snapshot file. */
static int put_levels(stn_engine *e, int64_t k) {
    const stn_run *r = e->r;
    if (!stn_h5_wants_any(r->snap, k))
        return 0;
    int ax;
    int64_t m;
    char *buf = stn_alloc((size_t)snap_piece(r, &ax, &m), 64);
    if (!buf)
        return stn_error(-ENOMEM, "--save-to %s: out of memory for a piece of a snapshot", r->o->save_to);
    int rc = 0;
    for (int f = 0; rc == 0 && f < r->d->nfields; f++)
        if (stn_h5_wants(r->snap, f, k))
            rc = put_field(e, f, k, buf);
    stn_free(buf);
    return rc;
}

/* The run saves snapshots and the engine, as opened, does not put them itself as it computes: each
 * advance stops at the saved steps. */
static int puts_for(const stn_engine *e) { return e->r->snap && !(e->ops->saves && e->ops->saves(e->state)); }

int stn_engine_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, stn_engine **e) {
    *e = NULL;
    const stn_engine_ops *ops = stn_engine_of(r->o->mode);
    if (!ops)
        return stn_error(-EINVAL, "internal error: no engine for mode %d", r->o->mode);
    stn_engine *h = calloc(1, sizeof *h);
    if (!h)
        return stn_error(-ENOMEM, "out of memory");
    h->ops = ops, h->r = r, h->res = res;
    /* (MPI ranks sharing the machine, or given a --dir list: one node each, their binding's, else round
     * robin) */
    if (res && (stn_par_node_size() > 1 || r->o->rank_dirs > 1))
        stn_numa_place_rank(&res->numa, stn_omp_max_threads(), stn_par_node_rank());
    else if (res)
        stn_numa_place(&res->numa, stn_omp_max_threads());
    /* (program.c chose the rank's --dir entry by the same function: a binding changed in between) */
    int rc = 0;
    if (res && r->o->rank_dirs > 1 && res->numa.nodes > 1 && res->numa.rank_node != r->o->dir_entry)
        rc = stn_error(-EIO, "--dir: this rank took directory %d (%s), but runs on NUMA node %d (entry %d)",
                       r->o->dir_entry + 1, r->o->dir, res->numa.node[res->numa.rank_node].os_index,
                       res->numa.rank_node + 1);
    if (res) /* (what the process holds before the engine's buffers: the report sets them apart) */
        res->pss_at_open = stn_pss_bytes();
    /* under MPI a rank's open can fail alone (its files, its plan): every rank agrees before the snapshots'
     * collective puts below, and an open that failed agrees too */
    rc = stn_par_agree(rc ? rc : ops->open(r, res, plan, program, &h->state), "to open its engine");
    if (rc) {
        if (h->state) /* (opened here, another rank failed: a resumed run's files stay) */
            ops->close(h->state, r->o->resume);
        free(h);
        return rc;
    }
    int64_t done = ops->steps_done(h->state);
    if (r->snap && done > 0 && !stn_h5_resumed(r->snap))
        rc = stn_error(
            -ENOENT,
            "--resume: the run goes on after step %" PRId64 ", but the snapshots of its steps before are "
            "gone (no temporary .NAME.partial-PID of the interrupted run beside '%s'): run it again "
            "without --resume",
            done, r->o->save_to);
    if (rc == 0 && r->snap && !r->o->plan_only && stn_h5_wants_any(r->snap, done))
        rc = ops->put_levels ? ops->put_levels(h->state, done) : 1;
    if (rc == 1) /* (the engine does not put them itself) */
        rc = put_levels(h, done);
    if (rc) {
        stn_engine_close(h, 0);
        return rc;
    }
    *e = h;
    return 0;
}

int64_t stn_engine_steps_done(const stn_engine *e) { return e->ops->steps_done(e->state); }

int stn_engine_advance(stn_engine *e, int64_t t0, int64_t steps) {
    if (!puts_for(e))
        return e->ops->advance(e->state, t0, steps);
    int rc = 0;
    for (int64_t t = t0, end = t0 + steps; rc == 0 && t < end;) {
        int64_t k = INT64_MAX; /* the next saved step after t, or the end */
        for (int f = 0; f < e->r->d->nfields; f++) {
            int64_t n = e->r->o->save[f].every ? stn_save_next(&e->r->o->save[f], t + 1) : INT64_MAX;
            k = n < k ? n : k;
        }
        k = k < end ? k : end;
        rc = e->ops->advance(e->state, t, k - t);
        if (rc == 0)
            rc = put_levels(e, k);
        t = k;
    }
    return rc;
}

int stn_engine_box(stn_engine *e, const stn_box_io *b) { return e->ops->box(e->state, b); }

int stn_engine_account(stn_engine *e, stn_result *out) { return e->ops->account(e->state, out); }

int stn_engine_finish(stn_engine *e) { return e->ops->finish(e->state); }

void stn_engine_close(stn_engine *e, int keep) {
    if (!e)
        return;
    e->ops->close(e->state, keep);
    free(e);
}
