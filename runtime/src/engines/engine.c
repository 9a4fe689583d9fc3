/* engine.c -- the engines' table (base/stn_engines.def) and the calls through it (stn_engine.h): the
 * program and the simulation API reach an engine only here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_engine.h"

#include "io/stn_hdf5.h"

#include <errno.h>
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

/* The snapshot bytes a put reads at most at a time: whole planes (rows in 2d) of the slowest axis. */
#define SNAP_SLAB_BYTES ((uint64_t)4 << 20)

/* Step k's levels of the fields that save it, read through box in slabs of the slowest axis (the saved
 * indices alone when a stride skips some) and put into the snapshot file. */
static int put_levels(stn_engine *e, int64_t k) {
    const stn_run *r = e->r;
    const stn_program_desc *d = r->d;
    int axis = stn_dims(d) - 1, rc = 0;
    int64_t n[3] = {r->o->size[0], r->o->size[1], r->o->size[2]};
    uint64_t per = (uint64_t)d->elem_size; /* bytes of one index along `axis` */
    for (int a = 0; a < axis; a++)
        per *= (uint64_t)n[a];
    for (int f = 0; rc == 0 && f < d->nfields; f++) {
        if (!stn_h5_wants(r->snap, f, k))
            continue;
        int64_t S = r->o->save[f].stride, slab = S > 1 ? 1 : (int64_t)(SNAP_SLAB_BYTES / per);
        slab = slab < 1 ? 1 : slab > n[axis] ? n[axis] : slab;
        char *buf = stn_alloc((size_t)(per * (uint64_t)slab), 64);
        if (!buf)
            return stn_error(-ENOMEM, "--save-to %s: out of memory for a slab of %s", r->o->save_to,
                             d->fields[f].name);
        for (int64_t a = 0; rc == 0 && a<n[axis]; a += S> 1 ? S : slab) {
            stn_box_io b = {f, 0, 0, {0, 0, 0}, {n[0], n[1], n[2]}, {1, n[0], n[0] * n[1]}, buf};
            b.lo[axis] = a;
            b.hi[axis] = a + slab < n[axis] ? a + slab : n[axis];
            stn_view v = {n[0], n[1], n[2], n[0], n[0] * n[1], 0, 0, 0};
            v.y0 = axis == 1 ? a : 0, v.z0 = axis == 2 ? a : 0;
            rc = e->ops->box(e->state, &b);
            if (rc == 0) /* (a 1d grid's slab starts at cell a of its one row: the view's x is global) */
                rc = stn_h5_put(r->snap, f, k, &v, buf - (axis == 0 ? (size_t)a * (size_t)d->elem_size : 0),
                                &(stn_box){{b.lo[0], b.lo[1], b.lo[2]}, {b.hi[0], b.hi[1], b.hi[2]}},
                                &e->res->st);
        }
        stn_free(buf);
    }
    return rc;
}

/* The engine saves nothing itself, and the run saves snapshots: stn_engine_advance stops at them. */
static int puts_for(const stn_engine *e) { return e->r->snap && !e->ops->has.saves; }

int stn_engine_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, stn_engine **e) {
    *e = NULL;
    const stn_engine_ops *ops = stn_engine_of(r->o->mode);
    if (!ops)
        return stn_error(-EINVAL, "internal error: no engine for mode %d", r->o->mode);
    stn_engine *h = calloc(1, sizeof *h);
    if (!h)
        return stn_error(-ENOMEM, "out of memory");
    h->ops = ops, h->r = r, h->res = res;
    int rc = ops->open(r, res, plan, program, &h->state);
    if (rc) {
        free(h);
        return rc;
    }
    if (puts_for(h) && !(r->o->plan_only) && (rc = put_levels(h, ops->steps_done(h->state))) != 0) {
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
