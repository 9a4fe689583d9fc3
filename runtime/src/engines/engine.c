/* engine.c -- the engines' table (base/stn_engines.def) and the calls through it (stn_engine.h): the
 * program and the simulation API reach an engine only here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_engine.h"

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
};

const stn_engine_ops *stn_engine_of(int mode) {
    return mode >= 0 && mode < STN_NMODES ? engines[mode] : NULL;
}

int stn_engine_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, stn_engine **e) {
    *e = NULL;
    const stn_engine_ops *ops = stn_engine_of(r->o->mode);
    if (!ops)
        return stn_error(-EINVAL, "internal error: no engine for mode %d", r->o->mode);
    stn_engine *h = calloc(1, sizeof *h);
    if (!h)
        return stn_error(-ENOMEM, "out of memory");
    h->ops = ops;
    int rc = ops->open(r, res, plan, program, &h->state);
    if (rc) {
        free(h);
        return rc;
    }
    *e = h;
    return 0;
}

int64_t stn_engine_steps_done(const stn_engine *e) { return e->ops->steps_done(e->state); }

int stn_engine_advance(stn_engine *e, int64_t t0, int64_t steps) {
    return e->ops->advance(e->state, t0, steps);
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
