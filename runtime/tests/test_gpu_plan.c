/* test_gpu_plan.c -- the GPU tier's plan and byte model (plan/gpu_plan.c) on their own: no device.
 *
 * Over many random small problems (1d, 2d and 3d, one- and two-level state fields, inputs, inputs along
 * an axis, asymmetric halos and reaches, f32 and f64, a third with the points and samples of injects and
 * records: points up once a run, each step's samples down, both held on the device) and random --gpu-mem
 * budgets:
 *   - a plan that is found fits the budget (device memory), its blocks cover the grid, and past one
 *     block each, the last one included, is at least twice the boundary layer thick (a thinner
 *     remainder joins the last block);
 *   - its host-to-device and device-to-host bytes are exactly those a brute-force walk of the
 *     schedule counts: for every sweep, block, array and plane, a plane is uploaded when some
 *     plane of the block depends on it within the sweep's steps (the cone, plane by plane) and
 *     downloaded when it is the block's own;
 *   - the schedule is exact (and computes as many planes as the plan predicts): a 1d model of the stencil
 * along the streamed axis (each interior plane a hash of the planes it reads, boundary planes kept), run
 * block by block in the plan's windows with the region still exact shrinking each step, gives the whole-grid
 * run's values after every sweep;
 *   - no (bz, bt) of a brute-force search over every block size and bt <= 64 that fits the
 *     budget is predicted faster than the plan chosen (with samples, the in-core plan may not fit where
 *     a window clipped at the grid's faces does: the chooser then tries every block size);
 *   - one block is the in-core plan (--mode gpu): every array up once, every level down once;
 *   - no plan below the smallest is -ENOMEM, and a field periodic along the streamed axis is
 *     -ENOTSUP, each with a message naming the cause.
 * The seed is fixed (STN_TEST_SEED overrides it) so that a failure can be replayed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "plan/stn_gpu.h"
#include "test_util.h"

#include <inttypes.h>

typedef struct problem {
    stn_program_desc d;
    stn_field_desc fields[3];
    stn_along_desc alongs[1];
    stn_gpu_request q;
} problem;

static void make_problem(problem *P) {
    memset(P, 0, sizeof *P);
    stn_program_desc *d = &P->d;
    d->name = "random";
    d->ndim = between(0, 2) == 0 ? 2 : 3;
    d->dims = d->ndim == 2 && between(0, 2) == 0; /* a 1d grid: one row of a 2d grid, streamed along x */
    d->elem_size = between(0, 1) ? 8 : 4;
    const int a = stn_gpu_axis(d);
    for (int k = 0; k < (d->dims ? 1 : d->ndim); k++) {
        d->halo_lo[k] = (int)between(k == a ? 1 : 0, 2);
        d->halo_hi[k] = (int)between(k == a ? 1 : 0, 2);
        d->reach_lo[k] = d->halo_lo[k] + (int)between(0, 1);
        d->reach_hi[k] = d->halo_hi[k] + (int)between(0, 1);
    }
    int nsrc = 0, ndst = 0;
    d->nfields = (int)between(1, 3);
    for (int f = 0; f < d->nfields; f++) {
        stn_field_desc *fd = &P->fields[f];
        fd->name = f == 0 ? "u" : f == 1 ? "v" : "c";
        fd->kind = f == 0 || between(0, 1) ? STN_FIELD_STATE : STN_FIELD_INPUT;
        fd->levels = fd->kind == STN_FIELD_STATE ? (int)between(1, 2) : 1;
        fd->src_slot = nsrc++;
        fd->prev_slot = fd->levels == 2 ? nsrc++ : -1;
        fd->dst_slot = fd->kind == STN_FIELD_STATE ? ndst++ : -1;
    }
    d->fields = P->fields;
    d->nsrc = nsrc, d->ndst = ndst;
    if (between(0, 3) == 0) {
        P->alongs[0] = (stn_along_desc){"k", (int)between(0, d->dims ? 0 : d->ndim - 1), 1};
        d->nalong = 1, d->alongs = P->alongs;
    }
    stn_gpu_request *q = &P->q;
    q->d = d;
    q->size[0] = d->dims ? between(8, 120) : between(3, 9);
    q->size[1] = d->dims ? 1 : d->ndim == 3 ? between(3, 7) : between(8, 60);
    q->size[2] = d->ndim == 3 ? between(8, 60) : 1;
    q->steps = between(0, 40);
    q->streams = (int)between(1, 3);
    const uint64_t grid = (uint64_t)(nsrc + ndst) * (uint64_t)q->size[0] * (uint64_t)q->size[1] *
                          (uint64_t)q->size[2] * (uint64_t)d->elem_size;
    q->gpu_mem = (uint64_t)between(1, (int64_t)grid * 5 / 4);
    q->h2d_bps = (double)between(5, 50) * 1e9;
    q->d2h_bps = q->h2d_bps;
    q->dev_bps = (double)between(500, 3000) * 1e9;
    if (between(0, 2) ==
        0) { /* sources and receivers: points up once, samples down each sweep (or in core) */
        q->points_bytes = (uint64_t)between(0, 200) * 24;
        q->sample_step_bytes = (uint64_t)between(1, 40) * (uint64_t)d->elem_size;
        q->gpu_mem += (uint64_t)between(0, 2) * q->sample_step_bytes * (uint64_t)q->steps;
    }
}

