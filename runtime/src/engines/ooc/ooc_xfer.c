/* ooc_xfer.c -- what the out-of-core engine moves outside its sweeps: each input given as a .npy
 * copied once into its scratch file (so that sweeps read it with O_DIRECT, and the user's file
 * stays untouched and out of the page cache), alg2's in-place files written before its first
 * sweep, and every --out exported from the final state.  All of it goes through the window's
 * rings in chunks, so no buffer outside the plan is needed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include "io/stn_hdf5.h"

#include <string.h>

/* Chunks of dimension g of at most `cap` indices for the import and export: each holds the
 * mirror sources of the boundary indices it contains (first chunk >= 2*hlo, last >= 2*hhi).
 * With cap >= min(n, 2*hlo + 2*hhi) (ring_slices, row_extents) moving the last edge down keeps
 * the first chunk >= 2*hlo. */
static int64_t chunk_edge(const stn_ooc_dim *g, int64_t c, int64_t cap, int64_t nchunks) {
    if (c >= nchunks)
        return g->n;
    int64_t z = c * cap;
    if (c == nchunks - 1 && g->n - z < 2 * g->hhi)
        z = g->n - 2 * g->hhi;
    return z;
}

/* Call fn for every chunk of the grid the window holds at once: q chunks of qcap (one, unless
 * y-blocked), r chunks of ring_slices, with the window set to the chunk. */
typedef int (*chunk_fn)(ooc *e, void *arg);

