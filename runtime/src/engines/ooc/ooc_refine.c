/* ooc_refine.c -- online refinement (issue 30): after a sweep, the rates it measured (fitted by ooc_fit.c)
 * replace the assumed ones, and the remaining sweeps are re-planned at the sweep boundary when another plan
 * is predicted at least STN_REPLAN_GAIN faster (docs/out-of-core.md, "Re-planning between sweeps"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void plan_blocks(const ooc *e, const stn_ooc_plan *p, int64_t blk[3]) {
    blk[0] = p->r.axis == 1 ? p->r.b : e->r->o->size[1];
    blk[1] = e->d->ndim == 2 ? -1 : p->r.axis == 2 ? p->r.b : p->q.b;
    blk[2] = p->bt;
}

/* Whether this run may re-plan: the program's run of the reference schedule on one process, not a folded
 * or periodic grid, ranked by time on this machine, blocks the tuner chose (STENCILC_REPLAN=force: any,
 * for tests), not switched off (STENCILC_REPLAN=0), and fewer than STN_MAX_REPLANS so far. */
static int may_replan(const ooc *e, int program) {
    const char *env = getenv("STENCILC_REPLAN");
    const stn_run *r = e->r;
    if (!program || (env && strcmp(env, "0") == 0) || e->res->nreplans >= STN_MAX_REPLANS)
        return 0;
    int force = env && strcmp(env, "force") == 0;
    int tuned = !r->o->have_block && e->out->chooser && strcmp(e->out->chooser, "built-in") != 0 &&
                strcmp(e->out->chooser, "saved") != 0;
    return (tuned || force) && e->plan.schedule == STN_SCHED_REF && !e->alg2 && !r->part && !r->fold.W &&
           stn_ooc_periodic_axes(e->d) == 0 && !e->plan.r.wrap && r->o->rank != STN_RANK_BYTES &&
           !r->hw.described && r->dev.read.n > 0;
}

/* The tuner's plan for the remaining `left` steps with the measured figures: the run's copy with those
 * steps, the kernels' rate as a machine file's (no finalists measured again) and the scaled curves. */
static int replan(const ooc *e, int64_t left, double rate, const stn_device *dev, stn_ooc_plan *np) {
    stn_run rc = *e->r;
    stn_opts o = *e->r->o;
    o.steps = left, o.have_block = 0, o.resume = 0, o.plan_only = 0;
    if (o.tuner == STN_TUNER_NAIVE || o.tuner == STN_TUNER_BRUTE)
        o.tuner = -1; /* (forced over a manual plan: Blk-Tune's) */
    rc.o = &o;
    rc.dev = *dev;
    rc.hw.cells_per_second = rate;
    int err = e->res->copy_bytes_per_second > 0 ? 0 : stn_copy_rate(e->r, e->res); /* (not measured yet) */
    if (err)
        return err;
    rc.hw.copy_bytes_per_second = e->res->copy_bytes_per_second;
    stn_ooc_result out = {0};
    stn_result *res = calloc(1, sizeof *res);
    if (!res)
        return -ENOMEM;
    err = stn_ooc_choose(&rc, &e->model, (size_t)e->plan.align, NULL, np, &out, res);
    free(res);
    return err;
}

int stn_ooc_refine(ooc *e, const ooc_measured *m, int program) {
    if (!may_replan(e, program) || m->left <= 0 || !(m->compute > 1e-4) || !(m->wall > 1e-3))
        return 0;
    double rate = m->cells / m->compute / stn_ooc_share(e); /* the kernels alone (they ran beside the IO) */
    if (!(rate > 0))
        return 0;
    double k = stn_ooc_fit_device(e, m->sweep, m->steps, rate, m->wall);
    stn_device dev;
    stn_ooc_scaled_device(&e->r->dev, k, &dev);
    stn_time_model tm = stn_ooc_run_model(e, &dev, rate);
    int64_t s0 = m->sweep + 1;
    double keep = stn_ooc_part_seconds(e, &e->plan, s0, m->left, &tm);
    double search =
        e->refine_seconds > 0 ? e->refine_seconds : e->out->tune_seconds; /* (the startup's first) */
    if (keep < 10 * search) /* (a search that would cost more than a tenth of what is left) */
        return 0;
    stn_ooc_plan np;
    double t0 = stn_now();
    int err = replan(e, m->left, rate, &dev, &np);
    e->refine_seconds = stn_now() - t0;
    if (err) {
        stn_error_clear(); /* (no plan for the rest: the run goes on with its own) */
        return 0;
    }
    int64_t from[3], to[3];
    plan_blocks(e, &e->plan, from);
    plan_blocks(e, &np, to);
    double fresh = stn_ooc_part_seconds(e, &np, s0, m->left, &tm);
    int same = from[0] == to[0] && from[1] == to[1] && from[2] == to[2] && e->plan.strip == np.strip;
    if (same || !(fresh <= (1 - STN_REPLAN_GAIN) * keep))
        return 0;
    stn_replan *rp = &e->res->replans[e->res->nreplans];
    *rp = (stn_replan){.step = m->done,
                       .sweep = s0,
                       .from_strip = e->plan.strip,
                       .to_strip = np.strip,
                       .cells_per_second = rate,
                       .device_scale = k,
                       .keep_seconds = keep,
                       .new_seconds = fresh};
    memcpy(rp->from, from, sizeof from), memcpy(rp->to, to, sizeof to);
    if (e->res->nreplans++ == 0)
        e->time0 = e->res->time; /* the prediction the run started with stays the report's */
    np.steps = e->r->o->steps;   /* (the loop sets nsweeps sweep by sweep) */
    np.nsweeps = s0;
    int rc = stn_ooc_rebuffer(e, &np);
    if (rc == 0 && !e->r->o->quiet) {
        stn_progress_break();
        fprintf(stderr,
                "%s: re-plan after sweep %" PRId64 " (step %" PRId64 "): blocks by %" PRId64 " bz %" PRId64
                " bt %" PRId64 " -> by %" PRId64 " bz %" PRId64 " bt %" PRId64 ", the remaining %" PRId64
                " steps predicted %.2f s instead of %.2f s (measured: %.3g cells/s, the device at %.2fx its "
                "curves)\n",
                e->d->name, s0, m->done, from[0], from[1], from[2], to[0], to[1], to[2], m->left, fresh, keep,
                rate, k);
    }
    return rc;
}
