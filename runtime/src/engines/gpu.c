/* gpu.c -- --mode gpu and --mode gpu-ooc (docs/design/024-gpu-tier.md): the grid's levels live in pinned
 * host memory, held by the in-core engine (engines/incore.c: the initial values, box, --out), and each
 * advance runs the schedule of engines/gpu_sched.c on the device through the program's CUDA entry points
 * (stn_program_desc.cuda, filled by the generated NAME_cuda_api.cu of a program built with --target cuda;
 * a program built without them is refused at its command line, base/args_check.c).
 *
 * --mode gpu: one block, the whole grid on the device (a plan of one slot), every step of an advance in
 * one sweep: up once, the steps, down once.  --mode gpu-ooc: the plan of stn_gpu_plan_for within
 * --gpu-mem (else the device's free memory), blocks of bz planes advanced bt steps each on 3 streams.
 * Both count the bytes of every copy (the report's `gpu` object) against the plan's prediction.
 *
 * MPI (one GPU per rank): the rank takes device (its rank on the machine) mod (the machine's devices); the
 * in-core engine holds the rank's part with its ghosts (mpi/part.c) and runs the advance in chunks as deep as
 * the ghosts, the ghosts exchanged on the host arrays between them (stn_incore_set_loop): each chunk is an
 * advance of the schedule over the part (up, its steps, down), its kernels in the whole grid's coordinates
 * (stn_map_call, as kernels/step.c), and the plans' bytes, chunk by chunk, are the prediction. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_gpu_sched.h"
#include "engines/stn_incore.h"
#include "kernels/stn_kernels.h"
#include "mpi/stn_part.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define GPU_STREAMS 3

typedef struct gpu {
    void *in; /* the in-core engine on pinned memory: the levels between advances */
    const stn_run *r;
    stn_result *res;
    const stn_cuda_ops *cu;
    const char *mode;
    int device, devices;           /* the device this process runs on, of how many on its machine */
    int ooc;                       /* gpu-ooc: blocks within the budget; else one block or a refusal */
    void *ctx;                     /* the CUDA entry points' (streams) */
    uint64_t free_bytes;           /* the device's free memory at open */
    void **slot, **spare, **other; /* [nsrc + nalong]: the levels (then the inputs along an axis), the in-core
                                      spares, the second copies */
    double *pv;                    /* the kernels' params at the step being queued */
    int64_t t0;                    /* the first step of the advance running */
    /* Sources and receivers, for the advance running (docs/design/024-gpu-tier.md): the point sets on the
     * device (pts[s], wts[s]: NULL for a set no inject or record uses, or of no weights), the samples on the
     * device (samp[k]: sample_rows rows of record k's points), the pinned staging of both. */
    int64_t **pts;
    double **wts;
    void **samp;
    void *dev_points, *dev_samples, *pin_points, *pin_samples;
    uint64_t points_bytes, sample_step_bytes, pin_points_bytes, pin_samples_bytes;
    int64_t sample_rows;
} gpu;

/* ------------------------------------------------------------------ pinned host memory
 * The in-core engine's arrays, and the second copies of the levels, are pinned (cudaMallocHost), so the
 * copies run asynchronously; counted as engine memory (base/alloc.c), as every engine's. */

static const stn_cuda_ops *pin_ops; /* the program's entry points (one program a process) */
static uint64_t pinned_now;

static int pin_alloc(const stn_run *r, int f, int b, size_t bytes, void **out) {
    (void)r, (void)f, (void)b;
    *out = NULL;
    if (pin_ops->host_alloc(out, bytes) != 0)
        *out = NULL;
    if (*out) {
        stn_mem_account((int64_t)bytes);
        pinned_now += bytes;
    }
    return 0;
}

static void pin_release(void *p, size_t bytes) {
    if (!p)
        return;
    pin_ops->host_free(p);
    stn_mem_account(-(int64_t)bytes);
    pinned_now -= bytes;
}

