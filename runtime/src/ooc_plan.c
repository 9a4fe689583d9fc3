/* ooc_plan.c -- the out-of-core plan: the geometry of skewed blocks, the DRAM a plan needs, and
 * the exact IO model.  Pure functions of the program, the grid, the plan and the fields' sources
 * (stn_ooc.h); the engine (ooc.c) and the tuners (tune.c) both use them, so the bytes the tuner
 * weighs are the bytes the engine moves.
 *
 * Skew.  In a blocked dimension with skew s = max(r-, r+) (the reach of a step: the halo, or more
 * with sub-steps), block k computes step t (1..T) on
 * [A(k,t), A(k+1,t)), where A(k,t) = clamp(Z_k - (t-1)s, L, H) for inner split points Z_k,
 * A(0,t) = L (the interior's lower edge) and A(K,t) = H; a tile computes the product of its two
 * ranges.  No point is computed twice, and with levels + 1 arrays per state field every level a
 * tile reads is still in DRAM.
 *
 * The model.  The reference schedule reads each level it needs once per sweep from the source
 * file set and writes each level the next sweep needs once to the destination set: kr + kw
 * arrays of the grid a sweep, plus the z-strip when it is spilled (written and read back once).
 * alg1 reads every block's overlapping window; alg2 reads each block's window of every array
 * and writes back all it changed.  The import of --init inputs, and the export of every --out,
 * are counted too.  docs/out-of-core.md states it in full. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_gridio.h"
#include "stn_ooc.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ geometry */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* A(k, t): the lower edge of block k's region at step t (1-based). */
int64_t stn_ooc_edge(const stn_ooc_dim *g, int64_t k, int64_t t) {
    if (g->wrap) { /* the wedge: block 0 leans forward, the last block runs on past H */
        int64_t lo = g->L + (t - 1) * g->skew, hi = g->H + (t - 1) * g->skew;
        return k <= 0 ? lo : k >= g->nblocks ? hi : clamp64(g->L + k * g->b - (t - 1) * g->skew, lo, hi);
    }
    if (k <= 0)
        return g->L;
    if (k >= g->nblocks)
        return g->H;
    return clamp64(g->L + k * g->b - (t - 1) * g->skew, g->L, g->H);
}

/* The least and the most of A(k, t) over t = 1..T: the wedge's inner edges fall and then rise
 * (clamped by block 0's rising edge), so the extremes are at the ends or where they meet. */
static void edge_extremes(const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *least, int64_t *most) {
    int64_t a = stn_ooc_edge(g, k, 1), b = stn_ooc_edge(g, k, T);
    *least = min64(a, b), *most = max64(a, b);
    if (g->wrap && g->skew > 0 && k > 0 && k < g->nblocks) {
        int64_t tc = 1 + k * g->b / (2 * g->skew);
        for (int64_t t = tc; t <= tc + 1; t++)
            if (t >= 1 && t <= T)
                *least = min64(*least, stn_ooc_edge(g, k, t)), *most = max64(*most, stn_ooc_edge(g, k, t));
    }
}

/* Z_k: the split points of the interior (Z_0 = L, Z_K = H). */
static int64_t split(const stn_ooc_dim *g, int64_t k) {
    return k <= 0 ? g->L : k >= g->nblocks ? g->H : g->L + k * g->b;
}

/* The window of block k in a sweep of T steps: [lo, hi). */
void stn_ooc_window(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo,
                    int64_t *hi) {
    int64_t a = stn_ooc_edge(g, k, T) - g->rlo, b = stn_ooc_edge(g, k + 1, 1) + g->rhi;
    if (g->wrap) { /* unrolled past H: clipped below only (the wraps need no mirror sources) */
        int64_t least, most, x;
        edge_extremes(g, k, T, &least, &x);
        edge_extremes(g, k + 1, T, &x, &most);
        *lo = max64(least - g->rlo, 0);
        *hi = most + g->rhi;
        return;
    }
    if (p->schedule == STN_SCHED_ALG1) { /* overlapped halos: T*s slices on each side, all read */
        a = k == 0 ? 0 : split(g, k) - T * g->skew;
        b = k == g->nblocks - 1 ? g->n : split(g, k + 1) + T * g->skew;
    }
    /* hold the mirror sources of any boundary index the window holds */
    if (a > g->H - g->hhi)
        a = g->H - g->hhi;
    if (b < 2 * g->L)
        b = 2 * g->L;
    *lo = clamp64(a, 0, g->n);
    *hi = clamp64(b, 0, g->n);
}

/* The indices block k owns at step t: its region [A(k,t), A(k+1,t)), plus the boundary indices
 * below L if the region holds L, and those from H up if it holds H-1.  Boundary cells thus
 * follow the skew like the interior: a level is written into them by the same block, at the
 * same step, as into the interior cells next to them, so a rotating array never loses a level
 * a later block still reads (the prev level of a two-level field, with boundary values of its
 * own, is the case that needs it).  At t = T this is also what block k writes out. */
void stn_ooc_owned_range(const stn_ooc_dim *g, int64_t k, int64_t t, int64_t *lo, int64_t *hi) {
    int64_t a = stn_ooc_edge(g, k, t), b = stn_ooc_edge(g, k + 1, t);
    if (g->wrap) { /* no boundary index is ever read: none is written */
        *lo = a, *hi = b;
        return;
    }
    *lo = a == g->L && b > a ? 0 : a;
    *hi = b == g->H && b > a ? g->n : b;
}

/* What block k computes at step t of a sweep of T steps.  ref and alg2: [A(k,t), A(k+1,t)).
 * alg1: its own indices widened by (T-t)*s on each side, redundantly computed by the neighbours
 * too, so that after T steps its own indices are exact with nothing shared between blocks. */
