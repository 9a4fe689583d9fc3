/* gridio.c -- grid files (O_DIRECT, padded rows) and an asynchronous IO queue over libaio. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ------------------------------------------------------------------ statx, by hand */

/* glibc's struct statx gains the direct-IO fields only with new kernel headers, so call the
 * system call with the kernel's (stable, append-only) layout ourselves. */
struct stn_kstatx {
    uint32_t mask, blksize;
    uint64_t attributes;
    uint32_t nlink, uid, gid;
    uint16_t mode, pad1;
    uint64_t ino, size, blocks, attributes_mask;
    struct {
        int64_t sec;
        uint32_t nsec;
        int32_t pad;
    } atime, btime, ctime, mtime;
    uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
    uint64_t mnt_id;
    uint32_t dio_mem_align, dio_offset_align;
    uint64_t spare[12];
};

#define STN_STATX_DIOALIGN 0x00002000U

/* 1 and the two figures when the kernel reports them for fd; 0 when it does not (old kernel or
 * file system); -1 when it reports that the file cannot do direct IO at all. */
static int statx_dioalign(int fd, uint32_t *offset_align, uint32_t *mem_align) {
#ifdef SYS_statx
    struct stn_kstatx sx;
    memset(&sx, 0, sizeof sx);
    if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STN_STATX_DIOALIGN, &sx) != 0)
        return 0;
    if (!(sx.mask & STN_STATX_DIOALIGN))
        return 0;
    if (sx.dio_offset_align == 0)
        return -1;
    *offset_align = sx.dio_offset_align;
    *mem_align = sx.dio_mem_align;
    return 1;
#else
    (void)fd, (void)offset_align, (void)mem_align;
    return 0;
#endif
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* ------------------------------------------------------------------ alignment */

/* A scratch file in dir to ask statx about, opened with `flags` too: O_TMPFILE (never visible),
 * else a named file that is unlinked at once.  -1 (errno set) if dir is not writable, or refuses
 * the flags. */
static int probe_file(const char *dir, int flags) {
    int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC | flags, 0600);
    if (fd >= 0)
        return fd;
    char *name = NULL;
    if (asprintf(&name, "%s/.stn-dioprobe-XXXXXX", dir) < 0)
        return -1;
    fd = mkostemp(name, O_CLOEXEC | flags);
    int e = errno;
    if (fd >= 0)
        unlink(name);
    free(name);
    errno = e;
    return fd;
}

/* The smallest power of two a (8 .. 4096) such that an O_DIRECT write of a bytes at offset a from
 * memory at an odd multiple of a succeeds in a file of dir: 0; 1 when the file system refuses
 * O_DIRECT itself (its files are then written through the page cache, which needs no alignment:
 * a = 8); -1 when neither can be told.  (8: an element of f64; rows are padded to at least that.) */
static int dio_probe(const char *dir, size_t *align) {
    int fd = probe_file(dir, O_DIRECT);
    if (fd < 0 && errno == EINVAL) { /* O_DIRECT refused, where a plain file can be made */
        int plain = probe_file(dir, 0);
        if (plain >= 0) {
            close(plain);
            *align = 8;
            return 1;
        }
    }
    if (fd < 0)
        return -1;
    char *buf = NULL;
    int rc = -1;
    if (posix_memalign((void **)&buf, 8192, 16384) == 0) {
        memset(buf, 0, 16384);
        for (size_t a = 8; a <= 4096 && rc != 0; a *= 2)
            if (pwrite(fd, buf + a, a, (off_t)a) == (ssize_t)a)
                *align = a, rc = 0;
        free(buf);
    }
    close(fd);
    return rc;
}

static int read_sysfs_u64(const char *path, uint64_t *v) {
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    unsigned long long x;
    int ok = fscanf(fp, "%llu", &x) == 1;
    fclose(fp);
    if (!ok)
        return -1;
    *v = x;
    return 0;
}

/* logical_block_size of block device maj:min; for a partition, of its disk. */
static int sysfs_logical_block(unsigned maj, unsigned min, uint64_t *lbs, char *where, size_t n) {
    char link[64], path[PATH_MAX + 64];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", maj, min);
    char *real = realpath(link, NULL);
    if (!real)
        return -1;
    int rc = -1;
    snprintf(path, sizeof path, "%s/queue/logical_block_size", real);
    if (read_sysfs_u64(path, lbs) == 0) {
        rc = 0;
    } else {
        /* a partition: .../block/sda/sda1 has no queue/; its disk is the parent directory */
        snprintf(path, sizeof path, "%s/../queue/logical_block_size", real);
        if (read_sysfs_u64(path, lbs) == 0)
            rc = 0;
    }
    if (rc == 0)
        snprintf(where, n, "%s", path);
    free(real);
    return rc;
}

