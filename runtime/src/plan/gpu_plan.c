/* gpu_plan.c -- the GPU tier's plan and its exact byte model (stn_gpu.h, docs/design/024-gpu-tier.md). */
#include "plan/stn_gpu.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define BT_MAX 64 /* the most steps a sweep of gpu-ooc is given when the plan chooses */
#define STREAMS_DEFAULT 3

int stn_gpu_axis(const stn_program_desc *d) { return d->dims == 1 ? 0 : d->ndim == 3 ? 2 : 1; }

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
    *w0 = max64(0, z0 - T * p->rlo);
    *w1 = min64(p->n, z1 + T * p->rhi);
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
    for (int i = 0; i < d->nalong; i++)
        p->along_bytes += (uint64_t)d->elem_size * (uint64_t)q->size[d->alongs[i].axis];
    p->host_bytes = (uint64_t)(2 * levels + inputs) * (uint64_t)p->n * (uint64_t)p->plane_bytes;
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
        const int64_t shrink = (w0 == 0 ? 0 : p->rlo) + (w1 == p->n ? 0 : p->rhi);
        cells += (uint64_t)(T * (w1 - w0) - shrink * T * (T + 1) / 2);
    }
    p->h2d_bytes += up * (uint64_t)times;
    p->d2h_bytes += down * (uint64_t)times;
    p->planes_computed += cells * (uint64_t)times;
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
        for (int f = 0; f < q->d->nfields; f++)
            if (q->d->fields[f].kind == STN_FIELD_STATE && (q->d->fields[f].periodic & (1 << p->axis)))
                return stn_error(
                    -ENOTSUP,
                    "--mode gpu-ooc: field '%s' is periodic along %c, the axis the blocks "
                    "stream along: it needs the whole grid in --gpu-mem (docs/design/024-gpu-tier.md)",
                    q->d->fields[f].name, "xyz"[p->axis]);
    }
    p->bt = bt;
    p->nsweeps = q->steps == 0 ? 0 : (q->steps + bt - 1) / bt;
    p->points_bytes = q->points_bytes;
    p->sample_step_bytes = q->sample_step_bytes;
    p->sample_rows = sample_rows(p);
    const int64_t widest = max64(p->bz, p->n - (p->nblocks - 1) * p->bz); /* (the last block may be wider) */
    p->window_max = p->nblocks <= 1 ? p->n : min64(p->n, widest + bt * (p->rlo + p->rhi));
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
    const int64_t plane_cells = p->plane_bytes / q->d->elem_size;
    const double up = (double)p->h2d_bytes / (q->h2d_bps > 0 ? q->h2d_bps : 25e9);
    const double down = (double)p->d2h_bytes / (q->d2h_bps > 0 ? q->d2h_bps : 25e9);
    const double kern = (double)p->planes_computed * (double)plane_cells * (double)p->dev_arrays *
                        (double)q->d->elem_size / (q->dev_bps > 0 ? q->dev_bps : 2e12);
    if (p->nblocks <= 1)
        p->predicted_s = up + down + kern; /* in core: in, compute, out */
    else
        p->predicted_s = up > down ? (up > kern ? up : kern) : (down > kern ? down : kern);
    return 0;
}

static int better(const stn_gpu_plan *a, const stn_gpu_plan *b) {
    if (a->predicted_s != b->predicted_s)
        return a->predicted_s < b->predicted_s;
    if (a->h2d_bytes + a->d2h_bytes != b->h2d_bytes + b->d2h_bytes)
        return a->h2d_bytes + a->d2h_bytes < b->h2d_bytes + b->d2h_bytes;
    return a->bz > b->bz;
}

int stn_gpu_plan_for(const stn_gpu_request *q, stn_gpu_plan *p) {
    int rc = geometry(q, p);
    if (rc)
        return rc;
    const stn_gpu_plan g = *p;
    if (q->bz > 0 || q->bt > 0) { /* as given (a missing one: the whole grid, or one step) */
        rc = stn_gpu_make_plan(q, q->bz > 0 ? q->bz : g.n, q->bt > 0 ? q->bt : 1, p);
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
    for (int f = 0; f < q->d->nfields; f++) /* (past one block: refused whatever the budget) */
        if (q->d->fields[f].kind == STN_FIELD_STATE && (q->d->fields[f].periodic & (1 << g.axis)))
            return stn_error(-ENOTSUP,
                             "--mode gpu-ooc: field '%s' is periodic along %c, the axis the blocks "
                             "stream along: it needs the whole grid in --gpu-mem, %" PRIu64 " bytes "
                             "(docs/design/024-gpu-tier.md)",
                             q->d->fields[f].name, "xyz"[g.axis], p -> dev_bytes);
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
        const int64_t top = w >= g.n ? g.n - 1 : w - bt * (g.rlo + g.rhi);
        if (top < need)
            break; /* (a longer sweep needs a wider window still) */
        for (int64_t bz = need; bz <= top && bz < g.n; bz++) { /* every block size: two blocks or more */
            if (stn_gpu_make_plan(q, bz, bt, &cand) == 0 && cand.dev_bytes <= q->gpu_mem &&
                (!found || better(&cand, &best)))
                best = cand, found = 1;
        }
    }
    if (!found) {
        const int64_t w = min64(g.n, need + g.rlo + g.rhi);
        return stn_error(-ENOMEM,
                         "--gpu-mem %" PRIu64 " bytes is below the smallest plan: %" PRId64
                         " planes of %" PRId64 " bytes for each of %d arrays in each of %d streams, %" PRIu64
                         " bytes",
                         q->gpu_mem, w, g.plane_bytes, g.dev_arrays, g.streams,
                         (uint64_t)w * slot_plane + g.along_bytes + q->points_bytes + q->sample_step_bytes);
    }
    *p = best;
    return 0;
}
