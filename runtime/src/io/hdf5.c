/* hdf5.c -- the snapshot file of --save-to through libhdf5 (io/stn_hdf5.h; docs/design/021-snapshots.md):
 * its temporary created before the run, each snapshot's cells put as the engine has them, the records, the
 * attributes and the rename at the end.  Without libhdf5 (STN_HAVE_HDF5 undefined) every call fails. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_hdf5.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The cells kept of each axis of the grid (x, y, z) and their count; 1 for an axis the grid lacks. */
static void kept_extent(const stn_program_desc *d, const stn_opts *o, const stn_save *s, int64_t n[3]) {
    for (int a = 0; a < 3; a++)
        n[a] = a < stn_dims(d) ? stn_save_kept(0, o->size[a], s->stride) : 1;
}

uint64_t stn_h5_bytes(const stn_program_desc *d, const stn_opts *o, int64_t done) {
    uint64_t total = 0;
    for (int f = 0; o->save && f < d->nfields; f++) {
        const stn_save *s = &o->save[f];
        if (!s->every)
            continue;
        int64_t n[3];
        kept_extent(d, o, s, n);
        total +=
            (uint64_t)stn_save_before(s, done + 1) * (uint64_t)(n[0] * n[1] * n[2]) * (uint64_t)d->elem_size;
    }
    return total;
}

double stn_h5_bytes_per_step(const stn_program_desc *d, const stn_opts *o) {
    return o->save_to && o->steps > 0 ? (double)stn_h5_bytes(d, o, o->steps) / (double)o->steps : 0;
}

#ifdef STN_HAVE_HDF5
#include <hdf5.h>
#include <hdf5_hl.h>

#define H5_CHUNK_BYTES ((int64_t)1 << 20) /* a chunk's bytes, about (one snapshot's cells at most) */
#define H5_CACHE_BYTES ((size_t)16 << 20) /* each dataset's chunk cache: partly written chunks stay */

struct stn_h5 {
    const stn_program_desc *d;
    const stn_opts *o;
    stn_afile af; /* the temporary (its fd synced at commit) and the rename */
    hid_t file;
    hid_t *dset; /* [nfields]: the snapshots of each saved field (-1: not saved) */
    char *stage; /* the kept cells of a piece of a put, gathered (at most `piece` bytes, or one cell) */
    int64_t piece;
    int resumed; /* the file is a killed run's, adopted by --resume */
    int remote;  /* MPI, a rank but 0: no file; it says which steps are saved (its cells go to rank 0) */
    size_t stage_bytes;
    stn_h5_ranks par; /* the ranks that write the file together (parallel HDF5), else {0, 1} */
    int parallel;     /* par.size > 1: every call but put is made by every rank alike (libhdf5's rule) */
    int closed;       /* stn_h5_close has made the file whole: what is left is the rename */
    stn_h5_gather g;  /* rank 0 gathering (g.size > 1): the pieces the other ranks send as they compute */
    int grc;          /* rank 0: the first failure of a piece taken (the later ones are taken and dropped) */
    int ends;         /* rank 0: the ranks that have sent the end of their sweep's pieces */
};

/* The file access: the oldest format that holds the file (readable by HDF5 1.8 on); under parallel HDF5
 * the MPI-IO driver on the ranks' communicator.  -1 on failure. */
static hid_t access_list(const stn_h5 *h) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && (H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18) < 0 ||
                      (h->parallel && h->par.fapl(fapl) != 0))) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

/* Parallel HDF5: rank 0's temporary (its path in af.tmp; rc its failure) told to every rank, which opens it
 * with libhdf5 too (the other ranks' af holds the path alone: they never sync, rename nor unlink it). */
static int share_tmp(stn_h5 *h, int rc, int *found) {
    struct {
        int rc, found;
        char tmp[4096];
    } m = {rc, *found, ""};
    if (h->par.rank == 0 && h->af.tmp)
        snprintf(m.tmp, sizeof m.tmp, "%s", h->af.tmp);
    h->par.bcast(&m, sizeof m, 0);
    *found = m.found;
    if (h->par.rank == 0 || m.rc)
        return m.rc && h->par.rank > 0 ? stn_error(m.rc,
                                                   "--save-to %s: rank 0 could not make the file (its "
                                                   "error is above)",
                                                   h->o->save_to)
                                       : rc;
    if (m.tmp[0] && !(h->af.tmp = strdup(m.tmp)))
        return stn_error(-ENOMEM, "out of memory");
    return 0;
}

/* The innermost message of libhdf5's error stack (its first entry); a failed write or read of its POSIX
 * driver (sec2: "file write failed: time = ..., filename = '...', ..., errno = 5, ..., total write size =
 * 96, ...") said as the write of how many bytes of which file, and the cause (its "offset" is not the
 * write's with pwrite, 1.10.8). */
