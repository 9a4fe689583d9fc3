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
#include <fcntl.h>
#include <string.h>

/* The bytes of one slice in the plain layout: a plane of ny rows (3d, whole planes), a row (2d). */
static uint64_t plain_slice(const ooc *e) {
    return (uint64_t)(e->d->ndim == 3 ? e->r->view.ny : 1) * e->plan.row_bytes;
}

void stn_ooc_in_place_pre(ooc *e) {
    const stn_run *r = e->r;
    /* (one mapping of plain slices: one directory, no rank's part, no folded grid, no snapshot that reads the
     * window, not alg2; an input no --out exports, since the export reads through a ring) */
    int ok = ooc_tier(e) == STN_GRIDFILE_PMEM && e->d->ndim >= 2 && e->fs.ndirs <= 1 && !r->part &&
             !r->fold.W && !r->snap && !e->alg2;
    for (int i = 0; i < e->d->nfields; i++) {
        stn_ooc_fsrc *f = &e->fsrc[i];
        f->in_place =
            ok && !f->state && f->input == STN_SRC_SCRATCH && !f->written && !f->out[0] && !f->out[1];
    }
}

void stn_ooc_in_place_choose(ooc *e) {
    /* (the first plan must allow it, so that the inputs' files are imported plain; a re-plan to a plan that
     * does not allow it copies them from then on, and one from such a plan never reads them in place) */
    int ok = e->plan.in_place_ok && e->plan.slice_bytes == plain_slice(e);
    for (int i = 0; i < e->d->nfields; i++)
        e->fsrc[i].in_place = ok && e->fsrc[i].in_place;
    e->res->in_place_dram = (uint64_t)e->plan.in_place * (uint64_t)e->plan.qplanes * e->plan.ring_bytes;
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

/* The rows of the file the .npy fills in one read: a batch read into the tail of its place in the mapping and
 * spread out in place, first row to last (row j moves down from D + j x rowb to j x row_bytes, D = n x
 * padding, never over a row not yet moved), as stn_ooc_npy_box_st does in a ring. */
#define IMPORT_ROWS 256

int stn_ooc_in_place_import(ooc *e, int f) {
    const ooc_field *of = &e->f[f];
    const stn_gridfile *gf = &of->scratch[0][0];
    size_t rowb = (size_t)e->r->view.nx * (size_t)e->d->elem_size, padded = (size_t)e->plan.row_bytes;
    int64_t rows = (int64_t)(e->d->ndim == 3 ? e->r->view.nz : 1) * e->r->view.ny;
    if (!gf->map || gf->nchunks > 1 || gf->row_bytes != e->plan.row_bytes ||
        gf->map_len < (size_t)rows * padded)
        return stn_error(
            -EINVAL, "internal error: input '%s' was to be imported into the mapping of '%s', which is %s",
            e->d->fields[f].name, gf->path, gf->map ? "not laid out as its rows" : "not mapped");
    double t0 = stn_now();
    int rc = 0;
    for (int64_t r0 = 0; rc == 0 && r0 < rows; r0 += IMPORT_ROWS) {
        size_t n = (size_t)(rows - r0 < IMPORT_ROWS ? rows - r0 : IMPORT_ROWS), pad = padded - rowb;
        char *base = gf->map + (size_t)r0 * padded;
        uint64_t off = (uint64_t)of->npy_offset[0] + (uint64_t)r0 * rowb;
        double t1 = stn_now();
        rc = stn_pread_full(of->npy_fd[0], base + n * pad, n * rowb, off, of->npy[0]);
        stn_stats_add_time(&e->res->st, STN_PHASE_READ, t1);
        if (rc)
            break;
        posix_fadvise(of->npy_fd[0], (off_t)off, (off_t)(n * rowb), POSIX_FADV_DONTNEED);
        for (size_t j = 0; pad && j < n; j++) {
            memmove(base + j * padded, base + n * pad + j * rowb, rowb);
            memset(base + j * padded + rowb, 0, pad);
        }
        e->res->st.bytes_read += n * rowb;      /* (the .npy, as a ring's import counts it) */
        e->res->st.bytes_written += n * padded; /* (the file's rows, as the copy into the mapping would) */
    }
    e->res->import_seconds += stn_now() - t0;
    return rc;
}
