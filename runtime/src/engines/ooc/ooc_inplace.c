/* ooc_inplace.c -- --tier pmem: inputs the kernels read where they lie in the mapped file, never copied
 * (docs/design/022, "Inputs read in place").  An imported input (--init NAME=FILE.npy) is written to its
 * scratch file once and only read afterwards; on a plan of whole planes the file's planes lie as the window's
 * (plane z at z x slice_bytes), so the kernels get a pointer into the mapping where they would get the ring.
 * The model (stn_ooc_reads_in_place, ooc_model.c) and the engine ask the same question, so the bytes
 * predicted are the bytes copied, and the bytes read in place are counted apart. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <errno.h>

/* The bytes of one slice in the plain layout: a plane of ny rows (3d, whole planes), a row (2d). */
static uint64_t plain_slice(const ooc *e) {
    return (uint64_t)(e->d->ndim == 3 ? e->r->view.ny : 1) * e->plan.row_bytes;
}

void stn_ooc_in_place_choose(ooc *e) {
    const stn_run *r = e->r;
    /* (one mapping of plain planes: one directory, no rank's part, no folded grid, no wrap, no snapshot that
     * reads the window, not alg2; the first plan of whole planes, so the input's file is imported plain) */
    int ok = ooc_tier(e) == STN_GRIDFILE_PMEM && e->d->ndim >= 2 && e->fs.ndirs <= 1 && !r->part &&
             !r->fold.W && !r->snap && !e->alg2 && !e->own_axes && e->plan.strip == STN_STRIP_NONE &&
             !e->plan.r.wrap && e->plan.slice_bytes == plain_slice(e);
    for (int i = 0; i < e->d->nfields; i++) {
        stn_ooc_fsrc *f = &e->fsrc[i];
        f->in_place = ok && !f->state && f->input == STN_SRC_SCRATCH && !f->written;
    }
}

int stn_ooc_in_place(const ooc *e, int f) {
    return !e->exporting && stn_ooc_reads_in_place(&e->model, &e->plan, f);
}

char *stn_ooc_in_place_win(const ooc *e, const ooc_field *f) {
    return f->scratch[0][0].map + (size_t)(e->wr0 + e->rshift) * e->plan.slice_bytes;
}

int stn_ooc_in_place_count(ooc *e, int f, int64_t r0, int64_t r1) {
    const stn_gridfile *gf = &e->f[f].scratch[0][0];
    if (!gf->map || gf->nchunks > 1 || gf->row_bytes != e->plan.row_bytes ||
        e->plan.strip != STN_STRIP_NONE || e->plan.slice_bytes != plain_slice(e))
        return stn_error(-EINVAL, "internal error: input '%s' was to be read in place from '%s', which is %s",
                         e->d->fields[f].name, gf->path,
                         gf->map ? "not laid out as the window's planes" : "not mapped");
    if (r1 > r0 && e->qhi > e->qnew)
        e->res->read_in_place += (uint64_t)(r1 - r0) * (uint64_t)(e->qhi - e->qnew) * e->plan.row_bytes;
    return 0;
}
