/* ooc_plan.c -- the out-of-core plan: the geometry of skewed blocks and the DRAM a plan needs; its
 * exact IO model and its time model are ooc_model.c's.  Pure functions of the program, the grid, the
 * plan and the fields' sources (stn_ooc.h); the engine (engines/ooc/) and the tuners (tune.c) both use
 * them, so the bytes the tuner weighs are the bytes the engine moves.
 *
 * Skew.  In a blocked dimension with skew s = max(r-, r+) (the reach of a step: the halo, or more
 * with sub-steps), block k computes step t (1..T) on
 * [A(k,t), A(k+1,t)), where A(k,t) = clamp(Z_k - (t-1)s, L, H) for inner split points Z_k,
 * A(0,t) = L (the interior's lower edge) and A(K,t) = H; a tile computes the product of its two
 * ranges.  No point is computed twice, and with levels + 1 arrays per state field every level a
 * tile reads is still in DRAM.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"
#include "plan/stn_ooc.h"

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

/* Bytes of DRAM the engine allocates for this plan (the budget constraint): one ring per array
 * (levels + 1 per state field, one per input but those read in place), the z-strip when it stays in DRAM, the
 * wedge, the IO queue, the kernels' scratch, and what the run holds beside them. */
static uint64_t plan_memory(const stn_ooc_plan *p, const stn_program_desc *d) {
    uint64_t arrays = stn_total_arrays(d) - (uint64_t)p->in_place,
             wedge = wedge_slices(p, d) * p->slice_bytes;
    uint64_t ring = (uint64_t)p->qplanes * p->ring_bytes;
    uint64_t strip = p->strip == STN_STRIP_DRAM
                         ? (uint64_t)p->strip_planes * (uint64_t)p->r.n * (uint64_t)p->row_bytes
                         : 0;
    return arrays * (ring + strip) + wedge + stn_aio_footprint(STN_AIO_DEFAULT_DEPTH) +
           stn_kernel_scratch(d, p->nx, p->r.n, p->q.n) + p->held;
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

int stn_ooc_make_plan(const stn_plan_request *q, stn_ooc_plan *p) {
    const stn_program_desc *d = q->d;
    const int64_t *size = q->size;
    int64_t by = q->by, bz = q->bz, bt = q->bt, steps = q->steps;
    memset(p, 0, sizeof *p);
    p->schedule = q->schedule < 0 ? STN_SCHED_REF : q->schedule;
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
        p->strip = q->strip == STN_STRIP_FILE ? STN_STRIP_FILE : STN_STRIP_DRAM;
    }
    if (p->schedule == STN_SCHED_REF && p->strip == STN_STRIP_NONE && d->ndim >= 2 && stn_ooc_wedge_ok(d))
        p->r.wrap = 1; /* (so is a sweep of one step: its edges are the usual ones) */
    p->steps = steps;
    p->bt = bt < 1 ? 1 : bt;
    p->align = q->align;
    p->nx = size[0];
    p->row_bytes = stn_grid_row_bytes(size[0], d->elem_size, q->align);
    p->grid_bytes = (uint64_t)p->row_bytes * (uint64_t)size[1] * (uint64_t)(d->ndim == 3 ? size[2] : 1);
    p->npy_bytes = (uint64_t)size[0] * (uint64_t)size[1] * (uint64_t)(d->ndim == 3 ? size[2] : 1) *
                   (uint64_t)d->elem_size;
    p->held = q->held; /* (DRAM beside the rings, counted in mem_bytes) */
    if (q->fold)
        p->fold = *q->fold;
    if (q->fold && q->fold->W) /* a folded 1d grid's .npy holds its cells, not the rows' */
        p->npy_bytes = (uint64_t)q->fold->n * (uint64_t)d->elem_size;
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
    p->in_place_ok = p->strip == STN_STRIP_NONE && !p->r.wrap && p->schedule != STN_SCHED_ALG2 &&
                     !((stn_ooc_periodic_axes(d) >> p->r.axis) & 1);
    p->in_place = p->in_place_ok ? q->in_place : 0;
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
    return (stn_total_arrays(d) - (uint64_t)p->in_place) * ring + stn_aio_footprint(STN_AIO_DEFAULT_DEPTH) +
           stn_kernel_scratch(d, p->nx, p->r.n, p->q.n);
}
