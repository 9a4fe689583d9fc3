/* ring.c -- double-mapped ring buffers for the out-of-core window.
 *
 * The window of the out-of-core engine slides along one dimension.  Kept in a plain buffer it
 * must be moved (memmove) as it slides; kept in a ring, a window that wraps would break the
 * kernels' stride arithmetic.  Mapping the same memory twice, back to back, gives both: slice r
 * lives at (r mod C) and any C consecutive slices are contiguous.  A y-blocked window is one
 * such ring per z-plane, the planes 2 * bytes apart in virtual memory.  The memory is a memfd
 * (shared memory, counted by the memory cgroup like any other), so O_DIRECT reads and writes go
 * straight to and from it.
 *
 * Its pages are gathered into 2 MiB folios when it is made (MADV_COLLAPSE, Linux 6.1 on, whatever the
 * system's transparent huge page settings): a request out of the ring is then a few physically
 * contiguous pieces, not one piece a 4 KiB page, and a device that takes at most 254 pieces a
 * request (virtio) gets it in one request, not 4 to 16.  Left in 4 KiB pages (an older kernel, no
 * memory to compact), the ring works as well, its IO in more requests: the report says which
 * (io_pages; docs/design/026). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* (Linux 6.1; older headers) */
#endif
#define HUGE_BYTES ((size_t)2 << 20)

/* What the IO memory became (stn_io_pages), over the process. */
static uint64_t huge_bytes, small_bytes;
static int collapse_err, refusals; /* the last refusal, an errno (0: none), and how many */
static uint64_t collapse_ns;       /* spent gathering (the kernel may compact memory for it) */

/* Count a buffer of `total` bytes whose first `whole` (its whole 2 MiB) the kernel gathered, or refused to
 * (e: the errno; then all of it is in 4 KiB pages). */
static void count_pages(size_t total, size_t whole, int e) {
    if (e) {
        __atomic_store_n(&collapse_err, e, __ATOMIC_RELAXED);
        __atomic_add_fetch(&refusals, 1, __ATOMIC_RELAXED);
        whole = 0;
    }
    __atomic_add_fetch(&huge_bytes, (uint64_t)whole, __ATOMIC_RELAXED);
    __atomic_add_fetch(&small_bytes, (uint64_t)(total - whole), __ATOMIC_RELAXED);
}

/* [at, at + n), mapped, both 2 MiB multiples, gathered into 2 MiB pages: one page of each 2 MiB touched
 * (its byte read and written back; the collapse fills the untouched rest with zeros, copying nothing), then
 * MADV_COLLAPSE.  0 or an errno. */
static int collapse_range(char *at, size_t n) {
    double t0 = stn_now();
    for (size_t i = 0; i < n; i += HUGE_BYTES)
        *(volatile char *)(at + i) = *(volatile char *)(at + i);
    int e = madvise(at, n, MADV_COLLAPSE) != 0 ? errno : 0;
    __atomic_add_fetch(&collapse_ns, (uint64_t)((stn_now() - t0) * 1e9), __ATOMIC_RELAXED);
    return e;
}

/* The first `n` bytes of memfd fd (a multiple of 2 MiB) gathered into 2 MiB folios through a temporary
 * view of them at a 2 MiB boundary (the file's offsets and the addresses in step).  0 or an errno. */
static int collapse_fd(int fd, size_t n) {
    char *raw = mmap(NULL, n + HUGE_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return errno;
    char *at = (char *)(((uintptr_t)raw + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    int e = mmap(at, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ? errno : 0;
    if (!e)
        e = collapse_range(at, n);
    munmap(raw, n + HUGE_BYTES);
    return e;
}

/* Gather what of a new ring's memfd fills whole 2 MiB folios, and count what it became. */
static void gather_pages(int fd, size_t total) {
    size_t whole = total / HUGE_BYTES * HUGE_BYTES;
    count_pages(total, whole, whole > 0 ? collapse_fd(fd, whole) : 0);
}

void *stn_io_alloc(size_t n, size_t align) {
    size_t least = n >= HUGE_BYTES ? HUGE_BYTES : 4096, whole = n / HUGE_BYTES * HUGE_BYTES;
    char *p = stn_alloc(n, align > least ? align : least);
    if (p)
        count_pages(n, whole, whole > 0 ? collapse_range(p, whole) : 0);
    return p;
}

int stn_io_pages(uint64_t *huge, uint64_t *small, int *err) {
    *huge = __atomic_load_n(&huge_bytes, __ATOMIC_RELAXED);
    *small = __atomic_load_n(&small_bytes, __ATOMIC_RELAXED);
    *err = __atomic_load_n(&collapse_err, __ATOMIC_RELAXED);
    return __atomic_load_n(&refusals, __ATOMIC_RELAXED);
}

double stn_io_pages_seconds(void) { return (double)__atomic_load_n(&collapse_ns, __ATOMIC_RELAXED) * 1e-9; }

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
    if (!e)
        gather_pages(fd, total);
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
