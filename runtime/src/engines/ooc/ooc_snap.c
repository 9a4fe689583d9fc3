/* ooc_snap.c -- the out-of-core engine's snapshots (--save-to, docs/design/021): a cache tile that has
 * computed step t puts, for each field that saves the step, the snapshot cells whose values it has just
 * made, straight from the ring, while the temporal block goes on: no extra sweep, any bt.
 *
 * A snapshot cell c (boundary layer included) reads its value at map(c), as the boundary functions set the
 * in-core levels: along a periodic axis its wrap into the interior; a cell in the layer of a dirichlet face
 * (corners included) then itself along every other axis; any other cell its mirror in the interior along
 * each axis whose face it lies beyond (a neumann face).  Its owner is the tile that computes the interior
 * cell map(c) clamped into the interior, except that a cell of a dirichlet layer goes, along each axis whose
 * layer it lies in and that does not wrap, with the tile at that edge (it reads itself, which only the
 * edge's window is sure to hold).  Every interior cell is computed once a step (the reference schedule;
 * alg1's tiles are cut to their block's own cells first; a wrapped sweep's last block computes the cells
 * near L past H, at i + (H - L); alg2's regions are ref's), so every snapshot cell is put once.  Along an
 * axis the cells a tile computing [lo, hi) of the interior [L, H) owns are [lo, hi) and two runs of the
 * boundary layer (below, above); a tile's cells are the 27 products of those runs.  A dirichlet cell reads
 * itself: every level's array holds it in the window (placed with its slice, converted for step 2 by the tile
 * that owns it, before_step). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include "io/stn_hdf5.h"
#include "mpi/stn_part.h"

/* The cells of [0, n) along one axis a tile computing [lo, hi) of [L, H) owns, its faces of kinds k[0]
 * (below L) and k[1] (from H), stn_h5_map's: iv[0] the interior run, iv[1] below L, iv[2] from H (each
 * [iv[i][0], iv[i][1]), maybe empty). */
static void owned(const int k[2], int64_t n, int64_t L, int64_t H, int64_t lo, int64_t hi, int64_t iv[3][2]) {
    int64_t w = H - L;
    iv[0][0] = lo, iv[0][1] = hi;
    if (k[0] == 1) /* mirror: i < L reads 2L - 1 - i, in [lo, hi) for i in [2L - hi, 2L - lo) */
        iv[1][0] = 2 * L - hi, iv[1][1] = 2 * L - lo;
    else if (k[0] == 2) /* wrap: i < L reads i + w */
        iv[1][0] = lo - w, iv[1][1] = hi - w;
    else /* itself: the layer goes with the edge's tile */
        iv[1][0] = 0, iv[1][1] = lo == L ? L : 0;
    if (k[1] == 1)
        iv[2][0] = 2 * H - hi, iv[2][1] = 2 * H - lo;
    else if (k[1] == 2)
        iv[2][0] = lo + w, iv[2][1] = hi + w;
    else
        iv[2][0] = H, iv[2][1] = hi == H ? n : H;
    iv[1][0] = iv[1][0] < 0 ? 0 : iv[1][0], iv[1][1] = iv[1][1] > L ? L : iv[1][1];
    iv[2][0] = iv[2][0] < H ? H : iv[2][0], iv[2][1] = iv[2][1] > n ? n : iv[2][1];
}

/* Field fd's faces along axis a (`rings`: the axes a ring of ranks wraps): k[s] the kind of face s (0 below,
 * 1 above; stn_h5_map's: 0 itself, 1 mirrored, 2 wrapped), held[s] whether its layer keeps its cells (a
 * dirichlet face). */
static void faces_of(const stn_field_desc *fd, int rings, int a, int k[2], int held[2]) {
    int wrap = ((fd->periodic | rings) >> a) & 1;
    for (int s = 0; s < 2; s++) {
        int neu = fd->boundary == STN_BC_NEUMANN ||
                  (fd->boundary == STN_BC_MIXED && (fd->neumann_faces >> (2 * a + s)) & 1);
        k[s] = wrap ? 2 : neu ? 1 : 0;
        held[s] = !wrap && !neu;
    }
}