int stn_dio_alignment(const char *dir, size_t *align, char *source, size_t n) {
    char dummy[8];
    if (!source || n == 0)
        source = dummy, n = sizeof dummy;
    struct stat sb;
    if (!dir || !*dir)
        return stn_error(-EINVAL, "cannot find the O_DIRECT alignment: no directory given");
    if (stat(dir, &sb) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot find the O_DIRECT alignment for files in '%s': %s", dir,
                         strerror(e));
    }
    if (!S_ISDIR(sb.st_mode))
        return stn_error(-ENOTDIR, "cannot find the O_DIRECT alignment for files in '%s': not a directory",
                         dir);

    /* 1. statx of a file there */
    int fd = probe_file(dir, 0);
    if (fd >= 0) {
        uint32_t off_al = 0, mem_al = 0;
        int r = statx_dioalign(fd, &off_al, &mem_al);
        close(fd);
        uint64_t a = off_al > mem_al ? off_al : mem_al;
        if (r > 0 && is_pow2(a)) {
            *align = (size_t)a;
            snprintf(source, n, "statx STATX_DIOALIGN of a file in '%s' (offset %u, memory %u)", dir, off_al,
                     mem_al);
            return 0;
        }
    }

    /* 2. the block device's logical block size */
    unsigned maj = major(sb.st_dev), min = minor(sb.st_dev);
    uint64_t lbs = 0;
    char where[PATH_MAX + 64];
    if (maj != 0 && sysfs_logical_block(maj, min, &lbs, where, sizeof where) == 0 && is_pow2(lbs) &&
        lbs <= ((uint64_t)1 << 20)) {
        *align = (size_t)lbs;
        snprintf(source, n, "logical block size of device %u:%u (%s)", maj, min, where);
        return 0;
    }

    /* 3. ask the file system: the smallest alignment at which an O_DIRECT write of that many
     * bytes, at that offset, from memory aligned to it and not to twice it, succeeds (tmpfs,
     * which has no device, takes any: rows need no padding there) */
    size_t tried = 0;
    int probed = dio_probe(dir, &tried);
    if (probed >= 0) {
        *align = tried;
        snprintf(source, n, "%s in '%s' (no STATX_DIOALIGN, no block device, dev %u:%u)",
                 probed == 0 ? "O_DIRECT writes of a probe file" : "no O_DIRECT (buffered IO, no padding)",
                 dir, maj, min);
        return 0;
    }

    /* 4. a safe default */
    *align = 4096;
    snprintf(source, n,
             "default 4096 (no STATX_DIOALIGN, no block device in /sys/dev/block for '%s', dev %u:%u)", dir,
             maj, min);
    return 0;
}

int stn_statvfs_free(const char *dir, uint64_t *free_bytes) {
    struct statvfs vs;
    if (statvfs(dir, &vs) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot find the free space in '%s': %s", dir, strerror(e));
    }
    *free_bytes = (uint64_t)vs.f_bavail * (uint64_t)vs.f_frsize;
    return 0;
}

int64_t stn_grid_row_bytes(int64_t nx, int64_t esz, size_t align) {
    if (nx <= 0 || esz <= 0 || !is_pow2(align) || align > ((size_t)1 << 30) || nx > INT64_MAX / esz)
        return -1;
    int64_t raw = nx * esz, a = (int64_t)align;
    if (raw > INT64_MAX - (a - 1))
        return -1;
    return (raw + a - 1) / a * a;
}

/* ------------------------------------------------------------------ grid files */

/* The directory part of path, for messages about free space. */
static void dir_of(const char *path, char *dir, size_t n) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

static int fail_open(stn_gridfile *f, int unlink_it, int status) {
    if (f->fd >= 0)
        close(f->fd);
    if (unlink_it && f->path)
        unlink(f->path);
    free(f->path);
    f->path = NULL;
    f->fd = -1;
    return status;
}

