/* layout.c -- the scratch files' chunks along y (docs/design/023): which layout a plan's file sets get, and
 * the chunk edges that make a y-blocked plan's reads and writes whole chunks wide (so each is one run of
 * planes x rows in the file).  Pure functions of the plan (and of STENCILC_SCRATCH_LAYOUT). */
#include "plan/stn_ooc.h"

#include <stdlib.h>
#include <string.h>

int stn_scratch_layout_plain(void) {
    const char *env = getenv("STENCILC_SCRATCH_LAYOUT");
    return env && strcmp(env, "plain") == 0;
}

int stn_ooc_chunked(const stn_ooc_plan *p) {
    return p->r.axis == 1 && p->q.axis == 2 && p->q.n > 1 && p->schedule != STN_SCHED_ALG2 &&
           !stn_scratch_layout_plain();
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Add y to e when it is an inner edge of [0, n): *k edges so far, max + 1 once there is no room. */
static void add(int64_t y, int64_t n, int64_t *e, int *k, int max) {
    if (y <= 0 || y >= n)
        return;
    if (*k < max)
        e[(*k)++] = y;
    else
        *k = max + 1;
}

int stn_ooc_chunk_edges(const stn_ooc_plan *p, int64_t Tw, int64_t Tr, int strip, int64_t *e, int max) {
    const stn_ooc_dim *g = &p->r;
    int k = 0;
    if (!stn_ooc_chunked(p) || max < 1)
        return 0;
    for (int64_t j = 0; j < g->nblocks && k <= max; j++) {
        int64_t lo, hi, plo = 0, phi = 0;
        if (Tw > 0 && !strip) { /* what block j writes */
            stn_ooc_out_range(p, g, j, Tw, &lo, &hi);
            add(lo, g->n, e, &k, max), add(hi, g->n, e, &k, max);
        }
        if (Tr > 0) { /* what block j reads: up to its window's end, from the previous one's (or its start) */
            stn_ooc_window(p, g, j, Tr, &lo, &hi);
            if (j > 0)
                stn_ooc_window(p, g, j - 1, Tr, &plo, &phi);
            if (j == 0 || lo > phi ||
                strip) /* (the strip saves what leaves the ring: from each window's start) */
                add(lo, g->n, e, &k, max);
            add(hi, g->n, e, &k, max);
        }
    }
    if (k > max)
        return -1;
    qsort(e, (size_t)k, sizeof *e, cmp64);
    int m = 0;
    for (int i = 0; i < k; i++)
        if (m == 0 || e[i] != e[m - 1])
            e[m++] = e[i];
    return m;
}