static int for_chunks(ooc *e, chunk_fn fn, void *arg) {
    const stn_ooc_plan *p = &e->plan;
    int64_t cr = p->ring_slices, cq = p->qcap;
    int64_t nr = (p->r.n + cr - 1) / cr, nq = (p->q.n + cq - 1) / cq;
    for (int64_t a = 0; a < nq; a++) {
        e->qlo = e->qnew = chunk_edge(&p->q, a, cq, nq);
        e->qhi = e->qnext = chunk_edge(&p->q, a + 1, cq, nq);
        e->qbase = p->strip != STN_STRIP_NONE ? e->qlo : 0;
        for (int64_t b = 0; b < nr; b++) {
            e->wr0 = chunk_edge(&p->r, b, cr, nr);
            e->wr1 = chunk_edge(&p->r, b + 1, cr, nr);
            int rc = fn(e, arg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Copy each input given as a .npy into its scratch file once, so that sweeps read it with
 * O_DIRECT (the user's file stays untouched and out of the page cache). */
static int import_chunk(ooc *e, void *arg) {
    int i = *(int *)arg;
    ooc_field *f = &e->f[i];
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = stn_ooc_npy_box(e, i, 0, f->ring[0], &(ooc_rows){e->wr0, e->wr1, e->qlo, e->qhi});
    if (rc == 0)
        rc = stn_ooc_io_box(e, 1, &f->scratch[0][0], f->ring[0], &(ooc_rows){e->wr0, e->wr1, e->qlo, e->qhi},
                            e->qlo, &g);
    int rc2 = stn_aio_wait(e->q, &g, &e->res->st);
    return rc ? rc : rc2;
}

int stn_ooc_import_inputs(ooc *e) {
    int rc0 = stn_ooc_chunk_inputs(e); /* the inputs' files: chunked for the sweeps' reads */
    if (rc0)
        return rc0;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (f->m->state || f->m->input != STN_SRC_SCRATCH)
            continue;
        int rc = f->ring[0] ? for_chunks(e, import_chunk, &i)
                            : stn_ooc_in_place_import(e, i); /* (read in place: no ring, the mapping) */
        if (rc == 0)
            rc = stn_gridfile_sync(&f->scratch[0][0]);
        if (rc)
            return rc;
    }
    return 0;
}

/* alg2: write every array of every state field to its in-place file before the first sweep:
 * level 0, level -1 (two levels), and level 0 again in the array level 1 will use, so that
 * the boundary cells, which no kernel writes, are right in every array. */
static int import_alg2_chunk(ooc *e, void *arg) {
    (void)arg;
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int64_t r0 = e->wr0, r1 = e->wr1, q0 = e->qlo, q1 = e->qhi;
    int rc = 0;
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (!f->m->state)
            continue;
        rc = stn_ooc_place(e, i, 0, f->m->first[0], &(ooc_rows){r0, r1, q0, q1});
        if (rc == 0 && f->m->levels == 2)
            rc = stn_ooc_place(e, i, 1, f->m->first[1], &(ooc_rows){r0, r1, q0, q1});
        if (rc == 0)
            stn_ooc_copy_box(e, f->ring[1], f->ring[0], &(ooc_rows){r0, r1, q0, q1});
        for (int a = 0; rc == 0 && a < f->m->narr; a++)
            rc = stn_ooc_io_box(e, 1, ooc_inplace(f, a), f->ring[a], &(ooc_rows){r0, r1, q0, q1}, q0, &g);
    }
    int rc2 = stn_aio_wait(e->q, &g, &e->res->st);
    return rc ? rc : rc2;
}

int stn_ooc_import_alg2(ooc *e) { return for_chunks(e, import_alg2_chunk, NULL); }

typedef struct export_job {
    int f, level, src;
    stn_npy_writer *w;
} export_job;

/* Put slices [wr0, wr1) x [qlo, qhi) of (field f, level) from source `src` into ring[0] of f, each
 * boundary cell mirrored or wrapped as the engines leave it; the bytes read from files, counted in the
 * stats, are also added to *model (what the IO model says they are: whole padded rows of a scratch
 * file, unpadded ones of an .npy). */
static int load_chunk(ooc *e, int f, int level, int src, uint64_t *model) {
    ooc_field *of = &e->f[f];
    int64_t r0 = e->wr0, r1 = e->wr1, q0 = e->qlo, q1 = e->qhi;
    char *ring = of->ring[0];
    int rc = 0;
    double t0 = stn_now();
    int64_t part[3][3]; /* wrap-around slices come from where they wrap to */
    int nparts = stn_ooc_wrap_parts(e, f, r0, r1, part);
    uint64_t rows = 0, cells = 0;
    int64_t base = e->r->part ? stn_part_slab(e->r->part)->base : 0; /* (a rank's slab of a folded grid) */
    for (int k = 0; rc == 0 && k < nparts; k++) {
        int64_t a = part[k][0], b = part[k][1];
        e->rshift = part[k][2];
        rows += (uint64_t)(b - a) * (uint64_t)(q1 - q0);
        cells += e->r->fold.W ? (uint64_t)stn_fold_cells(&e->r->fold, a + base, b + base)
                              : (uint64_t)(b - a) * (uint64_t)(q1 - q0) * (uint64_t)e->r->view.nx;
        if (src == STN_SRC_SCRATCH) {
            stn_gridfile *gf = !of->m->state ? &of->scratch[0][0]
                               : e->alg2     ? ooc_inplace(of, ooc_arr(of, e->plan.steps - level))
                                             : &of->scratch[e->plan.nsweeps % 2][level];
            stn_aio_group grp = STN_AIO_GROUP_INIT;
            rc = stn_ooc_io_box(e, 0, gf, ring, &(ooc_rows){a, b, q0, q1}, q0, &grp);
            int rc2 = stn_aio_wait(e->q, &grp, &e->res->st);
            rc = rc ? rc : rc2;
        } else if (src == STN_SRC_NPY) {
            rc = stn_ooc_npy_box(e, f, level, ring, &(ooc_rows){a, b, q0, q1});
        } else if (src == STN_SRC_INIT) {
            stn_view v = stn_ooc_view(e);
            stn_box bx = stn_ooc_box(e, a, b, q0, q1);
            stn_run_init(e->r, f, level, ooc_win(e, of, 0), &v, &bx);
            stn_stats_add_time(&e->res->st, STN_PHASE_INIT, t0);
        } else {
            stn_ooc_copy_box(e, ring, NULL, &(ooc_rows){a, b, q0, q1});
        }
    }
    e->rshift = 0;
    if (model && src == STN_SRC_SCRATCH)
        *model += rows * e->plan.row_bytes;
    else if (model && src == STN_SRC_NPY)
        *model += cells * (uint64_t)e->d->elem_size;
    if (rc)
        return rc;
    if (of->m->state && stn_bc_mirrors(&e->d->fields[f])) {
        stn_view v = stn_ooc_view(e);
        stn_box b = stn_ooc_box(e, r0, r1, q0, q1);
        t0 = stn_now();
        stn_run_boundary(e->r, f, &v, ooc_win(e, of, 0), ooc_win(e, of, 0), &b);
        stn_stats_add_time(&e->res->st, STN_PHASE_COMPUTE, t0);
    }
    return 0;
}

/* Row j of a run into an --out at its whole-grid place: the whole row, or under a cross cut (--ranks)
 * the rank's own part of an own row (nothing of a ghost row). */
static int write_row(ooc *e, stn_npy_writer *w, const rows_run *run, int64_t j) {
    const stn_part *p = e->r->part;
    size_t es = (size_t)e->d->elem_size, rowb = (size_t)e->r->view.nx * es;
    const char *buf = run->buf + (size_t)j * (size_t)e->plan.row_bytes;
    if (!stn_part_cross(p))
        return stn_npy_writer_pwrite(w, buf, rowb, (run->row0 + (uint64_t)j) * rowb, &e->res->st);
    int64_t z, y;
    stn_row_piece pc[9];
    int rc = 0;
    ooc_row_at(e, run, j, &z, &y);
    for (int c = 0, n = stn_part_row_places(p, e->d->ndim, z, y, 1, pc); rc == 0 && c < n; c++)
        rc = stn_npy_writer_pwrite(w, buf + (size_t)pc[c].x0 * es, (size_t)(pc[c].x1 - pc[c].x0) * es,
                                   pc[c].cell * es, &e->res->st);
    return rc;
}

static int export_chunk(ooc *e, void *arg) {
    export_job *x = arg;
    ooc_field *of = &e->f[x->f];
    const stn_view *g = &e->r->view;
    int64_t r0 = e->wr0, r1 = e->wr1, q0 = e->qlo, q1 = e->qhi;
    char *ring = of->ring[0];
    double t0;
    int rc = load_chunk(e, x->f, x->level, x->src, NULL);
    if (rc)
        return rc;
    const stn_fold *fo = &e->r->fold;
    if (fo->W) { /* a folded 1d grid: the rows' cells, written where they lie in the .npy */
        const stn_cut *sl = e->r->part ? stn_part_slab(e->r->part) : NULL; /* (a rank's slab: its own rows) */
        int64_t base = sl ? sl->base : 0;
        if (sl && (r0 = r0 > sl->lo ? r0 : sl->lo) >= (r1 = r1 < sl->hi ? r1 : sl->hi))
            return 0;
        int64_t c0 = (r0 + base) * fo->W - fo->P, c = stn_fold_cells(fo, r0 + base, r1 + base);
        int64_t lo = c0 > 0 ? c0 : 0;
        size_t es = (size_t)e->d->elem_size;
        return stn_npy_writer_pwrite(x->w, ooc_at(e, ring, r0, q0) + (size_t)(lo - c0) * es, (size_t)c * es,
                                     (uint64_t)lo * es, &e->res->st);
    }
    const stn_part *p = e->r->part; /* a rank writes its own slices */
    const stn_cut *sl = p ? stn_part_slab(p) : NULL;
    size_t rowb = (size_t)g->nx * (size_t)e->d->elem_size;
    int64_t pc[3][3];
    int np = 0;
    if (p)
        stn_part_out(p, p->split, pc, &np);
    for (int k = 1; k < np; k++) { /* a ring: the slices its boundary layer copies, row by row */
        int64_t a = r0 > pc[k][0] ? r0 : pc[k][0], b = r1 < pc[k][1] ? r1 : pc[k][1];
        for (int64_t i = 0; a < b && i < ooc_nruns(e, q0, q1); i++) {
            rows_run run = ooc_run_at(e, ring, a, b, q0, i, pc[k][2]);
            for (int64_t j = 0; rc == 0 && j < run.rows; j++)
                rc = write_row(e, x->w, &run, j);
            if (rc)
                return rc;
        }
    }
    int along_q = p && p->split == e->plan.q.axis;
    int64_t *lo = along_q ? &q0 : &r0, *hi = along_q ? &q1 : &r1;
    if (sl && (*lo = *lo > sl->lo ? *lo : sl->lo) >= (*hi = *hi < sl->hi ? *hi : sl->hi))
        return 0; /* (own slices along the split axis: r, or q = z when y-blocked) */
    /* compact each run's padded rows in place (each row moves down or stays) and write it */
    for (int64_t i = 0; i < ooc_nruns(e, q0, q1); i++) {
        rows_run run = ooc_run_of(e, ring, r0, r1, q0, i);
        if (stn_part_cross(p)) { /* a cross cut: the own part of each own row */
            for (int64_t j = 0; rc == 0 && j < run.rows; j++)
                rc = write_row(e, x->w, &run, j);
            if (rc)
                return rc;
            continue;
        }
        t0 = stn_now();
        for (int64_t k = 1; k < run.rows; k++)
            memmove(run.buf + (size_t)k * rowb, run.buf + (size_t)k * (size_t)e->plan.row_bytes, rowb);
        stn_stats_add_time(&e->res->st, STN_PHASE_COPY, t0);
        rc = stn_npy_writer_pwrite(x->w, run.buf, (size_t)run.rows * rowb, run.row0 * rowb, &e->res->st);
        if (rc)
            return rc;
    }
    return 0;
}

int stn_ooc_export(ooc *e) {
    e->exporting = 1;
    for (int s = 0; s < 2 * e->d->nfields; s++) {
        if (!e->r->writers[s])
            continue;
        export_job x = {s / 2, s % 2, stn_ooc_source_of(&e->model, &e->plan, s / 2, s % 2, e->plan.nsweeps),
                        e->r->writers[s]};
        if (x.src == STN_SRC_COPY) /* steps = 0 and no previous level of its own: it is the current one */
            x.level = 0, x.src = stn_ooc_source_of(&e->model, &e->plan, x.f, 0, e->plan.nsweeps);
        int rc = for_chunks(e, export_chunk, &x);
        if (rc)
            return stn_error(rc, "--out %s%s=%s: %s", e->d->fields[s / 2].name, s % 2 ? ".prev" : "",
                             e->r->o->out_path[s], stn_errmsg());
    }
    return 0;
}

/* ------------------------------------------------------------------ the simulation API's boxes */

/* The state levels, from the sources of the first sweep (--init files, init expressions, zero, the
 * current level for a previous one), into scratch set 0, which the first sweep then reads. */
static int materialize_chunk(ooc *e, void *arg) {
    uint64_t *moved = arg;
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = 0;
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rc == 0 && f->m->state && l < f->m->levels; l++) {
            int src = f->m->first[l] == STN_SRC_COPY ? f->m->first[0] : f->m->first[l];
            rc = load_chunk(e, i, f->m->first[l] == STN_SRC_COPY ? 0 : l, src, &moved[0]);
            if (rc == 0)
                rc = stn_ooc_io_box(e, 1, &f->scratch[0][l], f->ring[0],
                                    &(ooc_rows){e->wr0, e->wr1, e->qlo, e->qhi}, e->qlo, &g);
            int rc2 = stn_aio_wait(e->q, &g, &e->res->st);
            rc = rc ? rc : rc2;
            moved[1] += (uint64_t)(e->wr1 - e->wr0) * (uint64_t)(e->qhi - e->qlo) * e->plan.row_bytes;
        }
    }
    return rc;
}

int stn_ooc_materialize(ooc *e, uint64_t *rd, uint64_t *wr) {
    uint64_t moved[2] = {0, 0};
    int rc = for_chunks(e, materialize_chunk, moved);  /* not synced: a simulation's sweeps are not durable */
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) /* the first sweep reads them now */
        for (int l = 0; e->fsrc[i].state && l < e->fsrc[i].levels; l++)
            e->fsrc[i].first[l] = STN_SRC_SCRATCH;
    *rd += moved[0];
    *wr += moved[1];
    return rc;
}

