/* ooc_setup.c -- the out-of-core engine set up and torn down: the fields' sources and --init files, the
 * plan (stn_ooc_choose), the cache tiles of a block, the IO and time models of the run, the scratch,
 * spill, lock and records files under --dir, the buffers; and all of it freed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"
#include "io/stn_hdf5.h"
#include "io/stn_npyd.h"
#include "io/stn_probe.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void stn_ooc_scratch_name(char *buf, size_t n, const ooc *e, int f, int set, int level) {
    const stn_field_desc *fd = &e->d->fields[f];
    if (fd->kind == STN_FIELD_INPUT)
        snprintf(buf, n, "%s.%s.input.grid", e->d->name, fd->name);
    else if (e->alg2) /* array a = 2 * set + level: the in-place arrays of the paper's algorithm 2 */
        snprintf(buf, n, "%s.%s.array%d.grid", e->d->name, fd->name, 2 * set + level);
    else
        snprintf(buf, n, "%s.%s%s.%c.grid", e->d->name, fd->name, level ? ".prev" : "", set ? 'B' : 'A');
}

/* The --init file again with O_DIRECT, where the run holds a bounce for it (stn_run.npy_bounce) and its file
 * system takes it; else its reads go through the page cache, which a warning says. */
static int open_npy_direct(ooc *e, int f, int level, const char *path) {
    ooc_field *of = &e->f[f];
    if (e->r->npy_bounce == 0)
        return 0;
    if (!e->npyd) {
        int rc = stn_npyd_open(&e->npyd, e->r->npy_bounce);
        if (rc)
            return rc;
    }
    size_t align = 0;
    int fd = stn_npyd_open_file(path, &align);
    if (fd >= 0 && !stn_npyd_fits(e->npyd, align)) {
        close(fd);
        fd = -EINVAL;
    }
    if (fd < 0) {
        stn_warn(e->r->log, "--init %s: read through the page cache (its file system takes no O_DIRECT: %s)",
                 path, strerror(-fd));
        return 0;
    }
    of->npy_dfd[level] = fd;
    of->npy_align[level] = align;
    return 0;
}

static int open_npy(ooc *e, int f, int level, const char *path) {
    ooc_field *of = &e->f[f];
    int fd = stn_open_input(path);
    if (fd < 0)
        return fd;
    stn_npy_header h;
    int rc = stn_npy_read_header(path, fd, &h);
    if (rc) {
        close(fd);
        return rc;
    }
    of->npy[level] = path;
    of->npy_fd[level] = fd;
    of->npy_offset[level] = h.data_offset;
    return open_npy_direct(e, f, level, path);
}

/* The model's sources of every field, and the --init files opened read-only. */
static int classify_sources(ooc *e) {
    const stn_program_desc *d = e->d;
    const stn_opts *o = e->r->o;
    e->fsrc = calloc((size_t)d->nfields, sizeof *e->fsrc);
    if (!e->fsrc)
        return stn_error(-ENOMEM, "out of memory setting up the out-of-core engine");
    e->model = (stn_ooc_model){d->nfields, e->fsrc, 0};
    for (int i = 0; i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        ooc_field *f = &e->f[i];
        stn_ooc_fsrc_init(d, i, o->init_path, o->out_path, &e->fsrc[i]);
        f->m = &e->fsrc[i];
        f->boundary = fd->boundary;
        for (int l = 0; l < f->m->levels; l++) {
            const char *path = o->init_path[2 * i + l];
            int rc = path ? open_npy(e, i, l, path) : 0;
            if (rc)
                return stn_error(rc, "--init %s%s=%s: %s", fd->name, l ? ".prev" : "", path, stn_errmsg());
        }
    }
    stn_ooc_in_place_pre(e); /* (--tier pmem: inputs read in the mapping, whose rings the plans leave out) */
    return 0;
}

static int check_space(ooc *e, int resuming) {
    uint64_t need = 0, file = e->plan.grid_bytes;
    uint64_t spill =
        e->plan.strip == STN_STRIP_FILE
            ? (uint64_t)e->plan.strip_planes * (uint64_t)e->r->view.ny * (uint64_t)e->plan.row_bytes
            : 0;
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        uint64_t arrays = e->alg2 ? (uint64_t)f->m->narr : 2 * (uint64_t)f->m->levels;
        need += f->m->state ? arrays * file : f->m->input == STN_SRC_SCRATCH ? file : 0;
        need += (uint64_t)f->m->narr * spill;
    }
    if (resuming || need == 0)
        return 0;                       /* the files exist already */
    return stn_ooc_dirs_space(e, need); /* (each directory of a list its slab's share) */
}

