/* ranks.c -- the out-of-core plan of an MPI rank's part (docs/design/018, 019): the part the engine
 * runs on (what this version splits, the buffers of the exchange's deferred way down), and Blk-Tune
 * for ranks without --block, which plans every rank's part without an engine. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"
#include "plan/stn_ooc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int stn_ooc_part_run(const stn_run *r, int64_t bt_ghost, const int64_t *blk, stn_run_copy *c,
                     stn_result *res) {
    const stn_program_desc *d = r->d;
    const stn_opts *o = r->o;
    int P = stn_par_size();
    char why[256] = "";
    if (o->schedule != STN_SCHED_NONE && o->schedule != STN_SCHED_REF)
        snprintf(why, sizeof why, "--schedule %s (the reference schedule only)",
                 stn_schedule_names[o->schedule]);
    else if (o->have_block && d->ndim == 3 && o->block[0] < o->size[1] && stn_ooc_periodic_axes(d) & 4)
        snprintf(why, sizeof why,
                 "y-blocked tiles of a stencil periodic along z (--block by < ny: give by = ny)");
    if (why[0])
        return stn_error(-ENOTSUP, "%d MPI ranks: this version splits out-of-core runs only without %s", P,
                         why);
    int rc = stn_part_run(r, STN_SPLIT_FLASH, bt_ghost, c);
    if (rc)
        return rc;
    stn_part *p = c->part;
    if (stn_part_cross(p) && o->have_block && d->ndim == 3 && o->block[0] < c->opts.size[1])
        return stn_error(-ENOTSUP,
                         "%d MPI ranks: this version splits out-of-core runs only without y-blocked tiles "
                         "when the ranks cut x or y (--block %" PRId64 ",...: give by = the part's %" PRId64
                         " rows, or --ranks 1,1,%d)",
                         P, o->block[0], c->opts.size[1], P);
    for (int k = 0; k < 3; k++)
        res->dims[k] = p->ax[k].ranks;
    /* the exchange's way down overlapped with the next sweep (docs/design/019): its buffers (the low
     * edge sent, the high ghosts received, of every state level) in the plan, when they fit the memory
     * policy's share (stn_mem_ghosts) and no cross cut follows the exchange */
    const stn_cut *s = stn_part_slab(p);
    uint64_t plane = stn_grid_row_bytes(c->opts.size[0], d->elem_size, (size_t)r->hw.block.value) *
                     (uint64_t)(d->ndim == 3 ? c->opts.size[1] : 1);
    uint64_t half = stn_state_levels(d) * (uint64_t)s->g * plane;
    if (!stn_part_cross(p) && half > 0 && (s->nb[1] >= 0 || s->nb[0] >= 0) &&
        2 * half <= stn_mem_ghosts(r->mem_budget) && half <= 0x7fffffff) {
        p->defer = 2 * half;
        c->run.held += p->defer;
    }
    if (blk) /* the blocks the ranks tuned (stn_tune_ranks) */
        c->opts.block[0] = blk[0], c->opts.block[1] = blk[1], c->opts.block[2] = blk[2],
        c->opts.have_block = 1;
    return 0;
}

/* This rank's plan of its part with ghosts of `guess` steps, as the engine would choose it (plans only:
 * no file, no lock): its blocks in blk (by, bz, bt; bz 0 in 2d). */
static int plan_part(const stn_run *r, int64_t guess, stn_result *res, stn_ooc_result *out, int64_t blk[3]) {
    stn_run_copy c;
    memset(&c, 0, sizeof c);
    int rc = stn_ooc_part_run(r, guess, NULL, &c, res);
    c.opts.plan_only = 1;
    c.opts.resume = 0;
    const stn_program_desc *d = c.run.d;
    stn_ooc_fsrc *fsrc = rc == 0 ? calloc((size_t)d->nfields, sizeof *fsrc) : NULL;
    if (rc == 0 && !fsrc)
        rc = stn_error(-ENOMEM, "out of memory setting up the out-of-core engine");
    for (int i = 0; rc == 0 && i < d->nfields; i++)
        stn_ooc_fsrc_init(d, i, c.opts.init_path, c.opts.out_path, &fsrc[i]);
    stn_ooc_model m = {d ? d->nfields : 0, fsrc, 0};
    stn_ooc_plan p;
    if (rc == 0)
        rc = stn_ooc_choose(&c.run, &m, (size_t)r->hw.block.value, NULL, &p, out, res);
    if (rc == 0) {
        blk[0] = p.r.axis == 1 ? p.r.b : r->o->size[1];
        blk[1] = d->ndim != 3 ? 0 : p.r.axis == 2 ? p.r.b : p.q.b; /* (y-blocked: bz is q's) */
        blk[2] = p.bt;
    }
    free(fsrc);
    stn_run_copy_free(&c);
    return rc;
}

int stn_tune_ranks(const stn_run *r, stn_result *res, stn_ooc_result *out, int64_t blk[3],
                   int64_t *bt_ghost) {
    int64_t guess = 1;
    for (int round = 0; round < 16; round++) {
        int rc = plan_part(r, guess, res, out, blk);
        if (stn_par_any(rc))
            return rc ? rc : stn_error(-EIO, "another rank failed to tune its blocks (its error is above)");
        blk[2] = stn_par_min(blk[2]);
        int64_t most = stn_part_most_bt(r, STN_SPLIT_FLASH); /* (thin slabs: the ghosts limit bt) */
        blk[2] = blk[2] > most && most >= 1 ? most : blk[2];
        if (blk[2] <= guess) {
            *bt_ghost = guess;
            return 0;
        }
        guess = blk[2];
    }
    return stn_error(-EIO, "internal error: the ranks' tuning did not settle on a bt");
}