/* Brute force: the bytes the schedule moves, plane by plane, from the dependency cone. */
static void count_bytes(const stn_gpu_plan *p, const stn_gpu_request *q, uint64_t *h2d, uint64_t *d2h) {
    *h2d = p->along_bytes + q->points_bytes, *d2h = 0; /* (the points: once a run) */
    for (int64_t s = 0; s < p->nsweeps; s++) {
        const int64_t T = s * p->bt + p->bt <= p->steps ? p->bt : p->steps - s * p->bt;
        *d2h += (uint64_t)T * q->sample_step_bytes; /* the sweep's samples */
        for (int64_t k = 0; k < p->nblocks; k++) {
            const int64_t z0 = p->nblocks == 1 ? 0 : k * p->bz; /* bz each, the last block the rest */
            const int64_t z1 = p->nblocks == 1 || k == p->nblocks - 1 ? p->n : z0 + p->bz;
            for (int64_t pl = 0; pl < p->n; pl++) {
                int needed = p->nblocks == 1;
                for (int64_t z = z0; z < z1 && !needed; z++)
                    needed = pl >= z - T * p->rlo && pl <= z + T * p->rhi;
                if (needed)
                    *h2d += (uint64_t)p->in_arrays * (uint64_t)p->plane_bytes;
                if (pl >= z0 && pl < z1)
                    *d2h += (uint64_t)p->out_arrays * (uint64_t)p->plane_bytes;
            }
        }
    }
}

/* The 1d model: an interior plane's new value mixes the planes it reads (a read past the grid's face
 * reads the face: a reach wider than the halo, as sub-steps have); boundary planes keep theirs.
 * `old` and `nw` hold planes from `off` on. */
static uint64_t mix(const stn_gpu_plan *p, const uint64_t *old, int64_t z, int64_t off) {
    uint64_t h = 0x243F6A8885A308D3ull;
    for (int64_t o = -p->rlo; o <= p->rhi; o++) {
        const int64_t at = z + o < 0 ? 0 : z + o >= p->n ? p->n - 1 : z + o;
        h = (h ^ old[at - off]) * 0x100000001B3ull + (uint64_t)(o + 7);
    }
    return h;
}

static void step_range(const stn_gpu_plan *p, const uint64_t *old, uint64_t *nw, int64_t v0, int64_t v1,
                       int64_t off) {
    for (int64_t z = v0; z < v1; z++)
        nw[z - off] = z >= p->L && z < p->H ? mix(p, old, z, off) : old[z - off];
}