/* Reserve file_bytes for the new file (see the header). */
static int size_new_file(stn_gridfile *f) {
    char hb[32], fb[32], dir[PATH_MAX];
    uint64_t size = (uint64_t)f->file_bytes;
    int e = 0;
    if (size == 0)
        return 0;
    if (fallocate(f->fd, 0, 0, (off_t)size) == 0)
        return 0;
    e = errno;
    if (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL) {
        if (ftruncate(f->fd, (off_t)size) == 0)
            return 0;
        e = errno;
    }
    dir_of(f->path, dir, sizeof dir);
    stn_fmt_bytes(hb, sizeof hb, size);
    uint64_t avail = 0;
    if ((e == ENOSPC || e == EDQUOT) && stn_statvfs_free(dir, &avail) == 0)
        return stn_error(stn_neg_errno(e),
                         "cannot create '%s': it needs %s (%llu bytes: %lld x %lld rows of %lld bytes) but "
                         "'%s' has only %s (%llu bytes) available: %s",
                         f->path, hb, (unsigned long long)size, (long long)f->nz, (long long)f->ny,
                         (long long)f->row_bytes, dir, stn_fmt_bytes(fb, sizeof fb, avail),
                         (unsigned long long)avail, strerror(e));
    return stn_error(stn_neg_errno(e), "cannot reserve %s (%llu bytes) for '%s': %s", hb,
                     (unsigned long long)size, f->path, strerror(e));
}

int stn_gridfile_open(stn_gridfile *f, const char *path, int64_t nx, int64_t ny, int64_t nz, int64_t esz,
                      size_t align, int flags) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    int create = (flags & STN_GRIDFILE_CREATE) != 0;
    if (!path || !*path)
        return stn_error(-EINVAL, "cannot open a grid file with an empty name");
    if (!is_pow2(align))
        return stn_error(-EINVAL, "cannot open '%s': alignment %zu is not a power of two", path, align);
    int64_t rb = stn_grid_row_bytes(nx, esz, align);
    if (rb < 0 || ny <= 0 || nz <= 0 || ny > INT64_MAX / rb || nz > INT64_MAX / (ny * rb))
        return stn_error(-EINVAL,
                         "cannot open '%s': bad or too large grid %lld x %lld x %lld of %lld-byte elements",
                         path, (long long)nx, (long long)ny, (long long)nz, (long long)esz);
    f->nx = nx, f->ny = ny, f->nz = nz, f->esz = esz;
    f->row_bytes = rb;
    f->file_bytes = nz * ny * rb;
    f->align = align;
    f->path = strdup(path);
    if (!f->path)
        return stn_error(-ENOMEM, "out of memory while opening '%s'", path);

    /* O_NOFOLLOW: a link left under a scratch file's name is never followed to overwrite its target */
    f->fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_TRUNC : 0),
                 0666); /* (the umask decides, as for every file a run creates) */
    if (f->fd < 0) {
        int e = errno;
        if (e == ELOOP)
            return fail_open(
                f, 0,
                stn_error(-ELOOP,
                          "grid file '%s' is a symbolic link: stencilc never follows one to write "
                          "through it (remove it, or use another --dir)",
                          path));
        return fail_open(f, 0,
                         stn_error(stn_neg_errno(e), "cannot %s grid file '%s': %s",
                                   create ? "create" : "open", path, strerror(e)));
    }
    struct stat sb;
    if (fstat(f->fd, &sb) != 0) {
        int e = errno;
        return fail_open(f, create, stn_error(stn_neg_errno(e), "cannot stat '%s': %s", path, strerror(e)));
    }
    if (!S_ISREG(sb.st_mode))
        return fail_open(f, 0, stn_error(-EINVAL, "grid file '%s' is not a regular file", path));

    /* O_DIRECT through F_SETFL: the same check open() makes, without opening (creating) twice. */
    if (!(flags & STN_GRIDFILE_BUFFERED)) {
        uint32_t off_al = 0, mem_al = 0;
        int r = statx_dioalign(f->fd, &off_al, &mem_al);
        if (r > 0 && (align % off_al != 0 || align % mem_al != 0))
            return fail_open(
                f, create,
                stn_error(-EINVAL,
                          "cannot use '%s' with rows aligned to %zu bytes: O_DIRECT needs offsets "
                          "aligned to %u and memory to %u bytes",
                          path, align, off_al, mem_al));
        if (r >= 0) { /* r < 0: the file system says this file cannot do direct IO */
            int fl = fcntl(f->fd, F_GETFL);
            if (fl != -1 && fcntl(f->fd, F_SETFL, fl | O_DIRECT) == 0) {
                fl = fcntl(f->fd, F_GETFL);
                f->direct = fl != -1 && (fl & O_DIRECT) != 0;
            } else if (fl == -1 || errno != EINVAL) { /* EINVAL: refused, stay buffered */
                int e = errno;
                return fail_open(
                    f, create,
                    stn_error(stn_neg_errno(e), "cannot enable O_DIRECT on '%s': %s", path, strerror(e)));
            }
        }
    }

    if (create) {
        int rc = size_new_file(f);
        if (rc)
            return fail_open(f, 1, rc);
    } else if ((int64_t)sb.st_size < f->file_bytes) {
        char hb[32], fb[32];
        return fail_open(
            f, 0,
            stn_error(-EINVAL,
                      "grid file '%s' is too short: %lld bytes (%s), expected %lld bytes (%s) for "
                      "%lld x %lld rows of %lld bytes",
                      path, (long long)sb.st_size, stn_fmt_bytes(fb, sizeof fb, (uint64_t)sb.st_size),
                      (long long)f->file_bytes, stn_fmt_bytes(hb, sizeof hb, (uint64_t)f->file_bytes),
                      (long long)nz, (long long)ny, (long long)rb));
    }
    return 0;
}

