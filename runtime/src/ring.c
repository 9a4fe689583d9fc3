/* ring.c -- double-mapped ring buffers for the out-of-core window.
 *
 * The window of the out-of-core engine slides along the outer dimension.  Kept in a plain
 * buffer it must be moved (memmove) as it slides; kept in a ring, a window that wraps would
 * break the kernels' stride arithmetic.  Mapping the same memory twice, back to back, gives
 * both: slice z lives at (z mod C) and any C consecutive slices are contiguous.  The memory is
 * a memfd (shared memory, counted by the memory cgroup like any other), so O_DIRECT reads and
 * writes go straight to and from it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *stn_ring_alloc(size_t bytes) {
    long page = sysconf(_SC_PAGESIZE);
    char hb[32];
    if (bytes == 0 || page <= 0 || bytes % (size_t)page) {
        stn_error(-EINVAL, "ring buffer of %zu bytes: not a positive multiple of the page size", bytes);
        return NULL;
    }
    int fd = memfd_create("stencilc-window", MFD_CLOEXEC);
    if (fd < 0) {
        stn_error(stn_neg_errno(errno), "cannot create a ring buffer of %s: memfd_create: %s",
                  stn_fmt_bytes(hb, sizeof hb, bytes), strerror(errno));
        return NULL;
    }
    void *base = MAP_FAILED;
    int e = 0;
    if (ftruncate(fd, (off_t)bytes) != 0)
        e = errno;
    if (!e && (base = mmap(NULL, 2 * bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
        e = errno;
    if (!e && (mmap(base, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
               mmap((char *)base + bytes, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
                   MAP_FAILED))
        e = errno;
    close(fd); /* the mappings keep the memory */
    if (e) {
        if (base != MAP_FAILED)
            munmap(base, 2 * bytes);
        stn_error(stn_neg_errno(e), "cannot map a ring buffer of %s: %s", stn_fmt_bytes(hb, sizeof hb, bytes),
                  strerror(e));
        return NULL;
    }
    stn_mem_account((int64_t)bytes);
    return base;
}

void stn_ring_free(void *p, size_t bytes) {
    if (!p)
        return;
    munmap(p, 2 * bytes);
    stn_mem_account(-(int64_t)bytes);
}