static herr_t first_error(unsigned n, const H5E_error2_t *e, void *out) {
    if (n != 0)
        return 0;
    const char *d = e->desc ? e->desc : "?", *name = strstr(d, "filename = '"), *er = strstr(d, "errno = "),
               *sz = strstr(d, " size = ");
    int eno = 0, len = 0;
    long long bytes = 0;
    if (name && er && sz && sscanf(er, "errno = %d", &eno) == 1 && sscanf(sz, " size = %lld", &bytes) == 1 &&
        sscanf(name, "filename = '%*[^']%n", &len) >= 0 && len > 12) {
        const char *base = memrchr(name + 12, '/', (size_t)len - 12);
        base = base ? base + 1 : name + 12;
        int w = strstr(d, "write") != NULL;
        snprintf(out, 256, "the %s of %lld bytes %s '%.*s' failed: %s (%s)", w ? "write" : "read", bytes,
                 w ? "into" : "from", (int)(name + len - base), base, strerror(eno),
                 e->func_name ? e->func_name : "?");
    } else
        snprintf(out, 256, "%s (%s)", d, e->func_name ? e->func_name : "?");
    return 0;
}

/* libhdf5 1.10 keeps a file's ID after a close that failed to write (its H5F__dest freed the file but
 * returned an error, so the ID stays, pointing at it) and closes it again as it terminates, at exit (its
 * atexit handler) or at MPI_Finalize (an attribute it sets on MPI_COMM_SELF when it starts with MPI up):
 * SIGSEGV.  So the runtime starts libhdf5 itself, before MPI_Init and without its exit handler
 * (H5dont_atexit), and terminates it at exit itself, unless a close has failed: then it is left as it is
 * (the process is ending; every other file of the runtime is closed).  A process in which something else
 * started libhdf5 first keeps libhdf5's own handler. */
static int h5_lost;

static void h5_at_exit(void) {
    if (!h5_lost)
        H5close();
}

void stn_h5_start(void) {
    static int started;
    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        return;
    if (H5dont_atexit() >= 0)
        atexit(h5_at_exit);
    H5open();
}

int stn_h5_fclose(int64_t file) {
    if (H5Fclose((hid_t)file) >= 0)
        return 0;
    h5_lost = 1; /* (its ID dangles: libhdf5 must not be terminated) */
    return -1;
}

static int h5_fail(const stn_h5 *h, const char *what) {
    char msg[256] = "unknown error";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, msg);
    H5Eclear2(H5E_DEFAULT);
    return stn_error(-EIO, "cannot write '%s' (--save-to): %s: libhdf5: %s", h->o->save_to, what, msg);
}