void stn_ooc_step_range(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t t, int64_t T,
                        int64_t *lo, int64_t *hi) {
    if (p->schedule != STN_SCHED_ALG1) {
        *lo = stn_ooc_edge(g, k, t);
        *hi = stn_ooc_edge(g, k + 1, t);
        return;
    }
    *lo = clamp64(split(g, k) - (T - t) * g->skew, g->L, g->H);
    *hi = clamp64(split(g, k + 1) + (T - t) * g->skew, g->L, g->H);
    if (k == 0)
        *lo = g->L;
    if (k == g->nblocks - 1)
        *hi = g->H;
}

/* The indices block k writes at the end of a sweep: ref, its final region (owned_range); alg1,
 * its own indices [Z_k, Z_k+1); both with the boundary indices at the ends of the grid. */
void stn_ooc_out_range(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo,
                       int64_t *hi) {
    if (p->schedule == STN_SCHED_ALG1) {
        *lo = k == 0 ? 0 : split(g, k);
        *hi = k == g->nblocks - 1 ? g->n : split(g, k + 1);
        return;
    }
    stn_ooc_owned_range(g, k, T, lo, hi);
}

/* alg2 writes every array back over all the slices block k changed at any step, [A(k,T),
 * A(k+1,1)), and over the boundary slices at the ends it owns at any step: the first and last
 * blocks, and a block thinner than its skew that reaches the lower edge late. */
void stn_ooc_alg2_range(const stn_ooc_dim *g, int64_t k, int64_t T, int64_t *lo, int64_t *hi) {
    *lo = k == 0 ? 0 : stn_ooc_edge(g, k, T);
    *hi = k == g->nblocks - 1 ? g->n : stn_ooc_edge(g, k + 1, 1);
    /* A block thinner than its skew can own the lower boundary indices at a later step (its
     * region reaches L once the blocks before it have skewed away: stn_ooc_owned_range), and the
     * level it writes into them there (the dirichlet conversion of a previous level) must reach
     * the files too.  The first step t at which A(k,t) = L: */
    if (k > 0 && k < g->nblocks && g->skew > 0) {
        int64_t t = 1 + (k * g->b + g->skew - 1) / g->skew;
        if (t <= T && stn_ooc_edge(g, k + 1, t) > g->L)
            *lo = 0;
    }
}

/* The indices step t of block k reads, and the mirror sources of the boundary indices among
 * them, clipped to the window [wlo, whi): where a neumann field must be mirrored. */
void stn_ooc_read_range(const stn_ooc_plan *p, const stn_ooc_dim *g, int64_t k, int64_t t, int64_t T,
                        int64_t wlo, int64_t whi, int64_t *lo, int64_t *hi) {
    int64_t a, b;
    stn_ooc_step_range(p, g, k, t, T, &a, &b);
    stn_ooc_read_of(g, a, b, wlo, whi, lo, hi);
}

void stn_ooc_read_of(const stn_ooc_dim *g, int64_t a, int64_t b, int64_t wlo, int64_t whi, int64_t *lo,
                     int64_t *hi) {
    a -= g->rlo, b += g->rhi;
    if (g->wrap) {
        *lo = a > wlo ? a : wlo;
        *hi = b < whi ? b : whi;
        return;
    }
    if (a < g->L && b < 2 * g->L)
        b = 2 * g->L;
    if (b > g->H && a > g->H - g->hhi)
        a = g->H - g->hhi;
    *lo = a > wlo ? a : wlo;
    *hi = b < whi ? b : whi;
}

int64_t stn_ooc_sub_edge(const stn_ooc_dim *g, int64_t k, int64_t i, int64_t m, int64_t w, int64_t t,
                         int64_t a, int64_t b) {
    if (i <= 0)
        return a;
    if (i >= m)
        return b;
    return clamp64(split(g, k) + i * w - (t - 1) * g->skew, a, b);
}

int64_t stn_ooc_sub_count(const stn_ooc_dim *g, int64_t k, int64_t w) {
    int64_t width = split(g, k + 1) - split(g, k);
    return w < 1 || width <= w ? 1 : (width + w - 1) / w;
}

/* The z-planes row k of a sweep of T steps passes to row k+1: [next row's window lo, this
 * row's window hi); empty for the last row. */
void stn_ooc_strip_range(const stn_ooc_plan *p, int64_t k, int64_t T, int64_t *lo, int64_t *hi) {
    int64_t a, b, c, d;
    *lo = *hi = 0;
    if (p->strip == STN_STRIP_NONE || k + 1 >= p->q.nblocks)
        return;
    stn_ooc_window(p, &p->q, k, T, &a, &b);
    stn_ooc_window(p, &p->q, k + 1, T, &c, &d);
    *lo = c;
    *hi = b > c ? b : c;
}

/* ------------------------------------------------------------------ the plan and its model */

/* The slices that must be in DRAM at once in a row of a sweep of T steps: while block j
 * computes, its window [lo_j, hi_j), the slices of block j+1 being read, up to hi_{j+1}, and
 * what block j-1 is writing, from its output's lower edge (its window's, when it also spills
 * the z-strip).  (Block j-2's writes are waited for before block j+1's reads are issued.)  A
 * ring this long never overwrites a slice still in use. */