/* An input of init expressions or zero, into a scratch file of its own (which the caller opened as
 * scratch[0][0]): its values computed slice by slice in the window and written whole. */
static int make_input_chunk(ooc *e, void *arg) {
    uint64_t *moved = arg;
    int i = (int)moved[2];
    ooc_field *f = &e->f[i];
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = load_chunk(e, i, 0, f->m->input, NULL);
    if (rc == 0)
        rc = stn_ooc_io_box(e, 1, &f->scratch[0][0], f->ring[0], &(ooc_rows){e->wr0, e->wr1, e->qlo, e->qhi},
                            e->qlo, &g);
    int rc2 = stn_aio_wait(e->q, &g, &e->res->st);
    moved[1] += (uint64_t)(e->wr1 - e->wr0) * (uint64_t)(e->qhi - e->qlo) * e->plan.row_bytes;
    return rc ? rc : rc2;
}

int stn_ooc_make_input(ooc *e, int i, uint64_t *wr) {
    uint64_t moved[3] = {0, 0, (uint64_t)i};
    int rc = for_chunks(e, make_input_chunk, moved);
    *wr += moved[1];
    if (rc == 0) {
        e->fsrc[i].input = STN_SRC_SCRATCH; /* the sweeps, the boxes and the export read the file now */
        e->fsrc[i].written = 1;
    }
    return rc;
}

