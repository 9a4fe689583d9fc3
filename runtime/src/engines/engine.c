/* engine.c -- the engines' table (base/stn_engines.def) and the calls through it (stn_engine.h): the
 * program and the simulation API reach an engine only here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_engine.h"

#include "io/stn_hdf5.h"

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

/* Field f's level after step k, read through box piece by piece (snap_piece; along the axes above the
 * piece's, the kept indices alone) and put into the snapshot file. */
static int put_field(stn_engine *e, int f, int64_t k, char *buf) {
    const stn_run *r = e->r;
    const int64_t *n = r->o->size, S = r->o->save[f].stride;
    int ax, rc = 0;
    int64_t m, c[3];
    snap_piece(r, &ax, &m);
    for (c[2] = 0; rc == 0 && c[2] < n[2]; c[2] += ax < 2 ? S : m)
        for (c[1] = 0; rc == 0 && c[1] < n[1]; c[1] += ax < 1 ? S : ax == 1 ? m : n[1])
            for (c[0] = 0; rc == 0 && c[0] < n[0]; c[0] += ax == 0 ? m : n[0]) {
                stn_box_io b = {f, 0, 0, {c[0], c[1], c[2]}, {0, 0, 0}, {1, 0, 0}, buf};
                for (int a = 0; a < 3; a++)
                    b.hi[a] = a < ax ? n[a] : a == ax ? (c[a] + m < n[a] ? c[a] + m : n[a]) : c[a] + 1;
                for (int a = 0; a < 3; a++)
                    b.lo[a] = a < ax ? 0 : b.lo[a];
                b.st[1] = b.hi[0] - b.lo[0], b.st[2] = b.st[1] * (b.hi[1] - b.lo[1]);
                stn_view v = {n[0], n[1], n[2], b.st[1], b.st[2], b.lo[1], b.lo[2], 0};
                rc = e->ops->box(e->state, &b);
                if (rc == 0) /* (the view's x is global: the piece starts at cell lo[0] of its row) */
                    rc = stn_h5_put(r->snap, f, k, &v, buf - (size_t)b.lo[0] * (size_t)r->d->elem_size,
                                    &(stn_box){{b.lo[0], b.lo[1], b.lo[2]}, {b.hi[0], b.hi[1], b.hi[2]}},
                                    NULL, &e->res->st);
            }
    return rc;
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
    if (res && !r->part) /* (MPI ranks share a machine's nodes: not placed) */
        stn_numa_place(&res->numa, stn_omp_max_threads());
    int rc = ops->open(r, res, plan, program, &h->state);
    if (rc) {
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
    if (rc == 0 && r->snap && !r->o->plan_only)
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