static int64_t live_slices(const stn_ooc_plan *p, int64_t T) {
    const stn_ooc_dim *g = &p->r;
    int spills = p->strip == STN_STRIP_FILE && p->q.nblocks > 1;
    int64_t need = 0, lo, hi, nlo, nhi, olo = 0, ohi = 0;
    for (int64_t k = 0; k < g->nblocks; k++) {
        stn_ooc_window(p, g, k, T, &lo, &hi);
        nhi = hi;
        if (k + 1 < g->nblocks)
            stn_ooc_window(p, g, k + 1, T, &nlo, &nhi);
        int64_t low = k > 0 && olo < lo ? olo : lo;
        need = max64(need, max64(hi, nhi) - low);
        if (spills)
            olo = lo;
        else
            stn_ooc_out_range(p, g, k, T, &olo, &ohi);
    }
    return need;
}

/* Slices per ring: every sweep's live set, and the import/export chunk, which must hold the
 * mirror sources of both ends of a short grid at once (min(n, 2*hlo + 2*hhi)); rounded up so
 * that a ring is a whole number of pages. */
static int64_t round_slices(const stn_ooc_plan *p, int64_t c) {
    uint64_t sb = p->slice_bytes, per = 4096; /* slices per page-aligned group: 4096 / gcd */
    while (per % 2 == 0 && sb % 2 == 0)
        per /= 2, sb /= 2;
    return (c + (int64_t)per - 1) / (int64_t)per * (int64_t)per;
}

/* Slices of a ring that must hold c of them at once: a whole number of pages' worth, unless the
 * ring holds the whole extent and never wraps, so that no slice is ever addressed past it (a 1d
 * grid is one slice, the whole row: eight of them would be its page's multiple). */
static int64_t ring_count(const stn_ooc_plan *p, int64_t c) {
    return !p->r.wrap && c >= p->r.n ? p->r.n : round_slices(p, c);
}

/* What ring_slices depends on.  The tuners build many plans that differ only in the q blocks (a
 * y-blocked bz): the last answer is kept, per thread, so that those cost O(q blocks), not
 * O(r blocks). */
typedef struct ring_key {
    stn_ooc_dim r;
    int64_t bt, steps;
    uint64_t slice_bytes;
    int schedule, spills;
} ring_key;

static int64_t ring_slices(const stn_ooc_plan *p) {
    static __thread ring_key last_key;
    static __thread int64_t last_value;
    static __thread int have_last;
    ring_key key;
    memset(&key, 0, sizeof key); /* no padding bytes left to compare */
    key.r = p->r;
    key.bt = p->bt;
    key.steps = p->steps;
    key.slice_bytes = p->slice_bytes;
    key.schedule = p->schedule;
    key.spills = p->strip == STN_STRIP_FILE && p->q.nblocks > 1;
    if (have_last && memcmp(&key, &last_key, sizeof key) == 0)
        return last_value;
    const stn_ooc_dim *g = &p->r;
    int64_t c = live_slices(p, p->bt), ends = 2 * g->hlo + 2 * g->hhi;
    if (p->steps % p->bt)
        c = max64(c, live_slices(p, p->steps % p->bt));
    c = max64(c, min64(ends, g->n));
    c = max64(c, 1);
    last_key = key;
    last_value = ring_count(p, c);
    have_last = 1;
    return last_value;
}

/* y-blocked: the z-planes a ring array holds (the widest row window, and the export's chunk),
 * and the widest z-strip, over the sweeps of bt steps and the last shorter one. */
static void row_extents(const stn_ooc_plan *p, int64_t *planes, int64_t *strip) {
    const stn_ooc_dim *g = &p->q;
    int64_t Ts[2] = {p->bt, p->steps % p->bt ? p->steps % p->bt : p->bt}, lo, hi;
    *planes = min64(2 * g->hlo + 2 * g->hhi, g->n);
    *strip = 0;
    for (int i = 0; i < 2; i++)
        for (int64_t k = 0; k < g->nblocks; k++) {
            stn_ooc_window(p, g, k, Ts[i], &lo, &hi);
            *planes = max64(*planes, hi - lo);
            stn_ooc_strip_range(p, k, Ts[i], &lo, &hi);
            *strip = max64(*strip, hi - lo);
        }
    *planes = max64(*planes, 1);
}

/* Bytes of DRAM the engine allocates for this plan (the budget constraint): one ring per array
 * (levels + 1 per state field, one per input), the z-strip when it stays in DRAM, and the IO
 * queue. */
/* Slices the wedge keeps in DRAM for the last block: every level of every state field, for the
 * longest sweep. */
static uint64_t wedge_slices(const stn_ooc_plan *p, const stn_program_desc *d) {
    uint64_t n = 0;
    for (int i = 0; p->r.wrap && i < d->nfields; i++) {
        int64_t lo, hi;
        if (d->fields[i].kind == STN_FIELD_STATE) /* (levels v+1 .. m-1 are alike: counted at once) */
            for (int64_t l = 0, v = d->fields[i].levels, m = p->bt - v - 1, k; l < p->bt; l += k) {
                stn_ooc_wedge_range(&p->r, (int)v, p->bt, l, &lo, &hi);
                n += (uint64_t)(hi - lo) * (uint64_t)(k = l == v + 1 && m > l ? m - l : 1);
            }
        else {
            stn_ooc_wedge_input_range(&p->r, p->bt, &lo, &hi);
            n += (uint64_t)(hi - lo);
        }
    }
    return n;
}

static uint64_t plan_memory(const stn_ooc_plan *p, const stn_program_desc *d) {
    uint64_t arrays = stn_total_arrays(d), wedge = wedge_slices(p, d) * p->slice_bytes;
    uint64_t ring = (uint64_t)p->qplanes * p->ring_bytes;
    uint64_t strip = p->strip == STN_STRIP_DRAM
                         ? (uint64_t)p->strip_planes * (uint64_t)p->r.n * (uint64_t)p->row_bytes
                         : 0;
    return arrays * (ring + strip) + wedge + stn_aio_footprint(STN_AIO_DEFAULT_DEPTH) +
           stn_kernel_scratch(d, p->nx, p->r.n, p->q.n) + p->fold.held;
}

