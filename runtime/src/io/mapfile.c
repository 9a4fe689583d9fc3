/* mapfile.c -- the arrays of --mode mmap, the papers' baseline: each a shared mapping of a file under
 * --dir, so that the kernel's page cache decides what is in DRAM and writes pages back to the device.
 * The file is unlinked at once (it lives as long as the mapping: nothing is left behind) and its
 * space reserved before it is mapped: a page the file system cannot hold would otherwise end the
 * run with SIGBUS, in the middle of a step, with no word of why. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_gridio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int stn_map_space(const char *dir, size_t bytes, uint64_t count) {
    uint64_t avail = 0, need = (uint64_t)bytes * count;
    int rc = stn_statvfs_free(dir, &avail);
    if (rc)
        return stn_error(rc, "--dir %s: %s", dir, stn_errmsg());
    if (need <= avail)
        return 0;
    char a[32], b[32], c[32];
    return stn_error(
        -ENOSPC, "--dir %s: the files of --mode mmap need %s (%llu array%s of %s), but only %s is free there",
        dir, stn_fmt_bytes(a, sizeof a, need), (unsigned long long)count, count == 1 ? "" : "s",
        stn_fmt_bytes(b, sizeof b, bytes), stn_fmt_bytes(c, sizeof c, avail));
}

/* Reserve the file's blocks: fallocate, or where the file system has none, posix_fallocate (which
 * writes them); 0 or the errno. */
static int reserve(int fd, size_t bytes) {
    if (fallocate(fd, 0, 0, (off_t)bytes) == 0)
        return 0;
    int e = errno;
    if (e == EOPNOTSUPP || e == ENOSYS)
        e = posix_fallocate(fd, 0, (off_t)bytes);
    return e;
}

int stn_map_file(const char *dir, const char *stencil, const char *field, int level, size_t bytes,
                 void **out) {
    char path[4096], hb[32], fb[32];
    *out = NULL;
    snprintf(path, sizeof path, "%s/%s.%s.%d.mmap-XXXXXX", dir, stencil, field, level);
    int fd = mkstemp(path);
    if (fd < 0)
        return stn_error(stn_neg_errno(errno), "--mode mmap: cannot create a file in '%s': %s", dir,
                         strerror(errno));
    unlink(path);
    int e = bytes ? reserve(fd, bytes) : 0;
    if (e) {
        close(fd);
        uint64_t avail = 0;
        if ((e == ENOSPC || e == EDQUOT) && stn_statvfs_free(dir, &avail) == 0)
            return stn_error(
                stn_neg_errno(e),
                "--mode mmap: cannot reserve %s (%zu bytes) for '%s' in '%s' (%s free there): %s",
                stn_fmt_bytes(hb, sizeof hb, bytes), bytes, path, dir, stn_fmt_bytes(fb, sizeof fb, avail),
                strerror(e));
        return stn_error(stn_neg_errno(e), "--mode mmap: cannot reserve %s (%zu bytes) for '%s': %s",
                         stn_fmt_bytes(hb, sizeof hb, bytes), bytes, path, strerror(e));
    }
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    e = p == MAP_FAILED ? errno : 0;
    close(fd);
    if (e)
        return stn_error(stn_neg_errno(e), "--mode mmap: cannot map %s of '%s': %s",
                         stn_fmt_bytes(hb, sizeof hb, bytes), path, strerror(e));
    *out = p;
    return 0;
}
