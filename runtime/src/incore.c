/* incore.c -- the in-core engine (--mode incore): the whole grid in DRAM, one kernel call per step.
 *
 * It is also the reference the out-of-core engine must match bit for bit, so it follows the
 * descriptor's semantics literally:
 *   - per state field levels + 1 buffers (cur/next ping-pong; prev/cur/next rotation for two
 *     levels), per input field one buffer;
 *   - initial values: --init file, else the stencil's init, else zero; a two-level field's
 *     previous level from --init NAME.prev, else its init of level 1, else a copy of current;
 *   - neumann fields are mirrored once before the first step (both levels if they differ);
 *   - each step: step() on the interior, then boundary() of every state field on its new level,
 *     then the rotation. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Large enough for transparent huge pages and O_DIRECT alike. */
#define BUF_ALIGN 4096
/* Buffers of 2 MiB or more are 2 MiB aligned and asked for transparent huge pages (THP is
 * often "madvise" only).  A 7-point update touches three planes MiBs apart; on 4 KiB pages
 * that is a TLB miss per row.  On the 2-core VM this took heat3d 256^3 in-core from
 * 1.0-1.47e9 cells/s (run to run) to 1.37-1.54e9, and 512^3 from 0.87-1.3e9 to 1.23-1.31e9
 * (docs/benchmarks.md).  Without THP the advice is ignored. */
#define HUGE_ALIGN ((size_t)2 << 20)

typedef struct field_bufs {
    void *buf[3];
    int nbuf;
    int cur, next, prev; /* indices into buf; prev = -1 for one level */
    /* dirichlet: this buffer's boundary cells already equal the initial ones, so boundary()
     * would copy nothing new and can be skipped */
    int bc_initial[3];
} field_bufs;

typedef struct engine {
    const stn_run *r;
    stn_result *res;
    const stn_program_desc *d;
    field_bufs *f;
    const void **src;
    void **dst;
    stn_box whole, interior;
} engine;

/* ------------------------------------------------------------------ parallel memory helpers */

/* Thread t of T gets bytes [n*t/T, n*(t+1)/T): the same static split the kernels' outer
 * loops use, so pages are first touched by (roughly) the thread that computes on them. */
static void par_zero(void *p, size_t n) {
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads(), chunk = n / nt;
        size_t lo = chunk * t, hi = t + 1 == nt ? n : lo + chunk;
        memset((char *)p + lo, 0, hi - lo);
    }
}

static void par_copy(void *dst, const void *src, size_t n, stn_stats *st) {
    double t0 = stn_now();
    STN_OMP_PARALLEL {
        size_t t = (size_t)stn_omp_thread_num(), nt = (size_t)stn_omp_num_threads(), chunk = n / nt;
        size_t lo = chunk * t, hi = t + 1 == nt ? n : lo + chunk;
        memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
    }
    stn_stats_add_time(st, STN_PHASE_COPY, t0);
}

/* ------------------------------------------------------------------ setup */

/* --mode mmap, the paper's baseline: each array is a shared mapping of a file under --dir, so
 * the kernel's page cache decides what is in DRAM and writes pages back to the device.  The
 * file is unlinked at once: it lives as long as the mapping, and nothing is left behind. */