static void dim_init(stn_ooc_dim *g, int axis, int64_t n, const stn_program_desc *d, int64_t b) {
    int64_t hlo = axis < d->ndim ? d->halo_lo[axis] : 0, hhi = axis < d->ndim ? d->halo_hi[axis] : 0;
    g->axis = axis;
    g->n = n;
    g->hlo = hlo;
    g->hhi = hhi;
    g->rlo = axis < d->ndim ? max64(d->reach_lo[axis], hlo) : 0;
    g->rhi = axis < d->ndim ? max64(d->reach_hi[axis], hhi) : 0;
    g->skew = max64(g->rlo, g->rhi);
    g->L = hlo;
    g->H = n - hhi;
    g->b = b < 1 ? 1 : b;
    g->wrap = 0;
    g->nblocks = (g->H - g->L + g->b - 1) / g->b;
    if (g->nblocks < 1)
        g->nblocks = 1;
}

int stn_ooc_make_plan(const stn_program_desc *d, const stn_fold *fold, const int64_t size[3], int64_t steps,
                      int schedule, int64_t by, int64_t bz, int64_t bt, int strip, size_t align,
                      stn_ooc_plan *p) {
    memset(p, 0, sizeof *p);
    p->schedule = schedule < 0 ? STN_SCHED_REF : schedule;
    int64_t whole = INT64_MAX / 4;
    if (d->ndim == 2) {
        dim_init(&p->r, 1, size[1], d, by);
        dim_init(&p->q, 2, 1, d, whole);
    } else if (by >= size[1]) { /* whole planes */
        dim_init(&p->r, 2, size[2], d, bz);
        dim_init(&p->q, 1, size[1], d, whole);
    } else { /* y-blocked: tiles of y x z */
        dim_init(&p->r, 1, size[1], d, by);
        dim_init(&p->q, 2, size[2], d, bz);
        p->strip = strip == STN_STRIP_FILE ? STN_STRIP_FILE : STN_STRIP_DRAM;
    }
    if (p->schedule == STN_SCHED_REF && p->strip == STN_STRIP_NONE && d->ndim >= 2 && stn_ooc_wedge_ok(d))
        p->r.wrap = 1; /* (so is a sweep of one step: its edges are the usual ones) */
    p->steps = steps;
    p->bt = bt < 1 ? 1 : bt;
    p->align = align;
    p->nx = size[0];
    p->row_bytes = stn_grid_row_bytes(size[0], d->elem_size, align);
    p->grid_bytes = (uint64_t)p->row_bytes * (uint64_t)size[1] * (uint64_t)(d->ndim == 3 ? size[2] : 1);
    p->npy_bytes = (uint64_t)size[0] * (uint64_t)size[1] * (uint64_t)(d->ndim == 3 ? size[2] : 1) *
                   (uint64_t)d->elem_size;
    if (fold) /* (held: DRAM beside the rings, counted in mem_bytes) */
        p->fold = *fold;
    if (fold && fold->W) /* a folded 1d grid's .npy holds its cells, not the rows' */
        p->npy_bytes = (uint64_t)fold->n * (uint64_t)d->elem_size;
    p->out_bytes = p->npy_bytes;
    p->slice_bytes = (uint64_t)p->row_bytes * (uint64_t)(p->r.axis == 2 ? size[1] : 1);
    p->nsweeps = steps == 0 ? 0 : (steps + p->bt - 1) / p->bt;
    p->ring_slices = ring_slices(p);
    p->ring_bytes = ((uint64_t)p->ring_slices * p->slice_bytes + 4095) / 4096 * 4096;
    if (p->strip != STN_STRIP_NONE) {
        row_extents(p, &p->qplanes, &p->strip_planes);
        p->qcap = p->qplanes;
    } else {
        p->qplanes = 1;
        p->qcap = p->q.n;
    }
    p->mem_bytes = plan_memory(p, d);
    return 0;
}

int stn_ooc_wedge_ok(const stn_program_desc *d) {
    int r = d->ndim == 3 ? 2 : 1, all = (1 << d->ndim) - 1, any = 0;
    if (stn_dims(d) != d->ndim)
        return 0;
    for (int j = 0; j < d->nalong; j++) /* indexed by the grid's own coordinate along r */
        if (d->alongs[j].axis == r)
            return 0;
    for (int i = 0; i < d->nfields; i++) {
        const stn_field_desc *f = &d->fields[i];
        if (f->kind == STN_FIELD_INPUT) { /* read at its own cell along r: the far side is never read */
            if (!(f->read_across & 8) || (f->read_across >> r) & 1)
                return 0;
            continue;
        }
        if (!((f->periodic >> r) & 1) || !(f->boundary == STN_BC_NEUMANN || (f->periodic & all) == all))
            return 0;
        any = 1;
    }
    return any;
}

void stn_ooc_wedge_input_range(const stn_ooc_dim *g, int64_t T, int64_t *lo, int64_t *hi) {
    *lo = g->L + g->hhi;
    *hi = g->L + (T - 1) * g->skew;
    if (*hi < *lo)
        *hi = *lo;
}

void stn_ooc_wedge_range(const stn_ooc_dim *g, int levels, int64_t T, int64_t l, int64_t *lo, int64_t *hi) {
    *lo = g->L + (l >= 1 ? (l - 1) * g->skew : g->hhi); /* level 0: past n, what no file holds */
    *hi = g->L + (min64(l + levels, T) - 1) * g->skew + g->rhi;
    if (*hi < *lo)
        *hi = *lo;
}