int stn_ooc_snap_saves(const ooc *e) {
    /* (every schedule: alg1's blocks put their own cells, ooc_sweep.c; alg2's regions are ref's, its ring
     * holds every level a block computes before it goes back in place; a folded 1d grid puts its rows'; a
     * wrapped sweep's last block the cells past H.  An MPI part: its own cells, on a ring of ranks also the
     * boundary cells that wrap to them, into the file under parallel HDF5, else sent to rank 0, which takes
     * them between its tiles and at the sweep's end, stn_h5_take.  A part's sweep wraps only along an axis
     * no rank cuts (cutting it makes a ring of ranks, or of one rank: split.c), so along r its local indices
     * are the whole grid's and the wedge's cells past H are moved as one process's; across the rows its
     * tiles are cut to its own cells and moved by its base as any part's, snap_region) */
    const stn_part *p = e->r->part;
    return e->r->snap && (!p || stn_h5_parallel(e->r->snap) || stn_h5_gathers(e->r->snap));
}

/* A folded 1d grid (design 014): the tile's rows [r0, r1) (a part's: of its own) are the grid's cells
 * [(r0 + base) W - P, (r1 + base) W - P); the rule above along the 1d axis, the values read through the
 * kernels' 1d view of the window (stn_fold_map's: cell c at the window's c - shift). */
static int snap_fold(ooc *e, int64_t r0, int64_t r1, int64_t t) {
    const stn_run *r = e->r;
    const stn_fold *fo = &r->fold;
    const stn_part *p = r->part;
    int64_t k = e->steps_before + t, base = p ? stn_part_slab(p)->base : 0, iv[3][2];
    if (p)
        r0 = r0 > stn_part_slab(p)->lo ? r0 : stn_part_slab(p)->lo,
        r1 = r1 < stn_part_slab(p)->hi ? r1 : stn_part_slab(p)->hi;
    int64_t lo = (r0 + base) * fo->W - fo->P, hi = (r1 + base) * fo->W - fo->P;
    lo = lo > fo->lo ? lo : fo->lo, hi = hi < fo->hi ? hi : fo->hi;
    if (hi <= lo)
        return 0;
    stn_view v = {fo->n, 1, 1, fo->n, fo->n, 0, 0, 0, NULL};
    int64_t shift = (stn_ooc_view(e).y0 + base) * fo->W - fo->P;
    stn_h5_map m = {{0, 0, 0}, {fo->lo, 0, 0}, {fo->hi, 1, 1}};
    double t0 = stn_now();
    int rc = 0;
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        if (!stn_h5_wants(r->snap, i, k))
            continue;
        int kind[2], held[2]; /* (one axis: a dirichlet face's layer is the edge's, its kind 0) */
        faces_of(&e->d->fields[i], 0, 0, kind, held);
        owned(kind, fo->n, fo->lo, fo->hi, lo, hi, iv);
        const char *level = ooc_win(e, &e->f[i], ooc_arr(&e->f[i], e->lvl0 + t)) - shift * e->d->elem_size;
        for (int c = 0; rc == 0 && c < 3; c++) {
            stn_box b = {{iv[c][0], 0, 0}, {iv[c][1], 1, 1}};
            m.kind[0] = c ? kind[c - 1] : 0;
            if (b.hi[0] > b.lo[0])
                rc = stn_h5_put(r->snap, i, k, &v, level, &b, &m, &e->res->st);
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_WRITE, t0);
    return rc;
}

/* What a tile computed, for the puts: the interior cells [lo, hi) along each axis (whole-grid indices), the
 * whole grid's extent n and interior [L, H), and the window as a view of the level. */
typedef struct snap_at {
    int64_t lo[3], hi[3], n[3], L[3], H[3];
    stn_view v;
} snap_at;