/* The intersection of the chunk in the window with box b: lo, hi per axis; 0 when empty. */
static int chunk_and_box(ooc *e, const stn_ooc_boxio *b, int64_t lo[3], int64_t hi[3]) {
    stn_box c = stn_ooc_box(e, e->wr0, e->wr1, e->qlo, e->qhi);
    for (int k = 0; k < 3; k++) {
        lo[k] = c.lo[k] > b->lo[k] ? c.lo[k] : b->lo[k];
        hi[k] = c.hi[k] < b->hi[k] ? c.hi[k] : b->hi[k];
        if (hi[k] <= lo[k])
            return 0;
    }
    return 1;
}

/* Copy the cells [lo, hi) between the window's ring[0] of b->f and the caller's buffer. */
static void box_copy(ooc *e, const stn_ooc_boxio *b, const int64_t lo[3], const int64_t hi[3]) {
    stn_view v = stn_ooc_view(e);
    size_t es = (size_t)e->d->elem_size;
    char *win = ooc_win(e, &e->f[b->f], 0);
    for (int64_t z = lo[2]; z < hi[2]; z++)
        for (int64_t y = lo[1]; y < hi[1]; y++)
            for (int64_t x = lo[0]; x < hi[0]; x++) {
                char *g = win + (size_t)((z - v.z0) * v.sz + (y - v.y0) * v.sy + x) * es;
                char *u = b->buf + (ptrdiff_t)((x - b->lo[0]) * b->st[0] + (y - b->lo[1]) * b->st[1] +
                                               (z - b->lo[2]) * b->st[2]) *
                                       (ptrdiff_t)es;
                memcpy(b->write ? g : u, b->write ? u : g, es);
            }
}