int stn_ooc_periodic_axes(const stn_program_desc *d) {
    int axes = 0;
    for (int i = 0; i < d->nfields; i++)
        if (d->fields[i].kind == STN_FIELD_STATE)
            axes |= d->fields[i].periodic;
    return axes;
}

/* A wrap along a blocked dimension reads the far side of the grid at the level before the step.
 * A sweep of one step reads it from its source file set, which no block writes; a longer sweep
 * would need levels the sweep computes only at its end.  y-blocked tiles block both y and z. */
const char *stn_ooc_periodic_refusal(const stn_program_desc *d, const stn_ooc_plan *p, char *buf, size_t n) {
    static const char axis[] = "xyz";
    int axes = stn_ooc_periodic_axes(d);
    if (p->strip != STN_STRIP_NONE && (axes & 6)) {
        snprintf(buf, n,
                 "this stencil is periodic along %c, which y-blocked tiles cannot wrap around: blocks "
                 "must be whole planes (by = ny)",
                 axis[axes & 4 ? 2 : 1]);
        return buf;
    }
    if ((axes >> p->r.axis) & 1 && p->bt > 1 && !p->r.wrap) {
        snprintf(
            buf, n,
            "this stencil is periodic along %c, the axis the blocks stream along, and %s: the out-of-core "
            "engine wraps it around one step a sweep (bt = 1)",
            axis[p->r.axis],
            p->schedule != STN_SCHED_REF
                ? "only the ref schedule carries the wrap-around slices with a sweep"
                : "not every field wraps it (or an input is read at an offset along it)");
        return buf;
    }
    if (p->r.wrap && p->bt > 1 && p->r.H - p->r.L < p->bt * p->r.skew + p->r.rhi) {
        snprintf(buf, n,
                 "this stencil is periodic along %c, whose interior of %" PRId64
                 " is too short for sweeps of %" PRId64
                 " steps (the wrap-around slices of a sweep span bt * %" PRId64 " + %" PRId64
                 "); use a smaller bt",
                 axis[p->r.axis], p->r.H - p->r.L, p->bt, p->r.skew, p->r.rhi);
        return buf;
    }
    if ((axes >> p->r.axis) & 1 && p->schedule == STN_SCHED_ALG2) {
        snprintf(buf, n,
                 "this stencil is periodic along %c: --schedule alg2 updates its files in place, so the "
                 "wrap-around planes the last block reads would already be overwritten; use ref or alg1",
                 axis[p->r.axis]);
        return buf;
    }
    return NULL;
}

int64_t stn_ooc_window0(const stn_ooc_dim *g, int64_t b) {
    int64_t nblocks = b >= g->H - g->L ? 1 : (g->H - g->L + b - 1) / b;
    int64_t w = (nblocks > 1 ? g->L + b : g->H) + g->rhi; /* [0, A(1,1) + rhi) */
    return max64(min64(max64(w, 2 * g->L), g->n), 1);     /* with the lower edge's mirror sources */
}

int64_t stn_ooc_ring_floor(const stn_ooc_plan *p, int64_t b) {
    return ring_count(p, stn_ooc_window0(&p->r, b));
}

uint64_t stn_ooc_mem_floor(const stn_program_desc *d, const stn_ooc_plan *p, int64_t min_ring) {
    int yb = p->strip != STN_STRIP_NONE;
    uint64_t ring =
        yb ? (uint64_t)stn_ooc_window0(&p->q, p->q.b) * (uint64_t)max64(min_ring, 1) * p->slice_bytes
           : (uint64_t)stn_ooc_ring_floor(p, p->r.b) * p->slice_bytes;
    return stn_total_arrays(d) * ring + stn_aio_footprint(STN_AIO_DEFAULT_DEPTH) +
           stn_kernel_scratch(d, p->nx, p->r.n, p->q.n);
}

/* ------------------------------------------------------------------ the model */

void stn_ooc_fsrc_init(const stn_program_desc *d, int i, const char *const *init_path,
                       const char *const *out_path, stn_ooc_fsrc *f) {
    const stn_field_desc *fd = &d->fields[i];
    memset(f, 0, sizeof *f);
    f->state = fd->kind == STN_FIELD_STATE;
    f->levels = f->state ? fd->levels : 1;
    f->narr = f->state ? fd->levels + 1 : 1;
    for (int l = 0; l < f->levels; l++) {
        int has = l == 0 ? fd->has_init : fd->has_prev_init;
        f->first[l] = init_path[2 * i + l] ? STN_SRC_NPY
                      : has                ? STN_SRC_INIT
                      : l == 0             ? STN_SRC_ZERO
                                           : STN_SRC_COPY;
    }
    if (!f->state)
        f->input = f->first[0] == STN_SRC_NPY ? STN_SRC_SCRATCH : f->first[0];
    for (int l = 0; l < 2; l++)
        f->out[l] = out_path[2 * i + l] != NULL;
}

/* Bytes each source kind moves for one whole level of one field. */
static uint64_t level_bytes(const stn_ooc_plan *p, int src) {
    return src == STN_SRC_SCRATCH ? p->grid_bytes : src == STN_SRC_NPY ? p->npy_bytes : 0;
}

int64_t stn_ooc_sweep_steps(const stn_ooc_plan *p, int64_t s) {
    return s == p->nsweeps - 1 && p->steps % p->bt ? p->steps % p->bt : p->bt;
}

/* Bytes of one state level a sweep of T steps reads from a source moving `whole` bytes for the
 * whole level: all of it once (ref), or every block's window (alg1, whose windows overlap by
 * 2*T*s; whole planes only, so a slice is whole / n). */
