/* ring.c -- double-mapped ring buffers for the out-of-core window.
 *
 * The window of the out-of-core engine slides along one dimension.  Kept in a plain buffer it
 * must be moved (memmove) as it slides; kept in a ring, a window that wraps would break the
 * kernels' stride arithmetic.  Mapping the same memory twice, back to back, gives both: slice r
 * lives at (r mod C) and any C consecutive slices are contiguous.  A y-blocked window is one
 * such ring per z-plane, the planes 2 * bytes apart in virtual memory.  The memory is a memfd
 * (shared memory, counted by the memory cgroup like any other), so O_DIRECT reads and writes go
 * straight to and from it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *stn_ring_alloc(size_t bytes, int64_t nplanes) {
    long page = sysconf(_SC_PAGESIZE);
    char hb[32];
    if (bytes == 0 || nplanes < 1 || page <= 0 || bytes % (size_t)page) {
        stn_error(-EINVAL, "ring buffer of %zu bytes x %lld planes: not a positive multiple of the page size",
                  bytes, (long long)nplanes);
        return NULL;
    }
    size_t total = bytes * (size_t)nplanes;
    int fd = memfd_create("stencilc-window", MFD_CLOEXEC);
    if (fd < 0) {
        stn_error(stn_neg_errno(errno), "cannot create a ring buffer of %s: memfd_create: %s",
                  stn_fmt_bytes(hb, sizeof hb, total), strerror(errno));
        return NULL;
    }
    void *base = MAP_FAILED;
    int e = 0;
    if (ftruncate(fd, (off_t)total) != 0)
        e = errno;
    if (!e && (base = mmap(NULL, 2 * total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
        e = errno;
    for (int64_t p = 0; !e && p < nplanes; p++) {
        char *at = (char *)base + (size_t)p * 2 * bytes;
        off_t off = (off_t)((size_t)p * bytes);
        if (mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, off) == MAP_FAILED ||
            mmap(at + bytes, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, off) == MAP_FAILED)
            e = errno;
    }
    close(fd); /* the mappings keep the memory */
    if (e) {
        if (base != MAP_FAILED)
            munmap(base, 2 * total);
        stn_error(stn_neg_errno(e), "cannot map a ring buffer of %s in %lld planes: %s%s",
                  stn_fmt_bytes(hb, sizeof hb, total), (long long)nplanes, strerror(e),
                  e == ENOMEM && nplanes > 1 ? " (vm.max_map_count may be too low for this many planes)"
                                             : "");
        return NULL;
    }
    stn_mem_account((int64_t)total);
    return base;
}

void stn_ring_free(void *p, size_t bytes, int64_t nplanes) {
    if (!p)
        return;
    munmap(p, 2 * bytes * (size_t)nplanes);
    stn_mem_account(-(int64_t)(bytes * (size_t)nplanes));
}
