/* step.c -- the calls of the generated kernels: one step on a box, then its injects and records; the
 * boundary and init functions; each through the part's coordinates (stn_map_call). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kernels/stn_kernels.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void stn_run_boundary_op(const stn_run *r, int field, int op, const stn_view *v, const void *cur, void *next,
                         const stn_box *box) {
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX];
    ptrdiff_t es = r->d->elem_size;
    for (int k = 0, n = stn_map_call(r, v, box, 0, v1, b1, sh, wrap); k < n; k++) {
        const char *c = (const char *)cur - sh[k] * es;
        char *x = (char *)next - sh[k] * es;
        if (r->d->boundary_op)
            r->d->boundary_op(field, op, &v1[k], c, x, &b1[k]);
        else /* (no field of a mixed boundary: stn_desc_check) */
            r->d->boundary(field, &v1[k], c, x, &b1[k]);
    }
}

void stn_run_boundary(const stn_run *r, int field, const stn_view *v, const void *cur, void *next,
                      const stn_box *box) {
    stn_run_boundary_op(r, field, STN_BOUNDARY_ALL, v, cur, next, box);
}

void stn_run_init(const stn_run *r, int field, int level, void *data, const stn_view *v, const stn_box *box) {
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX];
    for (int k = 0, n = stn_map_call(r, v, box, 0, v1, b1, sh, wrap); k < n; k++)
        r->d->init(field, level, (char *)data - sh[k] * (ptrdiff_t)r->d->elem_size, &v1[k], r->o->params,
                   &b1[k]);
}

/* One step's constants: the run, the step index t (< 0: a step that only measures), the kernels' params
 * (the stencil's, t, the series' terms) and one thread's tile. */
typedef struct step_of {
    const stn_run *r;
    int64_t t;
    const double *pv;
    const int64_t *tile;
} step_of;

/* The injections after step t's kernel on `box`, then the records (docs/design/011). */
static void point_ops(const step_of *s, const stn_view *v, const void *const *src, void *const *dst,
                      const stn_box *box, int wrapped) {
    const stn_run *r = s->r;
    const stn_program_desc *d = r->d;
    int64_t t = s->t;
    const double *pv = s->pv;
    for (int k = 0; k < d->ninjects; k++) {
        int s = d->injects[k].points;
        if (r->inputs.wts && r->inputs.wts[s]) /* an off-grid set: weighted corners (stn_desc_check) */
            d->inject_w(k, pv, v, src, dst, box, r->inputs.pts[s], r->inputs.wts[s], r->inputs.npts[s]);
        else
            d->inject(k, pv, v, src, dst, box, r->inputs.pts[s], r->inputs.npts[s]);
    }
    stn_box own = *box; /* a rank records the points of its own slices only (its ghosts' may be stale) */
    if (!stn_part_own_box(r, wrapped, &own))
        return;
    for (int k = 0; t < r->o->steps && k < d->nrecords; k++) {
        int s = d->records[k].points;
        char *row = (char *)r->rec[k] + (size_t)t * (size_t)r->inputs.npts[s] * (size_t)d->elem_size;
        d->record(k, pv, v, src, dst, &own, r->inputs.pts[s], r->inputs.npts[s], row);
    }
}

static int step_call(const step_of *s, const stn_view *v, const void *const *src, void *const *dst,
                     const stn_box *box, int wrapped);

void stn_step_params(const stn_run *r, int64_t t, double *pv) {
    const stn_program_desc *d = r->d;
    for (int k = 0; k < d->nparams; k++)
        pv[k] = r->o->params[k];
    pv[d->nparams] = t < 0 ? 0 : (double)t;
    for (int j = 0; j < d->nterms; j++) {
        const stn_series_term *term = &d->terms[j];
        int64_t i = (t < 0 ? 0 : t) + term->k;
        pv[d->nparams + 1 + j] = r->inputs.series && i >= 0 && i < r->inputs.series_len[term->series]
                                     ? r->inputs.series[term->series][i]
                                     : 0;
    }
}