static uint64_t sweep_read_bytes(const stn_ooc_plan *p, int64_t T, uint64_t whole, int npy) {
    if (p->schedule != STN_SCHED_ALG1)
        return whole;
    int64_t lo, hi;
    uint64_t n = 0;
    for (int64_t k = 0; k < p->r.nblocks; k++) {
        stn_ooc_window(p, &p->r, k, T, &lo, &hi);
        n += npy && p->fold.W ? (uint64_t)stn_fold_cells(&p->fold, lo, hi) : (uint64_t)(hi - lo);
    }
    return npy && p->fold.W ? n * (whole / (uint64_t)p->fold.n) : whole / (uint64_t)p->r.n * n;
}

/* Bytes of one array's z-strip in a sweep of T steps (y-blocked): the planes each row of blocks
 * hands on to the next, every row of them.  Spilled, they are written and read back; in DRAM,
 * copied out of the ring and back. */
static uint64_t strip_bytes(const stn_ooc_plan *p, int64_t T) {
    uint64_t planes = 0;
    int64_t lo, hi;
    for (int64_t k = 0; p->strip != STN_STRIP_NONE && k + 1 < p->q.nblocks; k++) {
        stn_ooc_strip_range(p, k, T, &lo, &hi);
        planes += (uint64_t)(hi - lo);
    }
    return planes * (uint64_t)p->r.n * (uint64_t)p->row_bytes; /* y-blocked: r is y */
}

static uint64_t spill_bytes(const stn_ooc_plan *p, int64_t T) {
    return p->strip == STN_STRIP_FILE ? strip_bytes(p, T) : 0;
}

int stn_ooc_source_of(const stn_ooc_model *m, const stn_ooc_plan *p, int f, int level, int64_t sweep) {
    const stn_ooc_fsrc *of = &m->f[f];
    if (!of->state) {
        if (of->input == STN_SRC_SCRATCH && p->nsweeps == 0 && !m->imported && !of->written)
            return STN_SRC_NPY; /* no sweep, no import: the export copies the user's file */
        return of->input;
    }
    if (p->schedule == STN_SCHED_ALG2 && p->nsweeps > 0)
        return STN_SRC_SCRATCH; /* the import put every level in the in-place files */
    return sweep == 0 ? of->first[level] : STN_SRC_SCRATCH;
}

/* What sweep s, of T steps, moves for field i, added to rd and wr `times` times. */
static void sweep_bytes_T(const stn_ooc_model *m, const stn_ooc_plan *p, int i, int64_t s, int64_t T,
                          uint64_t times, uint64_t *rd, uint64_t *wr) {
    const stn_ooc_fsrc *f = &m->f[i];
    uint64_t scratch = level_bytes(p, STN_SRC_SCRATCH), r = 0, w = 0;
    uint64_t spill = (uint64_t)f->narr * spill_bytes(p, T); /* the z-strip, every array */
    r += spill, w += spill;
    if (f->state && p->schedule == STN_SCHED_ALG2) {
        for (int64_t k = 0; k < p->r.nblocks; k++) { /* each block reads its window, writes */
            int64_t lo, hi, wlo, whi;
            stn_ooc_window(p, &p->r, k, T, &lo, &hi);
            stn_ooc_alg2_range(&p->r, k, T, &wlo, &whi);
            r += (uint64_t)f->narr * (uint64_t)(hi - lo) * p->slice_bytes;
            w += (uint64_t)f->narr * (uint64_t)(whi - wlo) * p->slice_bytes;
        }
    } else {
        /* ref reads each point once a sweep; alg1 reads every block's whole window */
        for (int l = 0; l < (f->state ? f->levels : 1); l++) {
            int src = stn_ooc_source_of(m, p, i, l, s);
            uint64_t whole = level_bytes(p, src);
            r += f->state ? sweep_read_bytes(p, T, whole, src == STN_SRC_NPY) : whole;
            /* (a wrapped sweep writes the interior: no boundary slice is ever read back) */
            w += !f->state ? 0 : p->r.wrap ? (uint64_t)(p->r.H - p->r.L) * p->slice_bytes : scratch;
        }
    }
    *rd += times * r;
    *wr += times * w;
}

/* What sweep s moves for field i (its steps from the plan), added to rd and wr `times` times. */
static void sweep_bytes(const stn_ooc_model *m, const stn_ooc_plan *p, int i, int64_t s, uint64_t times,
                        uint64_t *rd, uint64_t *wr) {
    sweep_bytes_T(m, p, i, s, stn_ooc_sweep_steps(p, s), times, rd, wr);
}

void stn_ooc_predict_sweep(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s, int64_t T, uint64_t *rd,
                           uint64_t *wr) {
    for (int i = 0; i < m->nfields; i++)
        sweep_bytes_T(m, p, i, s, T, 1, rd, wr);
}

void stn_ooc_predict_import(const stn_ooc_model *m, const stn_ooc_plan *p, uint64_t *rd, uint64_t *wr) {
    uint64_t scratch = level_bytes(p, STN_SRC_SCRATCH), npy = level_bytes(p, STN_SRC_NPY);
    for (int i = 0; i < m->nfields; i++) {
        const stn_ooc_fsrc *f = &m->f[i];
        if (!f->state && f->input == STN_SRC_SCRATCH && !f->written) /* (a written one was made in place) */
            *rd += npy, *wr += scratch;
        if (f->state && p->schedule == STN_SCHED_ALG2) {
            for (int l = 0; l < f->levels; l++) /* every array of the field */
                *rd += level_bytes(p, f->first[l]);
            *wr += (uint64_t)f->narr * scratch;
        }
    }
}