int stn_gridfile_sync(stn_gridfile *f) {
    if (fdatasync(f->fd) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot sync grid file '%s': %s", f->path, strerror(e));
    }
    return 0;
}

void stn_gridfile_close(stn_gridfile *f) {
    if (!f->path)
        return;
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->path);
    f->path = NULL;
}

/* ------------------------------------------------------------------ the queue */

typedef struct aio_req {
    struct iocb cb;
    stn_gridfile *f;
    stn_aio_group *g;
    stn_stats *st;
    char *buf;    /* start of the whole transfer */
    uint64_t off; /* its file offset */
    size_t len;   /* its length */
    size_t done;  /* bytes moved so far (short transfers resubmit the rest) */
    int write;
} aio_req;

/* What is left of one stn_aio_read/write call not yet cut into requests: its spans (one per
 * plane, or one for all), each cut into pieces of at most max_request bytes as slots free up. */
typedef struct aio_job {
    stn_gridfile *f;
    stn_aio_group *g;
    stn_stats *st;
    char *buf;        /* span 0 in memory */
    size_t plane;     /* bytes from one span to the next in memory */
    uint64_t off;     /* span 0 in the file */
    uint64_t stride;  /* bytes from one span to the next in the file */
    uint64_t span;    /* bytes per span */
    uint64_t nspans;  /* spans */
    uint64_t s, done; /* the next piece: span s, from byte `done` of it */
    int write;
} aio_job;

/* Calls held at once; one more waits (reaping) until the oldest is cut into requests.  The
 * engine queues a few per block (one per field, level and box). */
#define STN_AIO_JOBS 256

struct stn_aio {
    io_context_t ctx;
    int depth;
    size_t max_request;
    aio_job *jobs; /* a ring of STN_AIO_JOBS: njobs from jhead */
    int jhead, njobs;
    aio_req *reqs;
    aio_req **free_list; /* nfree of them */
    int nfree;
    struct iocb **queued; /* prepared, not yet submitted: nqueued of them */
    int nqueued;
    int inflight; /* submitted, not yet reaped */
    struct io_event *events;
    int error; /* first failure since the last wait_all */
    char msg[1024];
};

void stn_aio_group_reset(stn_aio_group *g) { memset(g, 0, sizeof *g); }

int stn_aio_in_flight(const stn_aio *q) { return q->inflight; }
int stn_aio_queued(const stn_aio *q) { return q->nqueued + q->njobs; }

static void *zalloc(size_t n) {
    void *p = stn_alloc(n, 64);
    if (p)
        memset(p, 0, n);
    return p;
}

static void read_proc_long(const char *path, long long *v) {
    FILE *fp = fopen(path, "r");
    *v = -1;
    if (fp) {
        if (fscanf(fp, "%lld", v) != 1)
            *v = -1;
        fclose(fp);
    }
}

