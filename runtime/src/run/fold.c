/* fold.c -- a 1d grid folded into rows (docs/design/014): the rows' geometry, their cells, and the run
 * copy an engine streams as a 2d grid's rows. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "run/stn_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void stn_fold_make(int64_t n, int64_t hlo, int64_t hhi, int64_t reach, int64_t elem, size_t align,
                   stn_fold *f) {
    int64_t a = (int64_t)align > elem ? (int64_t)align / elem : 1; /* cells of one alignment unit */
    int64_t least = 4096 / elem, m = n - hlo - hhi;                /* m: the interior's cells */
    least = least > reach ? least : reach;
    least = least > hlo ? least : hlo;
    least = least > hhi ? least : hhi;
    int64_t W = (least + a - 1) / a * a;
    /* the last interior row (row 1 + (m-1)/W) holds at least hhi cells of the interior, or is the
     * first: the trailing cells' mirror sources are never two rows before them */
    while (m > 1 && (m - 1) / W >= 1 && (m - 1) % W < hhi - 1)
        W += a;
    f->W = W;
    f->P = W - hlo;
    f->n = n;
    f->lo = hlo;
    f->hi = n - hhi;
    f->rows = (m < 1 ? 0 : (m - 1) / W) + 3;
}

int64_t stn_fold_cells(const stn_fold *f, int64_t r0, int64_t r1) {
    int64_t lo = r0 * f->W - f->P, hi = r1 * f->W - f->P;
    lo = lo > 0 ? lo : 0;
    hi = hi < f->n ? hi : f->n;
    return hi > lo ? hi - lo : 0;
}

int stn_fold_map(const stn_fold *f, const stn_view *v, const stn_box *box, int interior, stn_view *v1,
                 stn_box *b1, int64_t *shift) {
    int64_t lo = box->lo[1] * f->W - f->P, hi = box->hi[1] * f->W - f->P;
    int64_t a = interior ? f->lo : 0, b = interior ? f->hi : f->n;
    lo = lo > a ? lo : a;
    hi = hi < b ? hi : b;
    *v1 = (stn_view){f->n, 1, 1, f->n, f->n, 0, 0, 0, NULL};
    *b1 = (stn_box){{lo, 0, 0}, {hi, 1, 1}};
    *shift = v->y0 * f->W - f->P;
    return hi > lo && box->hi[2] > box->lo[2] && box->hi[0] > box->lo[0];
}

int stn_fold_run(const stn_run *r, size_t align, stn_run_copy *c) {
    const stn_program_desc *d = r->d;
    const stn_opts *o = r->o;
    int periodic = 0;
    for (int i = 0; i < d->nfields; i++)
        periodic |= d->fields[i].periodic & 1;
    c->run = *r;
    c->opts = *o;
    c->run.o = &c->opts;
    if (periodic) {
        if (o->have_block && o->block[0] > 0)
            return stn_error(
                -EINVAL,
                "--block %" PRId64 ",%" PRId64
                ": this 1d grid is periodic, so it runs out of core as one block (its wrap moves "
                "by the interior's width, not whole rows): give --block BT",
                o->block[0], o->block[2]);
        c->opts.block[0] = 1; /* its one row */
        return 0;
    }
    int64_t n = o->size[0], reach = d->reach_lo[0] > d->reach_hi[0] ? d->reach_lo[0] : d->reach_hi[0];
    stn_fold *f = &c->run.fold;
    stn_fold_make(n, d->halo_lo[0], d->halo_hi[0], reach, d->elem_size, align, f);
    c->desc = *d;
    c->desc.dims = 0;
    for (int k = 0; k < 3; k++) {
        c->desc.halo_lo[k] = c->desc.halo_hi[k] = k == 1;
        c->desc.reach_lo[k] = c->desc.reach_hi[k] = k == 1;
    }
    if (!(c->fields = calloc((size_t)d->nfields, sizeof *c->fields)))
        return stn_error(-ENOMEM, "out of memory");
    for (int i = 0; i < d->nfields; i++) { /* a read across x reads across rows */
        c->fields[i] = d->fields[i];
        if (c->fields[i].read_across & 1)
            c->fields[i].read_across |= 2;
    }
    c->desc.fields = c->fields;
    c->run.d = &c->desc;
    c->opts.size[0] = f->W, c->opts.size[1] = f->rows, c->opts.size[2] = 1;
    c->run.view = (stn_view){f->W, f->rows, 1, f->W, f->W * f->rows, 0, 0, 0, NULL};
    c->run.grid_bytes = (uint64_t)f->W * (uint64_t)f->rows * (uint64_t)d->elem_size;
    /* --block BX,BT: BX cells, whole rows (0: one block, --block BT) */
    c->opts.block[0] = o->block[0] > 0 ? (o->block[0] + f->W - 1) / f->W : f->rows;
    c->run.held +=
        (uint64_t)d->nalong * (uint64_t)n * (uint64_t)d->elem_size; /* the inputs along x, in DRAM */
    return 0;
}

void stn_run_copy_free(stn_run_copy *c) {
    if (!c)
        return;
    free(c->fields);
    free(c->part);
    c->fields = NULL;
    c->part = NULL;
}