void stn_ooc_tier_note(ooc *e, const stn_gridfile *gf) {
    for (int k = 0; k < gf->nparts; k++) /* (a file in parts: each part's mapping) */
        stn_ooc_tier_note(e, &gf->part[k]);
    if (!gf->map)
        return;
    e->res->is_pmem = e->res->mapped_bytes == 0 ? gf->is_pmem : e->res->is_pmem && gf->is_pmem;
    e->res->mapped_bytes += gf->map_len;
}

static int open_scratch(ooc *e, int resuming) {
    const stn_view *g = &e->r->view;
    char path[4096];
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int narrays = !f->m->state ? (f->m->input == STN_SRC_SCRATCH)
                      : e->alg2    ? f->m->narr
                                   : 2 * f->m->levels;
        for (int a = 0; a < narrays; a++) {
            /* ref: set a / levels, level a % levels; alg2 and inputs: array a = 2 * set + level */
            int ref = f->m->state && !e->alg2;
            int set = ref ? a / f->m->levels : a / 2, l = ref ? a % f->m->levels : a % 2;
            stn_ooc_scratch_name(path, sizeof path, e, i, set, l);
            int rc =
                stn_ooc_open_grid(e, &f->scratch[set][l], path, g->nz, resuming ? 0 : STN_GRIDFILE_CREATE);
            if (rc)
                return rc;
            stn_ooc_tier_note(e, &f->scratch[set][l]);
            if (!f->scratch[set][l].direct && !f->scratch[set][l].map_len && !e->fs.direct_warned) {
                e->fs.direct_warned = 1;
                stn_warn(e->r->log,
                         "the file system under --dir %s refuses O_DIRECT; scratch IO goes through "
                         "the page cache (buffered), which competes with the DRAM budget",
                         e->r->o->dir);
            }
        }
    }
    return 0;
}

/* y-blocked with the z-strip spilled: one scratch file per array, strip_planes planes of ny
 * rows, unlinked at once (its content lives only within a sweep). */
static int open_spill(ooc *e) {
    char path[4096];
    for (int i = 0; e->plan.strip == STN_STRIP_FILE && e->plan.strip_planes > 0 && i < e->d->nfields; i++)
        for (int a = 0; a < e->f[i].m->narr; a++) {
            snprintf(path, sizeof path, "%s.%s.strip%d.grid", e->d->name, e->d->fields[i].name, a);
            int rc = stn_ooc_open_grid(e, &e->f[i].spill[a], path, e->plan.strip_planes, STN_GRIDFILE_CREATE);
            if (rc)
                return rc;
            stn_ooc_tier_note(e, &e->f[i].spill[a]);
            stn_gridfile_unlink(&e->f[i].spill[a]);
        }
    return 0;
}

static int alloc_buffers(ooc *e) {
    const stn_ooc_plan *p = &e->plan;
    size_t bytes = (size_t)p->ring_bytes;
    size_t strip = (size_t)p->strip_planes * (size_t)e->r->view.ny * (size_t)p->row_bytes;
    e->qstride = p->strip != STN_STRIP_NONE ? 2 * (int64_t)bytes : e->d->ndim == 3 ? p->row_bytes : 0;
    for (int i = 0; p->r.wrap && i < e->d->nfields; i++) { /* the wedge: for the longest sweep */
        ooc_field *f = &e->f[i];
        int64_t n = 0, lo, hi;
        for (int64_t l = 0; f->m->state && l < p->bt; l++) {
            stn_ooc_wedge_range(&p->r, f->m->levels, p->bt, l, &lo, &hi);
            n += hi - lo;
        }
        if (!f->m->state) {
            stn_ooc_wedge_input_range(&p->r, p->bt, &lo, &hi);
            n = hi - lo;
        }
        if (n == 0)
            continue;
        if (!(f->wedge = stn_alloc((size_t)n * p->slice_bytes, 4096)) ||
            !(f->wedge_off = calloc((size_t)p->bt + 1, sizeof *f->wedge_off)))
            return -ENOMEM;
    }
    const stn_part *part = e->r->part;
    if (part && part->defer && p->r.axis == part->split &&
        !(e->gh.buf = stn_alloc((size_t)part->defer, 4096)))
        return -ENOMEM;
    uint64_t huge, small;
    int err, refused = stn_io_pages(&huge, &small, &err);
    for (int i = 0; i < e->d->nfields; i++)
        for (int a = 0; a < e->f[i].m->narr; a++) {
            if (!e->f[i].m->state && stn_ooc_reads_in_place(&e->model, p, i))
                continue; /* (--tier pmem: the kernels read it in the mapping, the plan has no ring for it) */
            if (!(e->f[i].ring[a] = stn_ring_alloc(bytes, p->qplanes)))
                return -ENOMEM;
            if (p->strip == STN_STRIP_DRAM && strip > 0 && !(e->f[i].strip[a] = stn_alloc(strip, 4096)))
                return -ENOMEM;
        }
    if (stn_io_pages(&huge, &small, &err) > refused)
        stn_warn(e->r->log,
                 "the window's rings stay in 4 KiB pages (MADV_COLLAPSE: %s): their IO goes to the device in "
                 "more, smaller requests",
                 strerror(err));
    return stn_ooc_dirs_bind(e);
}