uint64_t stn_aio_footprint(int depth) {
    /* exactly what stn_aio_create allocates through stn_alloc (the engine's budget counts it) */
    size_t d = depth > 0 ? (size_t)depth : 0;
    return sizeof(stn_aio) + STN_AIO_JOBS * sizeof(aio_job) +
           d * (sizeof(aio_req) + sizeof(aio_req *) + sizeof(struct iocb *) + sizeof(struct io_event));
}

int stn_aio_create(stn_aio **qp, int depth, size_t max_request) {
    *qp = NULL;
    if (depth <= 0 || depth > 65536)
        return stn_error(-EINVAL, "bad asynchronous IO queue depth %d (1 to 65536)", depth);
    if (max_request == 0)
        max_request = STN_AIO_DEFAULT_MAX_REQUEST;
    if (max_request > ((size_t)1 << 30))
        max_request = (size_t)1 << 30;
    max_request &= ~(size_t)4095;
    if (max_request == 0)
        max_request = 4096;
    stn_aio *q = zalloc(sizeof *q);
    if (!q)
        return stn_error(-ENOMEM, "out of memory for an asynchronous IO queue of depth %d", depth);
    q->depth = depth;
    q->max_request = max_request;
    q->jobs = zalloc(STN_AIO_JOBS * sizeof *q->jobs);
    q->reqs = zalloc((size_t)depth * sizeof *q->reqs);
    q->free_list = zalloc((size_t)depth * sizeof *q->free_list);
    q->queued = zalloc((size_t)depth * sizeof *q->queued);
    q->events = zalloc((size_t)depth * sizeof *q->events);
    if (!q->jobs || !q->reqs || !q->free_list || !q->queued || !q->events) {
        stn_aio_destroy(q);
        return stn_error(-ENOMEM, "out of memory for an asynchronous IO queue of depth %d", depth);
    }
    for (int i = 0; i < depth; i++)
        q->free_list[i] = &q->reqs[depth - 1 - i];
    q->nfree = depth;
    int rc = io_setup(depth, &q->ctx); /* libaio returns -errno */
    if (rc < 0) {
        q->ctx = 0;
        stn_aio_destroy(q);
        if (rc == -EAGAIN) {
            long long mx, cur;
            read_proc_long("/proc/sys/fs/aio-max-nr", &mx);
            read_proc_long("/proc/sys/fs/aio-nr", &cur);
            return stn_error(rc,
                             "cannot create an asynchronous IO queue of depth %d: the system-wide limit is "
                             "reached (fs.aio-nr %lld of fs.aio-max-nr %lld in use); raise it with "
                             "'sysctl fs.aio-max-nr=%lld' or use a smaller queue",
                             depth, cur, mx, mx > 0 ? 2 * mx : 1048576LL);
        }
        if (rc == -ENOSYS)
            return stn_error(rc,
                             "cannot create an asynchronous IO queue: this kernel has no AIO support "
                             "(io_setup: %s)",
                             strerror(-rc));
        return stn_error(rc, "cannot create an asynchronous IO queue of depth %d: io_setup: %s", depth,
                         strerror(-rc));
    }
    *qp = q;
    return 0;
}

void stn_aio_destroy(stn_aio *q) {
    if (!q)
        return;
    if (q->ctx) {
        char saved[2048];
        snprintf(saved, sizeof saved, "%s", stn_errmsg()); /* destroy keeps the caller's message */
        (void)stn_aio_wait_all(q, NULL);
        stn_error(0, "%s", saved);
        io_destroy(q->ctx);
    }
    stn_free(q->jobs);
    stn_free(q->reqs);
    stn_free(q->free_list);
    stn_free(q->queued);
    stn_free(q->events);
    stn_free(q);
}

/* Record a failure of request r: in its group and in the queue (the first one each). */
static void req_fail(stn_aio *q, aio_req *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void req_fail(stn_aio *q, aio_req *r, int status, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->g && !r->g->error) {
        r->g->error = status;
        snprintf(r->g->msg, sizeof r->g->msg, "%s", msg);
    }
    if (!q->error) {
        q->error = status;
        snprintf(q->msg, sizeof q->msg, "%s", msg);
    }
    stn_error(status, "%s", msg);
}