/* The snapshot cells a tile owns (the rule above) of field i after step k, put from `level`. */
static int put_owned(ooc *e, const snap_at *s, int i, int64_t k, const char *level) {
    int kind[3][2], held[3][2];
    int64_t iv[2][3][3][2]; /* [a cell of a dirichlet layer][axis][run] */
    for (int a = 0; a < 3; a++) {
        faces_of(&e->d->fields[i], stn_part_rings(e->r->part), a, kind[a], held[a]);
        int edge[2] = {kind[a][0] == 2 ? 2 : 0, kind[a][1] == 2 ? 2 : 0};
        owned(kind[a], s->n[a], s->L[a], s->H[a], s->lo[a], s->hi[a], iv[0][a]);
        owned(edge, s->n[a], s->L[a], s->H[a], s->lo[a], s->hi[a], iv[1][a]);
    }
    int rc = 0;
    for (int c = 0; rc == 0 && c < 27; c++) {
        int run[3] = {c % 3, c / 3 % 3, c / 9}, held_cell = 0;
        for (int a = 0; a < 3; a++)
            held_cell |= run[a] && held[a][run[a] - 1];
        stn_h5_map m = {{0, 0, 0}, {s->L[0], s->L[1], s->L[2]}, {s->H[0], s->H[1], s->H[2]}};
        stn_box b;
        int empty = 0;
        for (int a = 0; a < 3; a++) {
            const int64_t *r = iv[held_cell][a][run[a]];
            b.lo[a] = r[0], b.hi[a] = r[1], empty |= r[1] <= r[0];
            int kd = run[a] ? kind[a][run[a] - 1] : 0;
            m.kind[a] = held_cell && kd != 2 ? 0 : kd;
        }
        if (!empty)
            rc = stn_h5_put(e->r->snap, i, k, &s->v, level, &b, &m, &e->res->st);
    }
    return rc;
}

/* The cells a tile computed at step t, [r0, r1) x [q0, q1) (a part's local indices), whose values lie in
 * the ring `shift` slices along r further (a wrapped sweep's last block: the cells near L past H). */
static int snap_region(ooc *e, int64_t r0, int64_t r1, int64_t q0, int64_t q1, int64_t t, int64_t shift) {
    const stn_run *r = e->r;
    const stn_program_desc *d = e->d;
    const stn_part *p = r->part;
    int64_t k = e->steps_before + t, base[3] = {0, 0, 0};
    snap_at s = {.n = {r->view.nx, r->view.ny, r->view.nz}};
    for (int a = 0; a < 3; a++)
        s.L[a] = s.lo[a] = d->halo_lo[a], s.H[a] = s.hi[a] = s.n[a] - d->halo_hi[a];
    s.lo[e->plan.r.axis] = r0, s.hi[e->plan.r.axis] = r1;
    s.lo[e->plan.q.axis] = q0, s.hi[e->plan.q.axis] = q1;
    for (int a = 0; p && a < 3; a++) { /* (a part: its own cells of the tile's, in whole-grid indices) */
        const stn_cut *c = &p->ax[a];
        base[a] = c->base, s.n[a] = c->n, s.L[a] = c->L, s.H[a] = c->H;
        s.lo[a] = (s.lo[a] > c->lo ? s.lo[a] : c->lo) + c->base;
        s.hi[a] = (s.hi[a] < c->hi ? s.hi[a] : c->hi) + c->base;
        if (s.hi[a] <= s.lo[a])
            return 0;
    }
    s.v = stn_ooc_view(e);
    s.v.y0 += base[1] - (e->plan.r.axis == 1 ? shift : 0);
    s.v.z0 += base[2] - (e->plan.r.axis == 2 ? shift : 0);
    double t0 = stn_now();
    int rc = 0;
    /* (the view's x is the whole grid's: the level's row starts at base[0]) */
    for (int i = 0; rc == 0 && i < d->nfields; i++)
        if (stn_h5_wants(r->snap, i, k))
            rc = put_owned(e, &s, i, k,
                           ooc_win(e, &e->f[i], ooc_arr(&e->f[i], e->lvl0 + t)) - base[0] * d->elem_size);
    stn_stats_add_time(&e->res->st, STN_PHASE_WRITE, t0);
    return rc;
}

int stn_ooc_snap_tile(ooc *e, int64_t r0, int64_t r1, int64_t q0, int64_t q1, int64_t t) {
    if (r1 <= r0 || q1 <= q0 || !stn_h5_wants_any(e->r->snap, e->steps_before + t))
        return 0;
    if (e->r->fold.W)
        return snap_fold(e, r0, r1, t);
    const stn_ooc_dim *g = &e->plan.r;
    if (g->wrap && r1 > g->H) { /* the wedge: interior cell i < L + (t-1) s computed as i + (H - L) */
        int64_t P = g->H - g->L;
        int rc = r0 < g->H ? snap_region(e, r0, g->H, q0, q1, t, 0) : 0;
        return rc ? rc : snap_region(e, (r0 > g->H ? r0 : g->H) - P, r1 - P, q0, q1, t, P);
    }
    return snap_region(e, r0, r1, q0, q1, t, 0);
}