void stn_ooc_remove_scratch(ooc *e) {
    for (int i = 0; i < e->d->nfields; i++)
        for (int set = 0; set < 2; set++)
            for (int l = 0; l < 2; l++)
                stn_gridfile_unlink(&e->f[i].scratch[set][l]);
    unlink(e->fs.state);
    if (e->fs.records_fd >= 0)
        unlink(e->fs.records);
}

void stn_ooc_free(ooc *e) {
    if (e->q)
        stn_aio_destroy(e->q);
    if (e->fs.lock_fd >=
        0) { /* removed while still held: a run that opens it next locks the file it creates */
        unlink(e->fs.lock);
        close(e->fs.lock_fd);
    }
    e->fs.lock_fd = -1;
    stn_ooc_dirs_unlock(e);
    if (e->fs.records_fd >= 0)
        close(e->fs.records_fd);
    e->fs.records_fd = -1;
    for (int i = 0; e->f && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        stn_free(f->wedge);
        free(f->wedge_off);
        for (int a = 0; a < 3; a++) {
            stn_ring_free(f->ring[a], (size_t)e->plan.ring_bytes, e->plan.qplanes);
            stn_free(f->strip[a]);
            stn_gridfile_close(&f->spill[a]);
        }
        for (int l = 0; l < 2; l++) {
            if (f->npy_fd[l] >= 0)
                close(f->npy_fd[l]);
            if (f->npy_dfd[l] >= 0)
                close(f->npy_dfd[l]);
            for (int set = 0; set < 2; set++)
                stn_gridfile_close(&f->scratch[set][l]);
        }
    }
    stn_ooc_chunk_free(e);
    stn_npyd_close(e->npyd);
    e->npyd = NULL;
    stn_free(e->gh.buf);
    free(e->f);
    free(e->fsrc);
    free(e->src);
    free(e->dst);
}

/* The cache tiles of a block (compute_block; stn_ooc_sub_tiles), and the report's figures of them. */
static void pick_sub_tiles(ooc *e) {
    const stn_run *r = e->r;
    const stn_ooc_plan *p = &e->plan;
    int64_t big = INT64_MAX / 4;
    stn_ooc_sub_tiles(r, p, stn_total_arrays(e->d), e->sub.w, &e->sub.t, e->res->tiles_source,
                      sizeof e->res->tiles_source);
    if (e->sub.t == 0) /* off: no tiles to report */
        return;
    int64_t y = p->r.axis == 1 ? e->sub.w[0] : e->sub.w[1], z = p->r.axis == 2 ? e->sub.w[0] : e->sub.w[1];
    e->res->time_tiles[0] = y >= big ? r->view.ny : y;
    e->res->time_tiles[1] = e->d->ndim == 2 ? -1 : z >= big ? r->view.nz : z;
    e->res->time_tiles[2] = e->sub.t;
}

/* The seconds the init expressions take in the sweeps from first_sweep on: the state's levels placed
 * from them in the first sweep (*state) and the inputs', in every sweep (*input).  Their rates are
 * measured once a run (e->init_state, e->init_input): the report's model asks again. */
static int init_seconds(ooc *e, int64_t first_sweep, double *state, double *input) {
    double cells = (double)stn_grid_cells(e->r->o);
    for (int i = 0; !e->init_measured && i < e->d->nfields; i++) {
        const stn_ooc_fsrc *f = &e->model.f[i];
        for (int l = 0; l < f->levels; l++) {
            double cps = 0;
            int rc =
                (f->state ? f->first[l] : f->input) == STN_SRC_INIT ? stn_init_rate(e->r, i, l, &cps) : 0;
            if (rc)
                return rc;
            if (cps > 0)
                *(f->state ? &e->init_state : &e->init_input) += cells / cps;
        }
    }
    e->init_measured = 1;
    *state = first_sweep == 0 ? e->init_state : 0;
    *input = e->init_input;
    return 0;
}