static const stn_incore_kind pinned_gpu = {"gpu", NULL, pin_alloc, pin_release, NULL};
static const stn_incore_kind pinned_gpu_ooc = {"gpu-ooc", NULL, pin_alloc, pin_release, NULL};

/* ------------------------------------------------------------------ the device table over CUDA */

static int cuda_failed(gpu *g, int rc, const char *what) {
    if (rc == 0)
        return 0;
    return stn_error(rc, "--mode %s: %s failed: %s", g->mode, what, g->cu->error());
}

static int d_alloc(void *c, void **ptr, uint64_t bytes) {
    gpu *g = c;
    int rc = g->cu->dev_alloc(g->ctx, ptr, bytes, 0);
    if (rc == -ENOMEM) {
        char b[32];
        return stn_error(rc, "--mode %s: the device has no %s left (%s)", g->mode,
                         stn_fmt_bytes(b, sizeof b, bytes), g->cu->error());
    }
    return cuda_failed(g, rc, "cudaMallocAsync");
}

static void d_release(void *c, void *ptr) {
    gpu *g = c;
    g->cu->dev_free(g->ctx, ptr, 0);
}

static int d_up(void *c, void *dev, const void *host, uint64_t bytes, int st) {
    gpu *g = c;
    g->res->gpu.h2d += bytes; /* counted at the copy */
    return cuda_failed(g, g->cu->copy(g->ctx, dev, host, bytes, 1, st), "cudaMemcpyAsync (up)");
}

static int d_down(void *c, void *host, const void *dev, uint64_t bytes, int st) {
    gpu *g = c;
    g->res->gpu.d2h += bytes;
    return cuda_failed(g, g->cu->copy(g->ctx, host, dev, bytes, 0, st), "cudaMemcpyAsync (down)");
}

static int d_copy2d(void *c, void *dst, uint64_t dpitch, const void *src, uint64_t spitch, uint64_t width,
                    uint64_t height, int up, int st) {
    gpu *g = c;
    *(up ? &g->res->gpu.h2d : &g->res->gpu.d2h) += width * height;
    return cuda_failed(g, g->cu->copy2d(g->ctx, dst, dpitch, src, spitch, width, height, up, st),
                       up ? "cudaMemcpy2DAsync (up)" : "cudaMemcpy2DAsync (down)");
}

static int step_one(gpu *g, const stn_view *v, const void *const *src, void *const *dst, const stn_box *box,
                    int st) {
    if (g->cu->step_pts && (g->r->d->step_pts || g->r->d->step_pts_w)) /* (the injects a sub-step reads) */
        return cuda_failed(g,
                           g->cu->step_pts(g->ctx, g->pv, v, src, dst, box, (const int64_t *const *)g->pts,
                                           g->r->inputs.npts, (const double *const *)g->wts, st),
                           "the step's kernels");
    return cuda_failed(g, g->cu->step(g->ctx, g->pv, v, src, dst, box, st), "the step's kernels");
}

/* MPI: a call on the rank's part is made in the whole grid's coordinates (stn_map_call, as kernels/step.c):
 * y and z through the view, x through the device pointers moved back by the part's base (sh elements; the
 * kernels index x globally), a ring's pieces one call each. */

/* The slots of a call in a part's coordinates (stn_map_call's shift sh, in cells): the state and input
 * arrays moved by it; the inputs along an axis (after nsrc) are whole-grid already. */
static void shift_slots(const stn_program_desc *d, int64_t sh, const void *const *src, void *const *dst,
                        const void **s1, void **d1) {
    const ptrdiff_t off = (ptrdiff_t)sh * d->elem_size;
    for (int i = 0; i < d->nsrc + d->nalong; i++)
        s1[i] = src[i] && i < d->nsrc ? (const char *)src[i] - off : src[i];
    for (int i = 0; i < d->ndst; i++)
        d1[i] = dst[i] ? (char *)dst[i] - off : NULL;
}