static hid_t mem_type(const stn_program_desc *d) {
    return d->elem_size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

/* The dataset of field f's snapshots: (count, [nz',] [ny',] nx'), the time axis unlimited, chunks of
 * one snapshot and about H5_CHUNK_BYTES, allocated at once. */
static hid_t make_dataset(stn_h5 *h, int f) {
    const stn_program_desc *d = h->d;
    const stn_save *s = &h->o->save[f];
    int dims = stn_dims(d), rank = dims + 1;
    int64_t n[3], es = d->elem_size;
    kept_extent(d, h->o, s, n);
    hsize_t cur[4], most[4], chunk[4];
    cur[0] = (hsize_t)stn_save_before(s, h->o->steps + 1), most[0] = H5S_UNLIMITED, chunk[0] = 1;
    int64_t room = H5_CHUNK_BYTES / es; /* cells a chunk may hold, x first */
    for (int a = 0; a < dims; a++) {
        int64_t c = room < n[a] ? room : n[a];
        c = c < 1 ? 1 : c;
        room = room / c > 0 ? room / c : 1;
        cur[rank - 1 - a] = most[rank - 1 - a] = (hsize_t)n[a];
        chunk[rank - 1 - a] = (hsize_t)c;
    }
    hid_t space = H5Screate_simple(rank, cur, most), dcpl = H5Pcreate(H5P_DATASET_CREATE),
          dapl = H5Pcreate(H5P_DATASET_ACCESS), ds = -1;
    /* every chunk allocated now, nothing written in it (the file's size reserved, and its structure final:
     * a killed run's file reopens for --resume); a snapshot never put reads as zeros */
    if (space >= 0 && dcpl >= 0 && dapl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
        H5Pset_chunk_cache(dapl, 1009, H5_CACHE_BYTES, 1.0) >= 0)
        ds = H5Dcreate2(h->file, d->fields[f].name, es == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space,
                        H5P_DEFAULT, dcpl, dapl);
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Pclose(dapl);
    return ds;
}

/* What the file is of (its root attribute "run"): a resumed run adopts only its own run's file. */
static void run_key(const stn_h5 *h, char *key, size_t n) {
    const stn_opts *o = h->o;
    size_t k = (size_t)snprintf(key, n, "%s size %" PRId64 ",%" PRId64 ",%" PRId64 " steps %" PRId64 " %s",
                                h->d->name, o->size[0], o->size[1], o->size[2], o->steps, h->d->npy_descr);
    for (int f = 0; f < h->d->nfields && k < n; f++)
        if (o->save[f].every)
            k += (size_t)snprintf(
                key + k, n - k, " %s:every=%" PRId64 ":from=%" PRId64 ":to=%" PRId64 ":stride=%" PRId64,
                h->d->fields[f].name, o->save[f].every, o->save[f].from, o->save[f].to, o->save[f].stride);
}

static int reopen(stn_h5 *h, const char *found);

/* --resume: the temporary a killed run left beside the file (.BASE.partial-PID of a process that is gone),
 * renamed to this run's, its datasets opened; 0 with h->resumed = 0 when there is none. */
static int adopt(stn_h5 *h) {
    char *dir = strdup(h->o->save_to), *slash = dir ? strrchr(dir, '/') : NULL, found[4200] = "";
    if (!dir)
        return stn_error(-ENOMEM, "out of memory");
    if (h->par.rank > 0) /* (rank 0 looks, and tells: share_tmp) */
        slash = NULL, *dir = '\0';
    const char *base = slash ? slash + 1 : h->o->save_to;
    if (slash)
        *slash = '\0';
    const char *dname = slash ? (*dir ? dir : "/") : ".";
    char prefix[4200];
    int np = snprintf(prefix, sizeof prefix, ".%s.partial-", base);
    DIR *dd = h->par.rank == 0 ? opendir(dname) : NULL;
    struct dirent *de;
    while (dd && np > 0 && (size_t)np < sizeof prefix && (de = readdir(dd)) != NULL) {
        char *end;
        long pid = strncmp(de->d_name, prefix, (size_t)np) == 0 ? strtol(de->d_name + np, &end, 10) : 0;
        if (pid > 0 && !*end && pid != (long)getpid() && stn_pid_gone(pid))
            snprintf(found, sizeof found, "%s/%s", dname, de->d_name);
    }
    if (dd)
        closedir(dd);
    int rc = 0;
    if (found[0]) {
        h->af.fd = -1;
        h->af.path = strdup(h->o->save_to), h->af.dir = strdup(dname);
        if (!h->af.path || !h->af.dir ||
            asprintf(&h->af.tmp, "%s/.%s.partial-%ld", dname, base, (long)getpid()) < 0)
            rc = stn_error(-ENOMEM, "out of memory");
        else if (rename(found, h->af.tmp) != 0 || (h->af.fd = open(h->af.tmp, O_WRONLY | O_CLOEXEC)) < 0)
            rc = stn_error(stn_neg_errno(errno), "--save-to %s: cannot take over '%s': %s", h->o->save_to,
                           found, strerror(errno));
        h->af.created = h->af.tmp != NULL;
    }
    free(dir);
    int any = found[0] != 0;
    if (h->parallel)
        rc = share_tmp(h, rc, &any);
    if (rc == 0 && any && (rc = reopen(h, found)) != 0) { /* (not ours: given back, untouched) */
        if (h->file >= 0)
            stn_h5_fclose(h->file);
        h->file = -1;
        if (h->par.rank == 0)
            rename(h->af.tmp, found);
        h->af.created = 0;
    }
    return rc;
}

/* The adopted temporary opened: of this run (its attribute "run"), its datasets. */
static int reopen(stn_h5 *h, const char *found) {
    int rc = 0;
    char key[2048], had[2048] = "";
    run_key(h, key, sizeof key);
    hid_t fapl = access_list(h);
    h->file = fapl >= 0 ? H5Fopen(h->af.tmp, H5F_ACC_RDWR, fapl) : -1;
    H5Pclose(fapl);
    if (h->file < 0)
        return h5_fail(h, "reopening the interrupted run's snapshots");
    H5T_class_t cls;
    size_t len = 0;
    if (H5LTget_attribute_info(h->file, "/", "run", NULL, &cls, &len) < 0 || len >= sizeof had ||
        H5LTget_attribute_string(h->file, "/", "run", had) < 0 || strcmp(had, key) != 0)
        return stn_error(-EINVAL,
                         "--resume: the snapshots the interrupted run left (%s) are of another run (%s), not "
                         "of this one (%s)",
                         found, had, key);
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, 1009, H5_CACHE_BYTES, 1.0);
    for (int f = 0; rc == 0 && f < h->d->nfields; f++)
        if (h->o->save[f].every && (h->dset[f] = H5Dopen2(h->file, h->d->fields[f].name, dapl)) < 0)
            rc = h5_fail(h, "reopening a field's snapshots");
    H5Pclose(dapl);
    h->resumed = rc == 0;
    return rc;
}