/* The plan's own share of its kernels' rate under IO (time_model.compute_share; docs/out-of-core.md, "The
 * time model"): its blocks timed again, alone and with mixed IO of its request size (in 64K, at most 1M) on
 * a test file in --dir, in alternating rounds, the load serviced between steps as the engine polls; the rate
 * alone is then the same rounds'.  Measured once, for a run (--plan-only touches no file of --dir) whose rate
 * was measured (not a --machine file's), on the aio tier, whose device time the model puts at
 * STN_SHARE_MIN_IO_SECONDS at least (a shorter run would spend a noticeable part of itself measuring).
 * Elsewhere share_source says why and the device's share holds.  Its seconds are in the job's startup,
 * stamped as the loop begins (open_run). */
#define STN_SHARE_MIN_IO_SECONDS 1.0
#define STN_SHARE_MAX_DEPTH 8
static int plan_share(ooc *e, double io_seconds) {
    const stn_run *r = e->r;
    stn_result *res = e->res;
    uint64_t unit = (uint64_t)64 << 10,
             req = stn_ooc_request_bytes(&e->plan, STN_AIO_DEFAULT_MAX_REQUEST) / unit * unit;
    req = req < unit ? unit : req > ((uint64_t)1 << 20) ? (uint64_t)1 << 20 : req;
    /* the load's buffers beside the window's arrays, within the budget */
    uint64_t buf = stn_mem_share_load(r->mem_budget), window = stn_ooc_rate_bytes(r, &e->plan);
    if (window + buf > r->mem_budget)
        buf = r->mem_budget > window ? r->mem_budget - window : 0;
    int depth = buf / req > STN_SHARE_MAX_DEPTH ? STN_SHARE_MAX_DEPTH : (int)(buf / req);
    const char *why = r->o->plan_only                         ? "--plan-only touches no file of --dir"
                      : r->hw.cells_per_second > 0            ? "the kernels' rate is --machine's"
                      : r->o->tier == STN_TIER_PMEM           ? "--tier pmem has no IO queue"
                      : io_seconds < STN_SHARE_MIN_IO_SECONDS ? "the run's device time is under 1 s"
                      : depth < 2                             ? "the budget leaves no room for an IO load"
                                                              : NULL;
    e->share_tried = 1;
    if (why) {
        snprintf(res->share_source, sizeof res->share_source, "not measured for the plan (%s)", why);
        return 0;
    }
    double cps = 0, share = 0;
    stn_io_load *l = NULL;
    int rc = stn_io_load_open(r->o->dir, 4 * (uint64_t)depth * req, req, depth, &l);
    if (rc) { /* (no O_DIRECT, no space: the device's share, and the reason said) */
        snprintf(res->share_source, sizeof res->share_source,
                 "not measured for the plan (an IO load in --dir: %.200s)", stn_errmsg());
        stn_error_clear();
        return 0;
    }
    char how[160], hb[32];
    snprintf(how, sizeof how, "mixed IO of %s @ %d on a test file in --dir",
             stn_fmt_bytes(hb, sizeof hb, req), depth);
    char src[sizeof res->rate_source];
    rc = stn_ooc_block_rate_under(r, &e->plan, res->ib.tile, l, how, &res->rate_rounds, &cps, &share, NULL,
                                  src, sizeof src);
    stn_io_load_close(l);
    if (rc)
        return rc;
    res->cells_per_second = cps;
    res->compute_share = share;
    snprintf(res->rate_source, sizeof res->rate_source, "%s", src);
    res->share_source[0] = '\0';
    return 0;
}

/* The time model: the kernels' rate on the plan's blocks (the tuner may have measured it
 * already; a --machine file's cells_per_second wins), the plan's own share of it under IO (plan_share) and
 * the device's curves. */