static int d_step(void *c, const double *params, const stn_view *v, const void *const *src, void *const *dst,
                  const stn_box *box, int st) {
    gpu *g = c;
    const stn_program_desc *d = g->r->d;
    (void)params;
    if (!g->r->part)
        return step_one(g, v, src, dst, box, st);
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX], rc = 0;
    for (int k = 0, n = stn_map_call(g->r, v, box, 1, v1, b1, sh, wrap); k < n && !rc; k++) {
        const void *s1[d->nsrc + d->nalong + 1];
        void *d1[d->ndst + 1];
        shift_slots(d, sh[k], src, dst, s1, d1);
        rc = step_one(g, &v1[k], s1, d1, &b1[k], st);
    }
    return rc;
}

static int d_boundary(void *c, int field, const stn_view *v, const void *cur, void *next, const stn_box *box,
                      int st) {
    gpu *g = c;
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX], rc = 0;
    if (!g->r->part)
        return cuda_failed(g, g->cu->boundary(g->ctx, field, v, cur, next, box, st),
                           "the boundary's kernels");
    for (int k = 0, n = stn_map_call(g->r, v, box, 0, v1, b1, sh, wrap); k < n && !rc; k++) {
        const ptrdiff_t off = (ptrdiff_t)sh[k] * g->r->d->elem_size;
        rc = cuda_failed(
            g,
            g->cu->boundary(g->ctx, field, &v1[k], (const char *)cur - off, (char *)next - off, &b1[k], st),
            "the boundary's kernels");
    }
    return rc;
}

static int d_sync(void *c, int st) {
    gpu *g = c;
    return cuda_failed(g, g->cu->sync(g->ctx, st), "cudaStreamSynchronize");
}

static void d_at_step(void *c, int64_t t) {
    gpu *g = c;
    stn_step_params(g->r, g->t0 + t, g->pv);
}

/* ------------------------------------------------------------------ sources and receivers
 * The point sets the injects and records use go up once an advance (staged through pinned memory), the
 * records' samples are written on the device into sample_rows rows and come down (through pinned memory)
 * into the run's records, r->rec[k], row t for step t, exactly where the CPU engines write them. */

/* Whether set s is used by an inject or a record, and its bytes on the device (points, then weights). */
static uint64_t set_bytes(const stn_run *r, int s) {
    const stn_program_desc *d = r->d;
    int used = 0;
    for (int k = 0; k < d->ninjects; k++)
        used |= d->injects[k].points == s;
    for (int k = 0; k < d->nrecords; k++)
        used |= d->records[k].points == s;
    const uint64_t n = used ? (uint64_t)r->inputs.npts[s] : 0;
    return n * 3 * sizeof(int64_t) + (r->inputs.wts && r->inputs.wts[s] ? n * sizeof(double) : 0);
}

/* The bytes the plan counts: every used set once, and one step's samples of every record. */
static void point_sizes(gpu *g) {
    const stn_run *r = g->r;
    g->points_bytes = g->sample_step_bytes = 0;
    for (int s = 0; r->inputs.npts && s < r->d->npointsets; s++)
        g->points_bytes += set_bytes(r, s);
    for (int k = 0; k < r->d->nrecords; k++)
        g->sample_step_bytes += (uint64_t)r->inputs.npts[r->d->records[k].points] * (uint64_t)r->d->elem_size;
}

