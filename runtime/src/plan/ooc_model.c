/* ooc_model.c -- the out-of-core plan's models (stn_ooc.h): the exact IO model, every byte a run of a
 * plan reads and writes from the plan and the fields' sources alone, and the time model beside it.
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
#include "io/stn_gridio.h"
#include "plan/stn_ooc.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
            r += f->state                          ? sweep_read_bytes(p, T, whole, src == STN_SRC_NPY)
                 : stn_ooc_reads_in_place(m, p, i) ? 0 /* (the kernels read the mapping: no copy) */
                                                   : whole;
            /* (a wrapped sweep writes the interior: no boundary slice is ever read back) */
            w += !f->state ? 0 : p->r.wrap ? (uint64_t)(p->r.H - p->r.L) * p->slice_bytes : scratch;
        }
    }
    *rd += times * r;
    *wr += times * w;
}

int stn_ooc_reads_in_place(const stn_ooc_model *m, const stn_ooc_plan *p, int f) {
    const stn_ooc_fsrc *of = &m->f[f];
    return of->in_place && !of->state && of->input == STN_SRC_SCRATCH && p->in_place_ok;
}

int stn_ooc_in_place_inputs(const stn_ooc_model *m) {
    int n = 0;
    for (int i = 0; m && i < m->nfields; i++)
        n += m->f[i].in_place && !m->f[i].state && m->f[i].input == STN_SRC_SCRATCH;
    return n;
}

uint64_t stn_ooc_in_place_sweep(const stn_ooc_model *m, const stn_ooc_plan *p) {
    uint64_t n = 0;
    for (int i = 0; i < m->nfields; i++)
        n += stn_ooc_reads_in_place(m, p, i) ? level_bytes(p, STN_SRC_SCRATCH) : 0;
    return n;
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

uint64_t stn_ooc_scratch_bytes(const stn_ooc_model *m, const stn_ooc_plan *p) {
    uint64_t scratch = level_bytes(p, STN_SRC_SCRATCH), n = 0;
    uint64_t sets = p->nsweeps < 2 ? (uint64_t)(p->nsweeps > 0 ? p->nsweeps : 0) : 2;
    uint64_t spill = p->strip == STN_STRIP_FILE && p->q.nblocks > 1
                         ? (uint64_t)p->strip_planes * (uint64_t)p->r.n * (uint64_t)p->row_bytes
                         : 0;
    for (int i = 0; i < m->nfields; i++) {
        const stn_ooc_fsrc *f = &m->f[i];
        if (f->state)
            n += (p->schedule == STN_SCHED_ALG2 ? (uint64_t)f->narr : sets * (uint64_t)f->levels) * scratch;
        else if (f->input == STN_SRC_SCRATCH || f->written)
            n += scratch;
        n += (uint64_t)f->narr * spill;
    }
    return n;
}

/* ------------------------------------------------------------------ the time model */

/* The bytes of one request of a block: its new slices in one plane (y-blocked plain, 2d) or all of
 * them (whole planes, where they are contiguous; y-blocked chunked files, docs/design/023: a chunk's rows
 * of the planes of a row of blocks, one run, the chunks' mean width), at most the queue's largest
 * request. */
uint64_t stn_ooc_request_bytes(const stn_ooc_plan *p, uint64_t max_request) {
    uint64_t b = (uint64_t)p->r.b;
    uint64_t req = p->r.axis == 2 ? b * p->slice_bytes : b * (uint64_t)p->row_bytes;
    int64_t e[STN_OOC_MAX_CHUNKS];
    int n = stn_ooc_chunk_edges(p, p->bt, p->bt, 0, e, STN_OOC_MAX_CHUNKS - 1);
    if (n > 0) {
        uint64_t planes = (uint64_t)(p->q.b < p->q.n ? p->q.b : p->q.n);
        uint64_t run = (uint64_t)p->r.n * (uint64_t)p->row_bytes / (uint64_t)(n + 1);
        req = run * (planes < STN_AIO_IOV ? planes : STN_AIO_IOV);
    }
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
    /* the init expressions' values, computed where a sweep places them: the state's in the first */
    double init = (s == 0 ? tm->init_seconds : 0) + tm->input_init_seconds;
    comp += init;
    out->init += times * init;
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
    /* the snapshots of the sweep's steps go to the device beside the scratch files' IO */
    double snap =
        seconds(&tm->dev->write, (uint64_t)(tm->snap_bytes_per_step * (double)stn_ooc_sweep_steps(p, s)),
                tm->max_request, tm->depth);
    dev += snap;
    out->snap += times * snap;
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
     * rate, the device to the share g of its bandwidth (both at the plan's request size: fewer,
     * larger requests cost the CPU less); whichever ends first leaves the other alone at full
     * speed.  (f = g = 1: max(dev, comp).) */
    double f = tm->compute_share > 0 ? tm->compute_share : stn_dev_compute_share(tm->dev, req),
           g = stn_dev_io_share(tm->dev, req);
    double cf = comp / f, dg = dev / g;
    double both = cf <= dg ? dev + (1 - g) * cf : comp + (1 - f) * dg;
    out->total += times * (both + io * edge);
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
    uint64_t req = stn_ooc_request_bytes(p, tm->max_request), big = tm->max_request;
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
    /* the scratch files removed at the end, after the loop (not in total: in the job's prediction), the file
     * system freeing what was written to them */
    out->remove_bytes = stn_ooc_scratch_bytes(m, p);
    out->remove = tm->dev->remove_seconds_per_gib * (double)out->remove_bytes / (double)(1ULL << 30);
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