int stn_ooc_model_time(ooc *e, int64_t first_sweep) {
    const stn_run *r = e->r;
    stn_result *res = e->res;
    int rc = res->cells_per_second > 0 || r->hw.cells_per_second > 0
                 ? stn_kernel_rate(r, res)
                 : stn_ooc_block_rate(r, &e->plan, res->ib.tile, &res->cells_per_second, &res->rate_rounds,
                                      res->rate_source, sizeof res->rate_source);
    if (rc)
        return rc;
    /* the copy rate only costs a plan whose z-strip is copied in DRAM: with the blocks given and no such
     * strip it is left unmeasured (its buffers, up to 128 MiB, would outweigh a small run); a forced re-plan
     * measures it when it weighs such plans (ooc_refine.c) */
    if (!r->o->have_block || (e->plan.strip == STN_STRIP_DRAM && e->plan.q.nblocks > 1))
        rc = stn_copy_rate(r, res);
    else if (res->copy_bytes_per_second <= 0)
        snprintf(res->copy_source, sizeof res->copy_source,
                 "not measured: this plan copies no z-strip in DRAM");
    if (rc)
        return rc;
    double init = 0, input_init = 0;
    rc = init_seconds(e, first_sweep, &init, &input_init);
    if (rc)
        return rc;
    stn_xchg_model xm;
    stn_xchg_of(r, &xm);
    stn_time_model tm = {.dev = &r->dev,
                         .cells_per_second = res->cells_per_second,
                         .cells = (double)stn_grid_cells(r->o),
                         .copy_bytes_per_second = res->copy_bytes_per_second,
                         .depth = STN_AIO_DEFAULT_DEPTH,
                         .max_request = STN_AIO_DEFAULT_MAX_REQUEST,
                         .xm = xm.levels ? &xm : NULL,
                         .ghost_bt = r->part ? r->part->bt : 0,
                         .snap_bytes_per_step = stn_h5_bytes_per_step(r->d, r->o),
                         .init_seconds = init,
                         .input_init_seconds = input_init,
                         .compute_share = res->compute_share};
    stn_ooc_predict_time(&e->model, &e->plan, first_sweep, &tm, &res->time);
    if (!e->share_tried) { /* (once: the report's model at the end keeps what was measured) */
        rc = plan_share(e, res->time.io + res->time.npy);
        if (rc)
            return rc;
        stn_ooc_history_use(e); /* (the earlier runs' loops, where this one has some: ooc_history.c) */
        tm.cells_per_second = res->cells_per_second;
        tm.compute_share = res->compute_share;
        stn_ooc_predict_time(&e->model, &e->plan, first_sweep, &tm, &res->time);
    }
    res->time.startup = e->startup;
    res->have_time = 1;
    return 0;
}

static int has_exports(const ooc *e) {
    for (int s = 0; s < 2 * e->d->nfields; s++)
        if (e->r->writers[s])
            return 1;
    return 0;
}

/* Whether a sweep's result is made durable and committed for --resume: every one, except the
 * program's last when nothing reads it afterwards (no --out): its files are removed as soon as it
 * ends, and a run killed before that resumes from the sweep before (one fdatasync less a run).  A
 * simulation may advance again, which would overwrite the committed set: its sweeps all commit. */
int stn_ooc_commits(const ooc *e, int program, int last) { return !program || !last || has_exports(e); }

/* Where record k's samples start in the records file: the records one after the other, each
 * steps x n samples. */
static uint64_t records_base(const ooc *e, int k) {
    uint64_t b = 0;
    for (int j = 0; j < k; j++)
        b += (uint64_t)e->r->o->steps * (uint64_t)e->r->inputs.npts[e->d->records[j].points] *
             (uint64_t)e->d->elem_size;
    return b;
}

/* The samples of steps [t0, t1) of every record, to (write) or from the records file. */
int stn_ooc_records_io(ooc *e, int write, int64_t t0, int64_t t1) {
    double start = stn_now();
    int rc = 0;
    for (int k = 0; rc == 0 && k < e->d->nrecords; k++) {
        uint64_t row = (uint64_t)e->r->inputs.npts[e->d->records[k].points] * (uint64_t)e->d->elem_size;
        size_t n = (size_t)((uint64_t)(t1 - t0) * row);
        char *buf = (char *)e->r->rec[k] + (uint64_t)t0 * row;
        uint64_t off = records_base(e, k) + (uint64_t)t0 * row;
        rc = write ? stn_pwrite_full(e->fs.records_fd, buf, n, off, e->fs.records)
                   : stn_pread_full(e->fs.records_fd, buf, n, off, e->fs.records);
        if (rc == 0 && write)
            e->res->st.bytes_written += n;
        else if (rc == 0)
            e->res->st.bytes_read += n;
    }
    if (rc == 0 && write && fdatasync(e->fs.records_fd) != 0) {
        int err = errno;
        rc = stn_error(stn_neg_errno(err), "cannot sync '%s': %s", e->fs.records, strerror(err));
    }
    stn_stats_add_time(&e->res->st, write ? STN_PHASE_WRITE : STN_PHASE_READ, start);
    return rc;
}

/* The records file: created empty, or, resuming, the samples of the `steps` steps the saved sweeps
 * made read back. */
static int open_records(ooc *e, int64_t steps) {
    if (e->d->nrecords == 0 || stn_record_row_bytes(e->r) == 0)
        return 0;
    snprintf(e->fs.records, sizeof e->fs.records, "%s/%s.records", e->r->o->dir, e->d->name);
    e->fs.records_fd =
        open(e->fs.records,
             O_NOFOLLOW | (steps > 0 ? O_RDWR | O_CLOEXEC : O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC), 0666);
    if (e->fs.records_fd < 0) {
        int err = errno;
        return stn_error(stn_neg_errno(err), "cannot %s the records' samples '%s': %s",
                         steps > 0 ? "open (--resume) " : "create", e->fs.records, strerror(err));
    }
    int rc = steps > 0 ? stn_ooc_records_io(e, 0, 0, steps) : 0;
    return rc ? stn_error(rc, "--resume: the records' samples of the sweeps done: %s", stn_errmsg()) : 0;
}