/* Runs the plan's schedule on the 1d model and compares with the whole grid after each sweep. */
static int schedule_exact(const stn_gpu_plan *p, uint64_t *cells) {
    const int64_t n = p->n;
    uint64_t *ref = calloc((size_t)n, 8), *rtmp = calloc((size_t)n, 8), *host = calloc((size_t)n, 8);
    uint64_t *next = calloc((size_t)n, 8), *wa = calloc((size_t)n, 8), *wb = calloc((size_t)n, 8);
    int ok = ref && rtmp && host && next && wa && wb;
    for (int64_t z = 0; ok && z < n; z++)
        ref[z] = host[z] = rnd();
    for (int64_t s = 0; ok && s < p->nsweeps; s++) {
        const int64_t T = s * p->bt + p->bt <= p->steps ? p->bt : p->steps - s * p->bt;
        for (int64_t t = 0; t < T; t++) { /* the whole grid */
            step_range(p, ref, rtmp, 0, n, 0);
            memcpy(ref, rtmp, (size_t)n * 8);
        }
        for (int64_t k = 0; k < p->nblocks; k++) {
            int64_t w0, w1;
            stn_gpu_window(p, k, T, &w0, &w1);
            const int64_t z0 = p->nblocks == 1 ? 0 : k * p->bz;
            const int64_t z1 = p->nblocks == 1 || k == p->nblocks - 1 ? n : z0 + p->bz;
            memcpy(wa, host + w0, (size_t)(w1 - w0) * 8); /* up */
            for (int64_t t = 1; t <= T; t++) {
                const int64_t v0 = w0 == 0 ? 0 : w0 + t * p->rlo, v1 = w1 == n ? n : w1 - t * p->rhi;
                if (v0 > z0 || v1 < z1) {
                    fprintf(stderr,
                            "block %" PRId64 " [%" PRId64 ", %" PRId64 ") not exact after step %" PRId64 "\n",
                            k, z0, z1, t);
                    ok = 0;
                }
                step_range(p, wa, wb, v0, v1, w0);
                *cells += (uint64_t)(v1 - v0);
                uint64_t *sw = wa;
                wa = wb, wb = sw;
            }
            memcpy(next + z0, wa + (z0 - w0), (size_t)(z1 - z0) * 8); /* down, into the other copy */
        }
        memcpy(host, next, (size_t)n * 8);
        for (int64_t z = 0; ok && z < n; z++)
            if (host[z] != ref[z]) {
                fprintf(stderr, "sweep %" PRId64 ": plane %" PRId64 " differs from the whole-grid run\n", s,
                        z);
                ok = 0;
            }
    }
    free(ref), free(rtmp), free(host), free(next), free(wa), free(wb);
    return ok;
}