static void *map_buffer(engine *e, int f, int b, size_t bytes) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.%d.mmap-XXXXXX", e->r->o->dir, e->d->name, e->d->fields[f].name, b);
    int fd = mkstemp(path);
    if (fd < 0) {
        stn_error(stn_neg_errno(errno), "--mode mmap: cannot create a file in '%s': %s", e->r->o->dir,
                  strerror(errno));
        return NULL;
    }
    unlink(path);
    void *p = MAP_FAILED;
    int err = 0;
    if (ftruncate(fd, (off_t)bytes) != 0)
        err = errno;
    else if ((p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
        err = errno;
    close(fd);
    if (err) {
        char hb[32];
        stn_error(stn_neg_errno(err), "--mode mmap: cannot map %s of '%s': %s",
                  stn_fmt_bytes(hb, sizeof hb, bytes), e->r->o->dir, strerror(err));
        return NULL;
    }
    return p;
}

static void unmap_buffer(void *p, size_t bytes) {
    if (p)
        munmap(p, bytes);
}

/* Bytes this process made the storage layer read and write (page cache misses, writeback):
 * the flash traffic of --mode mmap, which the kernel moves without asking us. */
static void proc_io(uint64_t *rd, uint64_t *wr) {
    FILE *fp = fopen("/proc/self/io", "r");
    char line[128];
    unsigned long long v;
    while (fp && fgets(line, sizeof line, fp)) {
        if (sscanf(line, "read_bytes: %llu", &v) == 1)
            *rd = v;
        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
            *wr = v;
    }
    if (fp)
        fclose(fp);
}

static int alloc_buffers(engine *e) {
    const stn_program_desc *d = e->d;
    size_t bytes = (size_t)e->r->grid_bytes;
    double t0 = stn_now();
    for (int i = 0; i < d->nfields; i++) {
        const stn_field_desc *fd = &d->fields[i];
        field_bufs *fb = &e->f[i];
        fb->nbuf = fd->kind == STN_FIELD_STATE ? fd->levels + 1 : 1;
        fb->cur = 0;
        fb->next = fb->nbuf > 1 ? 1 : -1;
        fb->prev = fb->nbuf > 2 ? 2 : -1;
        for (int b = 0; b < fb->nbuf; b++) {
            int mm = e->r->o->mode == STN_MODE_MMAP;
            fb->buf[b] = mm ? map_buffer(e, i, b, bytes)
                            : stn_alloc(bytes, bytes >= HUGE_ALIGN ? HUGE_ALIGN : BUF_ALIGN);
            if (fb->buf[b] && !mm && bytes >= HUGE_ALIGN)
                (void)madvise(fb->buf[b], bytes / HUGE_ALIGN * HUGE_ALIGN, MADV_HUGEPAGE);
            if (!fb->buf[b])
                return stn_error(-ENOMEM,
                                 "in-core run: cannot allocate level %d of field '%s' (%d of %d buffers of "
                                 "%zu bytes): %s",
                                 b, fd->name, b + 1, fb->nbuf, bytes, stn_errmsg());
            par_zero(fb->buf[b], bytes); /* first touch, and the zero of fields without init */
        }
    }
    stn_stats_add_time(&e->res->st, STN_PHASE_INIT, t0);
    return 0;
}

/* One level of one field: the --init file, else the stencil's init, else (already) zero.
 * Returns 1 in *given when the level got values of its own. */
static int fill_level(engine *e, int f, int level, void *data, int *given) {
    const stn_run *r = e->r;
    const stn_field_desc *fd = &e->d->fields[f];
    const char *path = r->o->init_path[2 * f + level];
    int has_init = level == 0 ? fd->has_init : fd->has_prev_init;
    *given = path != NULL || has_init;
    if (path) {
        int64_t shape[3] = {r->o->size[2], r->o->size[1], r->o->size[0]};
        const int64_t *sh = e->d->ndim == 3 ? shape : shape + 1;
        int rc = stn_npy_load(path, e->d->npy_descr, e->d->ndim, sh, data, &e->res->st);
        if (rc)
            return stn_error(rc, "--init %s%s=%s: %s", fd->name, level ? ".prev" : "", path, stn_errmsg());
    } else if (has_init) {
        double t0 = stn_now();
        e->d->init(f, level, data, &r->view, r->o->params, &e->whole);
        stn_stats_add_time(&e->res->st, STN_PHASE_INIT, t0);
    }
    return 0;
}

static void mirror(engine *e, int f, void *data) {
    double t0 = stn_now();
    e->d->boundary(f, &e->r->view, data, data, &e->whole);
    stn_stats_add_time(&e->res->st, STN_PHASE_COMPUTE, t0);
}

static int initial_values(engine *e) {
    const stn_program_desc *d = e->d;
    size_t bytes = (size_t)e->r->grid_bytes;
    for (int i = 0; i < d->nfields; i++) {
        field_bufs *fb = &e->f[i];
        int neumann = d->fields[i].kind == STN_FIELD_STATE && d->fields[i].boundary == STN_BC_NEUMANN;
        int given, prev_given = 0;
        int rc = fill_level(e, i, 0, fb->buf[fb->cur], &given);
        if (rc == 0 && fb->prev >= 0)
            rc = fill_level(e, i, 1, fb->buf[fb->prev], &prev_given);
        if (rc)
            return rc;
        if (neumann)
            mirror(e, i, fb->buf[fb->cur]);
        if (neumann && prev_given)
            mirror(e, i, fb->buf[fb->prev]);
        if (fb->prev >= 0 && !prev_given)
            par_copy(fb->buf[fb->prev], fb->buf[fb->cur], bytes, &e->res->st);
        if (fb->next >= 0)
            par_copy(fb->buf[fb->next], fb->buf[fb->cur], bytes, &e->res->st);
        fb->bc_initial[fb->cur] = 1;
        if (fb->next >= 0)
            fb->bc_initial[fb->next] = 1;
        if (fb->prev >= 0)
            fb->bc_initial[fb->prev] = !prev_given;
    }
    return 0;
}

/* ------------------------------------------------------------------ the time loop */

static void bind_slots(engine *e) {
    for (int i = 0; i < e->d->nfields; i++) {
        const stn_field_desc *fd = &e->d->fields[i];
        field_bufs *fb = &e->f[i];
        if (fd->src_slot >= 0)
            e->src[fd->src_slot] = fb->buf[fb->cur];
        if (fd->prev_slot >= 0 && fb->prev >= 0)
            e->src[fd->prev_slot] = fb->buf[fb->prev];
        if (fd->dst_slot >= 0 && fb->next >= 0)
            e->dst[fd->dst_slot] = fb->buf[fb->next];
    }
}

static void boundaries(engine *e) {
    for (int i = 0; i < e->d->nfields; i++) {
        const stn_field_desc *fd = &e->d->fields[i];
        field_bufs *fb = &e->f[i];
        if (fd->kind != STN_FIELD_STATE)
            continue;
        if (fd->boundary == STN_BC_DIRICHLET && fb->bc_initial[fb->next])
            continue;
        e->d->boundary(i, &e->r->view, fb->buf[fb->cur], fb->buf[fb->next], &e->whole);
        /* dirichlet copied cur's boundary, which is the initial one (cur's always is) */
        fb->bc_initial[fb->next] = fd->boundary == STN_BC_DIRICHLET && fb->bc_initial[fb->cur];
    }
}

static void rotate(engine *e) {
    for (int i = 0; i < e->d->nfields; i++) {
        field_bufs *fb = &e->f[i];
        if (fb->nbuf == 2) { /* cur <-> next */
            int t = fb->cur;
            fb->cur = fb->next;
            fb->next = t;
        } else if (fb->nbuf == 3) { /* prev <- cur <- next <- prev */
            int t = fb->prev;
            fb->prev = fb->cur;
            fb->cur = fb->next;
            fb->next = t;
        }
    }
}

static void time_loop(engine *e) {
    const stn_run *r = e->r;
    stn_progress prog;
    stn_progress_start(&prog, e->d->name, r->o->steps, (double)stn_grid_cells(r->o), r->o->quiet);
    /* Blk-Tune's step 1 in-core too: the same cache tiles as out-of-core */
    stn_iblock_choose(r, stn_tuned_applies(r), &e->res->ib);
    const int64_t *tile = e->res->ib.tile;
    double t0 = stn_now();
    for (int64_t t = 0; t < r->o->steps; t++) {
        bind_slots(e);
        e->d->step(r->o->params, &r->view, e->src, e->dst, &e->interior, tile[0], tile[1]);
        boundaries(e);
        rotate(e);
        stn_progress_step(&prog, t + 1);
    }
    e->res->loop_seconds = stn_now() - t0;
    e->res->st.seconds[STN_PHASE_COMPUTE] += e->res->loop_seconds;
    stn_progress_end(&prog);
}

static int write_outputs(engine *e) {
    const stn_run *r = e->r;
    for (int s = 0; s < 2 * e->d->nfields; s++) {
        if (!r->writers[s])
            continue;
        field_bufs *fb = &e->f[s / 2];
        void *data = fb->buf[s % 2 ? fb->prev : fb->cur];
        int rc = stn_npy_writer_write(r->writers[s], data, (size_t)r->grid_bytes, &e->res->st);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ entry */

static void set_boxes(engine *e) {
    const stn_view *v = &e->r->view;
    int64_t n[3] = {v->nx, v->ny, v->nz};
    for (int k = 0; k < 3; k++) {
        e->whole.lo[k] = 0;
        e->whole.hi[k] = n[k];
        e->interior.lo[k] = e->d->halo_lo[k];
        e->interior.hi[k] = n[k] - e->d->halo_hi[k];
    }
}

static void engine_free(engine *e) {
    for (int i = 0; e->f && i < e->d->nfields; i++)
        for (int b = 0; b < 3; b++)
            if (e->r->o->mode == STN_MODE_MMAP)
                unmap_buffer(e->f[i].buf[b], (size_t)e->r->grid_bytes);
            else
                stn_free(e->f[i].buf[b]);
    free(e->f);
    free(e->src);
    free(e->dst);
}

/* In-core needs every buffer at once; say so when that is more than the budget (a warning,
 * not a refusal: the budget is a plan for the out-of-core engine, the kernel decides here). */
static void check_budget(const stn_run *r) {
    uint64_t need = 0;
    for (int i = 0; i < r->d->nfields; i++)
        need += r->grid_bytes *
                (uint64_t)(r->d->fields[i].kind == STN_FIELD_STATE ? r->d->fields[i].levels + 1 : 1);
    if (need > r->mem_budget) {
        char a[32], b[32];
        stn_warn(r->log, "the in-core run needs %s for its buffers, more than the DRAM budget of %s (%s)",
                 stn_fmt_bytes(a, sizeof a, need), stn_fmt_bytes(b, sizeof b, r->mem_budget), r->mem_source);
    }
}

int stn_incore_run(const stn_run *r, stn_result *res) {
    engine e;
    memset(&e, 0, sizeof e);
    e.r = r;
    e.res = res;
    e.d = r->d;
    /* The in-core IO model: each --init file is read once, each --out written once. */
    for (int s = 0; s < 2 * r->d->nfields; s++) {
        res->predicted_read += r->o->init_path[s] ? r->grid_bytes : 0;
        res->predicted_written += r->o->out_path[s] ? r->grid_bytes : 0;
    }
    int rc = stn_engine_arrays(r->d, sizeof *e.f, (void **)&e.f, &e.src, &e.dst, "in-core");
    if (rc != 0) {
        engine_free(&e);
        return rc;
    }
    set_boxes(&e);
    if (r->o->mode == STN_MODE_INCORE)
        check_budget(r);
    rc = alloc_buffers(&e);
    if (rc == 0)
        rc = initial_values(&e);
    if (rc == 0) {
        uint64_t r0 = 0, w0 = 0, r1 = 0, w1 = 0;
        proc_io(&r0, &w0);
        time_loop(&e);
        proc_io(&r1, &w1);
        if (r->o->mode == STN_MODE_MMAP) { /* the kernel's paging during the time loop */
            res->have_paging = 1;
            res->paging_read = r1 - r0;
            res->paging_written = w1 - w0;
        }
        rc = write_outputs(&e);
    }
    res->engine_bytes = stn_peak_allocated_bytes();
    engine_free(&e);
    return rc;
}
