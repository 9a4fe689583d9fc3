/* gridio.c -- grid files (O_DIRECT, padded rows): the device's direct-IO alignment, the files' layout,
 * opening, syncing and closing them.  The asynchronous IO queue over libaio is aio.c's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

int stn_dio_align_of(int fd, size_t *align) {
    uint32_t off_al = 0, mem_al = 0;
    int r = statx_dioalign(fd, &off_al, &mem_al);
    if (r < 0)
        return -EINVAL;
    size_t a = r > 0 ? (off_al > mem_al ? off_al : mem_al) : 4096;
    *align = is_pow2(a) && a >= 512 ? a : 4096;
    return 0;
}

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
    f->nchunks = 1;
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
    if (!(flags & (STN_GRIDFILE_BUFFERED | STN_GRIDFILE_PMEM))) {
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
    if (flags & STN_GRIDFILE_PMEM) {
        int rc = stn_pmem_map(f);
        if (rc)
            return fail_open(f, create, rc);
    }
    return 0;
}

int stn_gridfile_sync(stn_gridfile *f) {
    for (int k = 0; k < f->nparts; k++) { /* (a file in parts: every part's, gridparts.c) */
        int rc = stn_gridfile_sync(&f->part[k]);
        if (rc || k + 1 == f->nparts)
            return rc;
    }
    if (f->map)
        return stn_pmem_sync(f);
    if (fdatasync(f->fd) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot sync grid file '%s': %s", f->path, strerror(e));
    }
    return 0;
}

void stn_gridfile_close(stn_gridfile *f) {
    free(f->chunk_y);
    f->chunk_y = NULL;
    f->nchunks = 1;
    for (int k = 0; k < f->nparts; k++)
        stn_gridfile_close(&f->part[k]);
    free(f->part);
    free(f->part_y);
    f->part = NULL, f->part_y = NULL, f->nparts = 0;
    if (!f->path)
        return;
    stn_pmem_unmap(f);
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->path);
    f->path = NULL;
}