/* A new temporary: the datasets, the attribute "run", flushed (its structure on disk before the run). */
static int create(stn_h5 *h) {
    int rc = h->par.rank == 0 ? stn_afile_open(&h->af, h->o->save_to, 0) : 0, none = 0;
    if (rc)
        rc = stn_error(rc, "--save-to %s: %s", h->o->save_to, stn_errmsg());
    if (h->parallel)
        rc = share_tmp(h, rc, &none);
    if (rc)
        return rc;
    hid_t fapl = access_list(h);
    h->file = fapl >= 0 ? H5Fcreate(h->af.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : -1;
    H5Pclose(fapl);
    if (h->file < 0)
        return h5_fail(h, "creating its temporary");
    for (int f = 0; f < h->d->nfields; f++)
        if (h->o->save[f].every && (h->dset[f] = make_dataset(h, f)) < 0)
            return h5_fail(h, "creating the dataset of a field");
    char key[2048];
    run_key(h, key, sizeof key);
    if (H5LTset_attribute_string(h->file, "/", "run", key) < 0 || H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
        return h5_fail(h, "writing its structure");
    return 0;
}

int stn_h5_open(const stn_program_desc *d, const stn_opts *o, uint64_t piece, const stn_h5_ranks *ranks,
                stn_h5 **out) {
    *out = NULL;
    stn_h5 *h = calloc(1, sizeof *h);
    if (!h || !(h->dset = calloc((size_t)d->nfields + 1, sizeof *h->dset))) {
        free(h);
        return stn_error(-ENOMEM, "out of memory");
    }
    h->d = d, h->o = o, h->file = -1, h->af.fd = -1, h->piece = (int64_t)piece;
    h->par = ranks ? *ranks : (stn_h5_ranks){0, 1, NULL, NULL};
    h->parallel = h->par.size > 1;
    for (int f = 0; f < d->nfields; f++)
        h->dset[f] = -1;
    stn_h5_start();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* (errors are ours to report, not printed by the library) */
    int rc = o->resume ? adopt(h) : 0;
    if (rc == 0 && !h->resumed)
        rc = create(h);
    if (rc) {
        stn_h5_abort(h);
        return rc;
    }
    *out = h;
    return 0;
}

int stn_h5_open_remote(const stn_program_desc *d, const stn_opts *o, stn_h5 **out) {
    stn_h5 *h = calloc(1, sizeof *h);
    if (!h || !(h->dset = calloc((size_t)d->nfields + 1, sizeof *h->dset))) {
        free(h);
        return stn_error(-ENOMEM, "out of memory");
    }
    h->d = d, h->o = o, h->file = -1, h->af.fd = -1, h->remote = 1;
    for (int f = 0; f < d->nfields; f++)
        h->dset[f] = -1;
    *out = h;
    return 0;
}

int stn_h5_resumed(const stn_h5 *h) { return h && h->resumed; }

int stn_h5_parallel(const stn_h5 *h) { return h && h->parallel; }

int stn_h5_flush(stn_h5 *h) {
    if (h->remote)
        return 0;
    if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0) /* (parallel: MPI_File_sync, every rank's writes) */
        return h5_fail(h, "flushing the snapshots of a committed sweep");
    if (h->af.fd >= 0 && fsync(h->af.fd) != 0)
        return stn_error(stn_neg_errno(errno), "--save-to %s: fsync of '%s' failed: %s", h->o->save_to,
                         h->af.tmp, strerror(errno));
    return 0;
}

int stn_h5_wants(const stn_h5 *h, int f, int64_t k) {
    return h && (h->remote ? h->o->save[f].every > 0 : h->dset[f] >= 0) && stn_save_wants(&h->o->save[f], k);
}

int stn_h5_wants_any(const stn_h5 *h, int64_t k) {
    for (int f = 0; h && f < h->d->nfields; f++)
        if (stn_h5_wants(h, f, k))
            return 1;
    return 0;
}

/* Where the value of cell i along axis ax is read (stn_h5_map). */
static int64_t map_at(const stn_h5_map *m, int ax, int64_t i) {
    if (!m || !m->kind[ax] || (i >= m->lo[ax] && i < m->hi[ax]))
        return i;
    if (m->kind[ax] == 1)
        return i < m->lo[ax] ? 2 * m->lo[ax] - 1 - i : 2 * m->hi[ax] - 1 - i;
    int64_t w = m->hi[ax] - m->lo[ax];
    return i < m->lo[ax] ? i + w : i - w;
}

/* The kept cells [a, a + c S) (x y z, stride S) gathered from data (laid out as v, read through map m) into
 * h->stage, x fastest. */
static void gather(stn_h5 *h, const stn_view *v, const char *data, const int64_t a[3], const int64_t c[3],
                   int64_t S, const stn_h5_map *m) {
    size_t es = (size_t)h->d->elem_size;
    char *dst = h->stage;
    int xmap = m && m->kind[0] && (a[0] < m->lo[0] || a[0] + (c[0] - 1) * S >= m->hi[0]);
    for (int64_t k = 0; k < c[2]; k++)
        for (int64_t j = 0; j < c[1]; j++) {
            int64_t z = map_at(m, 2, a[2] + k * S), y = map_at(m, 1, a[1] + j * S);
            const char *row = data + (size_t)((z - v->z0) * v->sz + (y - v->y0) * v->sy) * es;
            if (S == 1 && !xmap) {
                memcpy(dst, row + (size_t)a[0] * es, (size_t)c[0] * es);
                dst += (size_t)c[0] * es;
                continue;
            }
            for (int64_t i = 0; i < c[0]; i++, dst += es)
                memcpy(dst, row + (size_t)map_at(m, 0, a[0] + i * S) * es, es);
        }
}

/* h->stage of at least `bytes`. */
static int stage(stn_h5 *h, size_t bytes) {
    if (bytes <= h->stage_bytes)
        return 0;
    stn_free(h->stage);
    h->stage_bytes = 0;
    if (!(h->stage = stn_alloc(bytes, 64)))
        return stn_error(-ENOMEM, "--save-to %s: out of memory for %zu bytes of a snapshot", h->o->save_to,
                         bytes);
    h->stage_bytes = bytes;
    return 0;
}

/* A piece a rank but 0 sends as it computes (rank 0 gathering): where it goes, then (bytes >= 0) its cells
 * in a message of their own; bytes < 0: the end of the rank's pieces of a sweep. */
typedef struct gather_msg {
    int64_t f, bytes, start[4], count[4];
} gather_msg;

static int write_slab(stn_h5 *h, int f, const hsize_t *start, const hsize_t *count, size_t bytes,
                      stn_stats *st);

/* The kept cells [a, a + c S) of field f into snapshot `idx`, gathered and written in one piece. */
static int put_piece(stn_h5 *h, int f, int64_t idx, const stn_view *v, const char *data, const int64_t a[3],
                     const int64_t c[3], const stn_h5_map *m, stn_stats *st) {
    int64_t S = h->o->save[f].stride;
    int dims = stn_dims(h->d), rank = dims + 1;
    size_t bytes = (size_t)(c[0] * c[1] * c[2]) * (size_t)h->d->elem_size;
    int rc0 = stage(h, bytes);
    if (rc0)
        return rc0;
    gather(h, v, data, a, c, S, m);
    hsize_t start[4], count[4];
    start[0] = (hsize_t)idx, count[0] = 1;
    for (int ax = 0; ax < dims; ax++) {
        start[rank - 1 - ax] = (hsize_t)(a[ax] / S);
        count[rank - 1 - ax] = (hsize_t)c[ax];
    }
    return write_slab(h, f, start, count, bytes, st);
}

/* The piece in h->stage into field f's dataset at start (count), counted in st; a rank but 0 that gathers
 * sends it to rank 0 instead (counted there). */
static int write_slab(stn_h5 *h, int f, const hsize_t *start, const hsize_t *count, size_t bytes,
                      stn_stats *st) {
    int rank = stn_dims(h->d) + 1;
    if (h->remote) {
        gather_msg g = {f, (int64_t)bytes, {0}, {0}};
        for (int i = 0; i < rank; i++)
            g.start[i] = (int64_t)start[i], g.count[i] = (int64_t)count[i];
        int rc =
            h->g.send ? h->g.send(&g, sizeof g) : stn_error(-EINVAL, "internal error: a put without a file");
        return rc ? rc : h->g.send(h->stage, bytes);
    }
    hid_t fs = H5Dget_space(h->dset[f]), ms = H5Screate_simple(rank, count, NULL);
    int rc = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
                     H5Dwrite(h->dset[f], mem_type(h->d), ms, fs, H5P_DEFAULT, h->stage) >= 0
                 ? 0
                 : h5_fail(h, "writing a snapshot");
    H5Sclose(fs);
    H5Sclose(ms);
    if (rc == 0 && st)
        st->bytes_written += bytes;
    return rc;
}

int stn_h5_put(stn_h5 *h, int f, int64_t k, const stn_view *v, const void *data, const stn_box *b,
               const stn_h5_map *m, stn_stats *st) {
    if (!stn_h5_wants(h, f, k))
        return 0;
    const stn_save *s = &h->o->save[f];
    int dims = stn_dims(h->d);
    int64_t a[3] = {0, b->lo[1], b->lo[2]}, c[3] = {1, 1, 1}, S = s->stride;
    for (int ax = 0; ax < dims; ax++) {
        a[ax] = stn_save_first(b->lo[ax], S);
        c[ax] = stn_save_kept(b->lo[ax], b->hi[ax], S);
        if (c[ax] == 0)
            return 0;
    }
    /* in pieces of at most h->piece bytes: one kept plane at a time, runs of its kept rows, of a row */
    int64_t es = h->d->elem_size, P = h->piece, cx = P / es < c[0] ? P / es : c[0];
    cx = cx < 1 ? 1 : cx;
    int64_t cy = P / (cx * es) < c[1] ? P / (cx * es) : c[1];
    cy = cy < 1 ? 1 : cy;
    int rc = 0;
    for (int64_t z = 0; rc == 0 && z < c[2]; z++)
        for (int64_t y = 0; rc == 0 && y < c[1]; y += cy)
            for (int64_t x = 0; rc == 0 && x < c[0]; x += cx) {
                int64_t pa[3] = {a[0] + x * S, a[1] + y * S, a[2] + z * S};
                int64_t pc[3] = {x + cx < c[0] ? cx : c[0] - x, y + cy < c[1] ? cy : c[1] - y, 1};
                if (dims < 2)
                    pa[1] = a[1];
                if (dims < 3)
                    pa[2] = a[2];
                rc = put_piece(h, f, stn_save_before(s, k), v, data, pa, pc, m, st);
            }
    return rc;
}

void stn_h5_set_gather(stn_h5 *h, const stn_h5_gather *g) {
    h->g = *g;
    if (h->remote)
        h->piece = (int64_t)g->piece;
}

int stn_h5_gathers(const stn_h5 *h) { return h && h->g.size > 1; }

/* Rank 0: the message of n bytes probed from src, a piece written (or dropped after a failure) or the end of
 * src's sweep counted in h->ends. */
static int take_from(stn_h5 *h, int src, size_t n, stn_stats *st) {
    if (n != sizeof(gather_msg))
        return stn_error(-EIO, "internal error: a snapshot piece out of order");
    gather_msg g;
    int rc = h->g.recv(src, &g, sizeof g), rank = stn_dims(h->d) + 1;
    if (rc || g.bytes < 0) {
        h->ends += rc == 0;
        return rc;
    }
    if ((rc = stage(h, (size_t)g.bytes)) != 0 || (rc = h->g.recv(src, h->stage, (size_t)g.bytes)) != 0)
        return rc;
    hsize_t start[4], count[4];
    for (int i = 0; i < rank; i++)
        start[i] = (hsize_t)g.start[i], count[i] = (hsize_t)g.count[i];
    if (h->grc == 0 && (g.f < 0 || g.f >= h->d->nfields || h->dset[g.f] < 0))
        h->grc = stn_error(-EINVAL, "internal error: rank %d sent a piece of field %" PRId64, src, g.f);
    if (h->grc == 0)
        h->grc = write_slab(h, (int)g.f, start, count, (size_t)g.bytes, st);
    return 0;
}

int stn_h5_take(stn_h5 *h, stn_stats *st) {
    int src, rc = 0;
    size_t n;
    while (rc == 0 && stn_h5_gathers(h) && !h->remote && h->g.probe(&src, &n))
        rc = take_from(h, src, n, st);
    return rc ? rc : h ? h->grc : 0;
}

int stn_h5_sweep_end(stn_h5 *h, stn_stats *st) {
    if (!stn_h5_gathers(h))
        return 0;
    if (h->remote) {
        gather_msg end = {-1, -1, {0}, {0}};
        return h->g.send(&end, sizeof end);
    }
    int src, rc = 0;
    size_t n;
    while (rc == 0 && h->ends < h->g.size - 1) {
        if (h->g.probe(&src, &n))
            rc = take_from(h, src, n, st);
        else /* (the other ranks are still in their sweeps) */
            nanosleep(&(struct timespec){0, 20000}, NULL);
    }
    int grc = h->grc;
    h->grc = 0, h->ends = 0;
    return rc ? rc : grc;
}

/* Dataset ds written whole from data, by one process: under parallel HDF5 rank 0 alone writes it (an
 * independent write: the others need not take part; the dataset's creation, collective, they did). */
static herr_t write_whole(const stn_h5 *h, hid_t ds, hid_t type, const void *data) {
    return h->par.rank > 0 ? 0 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
}

/* A 1d int64 dataset NAME of `n` values v(i) = first + i * step, made a dimension scale. */
static int scale(stn_h5 *h, const char *name, int64_t n, int64_t first, int64_t step, hid_t *out) {
    hsize_t len = (hsize_t)n;
    int64_t *vals = malloc((size_t)(n > 0 ? n : 1) * sizeof *vals);
    if (!vals)
        return stn_error(-ENOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        vals[i] = first + i * step;
    hid_t space = H5Screate_simple(1, &len, NULL), ds = -1;
    if (space >= 0)
        ds = H5Dcreate2(h->file, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds >= 0 && write_whole(h, ds, H5T_NATIVE_INT64, vals) >= 0 && H5DSset_scale(ds, name) >= 0
                 ? 0
                 : h5_fail(h, "writing a dimension scale");
    H5Sclose(space);
    free(vals);
    *out = ds;
    return rc;
}

/* Attach scales NAME_step, then NAME_z, NAME_y, NAME_x (or NAME_point) to dataset ds. */
static int attach(stn_h5 *h, hid_t ds, const char *name, int rank, const char *const *axes, const int64_t *n,
                  const int64_t *first, const int64_t *step) {
    int rc = 0;
    for (int a = 0; rc == 0 && a < rank; a++) {
        char sname[300];
        hid_t sc = -1;
        snprintf(sname, sizeof sname, "%s_%s", name, axes[a]);
        rc = scale(h, sname, n[a], first[a], step[a], &sc);
        if (rc == 0 && H5DSattach_scale(ds, sc, (unsigned)a) < 0)
            rc = h5_fail(h, "attaching a dimension scale");
        /* (the close writes what libhdf5 kept of the scale's values: a failure there is the write's) */
        if (sc >= 0 && H5Dclose(sc) < 0 && rc == 0)
            rc = h5_fail(h, "writing a dimension scale");
    }
    return rc;
}

/* A scalar attribute NAME of obj: an int64 (str NULL) or a UTF-8 string of variable length (as h5py writes a
 * Python str: read back as str, not bytes).  0 or -1. */
static int attr_scalar(hid_t obj, const char *name, const int64_t *v, const char *str) {
    hid_t t = str ? H5Tcopy(H5T_C_S1) : H5Tcopy(H5T_STD_I64LE), sp = H5Screate(H5S_SCALAR), a = -1;
    int ok = t >= 0 && sp >= 0 &&
             (!str || (H5Tset_size(t, H5T_VARIABLE) >= 0 && H5Tset_cset(t, H5T_CSET_UTF8) >= 0));
    if (ok)
        a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    ok = a >= 0 && (str ? H5Awrite(a, t, &str) : H5Awrite(a, H5T_NATIVE_INT64, v)) >= 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    return ok ? 0 : -1;
}

/* A field's time axis cut to the snapshots of steps [0, done], its scales and attributes. */
static int finish_field(stn_h5 *h, int f, int64_t done) {
    const stn_save *s = &h->o->save[f];
    const char *name = h->d->fields[f].name;
    int dims = stn_dims(h->d), rank = dims + 1;
    int64_t n[3], count = stn_save_before(s, done + 1);
    kept_extent(h->d, h->o, s, n);
    hsize_t ext[4];
    ext[0] = (hsize_t)count;
    const char *axes[4] = {"step"};
    int64_t len[4] = {count}, first[4] = {s->from}, step[4] = {s->every};
    for (int a = 0; a < dims; a++) {
        ext[rank - 1 - a] = (hsize_t)n[a];
        axes[rank - 1 - a] = (const char *[]){"x", "y", "z"}[a];
        len[rank - 1 - a] = n[a], first[rank - 1 - a] = 0, step[rank - 1 - a] = s->stride;
    }
    if (H5Dset_extent(h->dset[f], ext) < 0)
        return h5_fail(h, "cutting a time axis to the snapshots taken");
    int rc = attach(h, h->dset[f], name, rank, axes, len, first, step);
    int64_t spec[5] = {s->every, s->from, s->to, s->stride, count};
    const char *keys[5] = {"every", "from", "to", "stride", "snapshots"};
    for (int k = 0; rc == 0 && k < 5; k++)
        if (attr_scalar(h->dset[f], keys[k], &spec[k], NULL) < 0)
            rc = h5_fail(h, "writing an attribute");
    if (rc == 0 && attr_scalar(h->dset[f], "level", NULL, "current") < 0)
        rc = h5_fail(h, "writing an attribute");
    return rc;
}

int stn_h5_record(stn_h5 *h, const char *name, const void *data, int64_t steps, int64_t n, stn_stats *st) {
    hsize_t dims[2] = {(hsize_t)steps, (hsize_t)n};
    hid_t space = H5Screate_simple(2, dims, NULL), ds = -1;
    if (space >= 0)
        ds = H5Dcreate2(h->file, name, h->d->elem_size == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space,
                        H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds >= 0 && write_whole(h, ds, mem_type(h->d), data) >= 0 ? 0 : h5_fail(h, "writing a record");
    const char *axes[2] = {"step", "point"};
    int64_t len[2] = {steps, n}, first[2] = {0, 0}, step[2] = {1, 1};
    if (rc == 0)
        rc = attach(h, ds, name, 2, axes, len, first, step);
    if (rc == 0 && st && h->par.rank == 0)
        st->bytes_written += (uint64_t)(steps * n) * (uint64_t)h->d->elem_size;
    H5Sclose(space);
    if (ds >= 0 && H5Dclose(ds) < 0 && rc == 0) /* (the close writes what libhdf5 kept: checked) */
        rc = h5_fail(h, "writing a record");
    return rc;
}

/* The run's attributes on the root group. */
static int root_attributes(stn_h5 *h, int64_t done) {
    const stn_program_desc *d = h->d;
    hid_t root = h->file;
    int64_t size[3] = {h->o->size[0], h->o->size[1], h->o->size[2]};
    const char *keys[6] = {"stencil",         "source", "stencilc_version",
                           "runtime_version", "dtype",  "source_text"};
    const char *vals[6] = {d->name,        d->source,    d->compiler_version,
                           STN_RT_VERSION, d->npy_descr, d->source_text};
    int rc = 0;
    for (int k = 0; !rc && k < 6; k++) /* (a descriptor without one: "") */
        rc = attr_scalar(root, keys[k], NULL, vals[k] ? vals[k] : "");
    rc = rc ||
         H5LTset_attribute_long_long(root, "/", "size", (const long long *)size, (size_t)stn_dims(d)) < 0 ||
         attr_scalar(root, "steps", &done, NULL) < 0;
    for (int p = 0; !rc && p < d->nparams; p++) {
        char an[300];
        snprintf(an, sizeof an, "param_%s", d->params[p].name);
        hid_t sp = H5Screate(H5S_SCALAR),
              a = H5Acreate2(root, an, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        rc = a < 0 || H5Awrite(a, H5T_NATIVE_DOUBLE, &h->o->params[p]) < 0;
        if (a >= 0)
            H5Aclose(a);
        H5Sclose(sp);
    }
    return rc ? h5_fail(h, "writing the run's attributes") : 0;
}

int stn_h5_close(stn_h5 *h, int64_t done) {
    int rc = 0;
    for (int f = 0; rc == 0 && f < h->d->nfields; f++)
        if (h->dset[f] >= 0)
            rc = finish_field(h, f, done);
    if (rc == 0)
        rc = root_attributes(h, done);
    int64_t one = 1; /* the last attribute: the file is whole */
    if (rc == 0 && attr_scalar(h->file, "complete", &one, NULL) < 0)
        rc = h5_fail(h, "writing the attribute 'complete'");
    for (int f = 0; f < h->d->nfields; f++) /* (a close writes the chunks libhdf5 kept: checked) */
        if (h->dset[f] >= 0 && H5Dclose(h->dset[f]) < 0 && rc == 0)
            rc = h5_fail(h, "writing the snapshots");
    for (int f = 0; f < h->d->nfields; f++)
        h->dset[f] = -1;
    /* the last writes in a flush of their own (the close's own: the superblock's flags); after a failed close
     * stn_h5_fclose leaves libhdf5 unterminated, and the ranks' collective close is watched (design 021) */
    int watched = h->parallel && stn_h5_watch(h->d->name, h->o->save_to, h->af.tmp);
    if (H5Fflush(h->file, H5F_SCOPE_LOCAL) < 0 && rc == 0)
        rc = h5_fail(h, "writing it");
    if (stn_h5_fclose(h->file) < 0 && rc == 0)
        rc = h5_fail(h, "closing it");
    if (watched)
        stn_h5_unwatch();
    h->file = -1;
    h->closed = rc == 0;
    return rc;
}

int stn_h5_commit(stn_h5 *h, int64_t done) {
    int rc = h->closed ? 0 : stn_h5_close(h, done);
    if (rc == 0 && (rc = stn_afile_commit(&h->af)) != 0)
        rc = stn_error(rc, "--save-to %s: %s", h->o->save_to, stn_errmsg());
    stn_h5_abort(h); /* (what is left: the temporary after a failure) */
    return rc;
}

void stn_h5_abort(stn_h5 *h) {
    if (!h)
        return;
    for (int f = 0; h->dset && f < h->d->nfields; f++)
        if (h->dset[f] >= 0)
            H5Dclose(h->dset[f]);
    if (h->file >= 0)
        stn_h5_fclose(h->file);
    stn_afile_abort(&h->af);
    stn_free(h->stage);
    free(h->dset);
    free(h);
}

#else /* no libhdf5: base/save.c refuses --save-to first */

struct stn_h5 {
    int unused;
};

static int no_hdf5(void) { return stn_error(-ENOTSUP, "this program was built without HDF5 (--save-to)"); }

int stn_h5_open(const stn_program_desc *d, const stn_opts *o, uint64_t piece, const stn_h5_ranks *ranks,
                stn_h5 **h) {
    (void)d, (void)o, (void)piece, (void)ranks;
    *h = NULL;
    return no_hdf5();
}
int stn_h5_open_remote(const stn_program_desc *d, const stn_opts *o, stn_h5 **h) {
    return (void)d, (void)o, *h = NULL, no_hdf5();
}
void stn_h5_set_gather(stn_h5 *h, const stn_h5_gather *g) { (void)h, (void)g; }
int stn_h5_gathers(const stn_h5 *h) { return (void)h, 0; }
int stn_h5_take(stn_h5 *h, stn_stats *st) { return (void)h, (void)st, 0; }
int stn_h5_sweep_end(stn_h5 *h, stn_stats *st) { return (void)h, (void)st, 0; }
int stn_h5_wants(const stn_h5 *h, int f, int64_t k) { return (void)h, (void)f, (void)k, 0; }
int stn_h5_wants_any(const stn_h5 *h, int64_t k) { return (void)h, (void)k, 0; }
int stn_h5_put(stn_h5 *h, int f, int64_t k, const stn_view *v, const void *data, const stn_box *b,
               const stn_h5_map *m, stn_stats *st) {
    (void)h, (void)f, (void)k, (void)v, (void)data, (void)b, (void)m, (void)st;
    return no_hdf5();
}
int stn_h5_record(stn_h5 *h, const char *name, const void *data, int64_t steps, int64_t n, stn_stats *st) {
    (void)h, (void)name, (void)data, (void)steps, (void)n, (void)st;
    return no_hdf5();
}
int stn_h5_close(stn_h5 *h, int64_t done) { return (void)h, (void)done, no_hdf5(); }
int stn_h5_commit(stn_h5 *h, int64_t done) { return (void)h, (void)done, no_hdf5(); }
int stn_h5_parallel(const stn_h5 *h) { return (void)h, 0; }
int stn_h5_resumed(const stn_h5 *h) { return (void)h, 0; }
int stn_h5_flush(stn_h5 *h) { return (void)h, no_hdf5(); }
void stn_h5_abort(stn_h5 *h) { (void)h; }
void stn_h5_start(void) {}
int stn_h5_fclose(int64_t file) { return (void)file, -1; }
#endif