/* The point sets up, once an advance (stream 0, waited for); the device's samples allocated. */
static int d_points(void *c, uint64_t *bytes) {
    gpu *g = c;
    const stn_run *r = g->r;
    const uint64_t samp = (uint64_t)g->sample_rows * g->sample_step_bytes;
    int rc = 0;
    if (g->points_bytes && (rc = d_alloc(g, &g->dev_points, g->points_bytes)) == 0) {
        pin_alloc(r, -1, 4, (size_t)g->points_bytes, &g->pin_points);
        if (!g->pin_points)
            return stn_error(-ENOMEM, "--mode %s: no pinned host memory for the points (%" PRIu64 " bytes)",
                             g->mode, g->points_bytes);
        g->pin_points_bytes = g->points_bytes;
    }
    if (rc == 0 && samp && (rc = d_alloc(g, &g->dev_samples, samp)) == 0) {
        pin_alloc(r, -1, 5, (size_t)samp, &g->pin_samples);
        if (!g->pin_samples)
            return stn_error(-ENOMEM, "--mode %s: no pinned host memory for the samples (%" PRIu64 " bytes)",
                             g->mode, samp);
        g->pin_samples_bytes = samp;
    }
    char *dev = g->dev_points, *pin = g->pin_points;
    for (int s = 0; rc == 0 && s < r->d->npointsets; s++) {
        const uint64_t b = set_bytes(r, s), np = (uint64_t)r->inputs.npts[s] * 3 * sizeof(int64_t);
        if (!b)
            continue;
        memcpy(pin, r->inputs.pts[s], np);
        if (b > np)
            memcpy(pin + np, r->inputs.wts[s], b - np);
        g->pts[s] = (int64_t *)dev, g->wts[s] = b > np ? (double *)(dev + np) : NULL;
        dev += b, pin += b;
    }
    if (rc == 0 && g->points_bytes) {
        g->res->gpu.h2d += g->points_bytes;
        rc = cuda_failed(g, g->cu->copy(g->ctx, g->dev_points, g->pin_points, g->points_bytes, 1, 0),
                         "cudaMemcpyAsync (the points, up)");
        rc = rc ? rc : cuda_failed(g, g->cu->sync(g->ctx, 0), "cudaStreamSynchronize");
    }
    char *o = g->dev_samples;
    for (int k = 0; k < r->d->nrecords; k++) {
        g->samp[k] = o;
        o += (uint64_t)g->sample_rows * (uint64_t)r->inputs.npts[r->d->records[k].points] *
             (uint64_t)r->d->elem_size;
    }
    *bytes = rc == 0 ? g->points_bytes : 0;
    return rc;
}

/* After a step's kernels on `box`: every inject at its points in `box`, in the order of the .stn file (as
 * kernels/step.c), then every record at its points in `own` into row `row` of its samples (either box NULL:
 * none). */
static int point_ops_one(gpu *g, const stn_view *v, const void *const *src, void *const *dst,
                         const stn_box *box, const stn_box *own, int64_t row, int st) {
    const stn_run *r = g->r;
    const stn_program_desc *d = r->d;
    int rc = 0;
    for (int k = 0; box && k < d->ninjects && !rc; k++) {
        const int s = d->injects[k].points;
        rc = cuda_failed(
            g, g->cu->inject(g->ctx, k, g->pv, v, src, dst, box, g->pts[s], g->wts[s], r->inputs.npts[s], st),
            "the inject kernel");
    }
    for (int k = 0; own && k < d->nrecords && !rc; k++) {
        const int s = d->records[k].points;
        char *out = (char *)g->samp[k] + (size_t)row * (size_t)r->inputs.npts[s] * (size_t)d->elem_size;
        rc = cuda_failed(
            g, g->cu->record(g->ctx, k, g->pv, v, src, dst, own, g->pts[s], r->inputs.npts[s], out, st),
            "the record kernel");
    }
    return rc;
}

/* MPI: the injects on `box` and the records on `own` in the whole grid's coordinates (as d_step), the records
 * at the cells this rank owns only (stn_part_own_box: a ghost's may be stale; as kernels/step.c). */
static int d_point_ops(void *c, const stn_view *v, const void *const *src, void *const *dst,
                       const stn_box *box, const stn_box *own, int64_t row, int st) {
    gpu *g = c;
    const stn_program_desc *d = g->r->d;
    if (!g->r->part)
        return point_ops_one(g, v, src, dst, box, own, row, st);
    stn_view v1[STN_MAP_MAX];
    stn_box b1[STN_MAP_MAX];
    int64_t sh[STN_MAP_MAX];
    int wrap[STN_MAP_MAX], rc = 0;
    for (int pass = 0; pass < 2 && !rc; pass++) /* (the injects, then the records) */
        for (int k = 0, n = stn_map_call(g->r, v, pass ? own : box, 1, v1, b1, sh, wrap); k < n && !rc; k++) {
            const void *s1[d->nsrc + d->nalong + 1];
            void *d1[d->ndst + 1];
            shift_slots(d, sh[k], src, dst, s1, d1);
            if (pass == 0)
                rc = point_ops_one(g, &v1[k], s1, d1, &b1[k], NULL, row, st);
            else if (stn_part_own_box(g->r, wrap[k], &b1[k]))
                rc = point_ops_one(g, &v1[k], s1, d1, NULL, &b1[k], row, st);
        }
    return rc;
}

