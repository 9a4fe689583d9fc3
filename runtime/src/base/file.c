/* file.c -- full reads and writes, and files that appear under their name only when complete. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Linux moves at most about 2 GiB per read/write call; stay well below. */
#define IO_CHUNK ((size_t)1 << 30)

int stn_pread_full(int fd, void *buf, size_t n, uint64_t off, const char *path) {
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < IO_CHUNK ? n - done : IO_CHUNK;
        ssize_t got = pread(fd, (char *)buf + done, want, (off_t)(off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            return stn_error(stn_neg_errno(e), "cannot read %zu bytes at offset %llu of '%s': %s", want,
                             (unsigned long long)(off + done), path, strerror(e));
        }
        if (got == 0)
            return stn_error(-EIO, "'%s' ended early: read %zu of %zu bytes starting at offset %llu", path,
                             done, n, (unsigned long long)off);
        done += (size_t)got;
    }
    return 0;
}

/* ------------------------------------------------------------------ reads by several threads */

typedef struct pread_job {
    int fd;
    char *buf;
    size_t n;
    uint64_t off;
    const char *path;
    size_t next; /* the next chunk's index (atomic) */
    int rc;      /* the first failure (atomic, 0 until then) */
    char msg[1024];
} pread_job;

static void *pread_worker(void *arg) {
    pread_job *j = arg;
    for (;;) {
        size_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED), at = k * STN_PREAD_CHUNK;
        if (at >= j->n || __atomic_load_n(&j->rc, __ATOMIC_ACQUIRE) != 0)
            break;
        size_t len = j->n - at < STN_PREAD_CHUNK ? j->n - at : STN_PREAD_CHUNK;
        int rc = stn_pread_full(j->fd, j->buf + at, len, j->off + at, j->path);
        int zero = 0;
        if (rc && __atomic_compare_exchange_n(&j->rc, &zero, rc, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            snprintf(j->msg, sizeof j->msg, "%s", stn_errmsg()); /* (the message is per thread) */
        if (rc)
            break;
    }
    return NULL;
}

int stn_pread_parallel(int fd, void *buf, size_t n, uint64_t off, const char *path, int *readers) {
    pread_job j = {.fd = fd, .buf = buf, .n = n, .off = off, .path = path};
    size_t chunks = (n + STN_PREAD_CHUNK - 1) / STN_PREAD_CHUNK;
    int want = chunks < STN_PREAD_READERS ? (int)chunks : STN_PREAD_READERS, started = 0;
    pthread_t th[STN_PREAD_READERS];
    for (int t = 1; t < want; t++) /* (the caller is reader 0) */
        if (pthread_create(&th[started], NULL, pread_worker, &j) == 0)
            started++;
    pread_worker(&j);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    if (readers)
        *readers = started + 1;
    return j.rc ? stn_error(j.rc, "%s", j.msg) : 0;
}

int stn_write_full(int fd, const void *buf, size_t n, const char *path) {
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < IO_CHUNK ? n - done : IO_CHUNK;
        ssize_t put = write(fd, (const char *)buf + done, want);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0) {
            int e = put < 0 ? errno : EIO;
            return stn_error(stn_neg_errno(e), "cannot write %zu bytes to '%s' (written %zu of them): %s", n,
                             path, done, strerror(e));
        }
        done += (size_t)put;
    }
    return 0;
}

int stn_pwrite_full(int fd, const void *buf, size_t n, uint64_t off, const char *path) {
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < IO_CHUNK ? n - done : IO_CHUNK;
        ssize_t put = pwrite(fd, (const char *)buf + done, want, (off_t)(off + done));
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0) {
            int e = put < 0 ? errno : EIO;
            return stn_error(stn_neg_errno(e), "cannot write %zu bytes at offset %llu of '%s': %s", want,
                             (unsigned long long)(off + done), path, strerror(e));
        }
        done += (size_t)put;
    }
    return 0;
}

/* ------------------------------------------------------------------ atomic files */

/* Split `path` into its directory ("." if none) and basename. */
static int split_path(const char *path, char **dir, const char **base) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        *dir = strdup(".");
        *base = path;
    } else {
        *dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
        *base = slash + 1;
    }
    if (!*dir)
        return stn_error(-ENOMEM, "out of memory while opening '%s'", path);
    return 0;
}

/* What a file that is not a regular one is, for a message: "a FIFO", "a character device", ... */
static const char *file_kind(mode_t m) {
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "a special file";
}

