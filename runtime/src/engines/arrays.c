/* arrays.c -- what the engines share (stn_engine.h): their per-field arrays, and boxes copied between a
 * level in DRAM and a caller's buffer.  Below the engines' table (engine.c), which names the engines. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int stn_engine_arrays(const stn_program_desc *d, size_t field_size, void **f, const void ***src, void ***dst,
                      const char *engine) {
    *f = calloc((size_t)d->nfields, field_size);
    *src = calloc((size_t)d->nsrc + 1, sizeof **src);
    *dst = calloc((size_t)d->ndst + 1, sizeof **dst);
    if (!*f || !*src || !*dst)
        return stn_error(-ENOMEM, "out of memory setting up the %s engine", engine);
    return 0;
}

void stn_engine_copy_box(const stn_view *v, size_t es, char *level, const stn_box_io *b) {
    const int64_t *lo = b->lo, *hi = b->hi, *st = b->st;
    int64_t w = hi[0] - lo[0];
    for (int64_t z = lo[2]; z < hi[2]; z++)
        for (int64_t y = lo[1]; y < hi[1]; y++) {
            char *g = level + ((size_t)(z * v->sz + y * v->sy + lo[0])) * es;
            char *u = b->buf + (ptrdiff_t)((z - lo[2]) * st[2] + (y - lo[1]) * st[1]) * (ptrdiff_t)es;
            if (st[0] == 1) {
                memcpy(b->write ? g : u, b->write ? u : g, (size_t)w * es);
                continue;
            }
            for (int64_t x = 0; x < w; x++) {
                char *uc = u + (ptrdiff_t)(x * st[0]) * (ptrdiff_t)es;
                memcpy(b->write ? g + (size_t)x * es : uc, b->write ? uc : g + (size_t)x * es, es);
            }
        }
}

/* Thread t of T gets bytes [n*t/T, n*(t+1)/T): the same static split the kernels' outer loops use, so
 * pages are first touched by (roughly) the thread that computes on them. */
void stn_engine_par_zero(void *p, size_t n) {
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads(), chunk = n / nt;
        size_t lo = chunk * t, hi = t + 1 == nt ? n : lo + chunk;
        memset((char *)p + lo, 0, hi - lo);
    }
}

void stn_engine_par_copy(void *dst, const void *src, size_t n, stn_stats *st) {
    double t0 = stn_now();
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads(), chunk = n / nt;
        size_t lo = chunk * t, hi = t + 1 == nt ? n : lo + chunk;
        memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
    stn_stats_add_time(st, STN_PHASE_COPY, t0);
}