/* --plan-only: the records file's bytes in the IO model of the whole run (read back on resume,
 * written for every sweep that commits). */
static void predict_records(ooc *e, int64_t first) {
    uint64_t row = e->d->nrecords ? stn_record_row_bytes(e->r) : 0;
    int64_t n = e->plan.nsweeps;
    if (row == 0 || first >= n)
        return;
    e->res->predicted_read += (uint64_t)(first > 0 ? e->steps_resumed : 0) * row;
    /* the sweeps from `first` on, full ones but maybe the last; every one commits but maybe the last */
    int64_t steps = (n - 1 - first) * e->plan.bt + stn_ooc_sweep_steps(&e->plan, n - 1);
    if (!stn_ooc_commits(e, 1, 1))
        steps -= stn_ooc_sweep_steps(&e->plan, n - 1);
    e->res->predicted_written += (uint64_t)steps * row;
}

/* The model's inputs read in place chosen (ooc_inplace.c), the run's bytes must fit the counters (uint64_t)
 * that count them and the model that predicts them:
 * an estimate from one sweep's bytes, its ghosts' and its records' (long double: cannot overflow),
 * against 2^62, so that the closed forms below stay exact. */
static int check_countable(ooc *e, int64_t first) {
    stn_ooc_in_place_choose(e); /* (first: --tier pmem's inputs read in the mapping, counted apart) */
    int64_t n = e->plan.nsweeps;
    if (first >= n)
        return 0;
    uint64_t rd = 0, wr = 0, m = 0;
    stn_ooc_predict_sweep(&e->model, &e->plan, first, e->plan.bt, &rd, &wr);
    const stn_cut *sl = e->r->part ? stn_part_slab(e->r->part) : NULL;
    uint64_t ghosts = sl ? stn_ooc_ghosts_bytes(e, &m) : 0;
    uint64_t row = e->d->nrecords ? stn_record_row_bytes(e->r) : 0;
    long double per = (long double)rd + wr + 2.0L * ghosts + (long double)row * e->plan.bt;
    long double all = per * (long double)(n - first);
    if (all <= 0x1p62L)
        return 0;
    return stn_error(
        -EOVERFLOW,
        "--steps %lld: the run would read and write about %.3Lg bytes (%.3Lg per sweep of %lld "
        "steps), more than the 2^62 its byte counters and IO model count exactly; run fewer steps "
        "(a run can be continued: --steps and a later --resume)",
        (long long)e->r->o->steps, all, per, (long long)e->plan.bt);
}

/* One run at a time on a --dir (for a stencil): DIR/NAME.lock, flock'ed for the run, holds the pid
 * of the run that has it.  A second run is refused with that pid; the lock dies with its process, so
 * a killed run's --resume is never refused.  (A lock taken on a file another run has just removed is
 * taken again on the new one.) */
static int lock_one(const char *dir, const char *name, char *lock, size_t n, int *lock_fd) {
    snprintf(lock, n, "%s/%s.lock", dir, name);
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            int err = errno;
            return stn_error(stn_neg_errno(err), "cannot create the lock file '%s': %s", lock,
                             err == ELOOP ? "it is a symbolic link" : strerror(err));
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int err = errno;
            char pid[32] = "";
            ssize_t n = err == EWOULDBLOCK ? pread(fd, pid, sizeof pid - 1, 0) : -1;
            pid[n > 0 ? (size_t)n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            close(fd);
            if (err == EWOULDBLOCK)
                return stn_error(
                    -EBUSY,
                    "--dir %s is in use: another run of %s (pid %s) keeps its scratch files there; "
                    "wait for it to end, or give this run another --dir",
                    dir, name, *pid ? pid : "unknown");
            return stn_error(stn_neg_errno(err), "cannot lock '%s': %s", lock, strerror(err));
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(lock, &now) == 0 && held.st_ino == now.st_ino &&
            held.st_dev == now.st_dev) {
            char pid[32];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
                /* the pid is only for the other run's message: the lock holds without it */
            }
            *lock_fd = fd;
            return 0;
        }
        close(fd); /* removed under us by the run that just ended: lock the new file */
    }
    return stn_error(-EBUSY, "cannot lock '%s': it keeps being replaced", lock);
}