int stn_open_input(const char *path) {
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer; a regular file ignores it */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* the user's input is never modified */
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return stn_error(stn_neg_errno(e), "cannot open '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return stn_error(S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL,
                         "cannot read '%s': it is %s, not a regular file (an input is read at offsets, "
                         "and more than once)",
                         path, file_kind(sb.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* Process pid has ended: no such process, or a zombie no one has reaped yet (in a container whose first
 * process does not reap orphans, an MPI rank ended by mpirun stays one). */
int stn_pid_gone(long pid) {
    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* "pid (comm) S ...": the state after the last ')' */
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* The temporaries a killed run left for this output (.BASE.partial-PID of a process that is gone): a
 * full-size file each, which nothing else removes.  Those of live processes stay theirs. */
static void afile_reap_orphans(const char *dir, const char *base) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    char prefix[4200];
    int n = snprintf(prefix, sizeof prefix, ".%s.partial-", base);
    struct dirent *de;
    while (n > 0 && (size_t)n < sizeof prefix && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, prefix, (size_t)n) != 0)
            continue;
        char *end;
        long pid = strtol(de->d_name + n, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid() || !stn_pid_gone(pid))
            continue;
        unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
}

static int afile_create_tmp(stn_afile *af) {
    /* O_EXCL: never follow a link somebody left under our temporary name.  A leftover from
     * a dead process that had our pid is ours to remove, so retry once after unlinking it. */
    for (int attempt = 0; attempt < 2; attempt++) {
        af->fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (af->fd >= 0) {
            af->created = 1;
            return 0;
        }
        if (errno != EEXIST || attempt > 0)
            break;
        unlink(af->tmp);
    }
    int e = errno;
    return stn_error(stn_neg_errno(e), "cannot create '%s' (the temporary file for '%s'): %s", af->tmp,
                     af->path, strerror(e));
}

/* Reserve the space now, so that a full disk fails before hours of computing, not after. */
static int afile_reserve(stn_afile *af, uint64_t size) {
    char hb[32];
    if (size == 0 || fallocate(af->fd, 0, 0, (off_t)size) == 0)
        return 0;
    int e = errno;
    if (e == EOPNOTSUPP || e == ENOSYS || e == EINVAL)
        return 0; /* the filesystem cannot reserve; we find out when writing */
    return stn_error(stn_neg_errno(e), "cannot reserve %s (%llu bytes) for '%s' in '%s': %s",
                     stn_fmt_bytes(hb, sizeof hb, size), (unsigned long long)size, af->path, af->dir,
                     strerror(e));
}

int stn_afile_open(stn_afile *af, const char *path, uint64_t size_hint) {
    memset(af, 0, sizeof *af);
    af->fd = -1;
    const char *base;
    struct stat sb;
    if (!path || !*path)
        return stn_error(-EINVAL, "cannot write a file with an empty name");
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) { /* the commit renames over it: a device would go */
        if (S_ISDIR(sb.st_mode))
            return stn_error(-EISDIR, "cannot write '%s': it is a directory", path);
        return stn_error(-EINVAL,
                         "cannot write '%s': it is %s, not a regular file (an output replaces only a "
                         "regular file)",
                         path, file_kind(sb.st_mode));
    }
    int rc = split_path(path, &af->dir, &base);
    if (rc)
        return rc;
    if (!*base) {
        free(af->dir);
        af->dir = NULL;
        return stn_error(-EISDIR, "cannot write '%s': it names a directory, not a file", path);
    }
    af->path = strdup(path);
    if (!af->path || asprintf(&af->tmp, "%s/.%s.partial-%ld", af->dir, base, (long)getpid()) < 0) {
        af->tmp = NULL;
        stn_afile_abort(af);
        return stn_error(-ENOMEM, "out of memory while opening '%s'", path);
    }
    afile_reap_orphans(af->dir, base);
    rc = afile_create_tmp(af);
    if (rc == 0)
        rc = afile_reserve(af, size_hint);
    if (rc) {
        stn_afile_abort(af);
        return rc;
    }
    return 0;
}

int stn_afile_write(stn_afile *af, const void *buf, size_t n) {
    af->synced = 0;
    int rc = stn_write_full(af->fd, buf, n, af->tmp);
    if (rc)
        return stn_error(rc, "cannot write '%s': %s", af->path, stn_errmsg());
    return 0;
}

/* sync_file_range's failure: an EIO or ENOSPC is the write's own (reported now, as fsync would later);
 * where the file system does not take it (EINVAL, ESPIPE, ENOSYS, EOPNOTSUPP) the file is written through
 * the page cache alone, as before (its final fsync still makes it durable). */
static int behind_failed(stn_afile *af, const char *what) {
    int e = errno;
    if (e == EINVAL || e == ESPIPE || e == ENOSYS || e == EOPNOTSUPP) {
        af->behind_off = 1, af->nbehind = 0, af->behind_bytes = 0, af->span_n = 0;
        return 0;
    }
    return stn_error(stn_neg_errno(e), "cannot write '%s': %s the write-back of '%s' failed: %s", af->path,
                     what, af->tmp, strerror(e));
}

/* The oldest range started: waited for, then dropped from the page cache. */
static int behind_settle(stn_afile *af) {
    int k = af->behind0;
    uint64_t lo = af->behind_lo[k], n = af->behind_n[k];
    af->behind0 = (k + 1) % STN_AFILE_RANGES, af->nbehind--, af->behind_bytes -= n;
    if (sync_file_range(af->fd, (off64_t)lo, (off64_t)n,
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) !=
        0)
        return behind_failed(af, "waiting for");
    (void)posix_fadvise(af->fd, (off_t)lo, (off_t)n, POSIX_FADV_DONTNEED); /* (advice: clean pages only) */
    return 0;
}

/* The span's write-back started, and the oldest settled past STN_AFILE_BEHIND on their way. */
static int behind_start(stn_afile *af) {
    uint64_t off = af->span_lo, n = af->span_n;
    af->span_n = 0;
    if (sync_file_range(af->fd, (off64_t)off, (off64_t)n, SYNC_FILE_RANGE_WRITE) != 0)
        return behind_failed(af, "starting");
    int rc = af->nbehind == STN_AFILE_RANGES ? behind_settle(af) : 0;
    if (rc || af->behind_off)
        return rc;
    int k = (af->behind0 + af->nbehind) % STN_AFILE_RANGES;
    af->behind_lo[k] = off, af->behind_n[k] = n, af->nbehind++, af->behind_bytes += n;
    while (rc == 0 && !af->behind_off && af->nbehind > 1 && af->behind_bytes > STN_AFILE_BEHIND)
        rc = behind_settle(af); /* (the range just started stays on its way) */
    return rc;
}

int stn_afile_behind(stn_afile *af, uint64_t off, uint64_t n) {
    if (af->behind_off || n == 0)
        return 0;
    int rc = 0;
    if (af->span_n > 0 && off == af->span_lo + af->span_n)
        af->span_n += n;
    else {
        if (af->span_n >= STN_AFILE_SPAN_MIN)
            rc = behind_start(af);
        af->span_lo = off, af->span_n = n;
    }
    if (rc == 0 && !af->behind_off && af->span_n >= STN_AFILE_SPAN)
        rc = behind_start(af);
    return rc;
}

int stn_afile_rewind(stn_afile *af) {
    af->synced = 0;
    af->nbehind = 0, af->behind_bytes = 0, af->span_n = 0; /* (emptied: nothing of it is left to wait for) */
    if (ftruncate(af->fd, 0) != 0 || lseek(af->fd, 0, SEEK_SET) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot write '%s': emptying '%s' failed: %s", af->path, af->tmp,
                         strerror(e));
    }
    return 0;
}