/* MPI: the samples of record k at cells this rank does not own zeroed in `rows` rows (the ranks' records are
 * OR-ed into rank 0's, program/runfiles.c: each sample is its owner's; the device's were never written). */
static void keep_own(gpu *g, int k, char *rows, int64_t nrows) {
    const stn_run *r = g->r;
    if (!r->part)
        return;
    stn_box own;
    for (int a = 0; a < 3; a++)
        own.lo[a] = 0, own.hi[a] = r->part->ax[a].n > 0 ? r->part->ax[a].n : 1;
    const int any = stn_part_own_box(r, 0, &own), s = r->d->records[k].points;
    const int64_t n = r->inputs.npts[s], es = r->d->elem_size;
    for (int64_t i = 0; i < n; i++) {
        const int64_t *c = r->inputs.pts[s] + 3 * i;
        int mine = any;
        for (int a = 0; a < r->d->ndim; a++)
            mine &= c[a] >= own.lo[a] && c[a] < own.hi[a];
        for (int64_t t = 0; !mine && t < nrows; t++)
            memset(rows + (size_t)((t * n + i) * es), 0, (size_t)es);
    }
}

/* Rows [0, rows) of the device's samples, steps t .. t + rows - 1 of the advance: down through the pinned
 * staging (stream 0, waited for), then into the run's records (the rows of steps past --steps left out, as
 * kernels/step.c leaves them). */
static int d_samples(void *c, int64_t t, int64_t rows, uint64_t *bytes) {
    gpu *g = c;
    const stn_run *r = g->r;
    const stn_program_desc *d = r->d;
    int rc = 0;
    *bytes = 0;
    char *pin = g->pin_samples;
    for (int k = 0; k < d->nrecords && !rc; k++) {
        const uint64_t rb = (uint64_t)r->inputs.npts[d->records[k].points] * (uint64_t)d->elem_size,
                       b = (uint64_t)rows * rb;
        if (!b)
            continue;
        g->res->gpu.d2h += b;
        *bytes += b;
        rc = cuda_failed(g, g->cu->copy(g->ctx, pin, g->samp[k], b, 0, 0),
                         "cudaMemcpyAsync (the samples, down)");
        rc = rc ? rc : cuda_failed(g, g->cu->sync(g->ctx, 0), "cudaStreamSynchronize");
        const int64_t t1 = g->t0 + t + rows < r->o->steps ? g->t0 + t + rows : r->o->steps;
        if (rc == 0)
            keep_own(g, k, pin, rows);
        if (rc == 0 && t1 > g->t0 + t)
            memcpy((char *)r->rec[k] + (size_t)(g->t0 + t) * rb, pin, (size_t)(t1 - g->t0 - t) * rb);
    }
    return rc;
}

/* What an advance put on the device and in pinned memory for its points, given back (its streams are done).
 */
static void points_free(gpu *g) {
    if (g->dev_points)
        g->cu->dev_free(g->ctx, g->dev_points, 0);
    if (g->dev_samples)
        g->cu->dev_free(g->ctx, g->dev_samples, 0);
    pin_release(g->pin_points, (size_t)g->pin_points_bytes);
    pin_release(g->pin_samples, (size_t)g->pin_samples_bytes);
    g->dev_points = g->dev_samples = g->pin_points = g->pin_samples = NULL;
    g->pin_points_bytes = g->pin_samples_bytes = 0;
}