/* Each directory of --dir locked (its first, then a list's others: ooc_dirs.c). */
static int lock_dir(ooc *e) {
    int rc = lock_one(e->r->o->dir, e->d->name, e->fs.lock, sizeof e->fs.lock, &e->fs.lock_fd);
    return rc ? rc : stn_ooc_dirs_lock(e, lock_one);
}

/* The plan as the report gives it (e->out): blocks in cells, the strip, the DRAM. */
static void report_plan(ooc *e) {
    const stn_run *r = e->r;
    e->out->blk[0] = e->plan.r.axis == 1 ? e->plan.r.b : r->o->size[1];
    e->out->blk[1] = r->d->ndim == 2 ? -1 : e->plan.r.axis == 2 ? e->plan.r.b : e->plan.q.b;
    e->out->blk[2] = e->plan.bt;
    e->out->strip = stn_strip_names[e->plan.strip];
    e->out->mem_plan_bytes = e->plan.mem_bytes;
    if (r->fold.W) /* a folded 1d grid's blocks in its cells */
        e->out->blk[0] = e->plan.r.b * r->fold.W, e->out->fold_row = r->fold.W,
        e->out->fold_rows = r->fold.rows;
}

/* Resumed after `done` sweeps of another bt (a re-plan, ooc_refine.c): the plan's sweeps are those done
 * and the steps left in sweeps of the saved bt, the last shorter, as the models count them. */
static void resumed_sweeps(ooc *e, int64_t done) {
    if (done <= 0 || e->steps_resumed == done * e->plan.bt)
        return;
    int64_t left = e->r->o->steps - e->steps_resumed;
    e->plan.steps = done * e->plan.bt + left;
    e->plan.nsweeps = done + (left + e->plan.bt - 1) / e->plan.bt;
}

/* The run's queue, its scratch, spill and record files, and its buffers, once its plan is made; then the
 * startup's seconds, stamped as the loop begins. */
static int open_run(ooc *e, int resuming, int64_t first_sweep) {
    const stn_run *r = e->r;
    int rc = stn_aio_create(&e->q, STN_AIO_DEFAULT_DEPTH, STN_AIO_DEFAULT_MAX_REQUEST);
    if (rc == 0)
        stn_aio_count_sizes(e->q, &e->res->req_sizes);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = check_space(e, resuming);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_scratch(e, resuming);
    if (rc == 0 && e->plan.nsweeps > 0 && resuming) /* (the layouts the state file recorded) */
        rc = stn_ooc_chunk_apply(e);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_spill(e);
    if (rc == 0 && e->plan.nsweeps > 0)
        rc = open_records(e, first_sweep > 0 ? e->steps_resumed : 0);
    if (rc == 0 && (rc = alloc_buffers(e)) != 0) {
        char a[32], why[512];
        snprintf(why, sizeof why, "%s", stn_errmsg()); /* (the cause, which stn_error overwrites) */
        rc = stn_error(rc, "cannot allocate the out-of-core buffers (%s): %s",
                       stn_fmt_bytes(a, sizeof a, e->plan.mem_bytes), why[0] ? why : strerror(-rc));
    }
    /* the job's seconds before its loop: its scratch files made, its rings gathered too (the gathering may
     * compact memory: 0.3-0.6 s for 126-158 MiB on the 2-core VM, seconds when memory is scattered) */
    if (rc == 0) {
        e->startup = stn_now() - (r->t_job > 0 ? r->t_job : r->t_start);
        e->res->time.startup = e->startup;
    }
    return rc;
}