/* The request is over (done or failed): its group loses a pending request, its slot is free. */
static void req_release(stn_aio *q, aio_req *r) {
    if (r->g)
        r->g->pending--;
    r->g = NULL;
    r->f = NULL;
    r->st = NULL;
    q->free_list[q->nfree++] = r;
}

/* "plane z, row y" of a file offset, for messages. */
static void where_of(const aio_req *r, uint64_t off, char *buf, size_t n) {
    uint64_t row = off / (uint64_t)r->f->row_bytes;
    snprintf(buf, n, "plane %llu, row %llu", (unsigned long long)(row / (uint64_t)r->f->ny),
             (unsigned long long)(row % (uint64_t)r->f->ny));
}

static void prep(aio_req *r) {
    char *p = r->buf + r->done;
    size_t left = r->len - r->done;
    long long off = (long long)(r->off + r->done);
    if (r->write)
        io_prep_pwrite(&r->cb, r->f->fd, p, left, off);
    else
        io_prep_pread(&r->cb, r->f->fd, p, left, off);
    r->cb.data = r;
}

/* One completion: count it, finish, resubmit the rest of a short transfer, or fail. */
static void complete(stn_aio *q, struct io_event *ev) {
    aio_req *r = (aio_req *)ev->data;
    long res = (long)ev->res;
    size_t left = r->len - r->done;
    uint64_t at = r->off + r->done;
    const char *what = r->write ? "write" : "read";
    char where[64];
    if (res < 0) {
        int e = (int)-res;
        where_of(r, at, where, sizeof where);
        if (e == ENOSPC || e == EDQUOT) {
            struct statvfs vs;
            unsigned long long avail =
                fstatvfs(r->f->fd, &vs) == 0 ? (unsigned long long)vs.f_bavail * vs.f_frsize : 0ULL;
            req_fail(q, r, -e,
                     "cannot write %zu bytes at offset %llu (%s) of '%s': %s (%llu bytes available)", left,
                     (unsigned long long)at, where, r->f->path, strerror(e), avail);
        } else {
            req_fail(q, r, -e, "cannot %s %zu bytes at offset %llu (%s) of '%s': %s", what, left,
                     (unsigned long long)at, where, r->f->path, strerror(e));
        }
        req_release(q, r);
        return;
    }
    size_t got = (size_t)res;
    if (got > left)
        got = left; /* cannot happen; never count more than was asked for */
    r->done += got;
    if (r->g)
        r->g->bytes += got;
    if (r->st) {
        if (r->write)
            r->st->bytes_written += got;
        else
            r->st->bytes_read += got;
    }
    if (r->done == r->len) {
        req_release(q, r);
        return;
    }
    /* short: go on if that is possible, else say exactly what happened */
    if (got > 0 && (!r->f->direct || (r->done % r->f->align) == 0)) {
        prep(r);
        q->queued[q->nqueued++] = &r->cb;
        return;
    }
    struct stat sb;
    long long fsize = fstat(r->f->fd, &sb) == 0 ? (long long)sb.st_size : -1LL;
    where_of(r, r->off, where, sizeof where);
    req_fail(q, r, -EIO,
             "short %s of '%s': %zu bytes expected at offset %llu (%s), %zu moved (the file is %lld bytes, "
             "expected %lld)",
             what, r->f->path, r->len, (unsigned long long)r->off, where, r->done, fsize,
             (long long)r->f->file_bytes);
    req_release(q, r);
}

/* Reap at least min_nr completions (blocking), and process them. */
static int reap(stn_aio *q, int min_nr, stn_stats *st) {
    if (q->inflight == 0)
        return 0;
    if (min_nr > q->inflight)
        min_nr = q->inflight;
    double t0 = stn_now();
    int n;
    do
        n = io_getevents(q->ctx, min_nr, q->depth, q->events, NULL);
    while (n == -EINTR);
    stn_stats_add_time(st, STN_PHASE_WAIT, t0);
    if (n < 0)
        return stn_error(n, "waiting for asynchronous IO failed: io_getevents: %s", strerror(-n));
    q->inflight -= n;
    for (int i = 0; i < n; i++)
        complete(q, &q->events[i]);
    return 0;
}