/* ------------------------------------------------------------------ the plan of an advance */

static int plan_advance(gpu *g, int64_t steps, stn_gpu_plan *p) {
    const stn_run *r = g->r;
    stn_gpu_request q;
    memset(&q, 0, sizeof q);
    q.d = r->d;
    memcpy(q.size, r->o->size, sizeof q.size);
    q.steps = steps;
    q.streams = GPU_STREAMS;
    q.gpu_mem = r->o->gpu_mem ? r->o->gpu_mem : g->free_bytes;
    point_sizes(g);
    q.points_bytes = g->points_bytes;
    q.sample_step_bytes = g->sample_step_bytes;
    for (int k = 0; r->part && k < 3; k++) /* (a rank's part: the whole grid's inputs along an axis) */
        q.along_n[k] = r->part->ax[k].n;
    q.tiles = g->cu->copy2d != NULL; /* (a program built before the strided copy: whole planes) */
    g->res->gpu.gpu_mem = q.gpu_mem;
    const char *budget = r->o->gpu_mem ? "--gpu-mem" : "the device's free memory";
    char b0[32], b1[32];
    if (g->ooc) {
        int rc = stn_gpu_plan_for(&q, p);
        if (rc == -ENOMEM && !r->o->gpu_mem) /* (the planner's message names --gpu-mem) */
            return stn_error(rc, "--mode gpu-ooc: %s (no --gpu-mem: the device's free memory)", stn_errmsg());
        if (rc == -ENOMEM)
            return stn_error(rc, "--mode gpu-ooc: %s", stn_errmsg());
        return rc;
    }
    int rc = stn_gpu_make_plan(&q, INT64_MAX, 1, p); /* one block: in core */
    if (rc == 0 && p->dev_bytes > q.gpu_mem)
        rc = stn_error(-ENOMEM,
                       "--mode gpu: the grid's %d arrays need %s on the device, more than %s (%s); "
                       "--mode gpu-ooc streams it through in blocks",
                       p->dev_arrays, stn_fmt_bytes(b0, sizeof b0, p->dev_bytes), budget,
                       stn_fmt_bytes(b1, sizeof b1, q.gpu_mem));
    return rc;
}

/* The second copy of every level (the in-core engine's spare for a current level, a pinned array of our
 * own for a previous level); the schedule writes each sweep into it. */
static int second_copies(gpu *g) {
    const stn_program_desc *d = g->r->d;
    stn_incore_slots(g->in, g->slot, g->spare);
    for (int f = 0; f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        if (fd->kind != STN_FIELD_STATE || fd->src_slot < 0)
            continue;
        g->other[fd->src_slot] = g->spare[fd->src_slot];
        if (fd->levels == 2 && fd->prev_slot >= 0 && !g->other[fd->prev_slot]) {
            pin_alloc(g->r, f, 3, (size_t)g->r->grid_bytes, &g->other[fd->prev_slot]);
            if (!g->other[fd->prev_slot])
                return stn_error(-ENOMEM,
                                 "--mode %s: no pinned host memory for a second copy of '%s.prev' (%" PRIu64
                                 " bytes)",
                                 g->mode, fd->name, g->r->grid_bytes);
        }
    }
    return 0;
}

/* The in-core engine's arrays are the levels again (the schedule swapped the copies sweep by sweep). */
static void give_back(gpu *g) {
    const stn_program_desc *d = g->r->d;
    for (int f = 0; f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        if (fd->kind == STN_FIELD_STATE && fd->src_slot >= 0)
            g->spare[fd->src_slot] = g->other[fd->src_slot];
    }
    stn_incore_rebind(g->in, g->slot, g->spare);
}

/* Steps t0 .. t0 + steps - 1 on the device (the in-core engine's loop: under MPI a chunk of the ghosts'
 * depth). */
