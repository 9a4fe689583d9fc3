/* gpu_plan.c -- the GPU tier's plan and its exact byte model (stn_gpu.h, docs/design/024-gpu-tier.md). */
#include "plan/stn_gpu.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define BT_MAX 64 /* the most steps a sweep of gpu-ooc is given when the plan chooses */
#define STREAMS_DEFAULT 3

int stn_gpu_axis(const stn_program_desc *d) { return d->dims == 1 ? 0 : d->ndim == 3 ? 2 : 1; }

/* The best plan of tiles within q's budget, into *best when better (or none was *found): below. */
static void choose_tiles(const stn_gpu_request *q, const stn_gpu_plan *g, stn_gpu_plan *best, int *found);

/* Whether a state field of d is periodic along y (a wrap along y needs its far side: whole planes). */
static int periodic_y(const stn_program_desc *d) {
    for (int f = 0; f < d->nfields; f++)
        if (d->fields[f].kind == STN_FIELD_STATE && (d->fields[f].periodic & 2))
            return 1;
    return 0;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

void stn_gpu_block(const stn_gpu_plan *p, int64_t k, int64_t *z0, int64_t *z1) {
    *z0 = p->nblocks <= 1 ? 0 : k * p->bz;
    *z1 = p->nblocks <= 1 || k == p->nblocks - 1 ? p->n : *z0 + p->bz;
}

void stn_gpu_window(const stn_gpu_plan *p, int64_t k, int64_t T, int64_t *w0, int64_t *w1) {
    if (p->nblocks <= 1) {
        *w0 = 0, *w1 = p->n;
        return;
    }
    int64_t z0, z1;
    stn_gpu_block(p, k, &z0, &z1);
    *w0 = p->wrap ? z0 - T * p->rlo : max64(0, z0 - T * p->rlo); /* (wrapped: unrolled past the faces) */
    *w1 = p->wrap ? z1 + T * p->rhi : min64(p->n, z1 + T * p->rhi);
}

/* The arrays of the program: state levels (downloaded) and inputs read (kept once on the host). */
static void count_arrays(const stn_program_desc *d, int *state_levels, int *inputs) {
    *state_levels = *inputs = 0;
    for (int f = 0; f < d->nfields; f++) {
        if (d->fields[f].kind == STN_FIELD_STATE)
            *state_levels += d->fields[f].levels;
        else if (d->fields[f].src_slot >= 0)
            (*inputs)++;
    }
}

/* The geometry of q, before bz and bt: the streamed axis, its reach, a plane's bytes, the arrays. */
static int geometry(const stn_gpu_request *q, stn_gpu_plan *p) {
    const stn_program_desc *d = q->d;
    memset(p, 0, sizeof *p);
    if (!d || (d->ndim != 2 && d->ndim != 3) || q->steps < 0)
        return stn_error(-EINVAL, "gpu plan: a 2d or 3d program and steps >= 0 are needed");
    const int a = stn_gpu_axis(d);
    p->axis = a;
    p->n = q->size[a];
    p->rlo = d->reach_lo[a] > d->halo_lo[a] ? d->reach_lo[a] : d->halo_lo[a];
    p->rhi = d->reach_hi[a] > d->halo_hi[a] ? d->reach_hi[a] : d->halo_hi[a];
    p->L = d->halo_lo[a];
    p->H = p->n - d->halo_hi[a];
    p->plane_bytes = d->elem_size; /* (a 1d grid's "planes" are its cells) */
    for (int e = 0; e < a; e++)
        p->plane_bytes *= q->size[e];
    if (p->n < 1 || p->plane_bytes < 1 || p->H <= p->L)
        return stn_error(-EINVAL, "gpu plan: the grid %" PRId64 " along %c has no interior", p->n, "xyz"[a]);
    int levels, inputs;
    count_arrays(d, &levels, &inputs);
    p->in_arrays = d->nsrc;
    p->out_arrays = levels;
    p->dev_arrays = d->nsrc + d->ndst;
    p->streams = q->streams > 0 ? q->streams : STREAMS_DEFAULT;
    p->steps = q->steps;
    for (int k = 0; k < 3; k++)
        p->along_n[k] = q->along_n[k] > 0 ? q->along_n[k] : q->size[k];
    for (int i = 0; i < d->nalong; i++)
        p->along_bytes += (uint64_t)d->elem_size * (uint64_t)p->along_n[d->alongs[i].axis];
    p->host_bytes = (uint64_t)(2 * levels + inputs) * (uint64_t)p->n * (uint64_t)p->plane_bytes;
    stn_gpu_rows_geometry(q, p);
    return 0;
}

/* The thinnest block past one: twice the boundary layer, so that a face block holds the planes a neumann
 * boundary mirrors its layer from (L .. 2L - 1), computed in the same step.  A remainder thinner than
 * that joins the last block (which is then up to bz + min_block - 1 planes). */
static int64_t min_block(const stn_gpu_plan *p) { return max64(1, 2 * max64(p->L, p->n - p->H)); }

/* The bytes and cells of one sweep of T steps over every block, added to p `times` times.  Step s of a
 * block computes its window less s rlo below and s rhi above (not at the grid's faces): a sum over s
 * in closed form, as the region never empties (it keeps the block's own planes, stn_gpu_window). */
static void add_sweeps(stn_gpu_plan *p, int64_t T, int64_t times) {
    if (T < 1 || times < 1)
        return;
    uint64_t up = 0, down = 0, cells = 0;
    for (int64_t k = 0; k < p->nblocks; k++) {
        int64_t w0, w1;
        stn_gpu_window(p, k, T, &w0, &w1);
        int64_t z0, z1;
        stn_gpu_block(p, k, &z0, &z1);
        up += (uint64_t)p->in_arrays * (uint64_t)(w1 - w0) * (uint64_t)p->plane_bytes;
        down += (uint64_t)p->out_arrays * (uint64_t)(z1 - z0) * (uint64_t)p->plane_bytes;
        int64_t v0, v1; /* the region shrinks by rlo and rhi a step where it does at all */
        stn_gpu_region(p, w0, w1, 1, &v0, &v1);
        const int64_t shrink = (v0 - w0) + (w1 - v1);
        cells += (uint64_t)(T * (w1 - w0) - shrink * T * (T + 1) / 2);
    }
    p->h2d_bytes += up * (uint64_t)times;
    p->d2h_bytes += down * (uint64_t)times;
    p->planes_computed += cells * (uint64_t)times;
    p->cells_computed += cells * (uint64_t)times * (uint64_t)p->plane_cells;
}

/* The steps of samples the device holds: a sweep's (they come down when its blocks are done); in core, a
 * run's at most STN_GPU_SAMPLE_CHUNK bytes of them (brought down each time they fill), at least one step. */
static int64_t sample_rows(const stn_gpu_plan *p) {
    if (!p->sample_step_bytes || p->steps < 1)
        return 0;
    if (p->nblocks > 1)
        return min64(p->bt, p->steps);
    return max64(1, min64(p->steps, (int64_t)(STN_GPU_SAMPLE_CHUNK / p->sample_step_bytes)));
}

int stn_gpu_make_plan(const stn_gpu_request *q, int64_t bz, int64_t bt, stn_gpu_plan *p) {
    int rc = geometry(q, p);
    if (rc)
        return rc;
    if (bz < 1 || bt < 1)
        return stn_error(-EINVAL, "gpu plan: blocks of %" PRId64 " planes and %" PRId64 " steps per sweep",
                         bz, bt);
    p->bz = min64(bz, p->n);
    p->nblocks = (p->n + p->bz - 1) / p->bz;
    if (p->nblocks > 1 && p->n - (p->nblocks - 1) * p->bz < min_block(p))
        p->nblocks--;      /* a remainder thinner than min_block joins the last block */
    if (p->nblocks == 1) { /* in core: the whole run is one sweep */
        p->bz = p->n;
        bt = max64(q->steps, 1);
    } else {
        const int64_t need = min_block(p);
        if (p->bz < need)
            return stn_error(-EINVAL,
                             "gpu plan: blocks of %" PRId64 " planes are thinner than twice the boundary "
                             "layer (%" PRId64 ")",
                             p->bz, need);
        rc = stn_gpu_wrap_refusal(q->d, p->axis, q->size, &p->wrap);
        if (rc)
            return rc;
    }
    p->bt = bt;
    p->nsweeps = q->steps == 0 ? 0 : (q->steps + bt - 1) / bt;
    p->points_bytes = q->points_bytes;
    p->sample_step_bytes = q->sample_step_bytes;
    p->sample_rows = sample_rows(p);
    const int64_t widest = max64(p->bz, p->n - (p->nblocks - 1) * p->bz); /* (the last block may be wider) */
    p->window_max = p->nblocks <= 1 ? p->n
                    : p->wrap       ? widest + bt * (p->rlo + p->rhi)
                                    : min64(p->n, widest + bt * (p->rlo + p->rhi));
    const int slots = p->nblocks <= 1 ? 1 : p->streams;
    p->dev_bytes =
        (uint64_t)slots * (uint64_t)p->dev_arrays * (uint64_t)p->window_max * (uint64_t)p->plane_bytes +
        p->along_bytes + p->points_bytes + (uint64_t)p->sample_rows * p->sample_step_bytes;
    p->pinned_bytes =
        (uint64_t)slots *
            ((uint64_t)p->in_arrays * (uint64_t)p->window_max + (uint64_t)p->out_arrays * (uint64_t)widest) *
            (uint64_t)p->plane_bytes +
        p->points_bytes + (uint64_t)p->sample_rows * p->sample_step_bytes;
    if (p->nsweeps > 0) { /* nsweeps - 1 sweeps of bt steps, and the last of what is left */
        add_sweeps(p, bt, p->nsweeps - 1);
        add_sweeps(p, q->steps - (p->nsweeps - 1) * bt, 1);
    }
    p->h2d_bytes += p->along_bytes + p->points_bytes;
    p->d2h_bytes += (uint64_t)q->steps * p->sample_step_bytes; /* every step's samples, once */
    p->predicted_s = stn_gpu_predict(q, p);
    return 0;
}

double stn_gpu_predict(const stn_gpu_request *q, const stn_gpu_plan *p) {
    const double up = (double)p->h2d_bytes / (q->h2d_bps > 0 ? q->h2d_bps : 25e9);
    const double down = (double)p->d2h_bytes / (q->d2h_bps > 0 ? q->d2h_bps : 25e9);
    const double kern = (double)p->cells_computed * (double)p->dev_arrays * (double)q->d->elem_size /
                        (q->dev_bps > 0 ? q->dev_bps : 2e12);
    if (p->nblocks <= 1)
        return up + down + kern; /* in core: in, compute, out */
    return up > down ? (up > kern ? up : kern) : (down > kern ? down : kern);
}

int stn_gpu_better(const stn_gpu_plan *a, const stn_gpu_plan *b) {
    if (a->predicted_s != b->predicted_s)
        return a->predicted_s < b->predicted_s;
    if (a->h2d_bytes + a->d2h_bytes != b->h2d_bytes + b->d2h_bytes)
        return a->h2d_bytes + a->d2h_bytes < b->h2d_bytes + b->d2h_bytes;
    return a->bz * a->by > b->bz * b->by; /* (the larger blocks) */
}

int stn_gpu_plan_for(const stn_gpu_request *q, stn_gpu_plan *p) {
    int rc = geometry(q, p);
    if (rc)
        return rc;
    const stn_gpu_plan g = *p;
    if (q->bz > 0 || q->bt > 0) { /* as given (a missing one: the whole grid, or one step) */
        rc = stn_gpu_make_tiled(q, q->bz > 0 ? q->bz : g.n, q->by, q->bt > 0 ? q->bt : 1, p);
        if (!rc && p->dev_bytes > q->gpu_mem)
            return stn_error(-ENOMEM,
                             "--gpu-mem %" PRIu64 " bytes: the plan of %" PRId64 " planes and %" PRId64
                             " steps per sweep needs %" PRIu64,
                             q->gpu_mem, p->bz, p->bt, p->dev_bytes);
        return rc;
    }
    rc = stn_gpu_make_plan(q, g.n, 1, p); /* in core, when it fits */
    if (rc == 0 && p->dev_bytes <= q->gpu_mem)
        return 0;
    int wraps; /* (past one block: refused whatever the budget, unless the windows wrap) */
    rc = stn_gpu_wrap_refusal(q->d, g.axis, q->size, &wraps);
    if (rc)
        return rc;
    const uint64_t slot_plane = (uint64_t)g.streams * (uint64_t)g.dev_arrays * (uint64_t)g.plane_bytes;
    const int64_t need = min_block(&g);
    stn_gpu_plan best, cand;
    int found = 0;
    for (int64_t bt = 1; bt <= min64(max64(q->steps, 1), BT_MAX); bt++) {
        const uint64_t fixed = g.along_bytes + q->points_bytes + (uint64_t)bt * q->sample_step_bytes;
        if (q->gpu_mem <= fixed)
            break;
        const int64_t w = (int64_t)((q->gpu_mem - fixed) / slot_plane); /* the widest window */
        /* a window clipped at the grid's faces (w >= n): every block size fits, whatever bt's cone */
        const int64_t top = w >= g.n && !wraps ? g.n - 1 : w - bt * (g.rlo + g.rhi);
        if (top < need)
            break; /* (a longer sweep needs a wider window still) */
        for (int64_t bz = need; bz <= top && bz < g.n; bz++) { /* every block size: two blocks or more */
            if (stn_gpu_make_plan(q, bz, bt, &cand) == 0 && cand.dev_bytes <= q->gpu_mem &&
                (!found || stn_gpu_better(&cand, &best)))
                best = cand, found = 1;
        }
    }
    if (q->tiles && !wraps) /* (a wrapped window is of whole planes: stn_gpu_make_tiled) */
        choose_tiles(q, &g, &best, &found);
    if (!found) {
        const int64_t w = min64(g.n, need + g.rlo + g.rhi);
        /* (with tiles: planes of the thinnest tile's window of rows) */
        const int tiled =
            q->tiles && !wraps && !periodic_y(q->d) && g.axis == 2 && g.ny >= 2 * stn_gpu_min_rows(&g);
        const int64_t wy = tiled ? min64(g.ny, stn_gpu_min_rows(&g) + g.yrlo + g.yrhi) : g.ny;
        return stn_error(
            -ENOMEM,
            "--gpu-mem %" PRIu64 " bytes is below the smallest plan: %" PRId64 " planes of %" PRId64
            " bytes%s for each of %d arrays in each of %d streams, %" PRIu64 " bytes",
            q->gpu_mem, w, wy * g.row_bytes, tiled ? " (a tile's rows)" : "", g.dev_arrays, g.streams,
            (uint64_t)(w * wy * g.row_bytes) * (uint64_t)g.streams * (uint64_t)g.dev_arrays + g.along_bytes +
                q->points_bytes + q->sample_step_bytes);
    }
    *p = best;
    return 0;
}

/* ------------------------------------------------------------------ tiles: the blocks cut along y as well
 * (gpu_tiles.c: their rows; docs/design/024-gpu-tier.md §3d) */

/* Σ over the blocks (along z) of a sweep of T steps: the windows' planes (*w) and how many planes the
 * regions lose each step (*sh: the reach, on each side not at a face). */
static void z_sums(const stn_gpu_plan *p, int64_t T, int64_t *w, int64_t *sh) {
    *w = *sh = 0;
    for (int64_t k = 0; k < p->nblocks; k++) {
        int64_t w0, w1;
        stn_gpu_window(p, k, T, &w0, &w1);
        int64_t v0, v1; /* (the region shrinks by rlo and rhi a step where it does at all) */
        stn_gpu_region(p, w0, w1, 1, &v0, &v1);
        *w += w1 - w0, *sh += (v0 - w0) + (w1 - v1);
    }
}

/* One sweep of T steps over every tile, `times` times: the bytes up, the planes and cells computed. */
static void tiled_sweeps(stn_gpu_plan *p, int64_t T, int64_t times) {
    if (T < 1 || times < 1)
        return;
    int64_t az, bz, ay, by;
    z_sums(p, T, &az, &bz);
    stn_gpu_rows_sums(p, T, &ay, &by);
    p->h2d_bytes += (uint64_t)times * (uint64_t)p->in_arrays * (uint64_t)p->row_bytes * (uint64_t)(az * ay);
    p->planes_computed += (uint64_t)times * (uint64_t)p->nyb * (uint64_t)(T * az - bz * T * (T + 1) / 2);
    p->cells_computed +=
        (uint64_t)times * (uint64_t)stn_gpu_cone_sum(az, bz, ay, by, T) * (uint64_t)(p->plane_cells / p->ny);
}

/* The fixed device bytes of a plan past one block: the inputs along an axis, the points, a sweep's samples.
 */
static uint64_t fixed_bytes(const stn_gpu_plan *p) {
    return p->along_bytes + p->points_bytes + (uint64_t)p->sample_rows * p->sample_step_bytes;
}

int stn_gpu_make_tiled(const stn_gpu_request *q, int64_t bz, int64_t by, int64_t bt, stn_gpu_plan *p) {
    int rc = stn_gpu_make_plan(q, bz, bt, p);
    if (rc || by <= 0 || by >= p->ny || p->nblocks <= 1 || p->axis != 2)
        return rc; /* whole planes */
    if (by < stn_gpu_min_rows(p))
        return stn_error(-EINVAL,
                         "gpu plan: tiles of %" PRId64
                         " rows are thinner than twice the boundary layer (%" PRId64 ")",
                         by, stn_gpu_min_rows(p));
    for (int f = 0; f < q->d->nfields; f++)
        if (q->d->fields[f].kind == STN_FIELD_STATE && (q->d->fields[f].periodic & 2))
            return stn_error(-ENOTSUP,
                             "--mode gpu-ooc: field '%s' is periodic along y: tiles cut along y are not "
                             "carried (docs/design/024-gpu-tier.md)",
                             q->d->fields[f].name);
    for (int f = 0; p->wrap && f < q->d->nfields; f++) /* (p->wrap: every state field is periodic along z) */
        if (q->d->fields[f].kind == STN_FIELD_STATE)
            return stn_error(
                -ENOTSUP,
                "--mode gpu-ooc: field '%s' is periodic along z, the axis the blocks stream along: "
                "its windows wrap, and tiles cut along y are not carried with wrapped windows "
                "(docs/design/024-gpu-tier.md)",
                q->d->fields[f].name);
    if (stn_gpu_tiles_of(p, by) <= 1)
        return 0; /* (one tile: whole planes) */
    p->by = by, p->nyb = stn_gpu_tiles_of(p, by);
    const int64_t widest = max64(p->bz, p->n - (p->nblocks - 1) * p->bz);
    const int64_t widest_y = max64(by, p->ny - (p->nyb - 1) * by);
    p->wy_max = min64(p->ny, widest_y + p->bt * (p->yrlo + p->yrhi));
    const uint64_t rb = (uint64_t)p->row_bytes;
    p->dev_bytes = (uint64_t)p->streams * (uint64_t)p->dev_arrays * stn_gpu_slot_bytes(p) + fixed_bytes(p);
    p->pinned_bytes = (uint64_t)p->streams *
                          ((uint64_t)p->in_arrays * (uint64_t)(p->window_max * p->wy_max) +
                           (uint64_t)p->out_arrays * (uint64_t)(widest * widest_y)) *
                          rb +
                      p->points_bytes + (uint64_t)p->sample_rows * p->sample_step_bytes;
    p->h2d_bytes = p->along_bytes + p->points_bytes; /* (the bytes down are the blocks' own, as before) */
    p->planes_computed = p->cells_computed = 0;
    if (p->nsweeps > 0) {
        tiled_sweeps(p, p->bt, p->nsweeps - 1);
        tiled_sweeps(p, p->steps - (p->nsweeps - 1) * p->bt, 1);
    }
    p->predicted_s = stn_gpu_predict(q, p);
    return 0;
}

/* The model's time of plan m (whole planes, bt steps a sweep) cut into tiles e: as stn_gpu_make_tiled and
 * stn_gpu_predict compute it, from the sums alone (*bytes: what it moves). */
static double tiled_time(const stn_gpu_request *q, const stn_gpu_plan *m, const int64_t z[4],
                         const stn_gpu_rows_sums_ *e, uint64_t *bytes) {
    const int64_t T = m->bt, full = m->nsweeps > 0 ? m->nsweeps - 1 : 0, Tl = m->steps - full * T;
    const int64_t az = z[0], bz = z[1], azl = z[2], bzl = z[3];
    const uint64_t up = (uint64_t)m->in_arrays * (uint64_t)m->row_bytes *
                            ((uint64_t)full * (uint64_t)(az * e->a) + (uint64_t)(azl * e->al)) +
                        m->along_bytes + m->points_bytes;
    const uint64_t cells = ((uint64_t)full * (uint64_t)stn_gpu_cone_sum(az, bz, e->a, e->b, T) +
                            (uint64_t)stn_gpu_cone_sum(azl, bzl, e->al, e->bl, Tl)) *
                           (uint64_t)(m->plane_cells / m->ny);
    stn_gpu_plan t = *m;
    t.h2d_bytes = up, t.cells_computed = cells;
    *bytes = up + m->d2h_bytes;
    return stn_gpu_predict(q, &t);
}

static void choose_tiles(const stn_gpu_request *q, const stn_gpu_plan *g, stn_gpu_plan *best, int *found) {
    if (g->axis != 2 || g->ny < 2 * stn_gpu_min_rows(g) || periodic_y(q->d))
        return;
    stn_gpu_rows_sums_ *t = calloc((size_t)g->ny, sizeof *t);
    if (!t)
        return; /* (whole planes only) */
    const uint64_t slot_row = (uint64_t)g->streams * (uint64_t)g->dev_arrays * (uint64_t)g->row_bytes;
    const int64_t need = min_block(g);
    stn_gpu_plan m, cand;
    for (int64_t bt = 1; bt <= min64(max64(q->steps, 1), BT_MAX); bt++) {
        const int64_t full = q->steps > 0 ? (q->steps + bt - 1) / bt - 1 : 0; /* (steps 0: nothing moves) */
        stn_gpu_rows_table(g, bt, q->steps - full * bt, t);
        for (int64_t bz = need; bz < g->n; bz++) {
            if (stn_gpu_make_plan(q, bz, bt, &m) != 0 || m.nblocks <= 1)
                continue;
            const uint64_t fixed = fixed_bytes(&m);
            if (fixed + slot_row * (uint64_t)(bz * stn_gpu_min_rows(g)) > q->gpu_mem)
                break; /* (a window holds at least its block's planes of the thinnest tile's rows) */
            int64_t z[4];
            z_sums(&m, bt, &z[0], &z[1]);
            z_sums(&m, m.steps - full * bt, &z[2], &z[3]);
            for (int64_t by = stn_gpu_min_rows(g); by < g->ny; by++) {
                const stn_gpu_rows_sums_ *e = &t[by];
                uint64_t bytes;
                if (!e->ok || fixed + slot_row * (uint64_t)(m.window_max * e->wy_max) > q->gpu_mem)
                    continue;
                const double s = tiled_time(q, &m, z, e, &bytes);
                if (*found && (s > best->predicted_s ||
                               (s == best->predicted_s && bytes > best->h2d_bytes + best->d2h_bytes)))
                    continue;
                if (stn_gpu_make_tiled(q, bz, by, bt, &cand) == 0 && cand.dev_bytes <= q->gpu_mem &&
                    (!*found || stn_gpu_better(&cand, best)))
                    *best = cand, *found = 1;
            }
        }
    }
    free(t);
}