static void check_problem(problem *P, int i) {
    stn_gpu_plan p;
    const int rc = stn_gpu_plan_for(&P->q, &p);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", stn_errmsg());
    const stn_gpu_request *q = &P->q;
    /* brute force over every (bz, bt): the best that fits (in core whenever it fits: the policy) */
    stn_gpu_plan ic;
    const int in_core =
        stn_gpu_make_plan(q, q->size[stn_gpu_axis(&P->d)], 1, &ic) == 0 && ic.dev_bytes <= q->gpu_mem;
    stn_gpu_plan b, best;
    memset(&best, 0, sizeof best);
    int found = 0;
    for (int64_t bt = 1; bt <= 64 && bt <= (q->steps > 0 ? q->steps : 1); bt++)
        for (int64_t bz = 1; bz <= q->size[stn_gpu_axis(&P->d)]; bz++) {
            if (stn_gpu_make_plan(q, bz, bt, &b) == 0 && b.dev_bytes <= q->gpu_mem &&
                (b.nblocks > 1 || in_core) && (!found || b.predicted_s < best.predicted_s))
                best = b, found = 1;
        }
    if (rc != 0) {
        CHECK(rc == -ENOMEM);
        CHECK_HAS(msg, "--gpu-mem");
        if (found)
            fprintf(stderr,
                    "problem %d: no plan, but bz %" PRId64 " bt %" PRId64 " fits (%" PRIu64 " <= %" PRIu64
                    ")\n",
                    i, best.bz, best.bt, best.dev_bytes, q->gpu_mem);
        CHECK(!found);
        return;
    }
    CHECK(found);
    CHECK(p.dev_bytes <= q->gpu_mem);
    CHECK(p.nblocks == 1 || (p.nblocks - 1) * p.bz < p.n);
    /* past one block, each at least twice the boundary layer: a neumann face mirrors from its own block */
    const int64_t last = p.n - (p.nblocks - 1) * p.bz;
    const int64_t need = 2 * (p.L > p.n - p.H ? p.L : p.n - p.H);
    CHECK(p.nblocks == 1 || (p.bz >= need && last >= need && last < p.bz + need));
    CHECK((p.nblocks == 1) == in_core);
    if (!in_core && p.predicted_s > best.predicted_s * (1 + 1e-12)) {
        fprintf(stderr,
                "problem %d: chosen bz %" PRId64 " bt %" PRId64 " %.6g s, brute force bz %" PRId64
                " bt %" PRId64 " %.6g s\n",
                i, p.bz, p.bt, p.predicted_s, best.bz, best.bt, best.predicted_s);
        t_failures++;
    }
    uint64_t h2d, d2h;
    count_bytes(&p, q, &h2d, &d2h);
    if (h2d != p.h2d_bytes || d2h != p.d2h_bytes) {
        fprintf(stderr,
                "problem %d: predicted %" PRIu64 "/%" PRIu64 " bytes up/down, counted %" PRIu64 "/%" PRIu64
                "\n",
                i, p.h2d_bytes, p.d2h_bytes, h2d, d2h);
        t_failures++;
    }
    uint64_t cells = 0;
    if (!schedule_exact(&p, &cells)) {
        fprintf(stderr, "problem %d: the schedule of bz %" PRId64 " bt %" PRId64 " is not exact\n", i, p.bz,
                p.bt);
        t_failures++;
    }
    if (cells != p.planes_computed) {
        fprintf(stderr,
                "problem %d: predicted %" PRIu64 " planes computed, the schedule computed %" PRIu64 "\n", i,
                p.planes_computed, cells);
        t_failures++;
    }
    if (p.nblocks == 1 && q->steps > 0) { /* in core: everything up once, down once */
        CHECK(p.nsweeps == 1);
        CHECK(p.h2d_bytes ==
              (uint64_t)p.in_arrays * (uint64_t)(p.n * p.plane_bytes) + p.along_bytes + q->points_bytes);
        CHECK(p.d2h_bytes == (uint64_t)p.out_arrays * (uint64_t)(p.n * p.plane_bytes) +
                                 (uint64_t)q->steps * q->sample_step_bytes);
    }
}

static void check_refusals(void) {
    problem P;
    *stn_test_rng() = 7;
    make_problem(&P);
    P.q.steps = 10;
    P.q.gpu_mem = 1;
    stn_gpu_plan p;
    CHECK(stn_gpu_plan_for(&P.q, &p) == -ENOMEM);
    CHECK_HAS(stn_errmsg(), "--gpu-mem 1 bytes is below the smallest plan");
    P.q.gpu_mem = (uint64_t)1 << 40;
    CHECK(stn_gpu_plan_for(&P.q, &p) == 0 && p.nblocks == 1); /* in core, periodic or not */
    P.fields[0].periodic = 1 << stn_gpu_axis(&P.d);
    CHECK(stn_gpu_plan_for(&P.q, &p) == 0 && p.nblocks == 1);
    P.q.gpu_mem = p.dev_bytes / 2;
    CHECK(stn_gpu_plan_for(&P.q, &p) == -ENOTSUP);
    CHECK_HAS(stn_errmsg(), "periodic along");
}

int main(void) {
    const char *seed = getenv("STN_TEST_SEED");
    const uint64_t s0 = seed ? strtoull(seed, NULL, 0) : 20261127;
    const int count = 400;
    int in_core = 0, blocked = 0;
    for (int i = 0; i < count; i++) {
        *stn_test_rng() = s0 + (uint64_t)i * 7919;
        problem P;
        make_problem(&P);
        check_problem(&P, i);
        stn_gpu_plan p;
        if (stn_gpu_plan_for(&P.q, &p) == 0)
            p.nblocks == 1 ? in_core++ : blocked++;
    }
    check_refusals();
    printf("test_gpu_plan: %d problems: %d in core, %d blocked, %d without a plan; %d failures\n", count,
           in_core, blocked, count - in_core - blocked, t_failures);
    CHECK(blocked > count / 10 && in_core > count / 10);
    return t_failures ? 1 : 0;
}