int stn_ooc_setup(ooc *e, int64_t *first_sweep) {
    const stn_run *r = e->r;
    size_t align = (size_t)r->hw.block.value; /* program.c found it for --dir (or --machine gave it) */
    e->alg2 = r->o->schedule == STN_SCHED_ALG2;
    if (e->alg2 && r->o->resume)
        return stn_error(-EINVAL,
                         "--resume: --schedule alg2 updates its files in place (the paper's algorithm 2), "
                         "so an interrupted run cannot be resumed; use the default schedule (ref) for that");
    snprintf(e->fs.state, sizeof e->fs.state, "%s/%s.ooc-state", r->o->dir, e->d->name);
    int rc = stn_ooc_dirs_slabs(e);  /* (--dir a,b: each node's rows) */
    if (rc == 0 && !r->o->plan_only) /* (--plan-only touches no file of --dir; --machine implies it) */
        rc = lock_dir(e);
    stn_saved_plan saved;
    int have_saved = rc == 0 && r->o->resume ? stn_ooc_saved_plan(e->fs.state, &saved) : 0;
    if (have_saved < 0)
        rc = have_saved, have_saved = 0;
    if (rc == 0)
        rc = classify_sources(e);
    if (rc == 0) /* a resumed run goes on with the blocks its files were written with */
        rc = stn_ooc_choose(r, &e->model, align, have_saved ? &saved : NULL, &e->plan, e->out, e->res);
    /* (the ranks read their states together below: a lock or a plan that failed alone stops them all) */
    if (r->o->resume)
        rc = stn_ooc_agree(e, rc, "to lock or plan its --dir");
    if (rc)
        return rc;
    report_plan(e);
    e->res->scratch_chunked = stn_ooc_chunked(&e->plan);     /* (and a re-plan's, ooc_chunks.c) */
    if ((stn_ooc_periodic_axes(e->d) >> e->plan.r.axis) & 1) /* (bt = 1: stn_ooc_periodic_refusal) */
        e->own_axes = (int64_t)1 << e->plan.r.axis;
    pick_sub_tiles(e);
    *first_sweep = 0;
    if (r->o->resume) {
        int64_t done;
        rc = stn_ooc_agree(e, stn_ooc_load_state(e, &done, &e->steps_resumed), "reading its state file");
        if (rc)
            return rc;
        if (r->part) { /* a sweep counts once every rank committed it (a rank ahead has both sets) */
            done = stn_par_min(done);
            e->steps_resumed = stn_par_min(done < 0 ? -1 : e->steps_resumed);
        }
        if (done < 0)
            stn_warn(r->log, "--resume: no completed sweep saved in %s; starting from the beginning",
                     r->o->dir);
        *first_sweep = done < 0 ? 0 : done;
        resumed_sweeps(e, done);
    } else if (!r->o->plan_only) {
        unlink(e->fs.state); /* a stale state must never be trusted by a later --resume */
    }
    int resuming = *first_sweep > 0;
    const stn_cut *sl = r->part ? stn_part_slab(r->part) : NULL;
    if (sl && r->fold.W) /* a rank's slab of a folded grid reads the cells of its rows */
        e->plan.npy_bytes =
            (uint64_t)stn_fold_cells(&r->fold, sl->base, sl->base + e->plan.r.n) * (uint64_t)e->d->elem_size;
    /* a rank writes its own part of an --out (along a ring, some indices twice: the wraps; a folded
     * grid's: its own rows' cells) */
    if (sl && r->fold.W)
        e->plan.out_bytes = (uint64_t)stn_fold_cells(&r->fold, sl->base + sl->lo, sl->base + sl->hi) *
                            (uint64_t)e->d->elem_size;
    else if (sl)
        e->plan.out_bytes = stn_part_out_cells(r->part) * (uint64_t)e->d->elem_size;
    rc = check_countable(e, *first_sweep);
    if (rc)
        return rc;
    stn_ooc_predict(&e->model, &e->plan, *first_sweep, &e->res->predicted_read, &e->res->predicted_written);
    /* and the ghosts' exchanges; resumed with the way down deferred, one first: the state committed
     * before the kill may lack the high ghosts that were still in flight (stn_ooc_advance) */
    int redo = resuming && sl && r->part->defer && e->plan.r.axis == r->part->split &&
               e->plan.nsweeps > *first_sweep;
    if (sl && e->plan.nsweeps > *first_sweep + 1 - redo) {
        uint64_t m, x = (uint64_t)(e->plan.nsweeps - *first_sweep - 1 + redo) * stn_ooc_ghosts_bytes(e, &m);
        e->res->predicted_read += x, e->res->predicted_written += x;
    }
    predict_records(e, *first_sweep);
    e->startup = stn_now() - (r->t_job > 0 ? r->t_job : r->t_start); /* (calibration, the tuner's rates) */
    rc = stn_ooc_model_time(e, *first_sweep);
    if (rc)
        return rc;
    if (r->o->plan_only)
        return 0; /* no queue, no file: stn_ooc_open prints the plan */
    return open_run(e, resuming, *first_sweep);
}

int stn_ooc_rebuffer(ooc *e, const stn_ooc_plan *np) {
    for (int i = 0; i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        stn_free(f->wedge);
        free(f->wedge_off);
        f->wedge = NULL, f->wedge_off = NULL;
        for (int a = 0; a < 3; a++) {
            stn_ring_free(f->ring[a], (size_t)e->plan.ring_bytes, e->plan.qplanes);
            stn_free(f->strip[a]);
            stn_gridfile_close(&f->spill[a]);
            f->ring[a] = f->strip[a] = NULL;
        }
    }
    e->plan = *np;
    pick_sub_tiles(e);
    int rc = open_spill(e);
    if (rc == 0 && (rc = alloc_buffers(e)) != 0)
        rc = stn_error(rc, "re-planning: cannot allocate the out-of-core buffers: %s", stn_errmsg());
    return rc;
}
