/* stats.c -- timers, engine memory accounting (stn_alloc) and the peak resident set. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

double stn_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const phase_names[STN_PHASE_N] = {"read", "write", "copy", "compute", "wait", "init"};

const char *stn_phase_name(int phase) {
    return phase >= 0 && phase < STN_PHASE_N ? phase_names[phase] : "unknown";
}

void stn_stats_add_time(stn_stats *st, int phase, double t0) {
    if (st && phase >= 0 && phase < STN_PHASE_N)
        st->seconds[phase] += stn_now() - t0;
}

/* ------------------------------------------------------------------ stn_alloc */

/* Every block carries a small header just below the pointer handed out, so that stn_free
 * knows the size to subtract without a global table.  The header sits in the alignment
 * padding: the block is allocated `align` bytes larger and the user part starts at
 * base + align, which keeps it aligned. */
typedef struct alloc_hdr {
    void *base;
    size_t n;
    uint64_t magic;
} alloc_hdr;

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
    int e = posix_memalign(&base, align, n + align);
    if (e != 0) {
        stn_error(-ENOMEM, "cannot allocate %s (%zu bytes, aligned to %zu): %s (engine memory in use: %s)",
                  stn_fmt_bytes(hb, sizeof hb, n), n, align, strerror(e),
                  stn_fmt_bytes(hl, sizeof hl, stn_allocated_bytes()));
        return NULL;
    }
    char *p = (char *)base + align;
    alloc_hdr *h = (alloc_hdr *)(p - sizeof(alloc_hdr));
    h->base = base;
    h->n = n;
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

/* ------------------------------------------------------------------ peak RSS */

/* VmHWM of /proc/self/status, in bytes (0 if unreadable).  Unlike getrusage's ru_maxrss it
 * can be reset (clear_refs), so a process that runs several stencils reports each one. */
static uint64_t read_vmhwm(void) {
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (uint64_t)kib * 1024u;
}

/* The proportional set size now (/proc/self/smaps_rollup "Pss"): resident memory with a page
 * mapped twice counted once, as the memory cgroup counts it (RSS counts each mapping; the
 * out-of-core window maps its rings twice).  0 where the kernel does not say. */
uint64_t stn_pss_bytes(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "re");
    char line[256];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Pss: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kib * 1024u;
}

uint64_t stn_peak_rss_bytes(void) {
    uint64_t hwm = read_vmhwm();
    if (hwm)
        return hwm;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024u; /* KiB on Linux */
}

void stn_stats_reset_peaks(void) {
    __atomic_store_n(&peak_bytes, stn_allocated_bytes(), __ATOMIC_RELAXED);
    /* "5" resets the peak RSS to the current RSS (Linux >= 4.0); failure only means the
     * report shows the process' peak instead of this run's. */
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, "5", 1);
        (void)w;
        close(fd);
    }
}