int stn_step(const stn_run *r, int64_t t, const stn_view *v, const void *const *src, void *const *dst,
             const stn_box *box, const int64_t tile[2]) {
    const stn_program_desc *d = r->d;
    double pv[d->nparams + 1 + d->nterms]; /* the params, t, the series terms (stn_series_term) */
    stn_step_params(r, t, pv);
    const step_of one = {r, t, pv, tile};
    /* a folded 1d grid: the kernels see its cells, the window's pointers moved to its first cell; a
     * rank's slab: the whole grid's coordinates, of a ring in pieces (stn_map_call) */
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX];
    if (r->fold.W || r->part) {
        int n = stn_map_call(r, v, box, 1, v1, b1, sh, wrap), rc = 0;
        for (int k = 0; rc == 0 && k < n; k++) {
            const void *fsrc[d->nsrc + 1];
            void *fdst[d->ndst + 1];
            ptrdiff_t off = sh[k] * (ptrdiff_t)d->elem_size;
            for (int i = 0; i < d->nsrc; i++)
                fsrc[i] = src[i] ? (const char *)src[i] - off : NULL;
            for (int i = 0; i < d->ndst; i++)
                fdst[i] = dst[i] ? (char *)dst[i] - off : NULL;
            rc = step_call(&one, &v1[k], fsrc, fdst, &b1[k], wrap[k]);
        }
        return rc;
    }
    return step_call(&one, v, src, dst, box, 0);
}

/* One call of the step on the kernels' view and box, then the injects and records there (records
 * only where no wrap moved the box: a rank records its own slices, never ghosts). */
static int step_call(const step_of *s, const stn_view *v, const void *const *src, void *const *dst,
                     const stn_box *box, int wrapped) {
    const stn_run *r = s->r;
    const stn_program_desc *d = r->d;
    int64_t t = s->t;
    const double *pv = s->pv;
    const int64_t *tile = s->tile;
    const void *all[d->nsrc + d->nalong + 1]; /* the grid slots, then the inputs along an axis */
    if (d->nalong) {
        for (int k = 0; k < d->nsrc; k++)
            all[k] = src[k];
        for (int j = 0; j < d->nalong; j++)
            all[d->nsrc + j] = r->inputs.along ? r->inputs.along[j] : NULL;
        src = all;
    }
    /* (t < 0: a rate measured on a grid of its own, where the points are not) */
    const int64_t *const *pts = t >= 0 ? (const int64_t *const *)r->inputs.pts : NULL;
    const int64_t *np = pts ? r->inputs.npts : NULL;
    int rc = d->step_pts_w ? d->step_pts_w(pv, v, src, dst, box, tile[0], tile[1], pts, np,
                                           pts ? (const double *const *)r->inputs.wts : NULL)
             : d->step_pts ? d->step_pts(pv, v, src, dst, box, tile[0], tile[1], pts, np)
                           : d->step(pv, v, src, dst, box, tile[0], tile[1]);
    if (rc == 0 && t >= 0 && r->inputs.pts) {
        /* a wrapped sweep's box runs on past H along the axis the engine wraps (v->own_axes): its
         * points there are those an interior's width below, held at the same memory */
        int ax = v->own_axes & 4 ? 2 : v->own_axes & 2 ? 1 : -1;
        int64_t H = ax < 0 ? 0 : (ax == 2 ? v->nz : v->ny) - d->halo_hi[ax],
                P = ax < 0 ? 0 : H - d->halo_lo[ax];
        if (ax >= 0 && box->hi[ax] > H) {
            stn_box below = *box, past = *box;
            stn_view w = *v;
            below.hi[ax] = H;
            past.lo[ax] = (box->lo[ax] > H ? box->lo[ax] : H) - P;
            past.hi[ax] -= P;
            if (ax == 2)
                w.z0 -= P;
            else
                w.y0 -= P;
            if (below.hi[ax] > below.lo[ax])
                point_ops(s, v, src, dst, &below, wrapped);
            point_ops(s, &w, src, dst, &past, wrapped);
        } else {
            point_ops(s, v, src, dst, box, wrapped);
        }
    }
    if (rc)
        return stn_error(rc < 0 ? rc : -EIO,
                         "the kernel of '%s' failed on cells [%" PRId64 ",%" PRId64 ") x [%" PRId64
                         ",%" PRId64 ") x [%" PRId64 ",%" PRId64 ") of rows %" PRId64
                         " cells long: %s (the scratch of its "
                         "sub-steps' cache tiles could not be allocated)",
                         r->d->name, box->lo[0], box->hi[0], box->lo[1], box->hi[1], box->lo[2], box->hi[2],
                         v->nx, strerror(rc < 0 ? -rc : EIO));
    return 0;
}