static int box_chunk(ooc *e, void *arg) {
    stn_ooc_boxio *b = arg;
    int64_t lo[3], hi[3];
    if (!chunk_and_box(e, b, lo, hi))
        return 0;
    double t0 = stn_now();
    if (!b->write) {
        int rc = load_chunk(e, b->f, b->level, b->src, &b->model_read);
        if (rc == 0) {
            t0 = stn_now();
            box_copy(e, b, lo, hi);
            stn_stats_add_time(&e->res->st, STN_PHASE_COPY, t0);
        }
        return rc;
    }
    /* a write: the rows the box touches, read, patched and written back whole (O_DIRECT moves rows) */
    ooc_field *of = &e->f[b->f];
    int ra = e->plan.r.axis, qa = e->plan.q.axis;
    int64_t r0 = lo[ra], r1 = hi[ra], q0 = lo[qa], q1 = hi[qa];
    stn_gridfile *gf = !of->m->state ? &of->scratch[0][0] : &of->scratch[e->plan.nsweeps % 2][b->level];
    stn_aio_group g = STN_AIO_GROUP_INIT;
    int rc = stn_ooc_io_box(e, 0, gf, of->ring[0], &(ooc_rows){r0, r1, q0, q1}, q0, &g);
    int rc2 = stn_aio_wait(e->q, &g, &e->res->st);
    rc = rc ? rc : rc2;
    if (rc == 0) {
        t0 = stn_now();
        box_copy(e, b, lo, hi);
        stn_stats_add_time(&e->res->st, STN_PHASE_COPY, t0);
        rc = stn_ooc_io_box(e, 1, gf, of->ring[0], &(ooc_rows){r0, r1, q0, q1}, q0, &g);
        rc2 = stn_aio_wait(e->q, &g, &e->res->st);
        rc = rc ? rc : rc2;
    }
    uint64_t bytes = (uint64_t)(r1 - r0) * (uint64_t)(q1 - q0) * e->plan.row_bytes;
    b->model_read += bytes;
    b->model_written += bytes;
    return rc;
}