static int gpu_steps(void *state, int64_t t0, int64_t steps) {
    gpu *g = state;
    if (steps <= 0)
        return 0;
    stn_gpu_plan p;
    int rc = plan_advance(g, steps, &p);
    if (rc == 0)
        rc = second_copies(g);
    if (rc)
        return rc;
    g->t0 = t0;
    g->sample_rows = p.sample_rows;
    const int pts = g->r->d->ninjects + g->r->d->nrecords > 0;
    const stn_gpu_dev_ops ops = {g,
                                 d_alloc,
                                 d_release,
                                 d_up,
                                 d_down,
                                 d_step,
                                 d_boundary,
                                 d_sync,
                                 d_at_step,
                                 pts ? d_points : NULL,
                                 pts ? d_point_ops : NULL,
                                 pts ? d_samples : NULL,
                                 g->cu->copy2d ? d_copy2d : NULL};
    stn_gpu_counts c;
    double c0 = stn_now();
    const int64_t size[3] = {g->r->o->size[0], g->r->o->size[1], g->r->o->size[2]};
    for (int j = 0; j < g->r->d->nalong; j++) /* (the schedule uploads them once an advance) */
        g->slot[g->r->d->nsrc + j] = g->r->inputs.along[j];
    rc = stn_gpu_run(&p, g->r->d, size, g->pv, g->slot, g->other, &ops, &c);
    g->res->gpu.pinned_bytes = pinned_now > g->res->gpu.pinned_bytes ? pinned_now : g->res->gpu.pinned_bytes;
    points_free(g);
    give_back(g);
    double dt = stn_now() - c0;
    g->res->loop_seconds += dt;
    g->res->st.seconds[STN_PHASE_COMPUTE] += dt;
    g->res->gpu.predicted_h2d += p.h2d_bytes;
    g->res->gpu.predicted_d2h += p.d2h_bytes;
    g->res->gpu.bz = p.bz, g->res->gpu.bt = p.bt, g->res->gpu.nblocks = p.nblocks;
    g->res->gpu.by = p.nyb > 1 ? p.by : 0, g->res->gpu.ytiles = p.nyb;
    g->res->gpu.streams = p.nblocks <= 1 ? 1 : p.streams;
    g->res->gpu.dev_bytes = p.dev_bytes > g->res->gpu.dev_bytes ? p.dev_bytes : g->res->gpu.dev_bytes;
    g->res->gpu.pinned_bytes = pinned_now > g->res->gpu.pinned_bytes ? pinned_now : g->res->gpu.pinned_bytes;
    return rc;
}

/* ------------------------------------------------------------------ the rest of the table */

static int gpu_advance(void *state, int64_t t0, int64_t steps) {
    return stn_incore_advance(((gpu *)state)->in, t0, steps);
}

static void gpu_close(void *state, int keep) {
    gpu *g = state;
    if (!g)
        return;
    const stn_program_desc *d = g->r->d; /* (before the in-core engine, which holds an MPI rank's run g->r) */
    for (int f = 0; g->other && f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        if (fd->kind == STN_FIELD_STATE && fd->levels == 2 && fd->prev_slot >= 0)
            pin_release(g->other[fd->prev_slot], (size_t)g->r->grid_bytes);
    }
    stn_incore_close(g->in, keep);
    if (g->ctx)
        g->cu->close(g->ctx);
    free(g->slot), free(g->spare), free(g->other), free(g->pv);
    free(g->pts), free(g->wts), free(g->samp);
    free(g);
}