void stn_ooc_predict(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t first_sweep, uint64_t *rd,
                     uint64_t *wr) {
    int64_t last = p->nsweeps - 1;
    *rd = *wr = 0;
    if (first_sweep == 0 && p->nsweeps > 0)
        stn_ooc_predict_import(m, p, rd, wr);
    for (int i = 0; i < m->nfields; i++) {
        const stn_ooc_fsrc *f = &m->f[i];
        if (first_sweep <= last) {
            sweep_bytes(m, p, i, first_sweep, 1, rd, wr);
            if (last - first_sweep > 1)
                sweep_bytes(m, p, i, first_sweep + 1, (uint64_t)(last - first_sweep - 1), rd, wr);
            if (last > first_sweep)
                sweep_bytes(m, p, i, last, 1, rd, wr);
        }
        for (int l = 0; l < 2; l++)
            if (f->out[l]) {
                *rd += level_bytes(p, stn_ooc_source_of(m, p, i, l, p->nsweeps));
                *wr += p->out_bytes;
            }
    }
}

/* ------------------------------------------------------------------ the time model */

/* The bytes of one request of a block: its new slices in one plane (y-blocked, 2d) or all of
 * them (whole planes, where they are contiguous), at most the queue's largest request. */
static uint64_t request_bytes(const stn_ooc_plan *p, uint64_t max_request) {
    uint64_t b = (uint64_t)p->r.b;
    uint64_t req = p->r.axis == 2 ? b * p->slice_bytes : b * (uint64_t)p->row_bytes;
    return req < max_request ? req : max_request;
}

static double seconds(const stn_dev_curve *c, uint64_t bytes, uint64_t request, int depth) {
    double bw = stn_dev_bandwidth(c, request, depth);
    return bytes && bw > 0 ? (double)bytes / bw : 0;
}

/* Seconds the device is busy reading rd and writing wr bytes at the same time (see
 * stn_ooc_predict_time): the paired part on the mixed curve, the rest on its own curve. */
static double device_seconds(const stn_device *dev, uint64_t rd, uint64_t wr, uint64_t req, int depth,
                             int fresh) {
    const stn_dev_curve *mix = fresh && dev->mixed_new.n ? &dev->mixed_new : &dev->mixed;
    if (mix->n == 0)
        return seconds(&dev->read, rd, req, depth) + seconds(&dev->write, wr, req, depth);
    uint64_t pair = rd < wr ? rd : wr;
    return seconds(mix, 2 * pair, req, depth) + seconds(&dev->read, rd - pair, req, depth) +
           seconds(&dev->write, wr - pair, req, depth);
}

/* Sweep s's part of the prediction, added `times` times. */
static void sweep_time(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s, double times,
                       const stn_time_model *tm, uint64_t req, double edge, stn_time_pred *out) {
    uint64_t rd = 0, wr = 0, npy = 0, copied = 0;
    for (int i = 0; i < m->nfields; i++) {
        const stn_ooc_fsrc *f = &m->f[i];
        sweep_bytes(m, p, i, s, 1, &rd, &wr);
        if (p->strip == STN_STRIP_DRAM) /* out of the ring and back: twice */
            copied += 2 * (uint64_t)f->narr * strip_bytes(p, stn_ooc_sweep_steps(p, s));
        for (int l = 0; f->state && p->schedule != STN_SCHED_ALG2 && l < f->levels; l++)
            if (stn_ooc_source_of(m, p, i, l, s) == STN_SRC_NPY)
                npy += sweep_read_bytes(p, stn_ooc_sweep_steps(p, s), p->npy_bytes, 1);
    }
    rd -= npy;
    /* sweep s writes the scratch set sweep s - 2 wrote: the first two write into new files (alg2
     * writes back into the arrays its import wrote) */
    int fresh = s < 2 && p->schedule != STN_SCHED_ALG2;
    double comp =
        tm->cells_per_second > 0 ? tm->cells * (double)stn_ooc_sweep_steps(p, s) / tm->cells_per_second : 0;
    double io, n, dev;      /* the --init reads share the device (and run beside the kernels) */
    if (tm->dev->mixed.n) { /* they pair with the writes too; their share of the device time is theirs */
        dev = device_seconds(tm->dev, rd + npy, wr, req, tm->depth, fresh);
        n = rd + npy + wr ? dev * (double)npy / (double)(rd + npy + wr) : 0;
        io = dev - n;
    } else {
        io = device_seconds(tm->dev, rd, wr, req, tm->depth, fresh);
        n = seconds(&tm->dev->read, npy, req, 1);
        dev = io + n;
    }
    /* the strip copies are the threads' work between kernel calls, as slow as the memory */
    double copy = tm->copy_bytes_per_second > 0 ? (double)copied / tm->copy_bytes_per_second : 0;
    out->copy_bytes += (uint64_t)times * copied;
    out->copy += times * copy;
    comp += copy;
    out->io += times * io;
    out->compute += times * (comp - copy);
    out->npy += times * n;
    out->fill += times * io * edge;
    /* both at once, each slowed by the other while both run: the kernels to the share f of their
     * rate, the device to the share g of its bandwidth; whichever ends first leaves the other
     * alone at full speed.  (f = g = 1: max(dev, comp).) */
    double f = tm->dev->compute_under_io > 0 ? tm->dev->compute_under_io : 1;
    double g = tm->dev->io_under_compute > 0 ? tm->dev->io_under_compute : 1;
    double cf = comp / f, dg = dev / g;
    double both = cf <= dg ? dev + (1 - g) * cf : comp + (1 - f) * dg;
    out->total += times * (both + io * edge);
}