int stn_ooc_box_io(ooc *e, stn_ooc_boxio *b) {
    b->src = stn_ooc_source_of(&e->model, &e->plan, b->f, b->level, e->plan.nsweeps);
    int level = b->level;
    if (b->src == STN_SRC_COPY) /* no previous level of its own yet: it is the current one */
        b->level = 0, b->src = stn_ooc_source_of(&e->model, &e->plan, b->f, 0, e->plan.nsweeps);
    ooc_field *of = &e->f[b->f];
    int lent = !of->ring[0]; /* (an input read in place has no ring: one for this call, beside the plan) */
    if (lent && !(of->ring[0] = stn_ring_alloc((size_t)e->plan.ring_bytes, e->plan.qplanes)))
        return stn_error(-ENOMEM, "cannot allocate a window for input '%s'", e->d->fields[b->f].name);
    e->exporting = 1;
    int rc = for_chunks(e, box_chunk, b);
    e->exporting = 0;
    if (lent)
        stn_ring_free(of->ring[0], (size_t)e->plan.ring_bytes, e->plan.qplanes), of->ring[0] = NULL;
    b->level = level;
    return rc;
}

/* ------------------------------------------------------------------ the snapshots of the levels at open */

typedef struct snap_job {
    int64_t k;
    uint64_t model; /* the bytes read, as the model counts them */
} snap_job;

/* The chunk in the window, of every field that saves step k: its current level loaded once into ring[0]
 * (from its source, boundary cells set as load_chunk sets them) and put whole (the chunks tile the grid,
 * boundary layer included, so every snapshot cell is put once).  An MPI part (parallel HDF5): the part's
 * own cells of the chunk, at their whole-grid indices. */
static int snap_chunk(ooc *e, void *arg) {
    snap_job *j = arg;
    const stn_part *p = e->r->part;
    stn_box c = stn_ooc_box(e, e->wr0, e->wr1, e->qlo, e->qhi);
    stn_view v = stn_ooc_view(e);
    int64_t base[3] = {0, 0, 0};
    for (int a = 0; p && a < 3; a++) {
        base[a] = p->ax[a].base;
        c.lo[a] = (c.lo[a] > p->ax[a].lo ? c.lo[a] : p->ax[a].lo) + base[a];
        c.hi[a] = (c.hi[a] < p->ax[a].hi ? c.hi[a] : p->ax[a].hi) + base[a];
        if (c.hi[a] <= c.lo[a])
            return 0; /* (none of the part's own cells) */
    }
    v.y0 += base[1], v.z0 += base[2];
    int rc = 0;
    for (int f = 0; rc == 0 && f < e->d->nfields; f++) {
        if (!stn_h5_wants(e->r->snap, f, j->k))
            continue;
        rc = load_chunk(e, f, 0, stn_ooc_source_of(&e->model, &e->plan, f, 0, e->plan.nsweeps), &j->model);
        double t0 = stn_now();
        if (rc == 0)
            rc = stn_h5_put(e->r->snap, f, j->k, &v, ooc_win(e, &e->f[f], 0) - base[0] * e->d->elem_size, &c,
                            NULL, &e->res->st);
        stn_stats_add_time(&e->res->st, STN_PHASE_WRITE, t0);
    }
    return rc;
}

int stn_ooc_snap_levels(ooc *e, int64_t k, uint64_t *model_read) {
    snap_job j = {k, 0};
    e->exporting = 1;
    int rc = for_chunks(e, snap_chunk, &j);
    e->exporting = 0;
    *model_read += j.model;
    return rc;
}