int stn_aio_submit(stn_aio *q, stn_stats *st) {
    int first = 0;
    char first_msg[1024] = "";
    while (q->nqueued > 0) {
        double t0 = stn_now();
        int n = io_submit(q->ctx, q->nqueued, q->queued);
        stn_stats_add_time(st, STN_PHASE_WAIT, t0);
        if (n > 0) {
            q->inflight += n;
            q->nqueued -= n;
            memmove(q->queued, q->queued + n, (size_t)q->nqueued * sizeof *q->queued);
            continue;
        }
        if (n == -EINTR)
            continue;
        if ((n == -EAGAIN || n == 0) && q->inflight > 0) {
            int rc = reap(q, 1, st); /* the kernel is short of something: make room */
            if (rc)
                return rc;
            continue;
        }
        /* the first queued request cannot be submitted: fail it and go on with the others */
        aio_req *r = (aio_req *)q->queued[0]->data;
        int e = n < 0 ? -n : EAGAIN;
        char where[64];
        where_of(r, r->off + r->done, where, sizeof where);
        req_fail(q, r, -e, "cannot submit the %s of %zu bytes at offset %llu (%s) of '%s': io_submit: %s",
                 r->write ? "write" : "read", r->len - r->done, (unsigned long long)(r->off + r->done), where,
                 r->f->path, strerror(e));
        if (!first) {
            first = -e;
            snprintf(first_msg, sizeof first_msg, "%s", stn_errmsg());
        }
        req_release(q, r);
        q->nqueued--;
        memmove(q->queued, q->queued + 1, (size_t)q->nqueued * sizeof *q->queued);
    }
    if (first)
        stn_error(first, "%s", first_msg);
    return first;
}

/* Cut held calls into requests while slots are free, oldest first, and queue them for
 * io_submit.  Never blocks.  A call's group counts it as one pending request until it is all cut
 * up, then each request on its own. */
static void pump(stn_aio *q) {
    while (q->njobs > 0 && q->nfree > 0) {
        aio_job *j = &q->jobs[q->jhead];
        size_t chunk = q->max_request & ~(j->f->align - 1);
        if (chunk == 0)
            chunk = j->f->align;
        uint64_t left = j->span - j->done;
        size_t len = left < chunk ? (size_t)left : chunk;
        aio_req *r = q->free_list[--q->nfree];
        r->f = j->f;
        r->g = j->g;
        r->st = j->st;
        r->buf = j->buf + j->s * j->plane + j->done;
        r->off = j->off + j->s * j->stride + j->done;
        r->len = len;
        r->done = 0;
        r->write = j->write;
        prep(r);
        if (r->g)
            r->g->pending++;
        q->queued[q->nqueued++] = &r->cb;
        j->done += len;
        if (j->done == j->span) {
            j->done = 0;
            if (++j->s == j->nspans) {
                if (j->g)
                    j->g->pending--;
                q->jhead = (q->jhead + 1) % STN_AIO_JOBS;
                q->njobs--;
            }
        }
    }
}

/* Cut what slots allow and hand it to the kernel: the queue's one step forward. */
static int advance(stn_aio *q, stn_stats *st) {
    pump(q);
    return q->nqueued > 0 ? stn_aio_submit(q, st) : 0;
}

