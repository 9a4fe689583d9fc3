/* ooc_wedge.c -- the wedge of a sweep wrapped around r (docs/out-of-core.md#periodic-boundaries): the
 * levels the last block reads past H, kept in DRAM from where the other blocks computed them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <string.h>

/* A sweep of T steps wrapped around r (docs/out-of-core.md#periodic-boundaries): block 0 leans
 * forward and the last block runs on past H, computing the slices near L that block 0 left at
 * each step as slices H + (i - L).  It reads the levels the other blocks computed there, which
 * left the ring long before: the wedge keeps them, level by level (stn_ooc_wedge_range), in
 * DRAM counted in the plan. */
void stn_ooc_wedge_offsets(ooc *e, int64_t T) {
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        if (!f->wedge || !f->m->state) /* an input's: one range, at 0 */
            continue;
        int64_t off = 0, lo, hi;
        for (int64_t l = 0; l < T; l++) {
            f->wedge_off[l] = off;
            stn_ooc_wedge_range(&e->plan.r, f->m->levels, T, l, &lo, &hi);
            off += hi - lo;
        }
        f->wedge_off[T] = off;
    }
}

/* What the wedge keeps of level l of field f (an input: its one level, l = 0). */
static void wedge_range_of(const ooc *e, const ooc_field *f, int64_t l, int64_t *lo, int64_t *hi) {
    if (f->m->state)
        stn_ooc_wedge_range(&e->plan.r, f->m->levels, e->T, l, lo, hi);
    else if (l == 0)
        stn_ooc_wedge_input_range(&e->plan.r, e->T, lo, hi);
    else
        *lo = *hi = 0;
}

/* Keep level l of slices [a, b) (below H) of every field where the wedge needs them. */
void stn_ooc_wedge_keep(ooc *e, int64_t l, int64_t a, int64_t b) {
    const stn_ooc_plan *p = &e->plan;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int64_t lo, hi;
        if (!f->wedge || l >= e->T)
            continue;
        wedge_range_of(e, f, l, &lo, &hi);
        lo = lo > a ? lo : a;
        hi = hi < b ? hi : b;
        if (hi > p->r.H)
            hi = p->r.H;
        if (hi > lo) {
            int64_t lo0, hi0;
            wedge_range_of(e, f, l, &lo0, &hi0);
            memcpy(f->wedge + (size_t)(f->wedge_off[l] + lo - lo0) * p->slice_bytes,
                   ooc_at(e, f->ring[ooc_arr(f, e->lvl0 + l)], lo, e->qbase),
                   (size_t)(hi - lo) * p->slice_bytes);
        }
    }
}

/* Before step t of a cache tile of the last block computing [r0, r1): the levels it reads past H
 * that it did not compute, where it reads them (a tile further down may have gone on to a later
 * level in the same array below them: the skew keeps that below what this one reads). */
void stn_ooc_wedge_place(ooc *e, int64_t t, int64_t r0, int64_t r1) {
    const stn_ooc_plan *p = &e->plan;
    int64_t P = p->r.H - p->r.L, rlo = r0 - p->r.rlo, rhi = r1 + p->r.rhi;
    for (int i = 0; r1 > r0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int64_t l = t - f->m->levels; f->wedge && f->m->state && l < t; l++) {
            int64_t lo, hi;
            if (l < 0)
                continue;
            stn_ooc_wedge_range(&p->r, f->m->levels, e->T, l, &lo, &hi);
            int64_t a = lo + P > rlo ? lo + P : rlo, b = hi + P < rhi ? hi + P : rhi;
            if (b > a)
                memcpy(ooc_at(e, f->ring[ooc_arr(f, e->lvl0 + l)], a, e->qbase),
                       f->wedge + (size_t)(f->wedge_off[l] + a - P - lo) * p->slice_bytes,
                       (size_t)(b - a) * p->slice_bytes);
        }
    }
}

/* When the last block enters: the inputs' slices past n (constant: placed once, where no one
 * writes). */
void stn_ooc_wedge_place_inputs(ooc *e) {
    const stn_ooc_plan *p = &e->plan;
    int64_t P = p->r.H - p->r.L;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int64_t lo, hi;
        if (!f->wedge || f->m->state)
            continue;
        wedge_range_of(e, f, 0, &lo, &hi);
        if (hi > lo)
            memcpy(ooc_at(e, f->ring[0], lo + P, e->qbase), f->wedge, (size_t)(hi - lo) * p->slice_bytes);
    }
}