static int gpu_open_as(const stn_run *r, stn_result *res, int ooc, void **state) {
    const stn_program_desc *d = r->d;
    const char *mode = ooc ? "gpu-ooc" : "gpu";
    *state = NULL;
    if (!d->cuda) /* (the command line refuses it first: base/args_check.c) */
        return stn_error(-ENOTSUP, "--mode %s: this program was built without CUDA", mode);
    if (((d->step_pts || d->step_pts_w) && !d->cuda->step_pts) || (d->ninjects > 0 && !d->cuda->inject) ||
        (d->nrecords > 0 && !d->cuda->record))
        return stn_error(-ENOTSUP,
                         "--mode %s: the program's CUDA entry points lack the inject, record or step kernels "
                         "its sources and receivers need (docs/design/024-gpu-tier.md): rebuild it with "
                         "`stencilc --target cuda`",
                         mode);
    if (stn_par_size() > 1 && d->dims == 1)
        return stn_error(
            -ENOTSUP,
            "--mode %s with %d MPI ranks: 1d grids are not carried yet (docs/design/024-gpu-tier.md)", mode,
            stn_par_size());
    gpu *g = calloc(1, sizeof *g);
    if (!g)
        return stn_error(-ENOMEM, "out of memory");
    g->r = r, g->res = res, g->cu = d->cuda, g->mode = mode, g->ooc = ooc;
    const size_t nslots = (size_t)(d->nsrc + d->nalong) + 1;
    g->slot = calloc(nslots, sizeof *g->slot);
    g->spare = calloc(nslots, sizeof *g->spare);
    g->other = calloc(nslots, sizeof *g->other);
    g->pv = calloc((size_t)(d->nparams + 1 + d->nterms), sizeof *g->pv);
    g->pts = calloc((size_t)d->npointsets + 1, sizeof *g->pts);
    g->wts = calloc((size_t)d->npointsets + 1, sizeof *g->wts);
    g->samp = calloc((size_t)d->nrecords + 1, sizeof *g->samp);
    int rc = g->slot && g->spare && g->other && g->pv && g->pts && g->wts && g->samp
                 ? 0
                 : stn_error(-ENOMEM, "out of memory");
    g->device = res->gpu.device = -1;
    if (rc == 0 && g->cu->device) /* (one GPU per rank: its rank on the machine mod the devices) */
        rc =
            cuda_failed(g, g->cu->device(stn_par_node_rank(), &g->device, &g->devices), "opening the device");
    res->gpu.device = g->device, res->gpu.devices = g->devices;
    if (rc == 0)
        rc = cuda_failed(g, g->cu->open(GPU_STREAMS, &g->ctx, &g->free_bytes), "opening the device");
    pin_ops = d->cuda;
    if (rc == 0)
        rc = stn_incore_open(r, res, ooc ? &pinned_gpu_ooc : &pinned_gpu, &g->in);
    if (rc == 0) { /* (under MPI the rank's part, whose arrays and grid bytes are local) */
        g->r = stn_incore_run(g->in);
        stn_incore_set_loop(g->in, gpu_steps, g);
    }
    if (rc) {
        gpu_close(g, 0);
        return rc;
    }
    res->gpu.have = 1;
    res->gpu.pinned_bytes = pinned_now;
    *state = g;
    return 0;
}

static int gpu_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, void **state) {
    (void)plan, (void)program;
    return gpu_open_as(r, res, 0, state);
}

static int gpu_ooc_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, void **state) {
    (void)plan, (void)program;
    return gpu_open_as(r, res, 1, state);
}

static int64_t gpu_steps_done(const void *state) {
    (void)state;
    return 0;
}

static int gpu_box(void *state, const stn_box_io *b) { return stn_incore_box(((gpu *)state)->in, b); }

static int gpu_account(void *state, stn_result *out) { return stn_incore_account(((gpu *)state)->in, out); }

static int gpu_finish(void *state) { return stn_incore_finish(((gpu *)state)->in); }

static const struct stn_part *gpu_part(const void *state, const stn_fold **fold) {
    return stn_incore_part(((const gpu *)state)->in, fold);
}

const stn_engine_ops stn_gpu_engine = {"gpu",       {.splits = 1}, gpu_open,    gpu_steps_done,
                                       gpu_advance, gpu_box,       gpu_account, gpu_finish,
                                       gpu_close,   NULL,          gpu_part,    NULL};
const stn_engine_ops stn_gpu_ooc_engine = {"gpu-ooc",   {.splits = 1}, gpu_ooc_open, gpu_steps_done,
                                           gpu_advance, gpu_box,       gpu_account,  gpu_finish,
                                           gpu_close,   NULL,          gpu_part,     NULL};