static int transfer(stn_aio *q, int write, stn_gridfile *f, int64_t y0, int64_t y1, int64_t z0, int64_t z1,
                    char *buf, size_t plane, stn_aio_group *g, stn_stats *st) {
    const char *what = write ? "write" : "read";
    if (!f || !f->path)
        return stn_error(-EINVAL, "asynchronous %s from a grid file that is not open", what);
    if (y0 < 0 || y1 > f->ny || y0 > y1 || z0 < 0 || z1 > f->nz || z0 > z1)
        return stn_error(
            -EINVAL,
            "cannot %s rows [%lld, %lld) of planes [%lld, %lld) of '%s': the grid has %lld rows and "
            "%lld planes",
            what, (long long)y0, (long long)y1, (long long)z0, (long long)z1, f->path, (long long)f->ny,
            (long long)f->nz);
    if (y0 == y1 || z0 == z1)
        return 0;
    uint64_t rb = (uint64_t)f->row_bytes, rows = (uint64_t)(y1 - y0), nz = (uint64_t)(z1 - z0);
    if ((uintptr_t)buf % f->align != 0 || (nz > 1 && (plane % f->align != 0 || plane < rows * rb)))
        return stn_error(
            -EINVAL,
            "cannot %s rows [%lld, %lld) of planes [%lld, %lld) of '%s': the buffer %p with planes "
            "%zu bytes apart is not aligned to %zu bytes or too small for %llu rows of %llu bytes",
            what, (long long)y0, (long long)y1, (long long)z0, (long long)z1, f->path, (void *)buf, plane,
            f->align, (unsigned long long)rows, (unsigned long long)rb);
    while (q->njobs == STN_AIO_JOBS) { /* every call slot held: make room (blocking) */
        int rc = advance(q, st);
        if (rc && q->nqueued > 0)
            return rc;
        if (q->njobs < STN_AIO_JOBS)
            break;
        if (q->inflight == 0)
            return stn_error(-EIO, "asynchronous IO queue: %d calls held and nothing in flight", q->njobs);
        rc = reap(q, 1, st);
        if (rc)
            return rc;
    }
    /* spans: one per plane, or one for all when both sides are contiguous */
    aio_job *j = &q->jobs[(q->jhead + q->njobs++) % STN_AIO_JOBS];
    *j = (aio_job){f,
                   g,
                   st,
                   buf,
                   plane,
                   ((uint64_t)z0 * (uint64_t)f->ny + (uint64_t)y0) * rb,
                   (uint64_t)f->ny * rb,
                   rows * rb,
                   nz,
                   0,
                   0,
                   write};
    if (nz == 1 || (y0 == 0 && y1 == f->ny && plane == rows * rb)) {
        j->span *= nz;
        j->nspans = 1;
    }
    if (g)
        g->pending++;
    return advance(q, st);
}

int stn_aio_poll(stn_aio *q, stn_stats *st) {
    if (q->inflight > 0) {
        struct timespec zero = {0, 0};
        int n;
        do
            n = io_getevents(q->ctx, 0, q->depth, q->events, &zero);
        while (n == -EINTR);
        if (n < 0)
            return stn_error(n, "polling asynchronous IO failed: io_getevents: %s", strerror(-n));
        q->inflight -= n;
        for (int i = 0; i < n; i++)
            complete(q, &q->events[i]);
    }
    return advance(q, st);
}

int stn_aio_read(stn_aio *q, stn_gridfile *f, int64_t y0, int64_t y1, int64_t z0, int64_t z1, void *buf,
                 size_t buf_plane_bytes, stn_aio_group *g, stn_stats *st) {
    return transfer(q, 0, f, y0, y1, z0, z1, (char *)buf, buf_plane_bytes, g, st);
}

int stn_aio_write(stn_aio *q, stn_gridfile *f, int64_t y0, int64_t y1, int64_t z0, int64_t z1,
                  const void *buf, size_t buf_plane_bytes, stn_aio_group *g, stn_stats *st) {
    /* the kernel only reads a write's buffer; iocbs take a plain void * */
    return transfer(q, 1, f, y0, y1, z0, z1, (char *)(uintptr_t)buf, buf_plane_bytes, g, st);
}

int stn_aio_wait(stn_aio *q, stn_aio_group *g, stn_stats *st) {
    while (g->pending > 0) {
        pump(q);
        if (q->nqueued > 0) {
            int rc = stn_aio_submit(q, st); /* failures are recorded in their groups */
            if (rc && q->nqueued > 0)
                return rc;
            continue;
        }
        if (q->inflight == 0)
            return stn_error(
                -EIO, "asynchronous IO queue: %d requests of a group are pending but nothing is in flight",
                g->pending);
        int rc = reap(q, 1, st);
        if (rc)
            return rc;
    }
    if (q->nqueued > 0) /* other groups' resubmitted remainders: do not let them sit idle */
        (void)stn_aio_submit(q, st);
    if (g->error)
        return stn_error(g->error, "%s", g->msg);
    return 0;
}

int stn_aio_wait_all(stn_aio *q, stn_stats *st) {
    while (q->inflight > 0 || q->nqueued > 0 || q->njobs > 0) {
        pump(q);
        if (q->nqueued > 0) {
            int rc = stn_aio_submit(q, st);
            if (rc && q->nqueued > 0)
                return rc;
        }
        if (q->inflight > 0) {
            int rc = reap(q, q->njobs > 0 ? 1 : q->inflight, st);
            if (rc)
                return rc; /* io_getevents itself failed: nothing more can be waited for */
        }
    }
    int e = q->error;
    if (e)
        stn_error(e, "%s", q->msg);
    q->error = 0;
    q->msg[0] = '\0';
    return e;
}