int stn_afile_sync(stn_afile *af) {
    if (af->synced)
        return 0;
    if (fsync(af->fd) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot write '%s': fsync of '%s' failed: %s", af->path, af->tmp,
                         strerror(e));
    }
    af->synced = 1;
    return 0;
}

static void afile_free(stn_afile *af) {
    free(af->path);
    free(af->tmp);
    free(af->dir);
    af->path = af->tmp = af->dir = NULL;
}

/* After a rename the new directory entry is durable only once the directory is synced: 0, or
 * the errno of a failed fsync (EINVAL, which some file systems give for a directory, is not one). */
static int sync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;
    if (fd >= 0) {
        if (fsync(fd) != 0 && errno != EINVAL)
            e = errno;
        close(fd);
    }
    return e;
}

int stn_afile_commit(stn_afile *af) {
    int rc = stn_afile_sync(af);
    if (rc) {
        stn_afile_abort(af);
        return rc;
    }
    if (close(af->fd) != 0) {
        int e = errno;
        af->fd = -1;
        rc = stn_error(stn_neg_errno(e), "cannot write '%s': closing '%s' failed: %s", af->path, af->tmp,
                       strerror(e));
        stn_afile_abort(af);
        return rc;
    }
    af->fd = -1;
    if (rename(af->tmp, af->path) != 0) {
        int e = errno;
        rc = stn_error(stn_neg_errno(e), "cannot rename '%s' to '%s': %s", af->tmp, af->path, strerror(e));
        stn_afile_abort(af);
        return rc;
    }
    af->created = 0; /* it is the final file now */
    int e = sync_dir(af->dir);
    if (e) /* (found by the fault campaign: an EIO here was ignored) */
        rc = stn_error(stn_neg_errno(e),
                       "'%s' is written, but syncing its directory '%s' failed: %s (after a crash the file "
                       "may be missing)",
                       af->path, af->dir, strerror(e));
    afile_free(af);
    return rc;
}

void stn_afile_abort(stn_afile *af) {
    if (af->fd >= 0)
        close(af->fd);
    af->fd = -1;
    if (af->tmp && af->created)
        unlink(af->tmp);
    af->created = 0;
    afile_free(af);
}

/* ------------------------------------------------------------------ same file? */

/* realpath of the directory + "/" + basename: canonical even when the file does not exist. */
static char *canonical_path(const char *path) {
    char *dir = NULL, *res = NULL;
    const char *base;
    if (split_path(path, &dir, &base) != 0)
        return NULL;
    char *rdir = realpath(dir, NULL);
    if (rdir && asprintf(&res, "%s/%s", rdir, base) < 0)
        res = NULL;
    free(rdir);
    free(dir);
    return res;
}

int stn_same_file(const char *a, const char *b) {
    if (strcmp(a, b) == 0)
        return 1;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = canonical_path(a), *cb = canonical_path(b);
    int same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}