void stn_xchg_of(const stn_run *r, stn_xchg_model *x) {
    const stn_slab *sl = &r->slab;
    const stn_program_desc *d = r->d;
    memset(x, 0, sizeof *x);
    if (!sl->axis)
        return;
    x->levels = stn_state_levels(d);
    x->axis = sl->axis;
    x->nb = (sl->below >= 0) + (sl->above >= 0);
    x->skew = sl->skew[sl->axis];
    x->cross = sl->cut;
    for (int k = 0; k < 2; k++)
        x->xsides[k] = (sl->xnb[k][0] >= 0) + (sl->xnb[k][1] >= 0), x->xskew[k] = sl->skew[k];
    x->nx = r->view.nx;
    x->rows = d->ndim == 3 ? r->view.ny : 1;
    x->elem = d->elem_size;
    x->defer = sl->defer > 0;
    x->net_bytes_per_second = r->net_bytes_per_second;
    x->net_latency = r->net_latency;
}

void stn_ooc_exchange(const stn_xchg_model *x, const stn_ooc_plan *p, int64_t bt, uint64_t *io, uint64_t *msg,
                      uint64_t *nmsg) {
    *io = *msg = *nmsg = 0;
    if (!x || !x->levels)
        return;
    uint64_t g = (uint64_t)(bt * x->skew), L = x->levels, n = (uint64_t)p->r.n;
    int along_r = x->axis == p->r.axis; /* (else y-blocked: a z-plane of rows, in runs of the ring's rows) */
    uint64_t plane = along_r ? p->slice_bytes : n * (uint64_t)p->row_bytes;
    uint64_t runs = along_r ? 1 : (n + (uint64_t)p->ring_slices - 1) / (uint64_t)p->ring_slices;
    *io = L * (uint64_t)x->nb * g * plane;
    *msg = *io;
    *nmsg = L * (uint64_t)x->nb * g * runs;
    if (!x->cross)
        return;
    uint64_t es = (uint64_t)x->elem, batches = (n + (uint64_t)p->ring_slices - 1) / (uint64_t)p->ring_slices;
    *io += L * n * p->slice_bytes;
    for (int k = 0; k < 2; k++) {
        if (!(x->cross >> k & 1))
            continue;
        uint64_t sides = (uint64_t)x->xsides[k], gk = (uint64_t)(bt * x->xskew[k]);
        uint64_t each = k == 0 ? gk * n * (uint64_t)x->rows * es : gk * n * (uint64_t)x->nx * es;
        *msg += L * each * sides;
        *nmsg += L * batches * sides;
    }
}

void stn_ooc_predict_time(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t first_sweep,
                          const stn_time_model *tm, stn_time_pred *out) {
    memset(out, 0, sizeof *out);
    uint64_t req = request_bytes(p, tm->max_request), big = tm->max_request;
    out->request = req;
    /* the share of a row's IO that nothing overlaps: block 0's window read, the last block written */
    double edge = p->r.n > 0 ? (double)(stn_ooc_window0(&p->r, p->r.b) + p->r.b) / (double)p->r.n : 1;
    edge = edge > 1 ? 1 : edge;
    /* the sweeps between the first and the last are alike (as in stn_ooc_predict), but for the
     * files they write: sweeps 0 and 1 write new ones (sweep_time's `fresh`) */
    int64_t last = p->nsweeps - 1;
    if (first_sweep <= last) {
        sweep_time(m, p, first_sweep, 1, tm, req, edge, out);
        int64_t s = first_sweep + 1;
        if (s < 2 && s < last) /* sweep 1 writes new files, the rest overwrite */
            sweep_time(m, p, s++, 1, tm, req, edge, out);
        if (last - s > 0)
            sweep_time(m, p, s, (double)(last - s), tm, req, edge, out);
        if (last > first_sweep)
            sweep_time(m, p, last, 1, tm, req, edge, out);
    }
    for (int i = 0; i < m->nfields; i++) { /* import and export: whole levels, one after another */
        const stn_ooc_fsrc *f = &m->f[i];
        if (!f->state && f->input == STN_SRC_SCRATCH && first_sweep == 0 && p->nsweeps > 0)
            out->xfer += seconds(&tm->dev->read, p->npy_bytes, big, 1) +
                         seconds(&tm->dev->write, p->grid_bytes, big, tm->depth);
        if (f->state && p->schedule == STN_SCHED_ALG2 && first_sweep == 0 && p->nsweeps > 0)
            out->xfer += f->narr * (seconds(&tm->dev->read, p->npy_bytes, big, 1) +
                                    seconds(&tm->dev->write, p->grid_bytes, big, tm->depth));
        for (int l = 0; l < 2; l++)
            if (f->out[l])
                out->xfer += seconds(&tm->dev->read, p->grid_bytes, big, tm->depth) +
                             seconds(&tm->dev->write, p->npy_bytes, big, 1);
    }
    out->total += out->xfer;
    if (tm->xm && p->nsweeps - 1 > first_sweep) { /* the exchanges after every sweep but the last */
        uint64_t io, msg, nmsg;
        stn_ooc_exchange(tm->xm, p, tm->ghost_bt > 0 ? tm->ghost_bt : p->bt, &io, &msg, &nmsg);
        double times = (double)(p->nsweeps - 1 - first_sweep);
        double net = tm->xm->net_bytes_per_second > 0
                         ? (double)msg / tm->xm->net_bytes_per_second + (double)nmsg * tm->xm->net_latency
                         : 0;
        if (tm->xm->defer && tm->xm->axis == p->r.axis) /* the way down's messages run beside the sweep */
            net *= 0.5;
        out->messages = times * net;
        out->exchange = times * (device_seconds(tm->dev, io, io, big, tm->depth, 0) + net);
        out->total += out->exchange;
    }
}
