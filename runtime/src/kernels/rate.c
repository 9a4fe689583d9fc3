/* rate.c -- the kernels' rate and the DRAM copy rate the time model uses, measured at startup (or a
 * --machine file's). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kernels/stn_kernels.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A small grid of the run's rows: x as in the run (at most 2048), y and z cut so that all the
 * kernel's arrays together take at most `cap` bytes. */
static stn_view rate_grid(const stn_program_desc *d, const stn_view *g, uint64_t cap) {
    int64_t narr = d->nsrc + d->ndst, nx = g->nx < 2048 ? g->nx : 2048, ny = g->ny, nz = g->nz;
    uint64_t row = (uint64_t)nx * (uint64_t)d->elem_size * (uint64_t)(narr > 0 ? narr : 1);
    int64_t hy = d->reach_lo[1] + d->reach_hi[1] + 1, hz = d->reach_lo[2] + d->reach_hi[2] + 1;
    while ((uint64_t)ny * (uint64_t)nz * row > cap && (ny > hy || nz > hz)) {
        if (nz > hz && (nz >= ny || ny <= hy))
            nz = nz / 2 > hz ? nz / 2 : hz;
        else
            ny = ny / 2 > hy ? ny / 2 : hy;
    }
    return (stn_view){nx, ny, nz, nx, nx * ny, 0, 0, 0, NULL};
}

int stn_measure_rate(const stn_run *r, const int64_t tile[2], uint64_t cap, double *cps, char *source,
                     size_t n) {
    const stn_program_desc *d = r->d;
    stn_view v = rate_grid(d, &r->view, cap);
    size_t bytes = (size_t)(v.nx * v.ny * v.nz) * (size_t)d->elem_size;
    int narr = d->nsrc + d->ndst;
    void **arr = calloc((size_t)narr + 1, sizeof *arr);
    int rc = arr ? 0 : -ENOMEM;
    for (int k = 0; rc == 0 && k < narr; k++)
        if (!(arr[k] = stn_scratch_map(bytes))) /* (zeroed; given back at once when unmapped) */
            rc = -ENOMEM;
    stn_box b = {{d->halo_lo[0], d->halo_lo[1], d->halo_lo[2]},
                 {v.nx - d->halo_hi[0], v.ny - d->halo_hi[1], v.nz - d->halo_hi[2]}};
    double cells = 1;
    for (int k = 0; k < 3; k++)
        cells *= (double)(b.hi[k] > b.lo[k] ? b.hi[k] - b.lo[k] : 0);
    *cps = 0;
    if (rc == 0 && cells > 0) {
        const void *const *src = (const void *const *)arr;
        void *const *dst = arr + d->nsrc;
        int krc = stn_step(r, -1, &v, src, dst, &b, tile); /* first touch, warm-up */
        int64_t steps = 0;
        double t0 = stn_now(), t = 0;
        while (krc == 0 && (steps < 2 || (t < 0.05 && steps < 1000))) {
            krc = stn_step(r, -1, &v, src, dst, &b, tile);
            steps++;
            t = stn_now() - t0;
        }
        if (krc) {
            for (int k = 0; k < narr; k++)
                stn_scratch_unmap(arr[k], bytes);
            free(arr);
            return krc;
        }
        *cps = cells * (double)steps / (t > 0 ? t : 1e-9);
        snprintf(source, n,
                 "measured at startup: %" PRId64 " steps of a %" PRId64 "x%" PRId64 "x%" PRId64
                 " grid in %.3f s",
                 steps, v.nx, v.ny, v.nz, t);
    }
    for (int k = 0; arr && k < narr; k++)
        stn_scratch_unmap(arr[k], bytes);
    free(arr);
    if (rc)
        return stn_error(rc, "out of memory measuring the compute rate (%zu bytes a grid)", bytes);
    if (*cps <= 0)
        snprintf(source, n, "not measured: the grid has no interior");
    return 0;
}

int stn_kernel_rate(const stn_run *r, stn_result *res) {
    if (res->cells_per_second > 0)
        return 0;
    if (r->hw.cells_per_second > 0) {
        res->cells_per_second = r->hw.cells_per_second;
        snprintf(res->rate_source, sizeof res->rate_source, "--machine %s", r->o->machine);
        return 0;
    }
    uint64_t cap = stn_mem_rate_grid(r->mem_budget);
    return stn_measure_rate(r, res->ib.tile, cap, &res->cells_per_second, res->rate_source,
                            sizeof res->rate_source);
}

