/* alloc.c -- the engine's memory: aligned allocations (stn_alloc) and the live and peak bytes
 * of everything the engines hold, which the DRAM budget is checked against. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Every block carries a small header just below the pointer handed out, so that stn_free
 * knows the size to subtract without a global table.  The header sits in the alignment
 * padding: the block is allocated `align` bytes larger and the user part starts at
 * base + align, which keeps it aligned.  `mapped` is the length of an anonymous mapping (0: from
 * posix_memalign). */
typedef struct alloc_hdr {
    void *base; /* what posix_memalign or mmap gave */
    size_t n;
    size_t mapped;
    uint64_t magic;
} alloc_hdr;

/* Blocks this large are mapped, not taken from malloc: freed, they go back to the system at once.
 * glibc raises its mmap threshold each time it frees a mapped chunk (up to 32 MiB), after which
 * blocks of that size come from the heap and stay resident when freed (a startup measurement's
 * buffers stayed beside the engine's rings: 7.7 MiB over a 16 MiB budget). */
#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_MAP_MIN                                                                                        \
    SIZE_MAX /* (under AddressSanitizer every block from malloc: its redzones catch overruns) */
#else
#define ALLOC_MAP_MIN ((size_t)1 << 20)
#endif

void *stn_scratch_map(size_t n) {
#if defined(__SANITIZE_ADDRESS__)
    return calloc(1, n ? n : 1);
#else
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#endif
}

void stn_scratch_unmap(void *p, size_t n) {
#if defined(__SANITIZE_ADDRESS__)
    (void)n;
    free(p);
#else
    if (p)
        munmap(p, n ? n : 1);
#endif
}

#define ALLOC_MAGIC 0x53544E414C4C4F43ULL /* "STNALLOC" */
#define ALLOC_MIN_ALIGN 64                /* a cache line; also room for the header */

/* Updated with atomics: buffers may be allocated from several threads later (IO queues). */
static uint64_t live_bytes, peak_bytes;

static void note_peak(uint64_t now) {
    uint64_t old = __atomic_load_n(&peak_bytes, __ATOMIC_RELAXED);
    while (now > old &&
           !__atomic_compare_exchange_n(&peak_bytes, &old, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void *stn_alloc(size_t n, size_t align) {
    char hb[32], hl[32];
    if (align < ALLOC_MIN_ALIGN)
        align = ALLOC_MIN_ALIGN;
    if (align & (align - 1)) {
        stn_error(-EINVAL, "cannot allocate %zu bytes: alignment %zu is not a power of two", n, align);
        return NULL;
    }
    if (n > SIZE_MAX - align) {
        stn_error(-ENOMEM, "cannot allocate %zu bytes: the size overflows", n);
        return NULL;
    }
    void *base = NULL;
    size_t mapped = n >= ALLOC_MAP_MIN && n <= SIZE_MAX - 2 * align ? n + 2 * align : 0;
    int e = 0;
    if (mapped) /* (a mapping is page-aligned: the user part at the first multiple of align past it) */
        e = (base = stn_scratch_map(mapped)) ? 0 : errno;
    else
        e = posix_memalign(&base, align, n + align);
    if (e != 0) {
        stn_error(-ENOMEM, "cannot allocate %s (%zu bytes, aligned to %zu): %s (engine memory in use: %s)",
                  stn_fmt_bytes(hb, sizeof hb, n), n, align, strerror(e),
                  stn_fmt_bytes(hl, sizeof hl, stn_allocated_bytes()));
        return NULL;
    }
    char *p = (char *)(((uintptr_t)base + align + align - 1) & ~(uintptr_t)(align - 1));
    alloc_hdr *h = (alloc_hdr *)(p - sizeof(alloc_hdr));
    h->base = base;
    h->n = n;
    h->mapped = mapped;
    h->magic = ALLOC_MAGIC;
    note_peak(__atomic_add_fetch(&live_bytes, (uint64_t)n, __ATOMIC_RELAXED));
    return p;
}

void stn_free(void *p) {
    if (!p)
        return;
    alloc_hdr *h = (alloc_hdr *)((char *)p - sizeof(alloc_hdr));
    if (h->magic != ALLOC_MAGIC)
        return; /* not ours (or freed twice): leaking beats corrupting the heap */
    h->magic = 0;
    __atomic_sub_fetch(&live_bytes, (uint64_t)h->n, __ATOMIC_RELAXED);
    if (h->mapped)
        stn_scratch_unmap(h->base, h->mapped);
    else
        free(h->base);
}

/* Memory obtained some other way (the ring buffers' shared mappings) counted as engine memory. */
void stn_mem_account(int64_t delta) {
    if (delta >= 0)
        note_peak(__atomic_add_fetch(&live_bytes, (uint64_t)delta, __ATOMIC_RELAXED));
    else
        __atomic_sub_fetch(&live_bytes, (uint64_t)-delta, __ATOMIC_RELAXED);
}

uint64_t stn_allocated_bytes(void) { return __atomic_load_n(&live_bytes, __ATOMIC_RELAXED); }

uint64_t stn_peak_allocated_bytes(void) { return __atomic_load_n(&peak_bytes, __ATOMIC_RELAXED); }

void stn_alloc_reset_peak(void) { __atomic_store_n(&peak_bytes, stn_allocated_bytes(), __ATOMIC_RELAXED); }