/* One parallel copy of n bytes, split among the threads as the engine's strip copies are. */
static void copy_round(char *dst, const char *src, size_t n) {
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads();
        size_t lo = n * t / nt, hi = n * (t + 1) / nt;
        memcpy(dst + lo, src + lo, hi - lo);
    }
}

int stn_copy_rate(const stn_run *r, stn_result *res) {
    if (res->copy_bytes_per_second > 0)
        return 0;
    if (r->hw.copy_bytes_per_second > 0) {
        res->copy_bytes_per_second = r->hw.copy_bytes_per_second;
        snprintf(res->copy_source, sizeof res->copy_source, "--machine %s", r->o->machine);
        return 0;
    }
    if (r->hw.described) { /* another machine's memory: nothing here to measure it on */
        snprintf(res->copy_source, sizeof res->copy_source,
                 "not modelled: --machine %s gives no copy_bytes_per_second", r->o->machine);
        return 0;
    }
    /* two buffers, each at least twice the last-level cache (the strip and the ring are DRAM),
     * at most 64 MiB and the memory policy's share of the budget */
    size_t n = 2 * (size_t)r->hw.l3.value;
    n = n < ((size_t)16 << 20) ? (size_t)16 << 20 : n > ((size_t)64 << 20) ? (size_t)64 << 20 : n;
    if (n > stn_mem_copy_buffers(r->mem_budget))
        n = (size_t)stn_mem_copy_buffers(r->mem_budget);
    if (r->grid_bytes > 0 && n > 2 * r->grid_bytes) /* a small grid's strip copies: as fast as its cache */
        n = (size_t)(2 * r->grid_bytes);
    n = n < ((size_t)1 << 20) ? (size_t)1 << 20 : n;
    char *a = stn_scratch_map(n), *b = stn_scratch_map(n);
    if (!a || !b) {
        stn_scratch_unmap(a, n);
        stn_scratch_unmap(b, n);
        return stn_error(-ENOMEM, "out of memory measuring the DRAM copy rate (2 buffers of %zu bytes)", n);
    }
    memset(a, 1, n); /* every page touched: no page fault is timed */
    memset(b, 0, n);
    copy_round(b, a, n); /* untimed: the thread pool started */
    double t = 0;
    int rounds = 0;
    while (rounds < 3 || (t < 0.03 && rounds < 100)) {
        double t0 = stn_now();
        copy_round(rounds % 2 ? a : b, rounds % 2 ? b : a, n);
        t += stn_now() - t0;
        rounds++;
    }
    stn_scratch_unmap(a, n);
    stn_scratch_unmap(b, n);
    res->copy_bytes_per_second = t > 0 ? (double)n * rounds / t : 0;
    snprintf(res->copy_source, sizeof res->copy_source,
             "measured at startup: %d copies of %zu MiB on %d threads, %.3f s", rounds, n >> 20,
             stn_omp_max_threads(), t);
    return 0;
}

int stn_init_rate(const stn_run *r, int field, int level, double *cps) {
    const stn_program_desc *d = r->d;
    *cps = 0;
    if (!d->init || r->hw.described) /* (another machine's: not measured here) */
        return 0;
    /* a slab of the run's rows, at most 4 MiB: the expressions' cost is per cell, not per byte */
    int64_t nx = r->view.nx < 2048 ? r->view.nx : 2048, ny = r->view.ny, nz = r->view.nz;
    uint64_t cap = (uint64_t)4 << 20, row = (uint64_t)nx * d->elem_size;
    while ((uint64_t)ny * (uint64_t)nz * row > cap && (ny > 1 || nz > 1)) {
        if (nz > 1)
            nz = (nz + 1) / 2;
        else
            ny = (ny + 1) / 2;
    }
    size_t bytes = (size_t)(nx * ny * nz) * (size_t)d->elem_size;
    void *a = stn_scratch_map(bytes);
    if (!a)
        return stn_error(-ENOMEM, "out of memory measuring the init expressions' rate (%zu bytes)", bytes);
    stn_view v = {nx, ny, nz, nx, nx * ny, 0, 0, 0, NULL};
    stn_box b = {{0, 0, 0}, {nx, ny, nz}};
    d->init(field, level, a, &v, r->o->params, &b); /* untimed: the pages touched */
    double t = 0;
    int rounds = 0;
    while (rounds < 2 || (t < 0.02 && rounds < 100)) {
        double t0 = stn_now();
        d->init(field, level, a, &v, r->o->params, &b);
        t += stn_now() - t0;
        rounds++;
    }
    stn_scratch_unmap(a, bytes);
    *cps = t > 0 ? (double)(nx * ny * nz) * rounds / t : 0;
    return 0;
}
